// SPDX-License-Identifier: GPL-3.0-or-later
// Settings checked against the machine (nproc, the memory a run needs) and imgsz's own bound.
#include "config/machine_limits.h"
#include "config/train_config.h"

#include <QtTest>

namespace {

hr::MachineFacts twoCores() {
    hr::MachineFacts m;
    m.cores = 2;
    m.totalBytes = std::int64_t(8) << 30;
    m.availableBytes = std::int64_t(6) << 30;
    return m;
}

QString text(const hr::Diagnostics& d) {
    return QString::fromStdString(hr::formatDiagnostics(d));
}

} // namespace

class TestMachineLimits : public QObject {
    Q_OBJECT
private slots:
    void fitsWithinTheMachine();
    void nprocAboveTheCoresIsNamed();
    void memoryNamesNcWhenClassScoresDominate();
    void memoryNamesImgszOtherwise();
    void imgszHasAnUpperBound();
};

void TestMachineLimits::fitsWithinTheMachine() {
    hr::TrainConfig c;
    c.nproc = 2;
    hr::RunMemoryNeed need;
    need.bytes = std::int64_t(5) << 30;
    QVERIFY(hr::checkMachineLimits(c, 80, twoCores(), need).empty());
}

void TestMachineLimits::nprocAboveTheCoresIsNamed() {
    hr::TrainConfig c;
    c.nproc = 64;
    const hr::Diagnostics d = hr::checkMachineLimits(c, 80, twoCores(), {});
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(QString::fromStdString(d[0].key), QString("nproc"));
    QCOMPARE(QString::fromStdString(d[0].code), QString("nproc_cores"));
    QVERIFY2(text(d).contains("this machine has 2 CPU cores") && text(d).contains("--force"),
             qPrintable(text(d)));
}

void TestMachineLimits::memoryNamesNcWhenClassScoresDominate() {
    hr::TrainConfig c;
    c.batch = 8;
    hr::RunMemoryNeed need;
    need.bytes = std::int64_t(70) << 30;
    need.classScores = std::int64_t(60) << 30;
    const hr::Diagnostics d = hr::checkMachineLimits(c, 100000, twoCores(), need);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(QString::fromStdString(d[0].key), QString("nc"));
    QVERIFY2(text(d).contains("the scores of 100000 classes alone take 60.0 GiB") &&
                 text(d).contains("6.00 GiB available of 8.00 GiB"),
             qPrintable(text(d)));
}

void TestMachineLimits::memoryNamesImgszOtherwise() {
    hr::TrainConfig c;
    hr::RunMemoryNeed need;
    need.bytes = std::int64_t(7) << 30;
    const hr::Diagnostics d = hr::checkMachineLimits(c, 80, twoCores(), need);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(QString::fromStdString(d[0].key), QString("imgsz"));
    QCOMPARE(QString::fromStdString(d[0].code), QString("memory_machine"));
}

void TestMachineLimits::imgszHasAnUpperBound() {
    hr::TrainConfig c;
    c.imgsz = 1000000000; // a multiple of 32: only the upper bound refuses it
    const hr::Diagnostics d = hr::validate(c, "command line");
    QVERIFY2(text(d).contains("image size must be at most 16384, got 1000000000"),
             qPrintable(text(d)));
    c.imgsz = 16384;
    QVERIFY(!hr::hasErrors(hr::validate(c, "command line")));
}

QTEST_GUILESS_MAIN(TestMachineLimits)
#include "test_machine_limits.moc"
