// SPDX-License-Identifier: GPL-3.0-or-later
// A data-parallel run started from the studio: the Train page's Start with nproc 2 trains
// rank 0 in the window's process and rank 1 as a headroom-cli worker (c10d/Gloo over
// loopback, synchronised BatchNorm on), the run finishes, the memory plot gets one curve per
// rank, pause is refused with a reason while stop stays available, and a missing worker
// program is a clear failure instead of a hang. A worker that dies at once fails the run in
// seconds, not after HEADROOM_DIST_TIMEOUT (600 s): in the studio (rank 0 waiting in the
// rendezvous gives up) and from `headroom-cli train nproc=2` (the launcher quotes the dead rank
// and ends rank 0). Tiny synthetic data (64 px), yolov8n.
#include "mainwindow.h"
#include "plotwidget.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"

#include "data/synthetic_dataset.h"

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>

using hr::TrainConfig;

class TestUiDist : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void twoProcessRunFromTrainPage();
    void missingWorkerProgramFailsClearly();
    void deadWorkerFailsTheRunInSeconds();
    void cliLauncherNoticesAKilledWorker();

private:
    TrainConfig tinyConfig(const QString& name) const;

    QTemporaryDir m_dir;
    QString m_dataYaml;
};

void TestUiDist::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_dist");
    std::string error;
    m_dataYaml = hr::testing::makeTinyDataset(m_dir, 8, 2, &error);
    QVERIFY2(!m_dataYaml.isEmpty(), error.c_str());
    QVERIFY2(QFileInfo(QStringLiteral(HEADROOM_CLI_PATH)).isExecutable(), HEADROOM_CLI_PATH);
}

TrainConfig TestUiDist::tinyConfig(const QString& name) const {
    TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = m_dataYaml.toStdString();
    c.imgsz = 64;
    c.batch = 4; // 2 per rank
    c.epochs = 1;
    c.workers = 0;
    c.threads = 1; // one core per process
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.warmup_epochs = 0;
    c.memory_sample_hz = 50;
    c.device = "cpu";
    c.project = m_dir.filePath("runs").toStdString();
    c.name = name.toStdString();
    c.exist_ok = true;
    c.nproc = 2;
    c.sync_bn = true;
    return c;
}

void TestUiDist::twoProcessRunFromTrainPage() {
    hr::ui::MainWindow window;
    window.resize(1200, 800);
    window.show();
    window.settingsPage()->form()->setConfig(tinyConfig("dp"));
    hr::ui::TrainingSession* session = window.session();
    session->setWorkerProgram(QStringLiteral(HEADROOM_CLI_PATH));
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QSignalSpy samples(session, &hr::ui::TrainingSession::memorySampled);

    QElapsedTimer clock;
    clock.start();
    QVERIFY(window.startTraining());
    QVERIFY(session->isRunning());
    QCOMPARE(session->processCount(), 2);
    // Pause is refused with a reason; stop stays available.
    auto* pause = window.findChild<QAction*>(QStringLiteral("pause"));
    auto* stop = window.findChild<QAction*>(QStringLiteral("stop"));
    QVERIFY(pause && stop);
    QVERIFY(!pause->isEnabled());
    QVERIFY2(pause->toolTip().contains(QStringLiteral("data-parallel")),
             qPrintable(pause->toolTip()));
    QVERIFY(stop->isEnabled());

    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
    const QString log = window.trainPage()->log()->toPlainText();
    qInfo("2-process run from the Train page: %.1f s", clock.elapsed() / 1000.0);
    QVERIFY2(failed.isEmpty(), qPrintable(log));
    QCOMPARE(finished.count(), 1);
    QVERIFY2(log.contains(QStringLiteral("sync_bn: BatchNorm statistics over the batches of "
                                         "all 2 ranks")),
             qPrintable(log));
    QVERIFY2(!log.contains(QStringLiteral("error: ")), qPrintable(log));

    // Samples of both ranks reached the GUI, and the memory plot has one curve per rank.
    int perRank[2] = {0, 0};
    for (const auto& args : samples) {
        const int rank = args.first().value<hr::MemorySample>().rank;
        QVERIFY(rank == 0 || rank == 1);
        ++perRank[rank];
    }
    qInfo("memory samples: rank 0 %d, rank 1 %d", perRank[0], perRank[1]);
    QVERIFY(perRank[0] > 0);
    QVERIFY(perRank[1] > 0);
    hr::ui::TrainPage* page = window.trainPage();
    hr::ui::PlotWidget* plot = page->memoryPlot();
    const int rank0 = page->memorySeriesOfRank(0);
    const int rank1 = page->memorySeriesOfRank(1);
    QVERIFY(rank0 >= 0 && rank1 >= 0 && rank0 != rank1);
    QCOMPARE(page->memorySeriesOfRank(2), -1);
    QCOMPARE(plot->pointCount(rank0), perRank[0]);
    QCOMPARE(plot->pointCount(rank1), perRank[1]);
    QCOMPARE(plot->seriesName(rank0), QStringLiteral("rank 0 allocated"));
    QCOMPARE(plot->seriesName(rank1), QStringLiteral("rank 1 allocated"));

    // Rank 0 wrote the run folder; rank 1 streamed its samples next to it.
    const QString runDir =
        QString::fromStdString(finished.first().first().value<hr::RunFinished>().runDir);
    QVERIFY(QFileInfo::exists(runDir + "/weights/last.pt"));
    QFile rank1File(runDir + "/memory.rank1.csv");
    QVERIFY(rank1File.open(QIODevice::ReadOnly));
    const int lines = int(rank1File.readAll().count('\n'));
    QCOMPARE(lines, perRank[1] + 1); // the header, then every sample the GUI drew
    QVERIFY(!QFileInfo::exists(runDir + "/memory.rank0.csv"));
    QVERIFY(pause->isEnabled() == false); // idle again: nothing to pause
    QVERIFY(window.findChild<QAction*>(QStringLiteral("start"))->isEnabled());
}

