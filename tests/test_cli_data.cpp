// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli data-check as a user runs it: the header check by default, --deep decoding every
// image, and a label cache written by the one that does not answer the other; what train says
// of the same data set (binary labels, a scan past the file limit, the machine on --resume).
#include "cli_run.h"
#include "image_fixtures.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace {

using clitest::CliResult;
using clitest::runCli;

bool writeBytes(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

/// The report's line about `file`, or "" when it names the file nowhere.
QString lineAbout(const QString& out, const QString& file) {
    for (const QString& line : out.split('\n'))
        if (line.contains(file))
            return line;
    return {};
}

} // namespace

class TestCliData : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void helpListsDeep();
    void deepFindsWhatTheHeaderPasses();
    void trainingNamesWhatOnlyDecodingFinds();
    void crashSignalsStayWithTheSystem();
    void largeScanNeedsYes();
    void resumeChecksTheMachine();
    void trainingWarnsOfBinaryLabels();

private:
    QTemporaryDir m_dir;
    QString m_yaml;
};

void TestCliData::initTestCase() {
    // A folder of broken files next to a good one: cut short (a note), garbage Huffman tables
    // behind good segments (only decoding finds it), text named .jpg, a 400-byte head.
    QVERIFY(m_dir.isValid());
    const QString images = m_dir.filePath("images/train/");
    const QByteArray good = fixtures::jpeg(64, 48);
    QVERIFY(writeBytes(images + "good.jpg", good));
    QVERIFY(writeBytes(images + "cut.jpg", good.left(good.size() - 2)));
    QVERIFY(writeBytes(images + "garbled.jpg", fixtures::garbledJpeg(64, 48)));
    QVERIFY(writeBytes(images + "text.jpg", "not an image\n"));
    QVERIFY(writeBytes(images + "head.jpg", good.left(400)));
    m_yaml = m_dir.filePath("data.yaml");
    QVERIFY(writeBytes(m_yaml, "path: .\ntrain: images/train\nval: images/train\nnames: ['a']\n"));
}

