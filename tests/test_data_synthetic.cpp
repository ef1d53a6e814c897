// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/synthetic_dataset.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/core.hpp>

#include <cstdlib>
#include <future>
#include <set>

namespace {

QMap<QString, QByteArray> readTree(const QString& root) {
    QMap<QString, QByteArray> files;
    QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            files[QDir(root).relativeFilePath(path)] = f.readAll();
    }
    return files;
}

hr::SyntheticOptions small(std::uint64_t seed) {
    hr::SyntheticOptions o;
    o.train = 6;
    o.val = 2;
    o.imgsz = 96;
    o.seed = seed;
    return o;
}

} // namespace

class TestDataSynthetic : public QObject {
    Q_OBJECT
private slots:
    void renderIsDeterministic();
    void labelsAreValidBoxes();
    void dataSetHasVariety();
    void sameSeedGivesByteIdenticalFiles();
    void fewerClassesMakeASmallerTask();
    void builtinDataSetIsCreatedOnceUnderRace();
};

void TestDataSynthetic::renderIsDeterministic() {
    const hr::SyntheticOptions o = small(7);
    const auto a = hr::renderSyntheticImage(o, false, 3);
    const auto b = hr::renderSyntheticImage(o, false, 3);
    QCOMPARE(a.bgr.size(), cv::Size(96, 96));
    QCOMPARE(a.bgr.type(), CV_8UC3);
    QCOMPARE(cv::norm(a.bgr, b.bgr, cv::NORM_INF), 0.0);
    QCOMPARE(a.labels.size(), b.labels.size());
    // Another index, split or seed gives another image.
    QVERIFY(cv::norm(a.bgr, hr::renderSyntheticImage(o, false, 4).bgr, cv::NORM_L1) > 0);
    QVERIFY(cv::norm(a.bgr, hr::renderSyntheticImage(o, true, 3).bgr, cv::NORM_L1) > 0);
    QVERIFY(cv::norm(a.bgr, hr::renderSyntheticImage(small(8), false, 3).bgr, cv::NORM_L1) > 0);
}

void TestDataSynthetic::labelsAreValidBoxes() {
    hr::SyntheticOptions o;
    o.imgsz = 128;
    const int nc = static_cast<int>(hr::syntheticClassNames().size());
    QVERIFY(nc >= 6);
    for (int i = 0; i < 30; ++i) {
        for (const auto& b : hr::renderSyntheticImage(o, false, i).labels) {
            QVERIFY(b.cls >= 0 && b.cls < nc);
            QVERIFY(b.w > 0 && b.h > 0);
            QVERIFY(b.cx - b.w / 2 >= -1e-5f && b.cx + b.w / 2 <= 1 + 1e-5f);
            QVERIFY(b.cy - b.h / 2 >= -1e-5f && b.cy + b.h / 2 <= 1 + 1e-5f);
        }
    }
}

void TestDataSynthetic::dataSetHasVariety() {
    // Enough variety that a detector cannot learn it in one epoch: every class occurs, object
    // counts and sizes vary widely, and the objects differ from the background.
    hr::SyntheticOptions o;
    o.imgsz = 128;
    std::set<int> classes, counts;
    float minSide = 1.f, maxSide = 0.f;
    int objects = 0;
    double contrast = 0.0;
    const int images = 60;
    for (int i = 0; i < images; ++i) {
        const auto im = hr::renderSyntheticImage(o, false, i);
        counts.insert(static_cast<int>(im.labels.size()));
        for (const auto& b : im.labels) {
            classes.insert(b.cls);
            minSide = std::min(minSide, std::max(b.w, b.h));
            maxSide = std::max(maxSide, std::max(b.w, b.h));
            ++objects;
        }
        cv::Scalar mean, stddev;
        cv::meanStdDev(im.bgr, mean, stddev);
        contrast += stddev[0];
    }
    QCOMPARE(int(classes.size()), int(hr::syntheticClassNames().size()));
    QVERIFY2(counts.size() >= 5, "object counts per image should vary");
    QVERIFY(objects > 2 * images);
    QVERIFY2(maxSide > 4 * minSide, qPrintable(QString("sizes %1..%2").arg(minSide).arg(maxSide)));
    QVERIFY(contrast / images > 10.0);
}