void TestUiDist::missingWorkerProgramFailsClearly() {
    hr::ui::TrainingSession session;
    session.setWorkerProgram(m_dir.filePath("no-such-headroom-cli"));
    QSignalSpy failed(&session, &hr::ui::TrainingSession::failed);
    QVERIFY(!session.start(tinyConfig("missing")));
    QVERIFY(!session.isRunning());
    QCOMPARE(failed.count(), 1);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(QStringLiteral("no-such-headroom-cli")) &&
                 message.contains(QStringLiteral("HEADROOM_CLI")),
             qPrintable(message));
}

void TestUiDist::deadWorkerFailsTheRunInSeconds() {
    // The "worker" says what is wrong on stderr and exits at once: rank 0 (this process) is
    // left alone in the rendezvous, which would wait HEADROOM_DIST_TIMEOUT (600 s by default).
    qunsetenv("HEADROOM_DIST_TIMEOUT");
    const QString program = m_dir.filePath("dying-worker.sh");
    {
        QFile script(program);
        QVERIFY(script.open(QIODevice::WriteOnly | QIODevice::Text));
        script.write("#!/bin/sh\n"
                     "echo \"rank $RANK: reading the settings\" >&2\n"
                     "echo \"rank $RANK: batch: not a number (the test's worker)\" >&2\n"
                     "exit 3\n");
        script.close();
        QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
    }
    hr::ui::TrainingSession session;
    session.setWorkerProgram(program);
    QSignalSpy failed(&session, &hr::ui::TrainingSession::failed);
    QSignalSpy logs(&session, &hr::ui::TrainingSession::logMessage);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(session.start(tinyConfig("dead-worker")));
    QVERIFY(session.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
    const double noticed = clock.elapsed() / 1000.0;
    QTRY_VERIFY_WITH_TIMEOUT(!session.isRunning(), 60000);
    const double ended = clock.elapsed() / 1000.0;
    const QString message = failed.first().first().toString();
    qInfo("dead worker noticed after %.2f s, the run ended after %.2f s:\n%s", noticed, ended,
          qPrintable(message));
    QVERIFY2(message.startsWith(QStringLiteral("Rank 1 exited with status 3 before the run "
                                               "ended")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("start again")), qPrintable(message));
    QVERIFY2(noticed < 10 && ended < 15, qPrintable(QString("%1 s, %2 s").arg(noticed).arg(ended)));
    // One failure: rank 0's own (it gave up the rendezvous) is logged, not reported again.
    QCOMPARE(failed.count(), 1);
    QStringList lines;
    for (const auto& args : logs)
        lines << args.at(1).toString();
    const QString log = lines.join('\n');
    // The worker's own words are in the log, under a line that marks them as its raw output.
    QVERIFY2(log.contains(QStringLiteral("The raw output of rank 1 (the program's own words, not "
                                         "translated):\n    rank 1: reading the settings\n    "
                                         "rank 1: batch: not a number (the test's worker)")),
             qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("rank 0 of 2 cannot join the run")) &&
                 log.contains(QStringLiteral("(1 of 2 ranks had joined)")),
             qPrintable(log));
}