void TestCliData::helpListsDeep() {
    const CliResult r = runCli({"data-check", "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.outText().contains("[--deep]") && r.outText().contains("\n  --deep ") &&
                 r.outText().contains("decode every image, not only its header"),
             qPrintable(r.outText()));
}

void TestCliData::deepFindsWhatTheHeaderPasses() {
    const QString unreadable = "not a decodable image (corrupt, truncated or an unsupported "
                               "format): skipped the image";
    // The header check: garbled.jpg passes, the cut file has its note, text and head fail.
    const CliResult quick = runCli({"data-check", "--data", m_yaml, "--split", "train"});
    QCOMPARE(quick.exitCode, 0);
    QVERIFY2(
        quick.outText().contains("images: headers checked (--deep decodes every image)\n") &&
            quick.outText().contains("split 'train': 3 usable images (3 backgrounds), 2 skipped"),
        qPrintable(quick.outText()));
    QVERIFY2(lineAbout(quick.outText(), "garbled.jpg").isEmpty(), qPrintable(quick.outText()));
    QVERIFY(lineAbout(quick.outText(), "cut.jpg").contains("JPEG end marker missing"));
    QVERIFY(lineAbout(quick.outText(), "text.jpg").contains(unreadable));
    QVERIFY(lineAbout(quick.outText(), "head.jpg").contains(unreadable));

    // --deep decodes every image: the header scan's cache entries of the three JPEGs it did
    // not decode do not answer it, so garbled.jpg is found.
    const CliResult deep = runCli({"data-check", "--data", m_yaml, "--split", "train", "--deep"});
    QCOMPARE(deep.exitCode, 0);
    QVERIFY2(
        deep.outText().contains("images: every image decoded\n") &&
            deep.outText().contains("split 'train': 2 usable images (2 backgrounds), 3 skipped, 0 "
                                    "objects; 2 checks from the label cache"),
        qPrintable(deep.outText()));
    QVERIFY2(lineAbout(deep.outText(), "garbled.jpg").contains(unreadable),
             qPrintable(deep.outText()));
    QVERIFY(lineAbout(deep.outText(), "cut.jpg").contains("JPEG end marker missing"));
    // What reaches the user is the report's words, not an exception's.
    QVERIFY2(!deep.errText().contains("terminate") && !deep.errText().contains("what()") &&
                 !deep.errText().contains("Exception"),
             qPrintable(deep.errText()));

    // A header check after the deep one takes its decoded checks: garbled.jpg stays skipped.
    const CliResult after = runCli({"data-check", "--data", m_yaml, "--split", "train"});
    QCOMPARE(after.exitCode, 0);
    QVERIFY2(
        after.outText().contains("2 usable images (2 backgrounds), 3 skipped, 0 objects; 5 checks "
                                 "from the label cache"),
        qPrintable(after.outText()));
    QVERIFY(lineAbout(after.outText(), "garbled.jpg").contains(unreadable));
}

void TestCliData::trainingNamesWhatOnlyDecodingFinds() {
    // The header check lets garbled.jpg in; training reads it, puts a grey image in its place,
    // and names the file and the deep check once, in words.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray good = fixtures::jpeg(64, 48);
    for (const char* name : {"a.jpg", "b.jpg", "c.jpg"})
        QVERIFY(writeBytes(dir.filePath(QString("images/train/") + name), good));
    QVERIFY(writeBytes(dir.filePath("images/train/garbled.jpg"), fixtures::garbledJpeg(64, 48)));
    const QString yaml = dir.filePath("data.yaml");
    QVERIFY(writeBytes(yaml, "path: .\ntrain: images/train\nval: images/train\nnames: ['a']\n"));
    const CliResult r =
        runCli({"train", "--data", yaml, "--model", "yolov8n.yaml", "--epochs", "2", "imgsz=64",
                "batch=2", "workers=0", "threads=1", "project=" + dir.filePath("runs"), "name=t"});
    const QString all = r.outText() + r.errText();
    QCOMPARE(r.exitCode, 0);
    const QString garbled = dir.filePath("images/train/garbled.jpg");
    QVERIFY2(all.contains("cannot read " + garbled + ": not a decodable image") &&
                 all.contains("data-check --deep finds such files"),
             qPrintable(all));
    QCOMPARE(all.count("cannot read " + garbled), 1); // named once, not once an epoch
    QVERIFY2(!all.contains("terminate") && !all.contains("what()"), qPrintable(all));
}

QTEST_GUILESS_MAIN(TestCliData)
void TestCliData::crashSignalsStayWithTheSystem() {
    // A crash must end in the system's one line, not a library's backtrace (Debian 13's
    // LibTorch loads UCX, which takes these signals): read what a training process catches.
    const QString data = m_dir.filePath("signals");
    const CliResult made =
        runCli({"make-dataset", "--out", data, "--train", "8", "--val", "2", "--imgsz", "64"});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    QProcess train;
    train.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    train.setArguments({"train", "model=yolov8n.yaml", "data=" + data + "/data.yaml", "imgsz=64",
                        "epochs=100", "workers=0", "project=" + m_dir.filePath("signal-runs")});
    train.setProcessChannelMode(QProcess::MergedChannels);
    train.start();
    QVERIFY(train.waitForStarted());
    QString out;
    QTRY_VERIFY_WITH_TIMEOUT((out += train.readAll()).contains(QStringLiteral("epoch 1/")), 60000);
    QFile status(QStringLiteral("/proc/%1/status").arg(train.processId()));
    QVERIFY(status.open(QIODevice::ReadOnly));
    quint64 caught = 0;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("SigCgt:"))
            caught = line.mid(7).trimmed().toULongLong(nullptr, 16);
    train.kill();
    train.waitForFinished();
    for (const int signal : {SIGILL, SIGBUS, SIGFPE, SIGSEGV})
        QVERIFY2((caught & (quint64(1) << (signal - 1))) == 0,
                 qPrintable(QStringLiteral("signal %1 is caught").arg(signal)));
}