void TestDataSynthetic::sameSeedGivesByteIdenticalFiles() {
    QTemporaryDir a, b, c;
    std::string error;
    QVERIFY2(hr::makeSyntheticDataset(a.path().toStdString(), small(3), &error), error.c_str());
    QVERIFY2(hr::makeSyntheticDataset(b.path().toStdString(), small(3), &error), error.c_str());
    QVERIFY2(hr::makeSyntheticDataset(c.path().toStdString(), small(4), &error), error.c_str());
    const auto filesA = readTree(a.path());
    const auto filesB = readTree(b.path());
    // 6 + 2 images, as many label files, and data.yaml.
    QCOMPARE(filesA.size(), 17);
    QVERIFY(filesA.contains("images/train/000005.jpg"));
    QVERIFY(filesA.contains("labels/val/000001.txt"));
    QVERIFY(filesA.contains("data.yaml"));
    QCOMPARE(filesA.keys(), filesB.keys());
    for (const QString& name : filesA.keys())
        QVERIFY2(filesA[name] == filesB[name], qPrintable(name + " differs"));
    QVERIFY(filesA["images/train/000000.jpg"] != readTree(c.path())["images/train/000000.jpg"]);
    const QString yaml = QString::fromUtf8(filesA["data.yaml"]);
    QVERIFY(yaml.contains("train: images/train"));
    QVERIFY(yaml.contains("val: images/val"));
    QVERIFY(yaml.contains("0: circle"));
}

void TestDataSynthetic::fewerClassesMakeASmallerTask() {
    hr::SyntheticOptions o = small(3);
    o.train = 40;
    o.classes = 3;
    std::set<int> seen;
    for (int i = 0; i < o.train; ++i)
        for (const auto& b : hr::renderSyntheticImage(o, false, i).labels)
            seen.insert(b.cls);
    QCOMPARE(seen, (std::set<int>{0, 1, 2}));
    QTemporaryDir dir;
    std::string error;
    QVERIFY2(hr::makeSyntheticDataset(dir.path().toStdString(), o, &error), error.c_str());
    const QString yaml = QString::fromUtf8(readTree(dir.path())["data.yaml"]);
    QVERIFY2(yaml.contains("nc: 3\n") && yaml.contains("2: triangle") &&
                 !yaml.contains("3: star") && yaml.contains("--classes 3"),
             qPrintable(yaml));
    o.classes = 8;
    QVERIFY(!hr::makeSyntheticDataset(dir.path().toStdString() + "/b", o, &error));
    QVERIFY2(error.find("classes 1..7") != std::string::npos, error.c_str());
}

void TestDataSynthetic::builtinDataSetIsCreatedOnceUnderRace() {
    QTemporaryDir dir;
    const QByteArray target = (dir.path() + "/cache/builtin").toUtf8();
    qputenv("HEADROOM_BUILTIN_DATA", target);
    QCOMPARE(QString::fromStdString(hr::builtinDatasetDir()), QString::fromUtf8(target));
    auto make = [] {
        std::string error;
        std::string path = hr::ensureBuiltinDataset(&error);
        return path.empty() ? "error: " + error : path;
    };
    auto first = std::async(std::launch::async, make);
    auto second = std::async(std::launch::async, make);
    const std::string a = first.get(), b = second.get();
    QCOMPARE(QString::fromStdString(a), QString::fromUtf8(target + "/data.yaml"));
    QCOMPARE(QString::fromStdString(b), QString::fromStdString(a));
    // Nothing but the finished data set is left behind, and it has the default size.
    QCOMPARE(QDir(dir.path() + "/cache").entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{"builtin"});
    QCOMPARE(QDir(target + "/images/train").entryList(QDir::Files).size(), 256);
    QCOMPARE(QDir(target + "/images/val").entryList(QDir::Files).size(), 64);
    // A second call finds it and returns at once.
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(QString::fromStdString(make()), QString::fromStdString(a));
    QVERIFY(timer.elapsed() < 1000);
    qunsetenv("HEADROOM_BUILTIN_DATA");
}

QTEST_APPLESS_MAIN(TestDataSynthetic)
#include "test_data_synthetic.moc"