void TestUiDist::cliLauncherNoticesAKilledWorker() {
    // `train nproc=2`: rank 1 is frozen as soon as it exists and killed (SIGKILL) once rank 0
    // waits for it in the rendezvous. The launcher must say so and end rank 0 within seconds
    // (HEADROOM_DIST_TIMEOUT is 600 s; the launcher's grace period 30 s).
    qunsetenv("HEADROOM_DIST_TIMEOUT");
    QProcess launcher;
    launcher.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    launcher.setArguments(
        {QStringLiteral("train"), QStringLiteral("--data"), m_dataYaml,
         QStringLiteral("model=yolov8n.yaml"), QStringLiteral("imgsz=64"),
         QStringLiteral("batch=4"), QStringLiteral("epochs=1"), QStringLiteral("workers=0"),
         QStringLiteral("threads=1"), QStringLiteral("device=cpu"), QStringLiteral("nproc=2"),
         QStringLiteral("project=") + m_dir.filePath("runs"), QStringLiteral("name=cli-killed")});
    launcher.start();
    QVERIFY(launcher.waitForStarted());
    const qint64 parent = launcher.processId();
    // The worker with RANK=1 among the launcher's children (/proc: parent pid, environment).
    QByteArray environment;
    const auto findRankOne = [parent, &environment]() -> qint64 {
        const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
        for (const QString& entry : entries) {
            bool numeric = false;
            const qint64 pid = entry.toLongLong(&numeric);
            if (!numeric)
                continue;
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray text = stat.readAll();
            const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
            if (fields.size() < 2 || fields[1].toLongLong() != parent)
                continue;
            QFile file(QStringLiteral("/proc/%1/environ").arg(pid));
            if (file.open(QIODevice::ReadOnly))
                environment = file.readAll();
            if (environment.split('\0').contains("RANK=1"))
                return pid;
        }
        return 0;
    };
    qint64 rankOne = 0;
    QTRY_VERIFY_WITH_TIMEOUT((rankOne = findRankOne()) > 0, 30000);
    QCOMPARE(::kill(static_cast<pid_t>(rankOne), SIGSTOP), 0);
    // Rank 0 hosts the rendezvous on MASTER_PORT: wait until it listens there.
    int port = 0;
    for (const QByteArray& variable : environment.split('\0'))
        if (variable.startsWith("MASTER_PORT="))
            port = variable.mid(12).toInt();
    QVERIFY(port > 0);
    const QByteArray onPort =
        QByteArray(":") + QByteArray::number(port, 16).toUpper().rightJustified(4, '0') + " ";
    // A socket on MASTER_PORT in a TCP state (/proc/net/tcp: local address, remote address,
    // state; 0A listening, 01 established).
    const auto socketOnPort = [&onPort](int field, const QByteArray& state) {
        for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
            QFile file(QString::fromLatin1(table));
            if (!file.open(QIODevice::ReadOnly))
                continue;
            for (const QByteArray& line : file.readAll().split('\n')) {
                const QList<QByteArray> fields = line.simplified().split(' ');
                if (fields.size() > 3 && (fields[field] + ' ').endsWith(onPort) &&
                    fields[3] == state)
                    return true;
            }
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(socketOnPort(1, "0A"), 60000);
    // Rank 0's own client of the store has connected (rank 1 is stopped): the store is set up
    // and rank 0 counts itself in next, before it looks for a reason to give up.
    QTRY_VERIFY_WITH_TIMEOUT(socketOnPort(2, "01"), 60000);
    QVERIFY(launcher.state() == QProcess::Running);
    QElapsedTimer clock;
    clock.start();
    QCOMPARE(::kill(static_cast<pid_t>(rankOne), SIGKILL), 0);
    QVERIFY(launcher.waitForFinished(60000));
    const double seconds = clock.elapsed() / 1000.0;
    const QString errors = QString::fromLocal8Bit(launcher.readAllStandardError());
    const QString output = QString::fromLocal8Bit(launcher.readAllStandardOutput()) + errors;
    qInfo("launcher ended %.2f s after rank 1 was killed; exit code %d:\n%s", seconds,
          launcher.exitCode(), qPrintable(output.right(2000)));
    QCOMPARE(launcher.exitStatus(), QProcess::NormalExit);
    QVERIFY(launcher.exitCode() != 0);
    QVERIFY2(errors.contains(QStringLiteral("train: rank 1 was killed by signal 9")),
             qPrintable(errors));
    QVERIFY2(errors.contains(QStringLiteral("asked to end (SIGTERM) at once")), qPrintable(errors));
    QVERIFY2(errors.contains(QStringLiteral("the run cannot go on without rank 1")),
             qPrintable(errors));
    // Rank 0 gave up the rendezvous by itself, said why, and exited (not killed).
    QVERIFY2(output.contains(QStringLiteral("rank 0 of 2 cannot join the run")) &&
                 output.contains(QStringLiteral("(1 of 2 ranks had joined)")),
             qPrintable(output));
    QVERIFY2(errors.contains(QStringLiteral("then rank 0 exited with status 1")),
             qPrintable(errors));
    QVERIFY2(seconds < 10, qPrintable(QString::number(seconds)));
}

QTEST_MAIN(TestUiDist)
#include "test_ui_dist.moc"
