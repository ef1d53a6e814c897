// SPDX-License-Identifier: GPL-3.0-or-later
// Converters (COCO, VOC, CVAT/Label Studio YOLO), the folder door that writes a missing
// data.yaml, Ultralytics' autosplit rule and Open folder's layout detection.
#include "convert_fixtures.h"

#include "config/data_config.h"
#include "data/autosplit.h"
#include "data/convert.h"
#include "data/dataset.h"
#include "util/atomic_file.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

namespace {

using Severity = hr::Diagnostic::Severity;

std::string str(const QString& s) {
    return s.toStdString();
}

QString text(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString("<missing>");
}

/// Every file under `root` (relative path -> contents), to compare two runs.
std::map<QString, QByteArray> snapshot(const QString& root) {
    std::map<QString, QByteArray> files;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            files[QDir(root).relativeFilePath(path)] = f.readAll();
    }
    return files;
}

int skippedFor(const hr::ConvertReport& report, const std::string& reason) {
    for (const auto& [known, count] : report.skipped)
        if (known == reason)
            return count;
    return 0;
}

/// The problem whose message contains `part`, or nullptr.
const hr::Diagnostic* problemWith(const hr::ConvertReport& report, const std::string& part) {
    for (const auto& d : report.problems)
        if (d.message.find(part) != std::string::npos)
            return &d;
    return nullptr;
}

/// The label lines of a converted image, parsed.
std::vector<std::vector<double>> labelRows(const QString& path) {
    std::vector<std::vector<double>> rows;
    for (const QString& line : text(path).split('\n', Qt::SkipEmptyParts)) {
        std::vector<double> row;
        for (const QString& word : line.split(' ', Qt::SkipEmptyParts))
            row.push_back(word.toDouble());
        rows.push_back(row);
    }
    return rows;
}

hr::DatasetReport scan(const std::string& yaml, hr::Split split) {
    const auto loaded = hr::loadDataConfig(yaml, hr::DataConfigOptions{});
    if (!loaded.config)
        qFatal("%s", hr::formatDiagnostics(loaded.diagnostics).c_str());
    hr::ScanOptions options;
    options.useCache = false;
    return hr::scanDataset(*loaded.config, split, options);
}

} // namespace

class TestConvert : public QObject {
    Q_OBJECT
private slots:
    void autosplitMatchesUltralytics();
    void cocoRemapsSkipsAndKeepsBackgrounds();
    void cocoSecondRunGivesSameFiles();
    void cocoBrokenJsonLeavesNothing();
    void cocoRoboflowLayout();
    void vocDifficultAndClassList();
    void cvatYoloExport();
    void labelStudioYoloExport();
    void folderWritesDataYaml();
    void folderWithLabelsBesideImages();
    void folderNeedsEnoughNames();
    void outputMustBeNewOrEarlierConversion();
    void detectsEveryLayout();

private:
    QTemporaryDir m_dir;
};

void TestConvert::autosplitMatchesUltralytics() {
    // Python: random.seed(0); random.choices([0, 1, 2], weights=w, k=60), as
    // ultralytics.data.split.autosplit draws them.
    const QString ninetyTen = "000000000010000011010000000011000000000000000000010000010000";
    const QString threeWay = "110000100020010022120110000022010100101000100100021000020010";
    QString got;
    for (int v : hr::autosplitAssignment(60, hr::trainValWeights(0.1)))
        got += QString::number(v);
    QCOMPARE(got, ninetyTen);
    got.clear();
    for (int v : hr::autosplitAssignment(60, {0.7, 0.2, 0.1}))
        got += QString::number(v);
    QCOMPARE(got, threeWay);
}

