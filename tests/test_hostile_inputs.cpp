// SPDX-License-Identifier: GPL-3.0-or-later
// Inputs written by someone else, read as a hostile user would write them: converter entries
// that climb out of the input folder (and, with the CLI, the exit code a refusal gives),
// damaged and bomb zip archives, pickles that would run code, huge YAML.
#include "cli_run.h"
#include "convert_fixtures.h"

#include "config/yaml_read.h"
#include "data/convert.h"
#include "model/pickle_reader.h"
#include "model/weights_file.h"
#include "util/zip_check.h"

#include "util/user_message.h"

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

/// A byte string literal with its NULs.
template <size_t N>
QByteArray raw(const char (&text)[N]) {
    return QByteArray(text, int(N - 1));
}

void put(QByteArray& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out.append(static_cast<char>((value >> (8 * i)) & 0xFF));
}

/// A zip of stored entries, as torch.save writes one; `claimedSize` > 0 makes the last entry
/// claim to be deflated to that size (a bomb's header).
QByteArray storedZip(const std::vector<std::pair<QByteArray, QByteArray>>& entries,
                     std::uint64_t claimedSize = 0) {
    QByteArray out, central;
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto& [name, data] = entries[i];
        const bool bomb = claimedSize > 0 && i + 1 == entries.size();
        const std::uint32_t crc = hr::crc32(data.constData(), size_t(data.size()));
        const qint64 offset = out.size();
        QByteArray common;
        put(common, 20, 2);
        put(common, 0, 2);
        put(common, bomb ? 8 : 0, 2);
        put(common, 0, 4); // time and date
        put(common, crc, 4);
        put(common, std::uint64_t(data.size()), 4);
        put(common, bomb ? claimedSize : std::uint64_t(data.size()), 4);
        put(common, std::uint64_t(name.size()), 2);
        put(common, 0, 2);
        put(out, 0x04034b50, 4);
        out += common + name + data;
        put(central, 0x02014b50, 4);
        put(central, 20, 2);
        central += common;
        put(central, 0, 2); // comment
        put(central, 0, 4); // disk, internal attributes
        put(central, 0, 4); // external attributes
        put(central, std::uint64_t(offset), 4);
        central += name;
    }
    const qint64 at = out.size();
    out += central;
    put(out, 0x06054b50, 4);
    put(out, 0, 4);
    put(out, entries.size(), 2);
    put(out, entries.size(), 2);
    put(out, std::uint64_t(central.size()), 4);
    put(out, std::uint64_t(at), 4);
    put(out, 0, 2);
    return out;
}

QByteArray readBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT
private slots:
    void cocoRefusesImagesOutsideTheInput_data();
    void cocoRefusesImagesOutsideTheInput();
    void vocAndCvatEntriesAreChecked();
    void systemFoldersAreNeverRead();
    void imageRootAllowsASecondFolder();
    void cliRefusalExitsNonZero();
    void zipCrcAndSizesAreChecked();
    void damagedWeightsFileIsNamed();
    void picklesThatRunCodeAreNamed_data();
    void picklesThatRunCodeAreNamed();
    void pickleStackIsBounded();
    void hugeYamlIsRefused();
    void cocoJsonIsBounded();
    void deflatedZipBombIsRefused();
    void binaryLabelFileIsOneWarning();

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

