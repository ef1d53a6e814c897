// SPDX-License-Identifier: GPL-3.0-or-later
// A data-parallel run started from the studio: the Train page's Start with nproc 2 trains
// rank 0 in the window's process and rank 1 as a headroom-cli worker (c10d/Gloo over
// loopback, synchronised BatchNorm on), the run finishes, the memory plot gets one curve per
// rank, pause is refused with a reason while stop stays available, and a missing worker
// program is a clear failure instead of a hang. Tiny synthetic data (64 px), yolov8n.
#include "mainwindow.h"
#include "plotwidget.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"

#include "data/synthetic_dataset.h"

#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using hr::TrainConfig;

class TestUiDist : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void twoProcessRunFromTrainPage();
    void missingWorkerProgramFailsClearly();

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

QTEST_MAIN(TestUiDist)
#include "test_ui_dist.moc"