void TestConvert::cocoRemapsSkipsAndKeepsBackgrounds() {
    const QString in = m_dir.filePath("coco"), out = m_dir.filePath("coco-yolo");
    QVERIFY(fixtures::makeCoco(in));
    const hr::ConvertReport report = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY2(report.ok(), report.format().c_str());
    // Category ids 1, 3, 7 become 0, 1, 2 with their names.
    const auto loaded = hr::loadDataConfig(report.dataYaml, hr::DataConfigOptions{});
    QVERIFY2(loaded.config, hr::formatDiagnostics(loaded.diagnostics).c_str());
    QCOMPARE(loaded.config->names, (std::vector<std::string>{"cat", "dog", "bird"}));
    // Every left-out entry is counted by reason and named by file and annotation id.
    QCOMPARE(skippedFor(report, "crowd box (iscrowd 1)"), 1);
    QCOMPARE(skippedFor(report, "unknown category id"), 1);
    QCOMPARE(skippedFor(report, "box outside the image"), 1);
    QCOMPARE(skippedFor(report, "box clipped to the image"), 1);
    const std::string trainJson =
        str(QDir(in).absoluteFilePath("annotations/instances_train.json"));
    const hr::Diagnostic* crowd = problemWith(report, "annotations[1] (id 101)");
    QVERIFY(crowd);
    QCOMPARE(crowd->file, trainJson);
    const hr::Diagnostic* unknown = problemWith(report, "(id 103): category_id 9");
    QVERIFY(unknown);
    QCOMPARE(unknown->file, trainJson);
    QVERIFY(problemWith(report, "(id 104): bbox [70, 50, 8, 8] lies outside the 64x48 image "
                                "t1.png"));

    // Labels: t0's dog (class 1) centred; t1's cat clipped at the right edge; t2 a background.
    auto rows = labelRows(out + "/labels/train/t0.txt");
    QCOMPARE(int(rows.size()), 1);
    QCOMPARE(rows[0], (std::vector<double>{1, 0.5, 0.5, 0.5, 0.5}));
    rows = labelRows(out + "/labels/train/t1.txt");
    QCOMPARE(int(rows.size()), 1);
    QCOMPARE(rows[0], (std::vector<double>{0, 0.875, 0.75, 0.25, 0.5}));
    QVERIFY(QFile::exists(out + "/labels/train/t2.txt"));
    QCOMPARE(text(out + "/labels/train/t2.txt"), QString());
    QCOMPARE(labelRows(out + "/labels/val/v0.txt")[0],
             (std::vector<double>{2, 0.5, 0.5, 0.75, 0.75}));

    // The converted set checks clean: 4 training images (one background), 1 validation image.
    const hr::DatasetReport train = scan(report.dataYaml, hr::Split::Train);
    QCOMPARE(train.stats.images, 4);
    QCOMPARE(train.stats.backgrounds, 1);
    QCOMPARE(train.stats.instances, 3);
    QCOMPARE(train.problems.size(), size_t(0));
    QCOMPARE(scan(report.dataYaml, hr::Split::Val).stats.instances, 1);
    QVERIFY(report.format().find("train: 4 images, 3 objects, 1 background\n") !=
            std::string::npos);
}

void TestConvert::cocoSecondRunGivesSameFiles() {
    const QString in = m_dir.filePath("coco2"), out = m_dir.filePath("coco2-yolo");
    QVERIFY(fixtures::makeCoco(in));
    const auto first = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY(first.ok());
    const auto before = snapshot(out);
    const auto second = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY2(second.ok(), second.format().c_str());
    QCOMPARE(snapshot(out), before);
    QCOMPARE(second.format(), first.format());
    // Nothing else is left beside the output (no temporary or replaced folder).
    QCOMPARE(QDir(m_dir.path()).entryList({"*coco2-yolo*"}, QDir::AllEntries | QDir::Hidden),
             QStringList{"coco2-yolo"});
}

void TestConvert::cocoBrokenJsonLeavesNothing() {
    const QString in = m_dir.filePath("broken"), out = m_dir.filePath("broken-yolo");
    QVERIFY(fixtures::makeCoco(in));
    QVERIFY(
        fixtures::writeBytes(in + "/annotations/instances_val.json",
                             "{\n  \"images\": [\n    {\"id\": 1,, \"file_name\": \"v0.png\"}\n"));
    const auto report = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY(!report.ok());
    QVERIFY2(report.error.find("instances_val.json: broken JSON: parse error at line 3") !=
                 std::string::npos,
             report.error.c_str());
    QVERIFY(!QFileInfo::exists(out));
    QCOMPARE(QDir(m_dir.path()).entryList({"*broken-yolo*"}, QDir::AllEntries | QDir::Hidden),
             QStringList{});
}

