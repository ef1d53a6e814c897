// SPDX-License-Identifier: GPL-3.0-or-later
// Faults during a run, as headroom-cli meets them: a disk that fills up (at several sizes) or
// a file size limit, a second writer of the same run folder, and SIGTERM / SIGINT. Nothing may
// be reported done that was not written, and a resume must give the last complete epoch.
#include "cli_run.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// The temporary files left anywhere under `folder` ("x.tmp", "x.tmp<pid>").
QStringList temporaryFiles(const QString& folder) {
    QStringList found;
    QDirIterator it(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (QFileInfo(path).fileName().contains(QRegularExpression("\\.tmp[0-9]*$")))
            found << path;
    }
    return found;
}

/// results.csv without the columns that measure time, memory or speed.
QStringList resultRows(const QString& run) {
    QStringList rows;
    for (const QString& line : readText(run + "/results.csv").split('\n', Qt::SkipEmptyParts))
        rows << line.section(',', 0, 13);
    return rows;
}

/// The `state` of the last run_finished event in `run`'s events.jsonl.
QString finishedState(const QString& run) {
    QString state;
    for (const QString& line : readText(run + "/events.jsonl").split('\n', Qt::SkipEmptyParts)) {
        const QJsonObject event = QJsonDocument::fromJson(line.toUtf8()).object();
        if (event.value("type") == "run_finished")
            state = event.value("state").toString();
    }
    return state;
}

} // namespace

class TestRunFaults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void fullDiskStopsAndResumes_data();
    void fullDiskStopsAndResumes();
    void fileSizeLimitStopsTheRun();
    void flippedByteFallsBackToBackup();
    void resumeWorksFromAnyFolder();
    void secondWriterIsRefused();
    void staleLockIsTakenOver();
    void signalStopsAfterTheStep_data();
    void signalStopsAfterTheStep();

private:
    QStringList trainArgs(const QString& name, int epochs = 2) const;
    clitest::CliResult run(const QStringList& args, const QProcessEnvironment& env,
                           std::function<void()> child = {}, const QString& folder = {}) const;

    QTemporaryDir m_dir;
    QString m_project, m_data;
    qint64 m_checkpointBytes = 0;
    QStringList m_reference;
};

QStringList TestRunFaults::trainArgs(const QString& name, int epochs) const {
    return {"train",
            "--data",
            m_data,
            "model=yolov8n.yaml",
            QString("epochs=%1").arg(epochs),
            "batch=4",
            "imgsz=64",
            "workers=0",
            "threads=2",
            "amp=false",
            "optimizer=SGD",
            "warmup_epochs=0",
            "close_mosaic=0",
            "project=" + m_project,
            "name=" + name};
}

clitest::CliResult TestRunFaults::run(const QStringList& args, const QProcessEnvironment& env,
                                      std::function<void()> child, const QString& folder) const {
    QProcess process;
    if (!folder.isEmpty())
        process.setWorkingDirectory(folder);
    process.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    process.setArguments(args);
    process.setProcessEnvironment(env);
    if (child)
        process.setChildProcessModifier(child);
    process.start();
    return clitest::finishCli(process);
}

void TestRunFaults::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_project = m_dir.filePath("runs");
    const auto made = clitest::runCli({"make-dataset", "--out", m_dir.filePath("data"), "--train",
                                       "8", "--val", "4", "--imgsz", "96"});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    m_data = m_dir.filePath("data/data.yaml");
    const auto reference = run(trainArgs("reference"), QProcessEnvironment::systemEnvironment());
    QVERIFY2(reference.exitCode == 0, reference.err.constData());
    m_reference = resultRows(m_project + "/reference");
    QCOMPARE(m_reference.size(), 3); // header + 2 epochs
    m_checkpointBytes = QFileInfo(m_project + "/reference/weights/last.pt").size();
    QVERIFY(m_checkpointBytes > 0);
}

void TestRunFaults::fullDiskStopsAndResumes_data() {
    // Disk space in checkpoints' sizes: each epoch writes best.pt, then last.pt.
    QTest::addColumn<double>("checkpoints");
    QTest::addColumn<QString>("failedFile");
    QTest::addColumn<int>("epochsKept");
    QTest::newRow("in the first epoch's records")
        << 0.00005 << "(results.csv|events.jsonl|memory.csv)" << 0;
    QTest::newRow("first last.pt") << 1.5 << "last.pt" << 0;
    QTest::newRow("second best.pt") << 2.5 << "best.pt" << 1;
    QTest::newRow("second last.pt") << 3.5 << "last.pt" << 1;
}

