// SPDX-License-Identifier: GPL-3.0-or-later
// Inputs written by someone else, read as a hostile user would write them: converter entries
// that climb out of the input folder, and (with the CLI) the exit code a refusal gives.
#include "cli_run.h"
#include "convert_fixtures.h"

#include "data/convert.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

namespace {

std::string str(const QString& s) {
    return s.toStdString();
}

/// One COCO file with one image entry named `fileName`, in `root`/annotations.
bool writeOneImageCoco(const QString& root, const QString& fileName) {
    return fixtures::writeBytes(root + "/annotations/instances_train.json",
                                R"({"images": [{"id": 1, "file_name": ")" + fileName.toUtf8() +
                                    R"(", "width": 64, "height": 48}],
  "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [8, 6, 20, 20]}],
  "categories": [{"id": 1, "name": "cat"}]})");
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT
private slots:
    void cocoRefusesImagesOutsideTheInput_data();
    void cocoRefusesImagesOutsideTheInput();
    void systemFoldersAreNeverRead();
    void imageRootAllowsASecondFolder();
    void cliRefusalExitsNonZero();

private:
    QTemporaryDir m_dir;
};

void TestHostileInputs::cocoRefusesImagesOutsideTheInput_data() {
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<bool>("symlink");
    QTest::newRow("absolute") << "/etc/passwd" << false;
    // From in/annotations/ two levels up is the test's folder, where secret.png lies.
    QTest::newRow("climbing") << "../../secret.png" << false;
    QTest::newRow("symlink") << "link.png" << true;
}

void TestHostileInputs::cocoRefusesImagesOutsideTheInput() {
    QFETCH(QString, fileName);
    QFETCH(bool, symlink);
    const QString base = m_dir.filePath(QTest::currentDataTag());
    const QString in = base + "/in", out = base + "/out";
    QVERIFY(fixtures::writeImage(base + "/secret.png", 64, 48));
    QVERIFY(writeOneImageCoco(in, fileName));
    if (symlink)
        QVERIFY(QFile::link(base + "/secret.png", in + "/annotations/link.png"));

    const hr::ConvertReport report = hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out));
    QVERIFY2(!report.ok(), report.format().c_str());
    QVERIFY2(report.error.find("outside the input folder") != std::string::npos,
             report.error.c_str());
    // The entry is named, in the error and in the problems.
    QVERIFY2(report.error.find("images[0] (id 1)") != std::string::npos, report.error.c_str());
    const hr::Diagnostic* refusal = nullptr;
    for (const hr::Diagnostic& d : report.problems)
        if (d.message.find("lies outside the input folder") != std::string::npos) {
            QVERIFY2(!refusal, "the entry is refused once");
            refusal = &d;
        }
    QVERIFY(refusal);
    QVERIFY(refusal->file.find("instances_train.json") != std::string::npos);
    QVERIFY(refusal->message.find("images[0] (id 1)") != std::string::npos);
    // Nothing was written or linked.
    QVERIFY(!QFileInfo::exists(out));
    QCOMPARE(QDir(base).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{"in", "secret.png"}));
}

void TestHostileInputs::systemFoldersAreNeverRead() {
    // Not even with the whole machine allowed as an image root.
    const QString base = m_dir.filePath("system");
    for (const char* name :
         {"/proc/self/environ", "/proc/self/status", "/sys/kernel/uevent_seqnum"}) {
        const QString in = base + "/in-" + QFileInfo(name).fileName();
        QVERIFY(writeOneImageCoco(in, name));
        hr::ConvertOptions options;
        options.imageRoots = {"/"};
        const hr::ConvertReport report =
            hr::convertDataset(hr::SourceFormat::Coco, str(in), str(in + "-out"), options);
        QVERIFY2(!report.ok(), name);
        QVERIFY(!QFileInfo::exists(in + "-out"));
    }
}

void TestHostileInputs::imageRootAllowsASecondFolder() {
    const QString base = m_dir.filePath("root");
    const QString in = base + "/in", out = base + "/out", shared = base + "/shared";
    QVERIFY(fixtures::writeImage(shared + "/s0.png", 64, 48));
    QVERIFY(writeOneImageCoco(in, shared + "/s0.png"));
    QVERIFY(!hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out)).ok());

    hr::ConvertOptions options;
    options.imageRoots = {str(shared)};
    const hr::ConvertReport report =
        hr::convertDataset(hr::SourceFormat::Coco, str(in), str(out), options);
    QVERIFY2(report.ok(), report.format().c_str());
    QVERIFY(QFileInfo::exists(out + "/images/train/s0.png") ||
            QFileInfo::exists(out + "/images/val/s0.png"));
}

void TestHostileInputs::cliRefusalExitsNonZero() {
    const QString base = m_dir.filePath("cli");
    const QString in = base + "/in", out = base + "/out";
    QVERIFY(writeOneImageCoco(in, "/etc/passwd"));
    const clitest::CliResult refused =
        clitest::runCli({"convert", "--from", "coco", "--in", in, "--out", out});
    QVERIFY2(refused.exitCode != 0 && refused.exitCode != -1, refused.err.constData());
    QVERIFY2(refused.errText().contains("images[0] (id 1)"), refused.err.constData());
    QVERIFY(!refused.errText().contains("frame #"));
    QVERIFY(!QFileInfo::exists(out));
    // With /etc named, the file is read: the refusal came from the root, not the file.
    const clitest::CliResult allowed = clitest::runCli(
        {"convert", "--from", "coco", "--in", in, "--out", out, "--image-root", "/etc"});
    QVERIFY2(!allowed.errText().contains("outside the input folder"), allowed.err.constData());
}

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