void TestHostileInputs::vocAndCvatEntriesAreChecked() {
    const QString base = m_dir.filePath("other-formats");
    QVERIFY(fixtures::writeImage(base + "/secret.png", 64, 48));
    // VOC: <filename> climbs out of JPEGImages/.
    const QString voc = base + "/voc";
    QVERIFY(fixtures::writeImage(voc + "/JPEGImages/a.png", 64, 48));
    QVERIFY(fixtures::writeBytes(
        voc + "/Annotations/a.xml",
        fixtures::vocXml("../../secret.png", 64, 48, fixtures::vocObject("car", 0, 5, 5, 30, 30))));
    hr::ConvertReport report =
        hr::convertDataset(hr::SourceFormat::Voc, str(voc), str(voc + "-out"));
    QVERIFY2(!report.ok(), report.format().c_str());
    QVERIFY2(report.error.find("a.xml: <filename>") != std::string::npos, report.error.c_str());
    QVERIFY(!QFileInfo::exists(voc + "-out"));
    // CVAT: a train.txt line with an absolute path, caught by the check every format passes.
    const QString cvat = base + "/cvat";
    QVERIFY(fixtures::makeCvat(cvat));
    QFile list(cvat + "/train.txt");
    QVERIFY(list.open(QIODevice::Append));
    list.write((base + "/secret.png\n").toUtf8());
    list.close();
    report = hr::convertDataset(hr::SourceFormat::CvatYolo, str(cvat), str(cvat + "-out"));
    QVERIFY2(!report.ok(), report.format().c_str());
    QVERIFY2(report.error.find("train.txt") != std::string::npos &&
                 report.error.find("secret.png") != std::string::npos,
             report.error.c_str());
    QVERIFY(!QFileInfo::exists(cvat + "-out"));
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

void TestHostileInputs::zipCrcAndSizesAreChecked() {
    QCOMPARE(hr::crc32("123456789", 9), 0xCBF43926u);
    const QString path = m_dir.filePath("a.zip");
    const QByteArray good = storedZip({{"archive/version", "3\n"}, {"archive/data/0", "abcdefgh"}});
    QVERIFY(fixtures::writeBytes(path, good));
    std::string error;
    QVERIFY2(hr::checkZipArchive(str(path), &error), error.c_str());

    QByteArray flipped = good;
    flipped[flipped.indexOf("abcdefgh") + 3] = 'X';
    QVERIFY(fixtures::writeBytes(path, flipped));
    QVERIFY(!hr::checkZipArchive(str(path), &error));
    QVERIFY2(error.find("archive/data/0 fails its CRC check") != std::string::npos, error.c_str());
    QVERIFY(hr::userText(error).find("is damaged or incomplete") != std::string::npos);

    QVERIFY(fixtures::writeBytes(path, good.left(good.size() - 30)));
    QVERIFY(!hr::checkZipArchive(str(path), &error));

    // 4 GiB claimed by a file of a few hundred bytes.
    QVERIFY(fixtures::writeBytes(path, storedZip({{"archive/data/0", "x"}}, 0xF0000000u)));
    QVERIFY(!hr::checkZipArchive(str(path), &error));
    QVERIFY2(error.find("zip bomb") != std::string::npos, error.c_str());
}

void TestHostileInputs::damagedWeightsFileIsNamed() {
    const QString source = QStringLiteral(HEADROOM_TEST_DATA "/ultralytics/yolov8n-tiny.pt");
    QVERIFY(hr::readWeightsFile(str(source), false).error.empty()); // a real file passes
    QByteArray bytes = readBytes(source);
    QVERIFY(bytes.size() > 1000);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
    const QString path = m_dir.filePath("flipped.pt");
    QVERIFY(fixtures::writeBytes(path, bytes));
    const hr::WeightsFile file = hr::readWeightsFile(str(path), true);
    QVERIFY2(file.error.find("fails its CRC check") != std::string::npos, file.error.c_str());
}

void TestHostileInputs::picklesThatRunCodeAreNamed_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::addColumn<QString>("callable");
    // GLOBAL 'os system', ('ls',), REDUCE, STOP: what pickle.dumps of a __reduce__ attack holds.
    QTest::newRow("os.system") << raw("\x80\x02"
                                      "cos\nsystem\nX\x02\x00\x00\x00"
                                      "ls\x85R.")
                               << "os.system";
    QTest::newRow("builtins.eval (STACK_GLOBAL)") << raw("\x80\x04\x8c\x08"
                                                         "builtins\x8c\x04"
                                                         "eval\x93\x8c\x01"
                                                         "1\x85R.")
                                                  << "builtins.eval";
    QTest::newRow("subprocess.Popen") << raw("\x80\x02"
                                             "csubprocess\nPopen\n)R.")
                                      << "subprocess.Popen";
}

void TestHostileInputs::picklesThatRunCodeAreNamed() {
    QFETCH(QByteArray, pickle);
    QFETCH(QString, callable);
    try {
        hr::pickle::unpickle(pickle.constData(), size_t(pickle.size()), {});
        QFAIL("an unsafe pickle was read");
    } catch (const hr::pickle::UnsafePickle& e) {
        QVERIFY2(QString(e.what()).contains(callable + ", which would run code"), e.what());
    }
    // Inside a checkpoint, the weights reader says the same instead of "not a checkpoint".
    const QString path = m_dir.filePath("attack.pt");
    QVERIFY(fixtures::writeBytes(
        path, storedZip({{"archive/data.pkl", pickle}, {"archive/version", "3\n"}})));
    const hr::WeightsFile file = hr::readWeightsFile(str(path), true);
    QVERIFY2(file.error.find("refused: the file asks to run code (" + str(callable) + ")") !=
                 std::string::npos,
             file.error.c_str());
    // Resume checks a last.pt with the zip check: the same words, never "damaged".
    std::string error;
    QVERIFY(!hr::checkZipArchive(str(path), &error));
    QVERIFY2(hr::userText(error, str(path)).find("asks to run code") != std::string::npos,
             error.c_str());
    QVERIFY(hr::userText(error, str(path)).find("damaged") == std::string::npos);
}

void TestHostileInputs::pickleStackIsBounded() {
    // EMPTY_LIST, then DUP over and over: each byte pushes one more reference.
    QByteArray bomb("\x80\x02]");
    bomb += QByteArray(5'000'000, '2');
    bomb += '.';
    try {
        hr::pickle::unpickle(bomb.constData(), size_t(bomb.size()), {});
        QFAIL("a DUP bomb was read");
    } catch (const std::runtime_error& e) {
        QVERIFY2(QString(e.what()).contains("grows past"), e.what());
    }
}