void TestRunFaults::fullDiskStopsAndResumes() {
    QFETCH(double, checkpoints);
    QFETCH(QString, failedFile);
    QFETCH(int, epochsKept);
    const QString name = QString("full%1").arg(QTest::currentDataTag()).remove(' ');
    const QString folder = m_project + "/" + name;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HEADROOM_TEST_DISK_BYTES",
               QString::number(static_cast<qint64>(checkpoints * m_checkpointBytes)));
    const auto failed = run(trainArgs(name), env);
    QCOMPARE(failed.exitCode, 1);
    // One message, naming the file and the full disk; no success line.
    QCOMPARE(failed.errText().count("the disk is full"), 1);
    QVERIFY2(failed.errText().contains(QRegularExpression("/" + failedFile + ": No space left")),
             failed.err.constData());
    QVERIFY(!failed.outText().contains("finished"));
    QCOMPARE(temporaryFiles(folder), QStringList());

    // A kill's leftovers are removed by the next writer.
    QVERIFY(QFile(folder + "/weights/last.pt.tmp4242").open(QIODevice::WriteOnly));
    QVERIFY(QFile(folder + "/results.csv.tmp").open(QIODevice::WriteOnly));
    QStringList resume = trainArgs(name);
    resume << "--resume";
    const auto resumed = run(resume, QProcessEnvironment::systemEnvironment());
    if (epochsKept == 0) {
        QVERIFY(resumed.exitCode != 0); // no complete epoch: nothing to resume
        return;
    }
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QVERIFY2(temporaryFiles(folder).isEmpty(), qPrintable(temporaryFiles(folder).join(' ')));
    QVERIFY(resumed.outText().contains(QString("resuming at epoch %1").arg(epochsKept + 1)));
    // Exactly the uninterrupted run: each epoch once, the same losses.
    QCOMPARE(resultRows(folder), m_reference);
    QCOMPARE(temporaryFiles(folder), QStringList());
}

void TestRunFaults::fileSizeLimitStopsTheRun() {
    // A real kernel refusal: RLIMIT_FSIZE below a checkpoint's size, SIGXFSZ ignored so that
    // write() fails with EFBIG instead of killing the process.
    const qint64 limit = m_checkpointBytes / 2;
    const auto failed = run(trainArgs("fsize"), QProcessEnvironment::systemEnvironment(), [limit] {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit bound{static_cast<rlim_t>(limit), static_cast<rlim_t>(limit)};
        ::setrlimit(RLIMIT_FSIZE, &bound);
    });
    QCOMPARE(failed.exitCode, 1);
    QVERIFY2(failed.errText().contains("best.pt: File too large"), failed.err.constData());
    QCOMPARE(failed.errText().count("the disk is full"), 1);
    QCOMPARE(temporaryFiles(m_project + "/fsize"), QStringList());
}

void TestRunFaults::flippedByteFallsBackToBackup() {
    // One flipped byte inside a tensor: the zip still opens, only its CRC tells.
    const QString folder = m_project + "/flipped";
    const auto first = run(trainArgs("flipped"), QProcessEnvironment::systemEnvironment());
    QVERIFY2(first.exitCode == 0, first.err.constData());
    QFile last(folder + "/weights/last.pt");
    QVERIFY(last.open(QIODevice::ReadWrite));
    QVERIFY(last.seek(last.size() / 2));
    char byte = 0;
    QVERIFY(last.getChar(&byte));
    QVERIFY(last.seek(last.size() / 2));
    QVERIFY(last.putChar(static_cast<char>(byte ^ 0x01)));
    last.close();
    QStringList resume = trainArgs("flipped");
    resume << "--resume";
    const auto resumed = run(resume, QProcessEnvironment::systemEnvironment());
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QVERIFY2(resumed.errText().contains("is damaged or incomplete") &&
                 resumed.errText().contains("resuming from its backup"),
             resumed.err.constData());
    QVERIFY(resumed.outText().contains("resuming at epoch 2"));
    QCOMPARE(resultRows(folder), m_reference);
}

