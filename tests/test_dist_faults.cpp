// SPDX-License-Identifier: GPL-3.0-or-later
// Faults of a data-parallel run as headroom-cli meets them: a rank that is stopped (SIGSTOP)
// ends the run after HEADROOM_RANK_TIMEOUT with that rank named, and the network library's
// log lines (glog, from c10d and Gloo) go to the project's network.log, not the terminal.
#include "cli_run.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The PID of the child of `parent` whose environment holds RANK=`rank`; 0 while none.
qint64 rankProcess(qint64 parent, int rank) {
    const QByteArray wanted = "RANK=" + QByteArray::number(rank);
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number)
            continue;
        const QByteArray stat = readAll("/proc/" + entry + "/stat");
        const int close = stat.lastIndexOf(')');
        if (close < 0 || stat.mid(close + 2).split(' ').value(1).toLongLong() != parent)
            continue;
        if (readAll("/proc/" + entry + "/environ").split('\0').contains(wanted))
            return pid;
    }
    return 0;
}

/// A glog line as c10d writes it: "E20261207 20:55:53.988090 30207 socket.cpp:860] [c10d] ...".
bool hasLibraryLine(const QString& text) {
    // glog's lines, c10's own ("[E1208 02:19:46.837287552 socket.cpp:1023] ..."), and the
    // backtraces c10 puts under them.
    static const QRegularExpression glog(
        R"((^|\n)\[?[IWEF]\d{4,8} \d\d:\d\d:\d\d\.\d+ +(\d+ )?\S+:\d+\] )");
    return text.contains(glog) || text.contains("InitGoogleLogging") ||
           text.contains("frame #") || text.contains("Exception raised from");
}

} // namespace

class TestDistFaults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void stoppedRankEndsTheRun();
    void networkLogStaysOffTheTerminal();

private:
    QStringList trainArgs(const QString& name) const;

    QTemporaryDir m_dir;
    QString m_project, m_data;
};

QStringList TestDistFaults::trainArgs(const QString& name) const {
    return {"train",       "--data",    m_data,           "model=yolov8n.yaml",
            "epochs=30",   "batch=4",   "imgsz=64",       "workers=0",
            "threads=1",   "amp=false", "close_mosaic=0", "project=" + m_project,
            "name=" + name};
}

void TestDistFaults::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_project = m_dir.filePath("runs");
    const auto made = clitest::runCli({"make-dataset", "--out", m_dir.filePath("data"), "--train",
                                       "8", "--val", "2", "--imgsz", "64"});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    m_data = m_dir.filePath("data/data.yaml");
}

void TestDistFaults::stoppedRankEndsTheRun() {
    // Without a heartbeat, rank 0 waited in its all-reduce for the collective timeout
    // (HEADROOM_DIST_TIMEOUT, 600 s) and then blamed no rank in particular.
    QProcess process;
    process.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    process.setArguments(trainArgs("stopped") << "nproc=2");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HEADROOM_RANK_TIMEOUT", "4");
    process.setProcessEnvironment(env);
    process.start();
    QVERIFY(process.waitForStarted());
    // Rank 1 is stopped once the run trains: rank 0 has logged a batch.
    const QString events = m_project + "/stopped/events.jsonl";
    QTRY_VERIFY_WITH_TIMEOUT(readAll(events).contains("\"batch_end\""), 180000);
    const qint64 rank1 = rankProcess(process.processId(), 1);
    QVERIFY(rank1 > 0);
    QVERIFY(::kill(static_cast<pid_t>(rank1), SIGSTOP) == 0);
    QElapsedTimer stopped;
    stopped.start();
    const clitest::CliResult result = clitest::finishCli(process);
    const double seconds = stopped.elapsed() / 1000.0;
    qInfo("ended %.1f s after the stop:\n%s", seconds, result.err.constData());
    QVERIFY(result.exitCode != 0 && result.exitCode != -1);
    QVERIFY2(result.errText().contains("rank 1 of 2 sent no heartbeat for "),
             result.err.constData());
    QVERIFY2(result.errText().contains("HEADROOM_RANK_TIMEOUT"), result.err.constData());
    QVERIFY2(result.errText().contains("the run cannot go on without rank 1"),
             result.err.constData());
    // 4 s of silence plus a heartbeat or two and the workers' end; far below the 630 s before.
    QVERIFY2(seconds < 60, qPrintable(QString::number(seconds)));
    QVERIFY2(!hasLibraryLine(result.errText()), result.err.constData());
    QVERIFY(::kill(static_cast<pid_t>(rank1), 0) != 0); // it was ended, not left stopped
}

void TestDistFaults::networkLogStaysOffTheTerminal() {
    // The second machine of a two-machine run whose first never comes: c10d logs each failed
    // connection through glog on the workers' stderr.
    int port = 0;
    {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        port = ntohs(address.sin_port);
        ::close(fd); // nobody listens there now
    }
    QProcess process;
    process.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    process.setArguments(trainArgs("alone") << "nproc=1"
                                            << "--nnodes"
                                            << "2"
                                            << "--node-rank"
                                            << "1"
                                            << "--master-port" << QString::number(port));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HEADROOM_DIST_TIMEOUT", "3");
    process.setProcessEnvironment(env);
    process.start();
    const clitest::CliResult result = clitest::finishCli(process);
    qInfo("%s", result.err.constData());
    QVERIFY(result.exitCode != 0 && result.exitCode != -1);
    QVERIFY2(result.errText().contains("cannot join the run"), result.err.constData());
    QVERIFY2(!hasLibraryLine(result.errText()), result.err.constData());
    const QString log = m_project + "/network.log";
    QVERIFY2(result.errText().contains(log), result.err.constData());
    const QString logged = QString::fromUtf8(readAll(log));
    QVERIFY2(logged.contains("rank 1: ") && logged.contains("[c10d]"), qPrintable(logged));
}

QTEST_GUILESS_MAIN(TestDistFaults)
#include "test_dist_faults.moc"