void TestHostileInputs::hugeYamlIsRefused() {
    hr::Diagnostics diagnostics;
    // A flow list of 300,000 items: 600 KB of text, gigabytes as yaml-cpp nodes at scale.
    std::string flow = "names: [";
    for (int i = 0; i < 300'000; ++i)
        flow += "a,";
    flow += "a]\n";
    QVERIFY(!hr::yaml::parseDocument(flow, "big.yaml", diagnostics));
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(diagnostics[0].code, std::string("yaml_too_large"));
    QCOMPARE(diagnostics[0].file, std::string("big.yaml"));
    diagnostics.clear();
    QVERIFY(!hr::yaml::parseDocument(std::string(9u << 20, '#'), "huge.yaml", diagnostics));
    QVERIFY(diagnostics.at(0).message.find("9 MiB") != std::string::npos);
    diagnostics.clear();
    QVERIFY(hr::yaml::parseDocument("epochs: 3\nnames: [a, b]\n", "ok.yaml", diagnostics));
}

void TestHostileInputs::cocoJsonIsBounded() {
    const QString in = m_dir.filePath("coco-bound/in");
    QVERIFY(fixtures::writeImage(in + "/annotations/a.png", 64, 48));
    // One image whose mask has 20,000 numbers: masks are skipped, not counted or kept.
    QByteArray mask = "[";
    for (int i = 0; i < 20'000; ++i)
        mask += "1.5,";
    mask += "1.5]";
    QVERIFY(fixtures::writeBytes(
        in + "/annotations/instances_train.json",
        R"({"images": [{"id": 1, "file_name": "a.png", "width": 64, "height": 48}],
  "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [8, 6, 20, 20],
                   "segmentation": [)" +
            mask + R"(]}],
  "categories": [{"id": 1, "name": "cat"}]})"));
    hr::ConvertOptions options;
    options.mostJsonValues = 100;
    hr::ConvertReport report = hr::convertDataset(hr::SourceFormat::Coco, str(in),
                                                  str(m_dir.filePath("coco-bound/ok")), options);
    QVERIFY2(report.ok(), report.format().c_str());

    options.mostJsonValues = 10;
    report = hr::convertDataset(hr::SourceFormat::Coco, str(in),
                                str(m_dir.filePath("coco-bound/values")), options);
    QVERIFY(!report.ok());
    QVERIFY2(report.error.find("instances_train.json: more than 10 JSON values besides the "
                               "masks") != std::string::npos,
             report.error.c_str());
    QVERIFY2(report.error.find("split the annotations") != std::string::npos, report.error.c_str());

    options = hr::ConvertOptions();
    options.mostJsonBytes = 1000;
    report = hr::convertDataset(hr::SourceFormat::Coco, str(in),
                                str(m_dir.filePath("coco-bound/bytes")), options);
    QVERIFY(!report.ok());
    QVERIFY2(report.error.find("bytes, more than the 1,000 bytes Headroom reads from one COCO "
                               "file") != std::string::npos,
             report.error.c_str());
    QVERIFY(!QFileInfo::exists(m_dir.filePath("coco-bound/bytes")));
    // The defaults leave room for COCO's own 450 MB file.
    QVERIFY(hr::kMostCocoBytes > (std::uint64_t(450) << 20));
}

void TestHostileInputs::deflatedZipBombIsRefused() {
    // 64 MiB of zeros deflated to about 64 KB: a real deflate stream (qCompress's zlib stream
    // without its 4-byte length, 2-byte header and 4-byte checksum), sizes told honestly.
    const QByteArray zeros(64 << 20, '\0');
    const QByteArray zlib = qCompress(zeros, 9);
    const QByteArray deflated = zlib.mid(6, zlib.size() - 10);
    QVERIFY(deflated.size() < 200'000);
    const QString path = m_dir.filePath("bomb.pt");
    QVERIFY(fixtures::writeBytes(
        path, storedZip({{"archive/data.pkl", raw("\x80\x02}.")}, {"archive/data/0", deflated}},
                        std::uint64_t(zeros.size()))));
    std::string error;
    QVERIFY(!hr::checkZipArchive(str(path), &error));
    QVERIFY2(error.find("zip bomb") != std::string::npos, error.c_str());
    const hr::WeightsFile file = hr::readWeightsFile(str(path), true);
    QVERIFY2(file.error.find("zip bomb") != std::string::npos, file.error.c_str());
}

void TestHostileInputs::binaryLabelFileIsOneWarning() {
    const QString data = m_dir.filePath("garbage");
    const auto made = clitest::runCli(
        {"make-dataset", "--out", data, "--train", "2", "--val", "1", "--imgsz", "64"});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QByteArray garbage;
    for (int i = 0; i < 3000; ++i)
        garbage.append(static_cast<char>((i * 7919 + 13) % 256));
    QVERIFY(fixtures::writeBytes(data + "/labels/train/000000.txt", garbage));
    const auto checked = clitest::runCli({"data-check", "--data", data + "/data.yaml"});
    const QString all = checked.outText() + checked.errText();
    QVERIFY2(all.contains("labels/train/000000.txt:1: warning: the label file holds binary data, "
                          "not text (from line 1): used the image as a background image"),
             qPrintable(all));
    QCOMPARE(all.count("000000.txt:"), 1); // one warning, not one per line of garbage
}

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