void TestCliData::largeScanNeedsYes() {
    // `path: /` walks the whole machine: past the file limit (12 here through the variable only
    // tests set; 100000 otherwise) data-check and train refuse in one sentence, --yes scans.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (int i = 0; i < 20; ++i)
        QVERIFY(writeBytes(dir.filePath(QString("wide/misc/f%1.bin").arg(i)), "x"));
    QVERIFY(writeBytes(dir.filePath("wide/pictures/a.jpg"), fixtures::jpeg(64, 48)));
    const QString root = dir.filePath("wide");
    const QString yaml = dir.filePath("wide.yaml");
    QVERIFY(writeBytes(yaml, ("path: " + root + "\ntrain: .\nval: .\nnames: ['a', 'b', 'c']\n").toUtf8()));
    qputenv("HEADROOM_SCAN_FILE_LIMIT", "12");
    const CliResult check = runCli({"data-check", "--data", yaml});
    const CliResult train =
        runCli({"train", "--data", yaml, "--model", "yolov8n.yaml", "--epochs", "1", "imgsz=64",
                "workers=0", "project=" + dir.filePath("runs")});
    const CliResult confirmed = runCli({"data-check", "--data", yaml, "--yes"});
    const QStringList val = {"val", "--data", yaml, "--weights",
                             HEADROOM_TEST_DATA "/ultralytics/yolov8n-shapes3.pt", "imgsz=64",
                             "workers=0"};
    const CliResult valRefused = runCli(val);
    const CliResult valConfirmed = runCli(QStringList(val) << "--yes");
    qunsetenv("HEADROOM_SCAN_FILE_LIMIT");

    const QString sentence = yaml + ": error: 'path': '" + root +
                             "' holds more than 12 files, so the scan stopped there; pass --yes "
                             "to scan them all, or point path at the data set's own folder";
    QCOMPARE(check.exitCode, 2);
    QCOMPARE(check.errText().trimmed(), "data-check: " + sentence);
    QVERIFY2(!check.outText().contains("split 'train'"), qPrintable(check.outText()));
    QCOMPARE(train.exitCode, 1);
    QVERIFY2(train.errText().contains("training failed: " + sentence + "\n"),
             qPrintable(train.errText()));
    QVERIFY2(!train.outText().contains("run folder"), qPrintable(train.outText()));
    QCOMPARE(confirmed.exitCode, 0);
    QVERIFY2(confirmed.outText().contains("split 'train': 1 usable images"),
             qPrintable(confirmed.outText()));
    // val says the same and takes --yes too.
    QVERIFY(valRefused.exitCode != 0);
    QVERIFY2(valRefused.errText().contains(sentence), qPrintable(valRefused.errText()));
    QVERIFY2(!valConfirmed.errText().contains("holds more than"),
             qPrintable(valConfirmed.errText()));
    QCOMPARE(valConfirmed.exitCode, 0);

    for (const char* command : {"data-check", "train", "val"}) {
        const CliResult help = runCli({command, "--help"});
        QVERIFY2(help.outText().contains("\n  --yes ") &&
                     help.outText().contains("more than 100000 files (path: /)"),
                 qPrintable(help.outText()));
    }
}

void TestCliData::resumeChecksTheMachine() {
    // --resume is checked against the machine as a fresh run is, before any worker starts
    // (its stored settings once the trainer has read them).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QStringList resume = {
        "train", "--resume", "--nproc", "64", "project=" + dir.filePath("runs"), "name=none"};
    const CliResult refused = runCli(resume);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.errText().contains("this machine: error: 'nproc': nproc 64 starts 64 "
                                        "training processes, but this machine has") &&
                 refused.errText().contains("or add --force"),
             qPrintable(refused.errText()));
    QVERIFY2(!refused.outText().contains("starting 64 worker processes"),
             qPrintable(refused.outText()));
    // Within the machine the resume goes on, to the run it cannot find.
    const CliResult fits =
        runCli({"train", "--resume", "project=" + dir.filePath("runs"), "name=none"});
    QVERIFY2(fits.exitCode != 0 && !fits.errText().contains("'nproc'") &&
                 fits.errText().contains("resume: no run with weights/last.pt"),
             qPrintable(fits.errText()));
}

void TestCliData::trainingWarnsOfBinaryLabels() {
    // data-check's label_binary warning, once at training's start (not once an epoch), naming
    // the first file and how many more there are.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray good = fixtures::jpeg(64, 48);
    for (const char* name : {"a", "b", "c", "d"}) {
        QVERIFY(writeBytes(dir.filePath(QString("images/train/%1.jpg").arg(name)), good));
        QVERIFY(writeBytes(dir.filePath(QString("labels/train/%1.txt").arg(name)),
                           "0 0.5 0.5 0.25 0.25\n"));
    }
    QVERIFY(writeBytes(dir.filePath("labels/train/b.txt"), "0 0.5 0.5 0.2 0.2\n\x01\x02\xff"));
    QVERIFY(writeBytes(dir.filePath("labels/train/c.txt"), good.left(64)));
    const QString yaml = dir.filePath("data.yaml");
    QVERIFY(writeBytes(yaml, "path: .\ntrain: images/train\nval: images/train\nnames: ['a']\n"));
    const CliResult r =
        runCli({"train", "--data", yaml, "--model", "yolov8n.yaml", "--epochs", "2", "imgsz=64",
                "batch=2", "workers=0", "threads=1", "project=" + dir.filePath("runs"), "name=t"});
    QCOMPARE(r.exitCode, 0);
    const QString b = dir.filePath("labels/train/b.txt");
    const QString warning =
        "warning: " + b +
        ":2: the label file holds binary data, not text (from line 2): used "
        "the image as a background image (fix: replace it with a text file of 'class cx cy w h' "
        "lines, or delete it); 1 more label files hold binary data too (headroom-cli data-check "
        "lists them)\n";
    QVERIFY2(r.errText().contains(warning), qPrintable(r.errText()));
    QCOMPARE(r.errText().count("holds binary data"), 1);
}

#include "test_cli_data.moc"