void TestRunFaults::resumeWorksFromAnyFolder() {
    // Relative --data and project, given in the test's folder; the disk fills in epoch 2.
    const auto made = clitest::runCli({"make-dataset", "--out", m_dir.filePath("moving"), "--train",
                                       "8", "--val", "4", "--imgsz", "96"});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QStringList args = trainArgs("relative");
    args[2] = "moving/data.yaml";
    args.replaceInStrings("project=" + m_project, "project=runs");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HEADROOM_TEST_DISK_BYTES", QString::number(qint64(2.5 * m_checkpointBytes)));
    QCOMPARE(run(args, env, {}, m_dir.path()).exitCode, 1);

    // From the root folder, with the run's absolute paths stored: no --data needed.
    QStringList resume = trainArgs("relative");
    resume.removeAt(2);
    resume.removeAt(1);
    resume << "--resume";
    const QString folder = m_project + "/relative";
    QVERIFY(QFile::copy(folder + "/weights/last.pt", m_dir.filePath("epoch1.pt")));
    const auto fromRoot = run(resume, QProcessEnvironment::systemEnvironment(), {}, "/");
    QVERIFY2(fromRoot.exitCode == 0, fromRoot.err.constData());
    QCOMPARE(resultRows(folder), m_reference);

    // The data set moved: --data given on resume wins over the stored path.
    QVERIFY(QFile::remove(folder + "/weights/last.pt"));
    QVERIFY(QFile::remove(folder + "/weights/last.pt.bak"));
    QVERIFY(QFile::copy(m_dir.filePath("epoch1.pt"), folder + "/weights/last.pt"));
    QVERIFY(QDir().rename(m_dir.filePath("moving"), m_dir.filePath("moved")));
    resume << "--data" << m_dir.filePath("moved/data.yaml");
    const auto moved = run(resume, QProcessEnvironment::systemEnvironment(), {}, "/");
    QVERIFY2(moved.exitCode == 0, moved.err.constData());
    QVERIFY(moved.outText().contains("resuming at epoch 2"));
    QCOMPARE(resultRows(folder), m_reference);
}

void TestRunFaults::secondWriterIsRefused() {
    // This test holds the lock as a running writer would.
    const QString folder = m_project + "/locked";
    QVERIFY(QDir().mkpath(folder + "/weights"));
    const QByteArray lockPath = (folder + "/.headroom.lock").toUtf8();
    const int fd = ::open(lockPath.constData(), O_RDWR | O_CREAT, 0644);
    QVERIFY(fd >= 0);
    QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);
    const QByteArray pid = QByteArray::number(qint64(::getpid())) + "\n";
    QCOMPARE(::write(fd, pid.constData(), size_t(pid.size())), ssize_t(pid.size()));
    QStringList existOk = trainArgs("locked");
    existOk << "exist_ok=true";
    const auto refused = run(existOk, QProcessEnvironment::systemEnvironment());
    // A second --resume of a run being written is refused the same way.
    QVERIFY(QFile::copy(m_project + "/reference/weights/last.pt", folder + "/weights/last.pt"));
    QStringList resume = trainArgs("locked");
    resume << "--resume";
    const auto resumed = run(resume, QProcessEnvironment::systemEnvironment());
    ::close(fd);
    QCOMPARE(resumed.exitCode, 1);
    QVERIFY2(resumed.errText().contains("is writing the run folder"), resumed.err.constData());
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.errText().contains("another Headroom process (PID " + pid.trimmed() +
                                        ") is writing the run folder"),
             refused.err.constData());
    QCOMPARE(refused.errText().trimmed().count('\n'), 0); // one sentence
    QVERIFY(!QFileInfo::exists(folder + "/events.jsonl"));
}

void TestRunFaults::staleLockIsTakenOver() {
    // A writer that died leaves its PID in the file but no lock.
    const QString folder = m_project + "/stale";
    QVERIFY(QDir().mkpath(folder));
    QFile lock(folder + "/.headroom.lock");
    QVERIFY(lock.open(QIODevice::WriteOnly));
    lock.write("999999\n");
    lock.close();
    QStringList existOk = trainArgs("stale");
    existOk << "exist_ok=true";
    const auto ran = run(existOk, QProcessEnvironment::systemEnvironment());
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
}

void TestRunFaults::signalStopsAfterTheStep_data() {
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT") << int(SIGINT);
}

void TestRunFaults::signalStopsAfterTheStep() {
    QFETCH(int, signal);
    const QString name = QString("signal%1").arg(signal);
    const QString folder = m_project + "/" + name;
    QProcess process;
    process.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    process.setArguments(trainArgs(name, 1000));
    process.start();
    QVERIFY(process.waitForStarted());
    // After the first finished epoch, so that last.pt exists.
    QTRY_VERIFY_WITH_TIMEOUT(readText(folder + "/events.jsonl").contains("\"epoch_end\""), 60000);
    QCOMPARE(::kill(static_cast<pid_t>(process.processId()), signal), 0);
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 128 + signal);
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(err.contains(signal == SIGTERM ? "stopped by SIGTERM" : "stopped by SIGINT"),
             qPrintable(err));
    QCOMPARE(finishedState(folder), QString("stopped"));
    QVERIFY(QFileInfo::exists(folder + "/weights/last.pt"));
    QCOMPARE(temporaryFiles(folder), QStringList());
}

QTEST_GUILESS_MAIN(TestRunFaults)
#include "test_run_faults.moc"