void TestConvert::cocoRoboflowLayout() {
    // Roboflow's COCO export: <split>/_annotations.coco.json with the images beside it.
    const QString in = m_dir.filePath("rfcoco"), out = m_dir.filePath("rfcoco-yolo");
    for (const char* split : {"train", "valid"}) {
        const QString folder = in + "/" + split;
        QVERIFY(fixtures::writeImage(folder + "/a_jpg.rf.1.png", 64, 48));
        QVERIFY(fixtures::writeBytes(
            folder + "/_annotations.coco.json",
            R"({"images": [{"id": 0, "file_name": "a_jpg.rf.1.png", "width": 64, "height": 48}],
                "annotations": [{"id": 0, "image_id": 0, "category_id": 1, "bbox": [0, 0, 32, 24],
                                 "area": 768, "iscrowd": 0}],
                "categories": [{"id": 0, "name": "tools"}, {"id": 1, "name": "hammer"}]})"));
    }
    const hr::FolderLayout layout = hr::detectLayout(str(in));
    QCOMPARE(int(layout.kind), int(hr::FolderLayout::Kind::Convertible));
    QCOMPARE(int(*layout.format), int(hr::SourceFormat::Coco));
    const auto report = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY2(report.ok(), report.format().c_str());
    QCOMPARE(scan(report.dataYaml, hr::Split::Val).stats.images, 1); // "valid" is val
    QCOMPARE(labelRows(out + "/labels/train/a_jpg.rf.1.txt")[0],
             (std::vector<double>{1, 0.25, 0.25, 0.5, 0.5}));
}

void TestConvert::vocDifficultAndClassList() {
    const QString in = m_dir.filePath("voc");
    QVERIFY(fixtures::makeVoc(in));
    for (bool skip : {false, true}) {
        const QString out = m_dir.filePath(skip ? "voc-skip" : "voc-keep");
        hr::ConvertOptions options;
        options.skipDifficult = skip;
        const auto report = hr::convertDataset(hr::SourceFormat::Voc, str(in), str(out), options);
        QVERIFY2(report.ok(), report.format().c_str());
        // The broken file is named with its line and left out; the rest converts.
        const hr::Diagnostic* broken = problemWith(report, "broken XML");
        QVERIFY(broken);
        QCOMPARE(broken->file, str(QDir(in).absoluteFilePath("Annotations/z.xml")));
        QCOMPARE(broken->line, 4);
        const auto loaded = hr::loadDataConfig(report.dataYaml, hr::DataConfigOptions{});
        QVERIFY(loaded.config);
        QCOMPARE(loaded.config->names, (std::vector<std::string>{"car", "person"}));
        QCOMPARE(skippedFor(report, "difficult object (--skip-difficult)"), skip ? 1 : 0);
        // No ImageSets: 6 images split 90/10 by the autosplit draw (000000 gives val nothing,
        // so the last training image validates).
        const auto train = scan(report.dataYaml, hr::Split::Train);
        const auto val = scan(report.dataYaml, hr::Split::Val);
        QCOMPARE(train.stats.images + val.stats.images, 6);
        QCOMPARE(val.stats.images, 1);
        QCOMPARE(train.stats.instances + val.stats.instances, skip ? 6 : 7);
        // VOC's 1-based box (17, 13)-(48, 36) in 64x48, as Ultralytics' VOC script computes it.
        const QString label = out + "/labels/train/img1.txt";
        QCOMPARE(labelRows(label)[0],
                 (std::vector<double>{1, 0.492188, 0.489583, 0.484375, 0.479167}));
    }
}

void TestConvert::cvatYoloExport() {
    const QString in = m_dir.filePath("cvat"), out = m_dir.filePath("cvat-yolo");
    QVERIFY(fixtures::makeCvat(in));
    const auto report = hr::convertDataset(hr::SourceFormat::CvatYolo, str(in), str(out));
    QVERIFY2(report.ok(), report.format().c_str());
    const hr::Diagnostic* missing = problemWith(report, "'data/obj_train_data/missing.png'");
    QVERIFY(missing);
    QCOMPARE(missing->line, 7);
    QVERIFY(!problemWith(report, "boat task")); // a comment line, as in a data set's lists
    QCOMPARE(skippedFor(report, "image without a label file (kept as a background)"), 1);
    const auto train = scan(report.dataYaml, hr::Split::Train);
    const auto val = scan(report.dataYaml, hr::Split::Val);
    QCOMPARE(train.names, (std::vector<std::string>{"boat", "buoy"}));
    QCOMPARE(train.stats.images + val.stats.images, 5);
    QCOMPARE(train.stats.instances + val.stats.instances, 4);
    QCOMPARE(train.problems.size() + val.problems.size(), size_t(0));
}

