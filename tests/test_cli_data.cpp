// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli data-check as a user runs it: the header check by default, --deep decoding every
// image, and a label cache written by the one that does not answer the other.
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

#include "test_cli_data.moc"