void TestConvert::labelStudioYoloExport() {
    const QString in = m_dir.filePath("ls"), out = m_dir.filePath("ls-yolo");
    QVERIFY(fixtures::makeLabelStudio(in));
    const auto report = hr::convertDataset(hr::SourceFormat::LabelStudioYolo, str(in), str(out));
    QVERIFY2(report.ok(), report.format().c_str());
    const auto train = scan(report.dataYaml, hr::Split::Train);
    const auto val = scan(report.dataYaml, hr::Split::Val);
    QCOMPARE(train.names, (std::vector<std::string>{"apple", "pear"}));
    QCOMPARE(train.stats.images + val.stats.images, 5);
    QCOMPARE(train.stats.instances + val.stats.instances, 5);
}

void TestConvert::folderWritesDataYaml() {
    const QString root = m_dir.filePath("folder");
    QVERIFY(fixtures::makeFolder(root, 20));
    const auto report = hr::writeFolderDataYaml(str(root));
    QVERIFY2(report.ok(), report.format().c_str());
    QCOMPARE(report.dataYaml, str(root + "/data.yaml"));
    // Ultralytics' autosplit of 20 sorted files: val gets 010 and 016..017, 019 ("...0110100").
    const QStringList val = text(root + "/autosplit_val.txt").split('\n', Qt::SkipEmptyParts);
    QCOMPARE(val, (QStringList{"./images/010.png", "./images/016.png", "./images/017.png",
                               "./images/019.png"}));
    QCOMPARE(text(root + "/autosplit_train.txt").split('\n', Qt::SkipEmptyParts).size(), 16);
    // Classes from the labels' largest id; the set loads and scans.
    const auto loaded = hr::loadDataConfig(report.dataYaml, hr::DataConfigOptions{});
    QVERIFY2(loaded.config, hr::formatDiagnostics(loaded.diagnostics).c_str());
    QCOMPARE(loaded.config->names, (std::vector<std::string>{"class0", "class1", "class2"}));
    QCOMPARE(scan(report.dataYaml, hr::Split::Train).stats.instances, 16);
    QCOMPARE(scan(report.dataYaml, hr::Split::Val).stats.instances, 4);
    // A second call refuses: the data.yaml exists now.
    QVERIFY(!hr::writeFolderDataYaml(str(root)).ok());

    // classes.txt names them; given names win over it.
    const QString named = m_dir.filePath("named");
    QVERIFY(fixtures::makeFolder(named, 4));
    QVERIFY(fixtures::writeBytes(named + "/labels/classes.txt", "red\ngreen\nblue\n"));
    QVERIFY(hr::writeFolderDataYaml(str(named)).ok());
    QCOMPARE(hr::loadDataConfig(str(named + "/data.yaml")).config->names,
             (std::vector<std::string>{"red", "green", "blue"}));
}

void TestConvert::folderWithLabelsBesideImages() {
    const QString root = m_dir.filePath("flat");
    for (int i = 0; i < 3; ++i) {
        QVERIFY(fixtures::writeImage(root + QStringLiteral("/p%1.png").arg(i), 64, 48));
        QVERIFY(
            fixtures::writeBytes(root + QStringLiteral("/p%1.txt").arg(i), "0 0.5 0.5 0.2 0.2\n"));
    }
    const hr::FolderLayout layout = hr::detectLayout(str(root));
    QCOMPARE(int(layout.kind), int(hr::FolderLayout::Kind::ImagesAndLabels));
    QVERIFY(layout.labelsBeside);
    hr::ConvertOptions options;
    options.names = {"screw"};
    const auto report = hr::writeFolderDataYaml(str(root), options);
    QVERIFY2(report.ok(), report.format().c_str());
    QCOMPARE(text(root + "/autosplit_val.txt"), QString("./p2.png\n"));
    const auto train = scan(report.dataYaml, hr::Split::Train);
    QCOMPARE(train.names, std::vector<std::string>{"screw"});
    QCOMPARE(train.stats.instances, 2);
}

void TestConvert::folderNeedsEnoughNames() {
    const QString root = m_dir.filePath("fewnames");
    QVERIFY(fixtures::makeFolder(root, 3));
    hr::ConvertOptions options;
    options.names = {"only"};
    const auto report = hr::writeFolderDataYaml(str(root), options);
    QVERIFY(!report.ok());
    QVERIFY2(report.error.find("class id 2 but only 1 names") != std::string::npos,
             report.error.c_str());
    QVERIFY(!QFile::exists(root + "/data.yaml"));
}

void TestConvert::outputMustBeNewOrEarlierConversion() {
    const QString in = m_dir.filePath("coco3"), out = m_dir.filePath("mine");
    QVERIFY(fixtures::makeCoco(in));
    QVERIFY(fixtures::writeBytes(out + "/notes.txt", "my own file"));
    const auto report = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY(!report.ok());
    QVERIFY(report.error.find("is not an earlier conversion") != std::string::npos);
    QCOMPARE(text(out + "/notes.txt"), QString("my own file"));
    // Inside the input is refused too.
    QVERIFY(!hr::convertDataset(hr::SourceFormat::Coco, str(in), str(in + "/out")).ok());
}

void TestConvert::detectsEveryLayout() {
    const QString base = m_dir.filePath("detect");
    QVERIFY(fixtures::makeCoco(base + "/coco"));
    QVERIFY(fixtures::makeVoc(base + "/voc"));
    QVERIFY(fixtures::makeCvat(base + "/cvat"));
    QVERIFY(fixtures::makeLabelStudio(base + "/ls"));
    QVERIFY(fixtures::makeFolder(base + "/folder", 3));
    QVERIFY(fixtures::writeBytes(base + "/rf/data.yaml",
                                 "train: ../train/images\nroboflow:\n  v: 1\n"));
    QVERIFY(QDir().mkpath(base + "/empty"));
    using Kind = hr::FolderLayout::Kind;
    const struct {
        const char* folder;
        Kind kind;
        std::optional<hr::SourceFormat> format;
        const char* words;
    } cases[] = {
        {"coco", Kind::Convertible, hr::SourceFormat::Coco, "COCO JSON"},
        {"voc", Kind::Convertible, hr::SourceFormat::Voc, "Pascal VOC XML (7 files"},
        {"cvat", Kind::Convertible, hr::SourceFormat::CvatYolo, "CVAT YOLO export"},
        {"ls", Kind::ImagesAndLabels, hr::SourceFormat::Folder, "Label Studio YOLO export"},
        {"folder", Kind::ImagesAndLabels, hr::SourceFormat::Folder, "images/ and labels/"},
        {"rf", Kind::DataYaml, std::nullopt, "Roboflow export"},
        {"empty", Kind::Nothing, std::nullopt, ""},
    };
    for (const auto& c : cases) {
        const hr::FolderLayout layout = hr::detectLayout(str(base + "/" + c.folder));
        QVERIFY2(layout.kind == c.kind, c.folder);
        QVERIFY2(layout.format == c.format, c.folder);
        QVERIFY2(layout.description.find(c.words) != std::string::npos, layout.description.c_str());
    }
    QCOMPARE(hr::detectLayout(str(base + "/ls")).names,
             (std::vector<std::string>{"apple", "pear"}));
    QVERIFY(hr::detectLayout(str(base + "/ls")).labelStudio);
    QVERIFY(hr::detectLayout(str(base + "/rf")).roboflow);
    QVERIFY(!hr::detectLayout(str(base + "/folder")).labelsBeside);
    QCOMPARE(hr::detectLayout(str(base + "/coco")).files,
             (std::vector<std::string>{"annotations/instances_train.json",
                                       "annotations/instances_val.json"}));
    QCOMPARE(hr::detectLayout(str(base + "/voc")).files, std::vector<std::string>{"Annotations"});
    QCOMPARE(hr::detectLayout(str(base + "/folder")).names,
             (std::vector<std::string>{"class0", "class1", "class2"}));
}

QTEST_APPLESS_MAIN(TestConvert)
#include "test_convert.moc"
