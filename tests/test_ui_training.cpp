// SPDX-License-Identifier: GPL-3.0-or-later
// GUI tests that train: live plots, event-loop responsiveness, the OOM advisor's "Apply and
// continue", and the Runs page. Tiny data (synthetic, 64 px) and yolov8n; offscreen.
#include "elidedlabel.h"
#include "mainwindow.h"
#include "oomadvisordialog.h"
#include "plotwidget.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"

#include "compare/comparison.h"
#include "data/synthetic_dataset.h"
#include "runs/run_store.h"
#include "util/bytes.h"

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QtTest>

#include <QStatusBar>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <sched.h>

using hr::TrainConfig;

using hr::testing::answerWhenAsked;
using hr::testing::ScopedEnv;

class TestUiTraining : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void trainingUpdatesPlotsAndStaysResponsive();
    void runsPageListsFinishedRun();
    void forcedOomOpensAdvisorAndContinues();
    void closingWithAdvisorOpenEndsRun();
    void choosingBeforeTheSearchEndsAppliesTheShownFix();
    void runsPageMenuAndStates();
    void runsPageShowsTheLiveRunAsRunning();
    void longMessagesNeverWidenTheWindow();
    void startLeavesTheScanToTheTrainerThread();
    void fixCheckIsLogged();
    void stopInTheFirstEpochClaimsNoMap();
    void largeScanAsksAtStart();
    void processesPastTheCoresAskBeforeWorkers();

private:
    TrainConfig tinyConfig(const QString& name) const;
    TrainConfig oomConfig(const QString& name) const;

    QTemporaryDir m_dir;
    QString m_dataYaml;
    std::int64_t m_measuredPeak = 0;
    std::int64_t m_trainPagePeak = 0;
};

void TestUiTraining::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_training");
    std::string error;
    m_dataYaml = hr::testing::makeTinyDataset(m_dir, 8, 4, &error);
    QVERIFY2(!m_dataYaml.isEmpty(), error.c_str());
}

TrainConfig TestUiTraining::tinyConfig(const QString& name) const {
    TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = m_dataYaml.toStdString();
    c.imgsz = 64;
    c.batch = 4;
    c.epochs = 2;
    c.workers = 1;
    c.threads = 1; // leave a core to the GUI thread on a 2-core machine
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.warmup_epochs = 0;
    c.device = "cpu";
    c.project = m_dir.filePath("runs").toStdString();
    c.name = name.toStdString();
    return c;
}

void TestUiTraining::trainingUpdatesPlotsAndStaysResponsive() {
    hr::ui::MainWindow window;
    window.resize(1200, 800);
    window.show();
    window.settingsPage()->form()->setConfig(tinyConfig("plots"));
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QSignalSpy epochs(session, &hr::ui::TrainingSession::epochEnded);

    // A 10 ms timer measures the longest gap between two of its ticks while training runs.
    QElapsedTimer clock;
    qint64 last = 0, worst = 0;
    int ticks = 0;
    QTimer probe;
    probe.setInterval(10);
    connect(&probe, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        if (ticks++ > 0)
            worst = std::max(worst, now - last);
        last = now;
    });
    QVERIFY(window.startTraining());
    // Start answers at once, before the trainer's first event: the page says it is starting.
    QVERIFY2(window.trainPage()->statusLine()->text().startsWith("Starting"),
             qPrintable(window.trainPage()->statusLine()->text()));
    clock.start();
    probe.start();
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
    probe.stop();

    QVERIFY2(failed.isEmpty(),
             failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(epochs.count(), 2);
    m_measuredPeak = epochs.last().first().value<hr::EpochEnd>().peakBytes();
    QVERIFY(m_measuredPeak > 0);
    m_trainPagePeak = window.trainPage()->trainingPeak();
    QCOMPARE(window.trainPage()->runState(), QString("finished"));

    hr::ui::TrainPage* page = window.trainPage();
    // Memory: allocated and peak lines plus phase shading; losses per batch; metrics per epoch.
    QVERIFY(page->memoryPlot()->pointCount(4) > 0);
    QVERIFY(page->memoryPlot()->pointCount(5) > 0);
    int shading = 0;
    for (int i = 0; i < 4; ++i)
        shading += page->memoryPlot()->pointCount(i);
    QVERIFY(shading > 0);
    for (int i = 0; i < 3; ++i)
        QVERIFY(page->lossPlot()->pointCount(i) >= 2);
    for (int i = 3; i < 6; ++i)
        QCOMPARE(page->lossPlot()->pointCount(i), 2);
    QCOMPARE(page->mapPlot()->pointCount(0), 2);
    QCOMPARE(page->mapPlot()->pointCount(1), 2);
    QVERIFY(page->lrPlot()->pointCount(0) >= 2);
    QVERIFY(page->memoryPlot()->replotCount() > 0);
    QCOMPARE(page->progressBar()->value(), page->progressBar()->maximum());

    QVERIFY(ticks > 20);
    QVERIFY2(worst <= 100, qPrintable(QString("the event loop stalled for %1 ms").arg(worst)));
}

void TestUiTraining::runsPageListsFinishedRun() {
    hr::ui::RunsPage page;
    page.setRunsFolder(m_dir.filePath("runs"));
    page.refresh();
    QTreeWidgetItem* run = nullptr;
    for (int i = 0; i < page.runList()->topLevelItemCount(); ++i)
        if (page.runList()->topLevelItem(i)->text(0) == "plots")
            run = page.runList()->topLevelItem(i);
    QVERIFY(run);
    using Page = hr::ui::RunsPage;
    QCOMPARE(run->text(Page::EpochsColumn), QString("2/2"));
    bool ok = false;
    run->text(Page::Map50Column).toDouble(&ok);
    QVERIFY2(ok, qPrintable(run->text(Page::Map50Column)));
    // State, model, image size, duration; training and validation peaks in columns of their
    // own, as the Compare page splits them, the training peak against the budget.
    QTreeWidgetItem* header = page.runList()->headerItem();
    QCOMPARE(header->text(Page::StateColumn), QString("State"));
    QCOMPARE(header->text(Page::ModelColumn), QString("Model"));
    QCOMPARE(header->text(Page::ImageSizeColumn), QString("Image size"));
    QCOMPARE(header->text(Page::DurationColumn), QString("Duration"));
    QCOMPARE(header->text(Page::TrainPeakColumn), QString("Training peak / budget"));
    QCOMPARE(header->text(Page::ValPeakColumn), QString("Validation peak"));
    QCOMPARE(run->text(Page::ModelColumn), QString("yolov8n.yaml"));
    QCOMPARE(run->text(Page::ImageSizeColumn), QString("64"));
    QVERIFY(run->text(Page::DurationColumn) != QString("–"));
    const std::optional<hr::RunRecord> record =
        hr::RunStore::load(run->data(0, Qt::UserRole).toString().toStdString());
    QVERIFY(record);
    const hr::RunPeaks peaks = hr::runPeaks(*record);
    QVERIFY(peaks.trainPeak() > 0);
    QVERIFY(peaks.valPeak() > 0);
    QCOMPARE(run->data(Page::TrainPeakColumn, Qt::UserRole).toLongLong(),
             qlonglong(peaks.trainPeak()));
    QCOMPARE(run->data(Page::ValPeakColumn, Qt::UserRole).toLongLong(), qlonglong(peaks.valPeak()));
    QCOMPARE(run->text(Page::TrainPeakColumn),
             QString::fromStdString(hr::formatBytes(peaks.trainPeak())) + " / no budget");
    QCOMPARE(run->text(Page::ValPeakColumn),
             QString::fromStdString(hr::formatBytes(peaks.valPeak())));
    // The combined per-epoch peak of results.csv is the larger of the two.
    QVERIFY(record->summary.peakMemoryBytes >= std::max(peaks.trainPeak(), peaks.valPeak()));
    QCOMPARE(run->text(Page::StateColumn), QString("finished"));
    // The Train page showed the same training peak.
    QCOMPARE(qlonglong(m_trainPagePeak), qlonglong(peaks.trainPeak()));
    QVERIFY(page.openRun(run->data(0, Qt::UserRole).toString()));
    QCOMPARE(page.mapPlot()->pointCount(0), 2);
    QCOMPARE(page.lossPlot()->pointCount(0), 2);
}

TrainConfig TestUiTraining::oomConfig(const QString& name) const {
    TrainConfig c = tinyConfig(name);
    c.batch = 8;
    c.imgsz = 256;
    c.epochs = 1;
    c.memory_budget = std::max<std::int64_t>(std::int64_t(64) << 20, m_measuredPeak * 3 / 2);
    c.on_oom = hr::OomPolicy::Ask;
    return c;
}

void TestUiTraining::forcedOomOpensAdvisorAndContinues() {
    QVERIFY(m_measuredPeak > 0);
    hr::ui::MainWindow window;
    window.show();
    // Four times the image size and twice the batch under a budget half again above the peak
    // measured at 64 px (and at least the 64 MiB a budget may be): the first step runs out of
    // memory, and a smaller batch or image size fits again.
    const TrainConfig c = oomConfig("oom");
    QVERIFY2(!hr::hasErrors(hr::validate(c)),
             hr::formatDiagnostics(hr::validate(c)).c_str()); // no modal "cannot start" box
    window.settingsPage()->form()->setConfig(c);
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy needed(session, &hr::ui::TrainingSession::oomDecisionNeeded);
    QSignalSpy applied(session, &hr::ui::TrainingSession::fixApplied);
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(window.advisor() != nullptr || !session->isRunning(), 120000);
    QVERIFY2(window.advisor(), qPrintable("the run ended without running out of memory:\n" +
                                          window.trainPage()->log()->toPlainText()));
    QCOMPARE(needed.count(), 1);
    QVERIFY(window.advisor()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(window.advisor()->searchDone(), 120000);
    QVERIFY2(!window.advisor()->fixes().empty(),
             qPrintable(window.trainPage()->log()->toPlainText()));
    // The memory curve goes on while the dialog waits: the plot marks the wait and keeps
    // receiving samples (the sampler's, not the stopped trainer's).
    hr::ui::TrainPage* page = window.trainPage();
    QVERIFY(page->waitingForChoice());
    const int waitSeries = page->waitingShadingSeries();
    const int waitPoints = page->memoryPlot()->pointCount(waitSeries);
    QTRY_VERIFY_WITH_TIMEOUT(page->memoryPlot()->pointCount(waitSeries) >= waitPoints + 5, 30000);
    auto* apply = window.advisor()->findChild<QPushButton*>("apply0");
    QVERIFY(apply);
    QTest::mouseClick(apply, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page->waitingForChoice(), 30000);
    // The top fix is predicted to fit with a 10% margin: the run finishes without another
    // out-of-memory error (the log says what happened when it does not).
    QTRY_VERIFY2_WITH_TIMEOUT(!session->isRunning() || needed.count() > 1,
                              qPrintable(window.trainPage()->log()->toPlainText()), 120000);
    QVERIFY2(needed.count() == 1, qPrintable(window.trainPage()->log()->toPlainText()));
    QVERIFY2(failed.isEmpty(),
             failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QVERIFY(applied.count() >= 1);
    QCOMPARE(finished.count(), 1);
    QVERIFY(window.trainPage()->log()->toPlainText().contains("Fix applied"));
    QCOMPARE(window.trainPage()->mapPlot()->pointCount(0), 1);
}

void TestUiTraining::closingWithAdvisorOpenEndsRun() {
    // The trainer thread waits for the person's answer; closing the window must not wait for
    // it forever: the session answers "stop", the run saves its last weights and ends.
    QVERIFY(m_measuredPeak > 0);
    auto window = std::make_unique<hr::ui::MainWindow>();
    window->show();
    window->settingsPage()->form()->setConfig(oomConfig("closed"));
    QVERIFY(window->startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(window->advisor() != nullptr || !window->session()->isRunning(),
                             120000);
    QVERIFY(window->advisor());
    QElapsedTimer timer;
    timer.start();
    window.reset();
    QVERIFY(QFileInfo::exists(m_dir.filePath("runs/closed/weights/last.pt")));
    qInfo("closing with the advisor open took %lld ms", timer.elapsed());
}

void TestUiTraining::choosingBeforeTheSearchEndsAppliesTheShownFix() {
    // A person who clicks the first card that arrives does not wait for the other predictions:
    // the search ends there and that fix is applied to the run.
    QVERIFY(m_measuredPeak > 0);
    hr::ui::MainWindow window;
    window.show();
    TrainConfig c = oomConfig("early");
    window.settingsPage()->form()->setConfig(c);
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy found(session, &hr::ui::TrainingSession::fixesFound);
    QSignalSpy applied(session, &hr::ui::TrainingSession::fixApplied);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(window.advisor() != nullptr || !session->isRunning(), 120000);
    QVERIFY(window.advisor());
    QVERIFY(session->isAskingForFix());
    QTRY_VERIFY_WITH_TIMEOUT(!window.advisor() || !window.advisor()->fixes().empty(), 120000);
    QVERIFY(window.advisor());
    const bool early = !window.advisor()->searchDone();
    const std::string chosen = window.advisor()->fixes().front().id;
    auto* apply = window.advisor()->findChild<QPushButton*>("apply0");
    QVERIFY(apply);
    QTest::mouseClick(apply, Qt::LeftButton);
    QVERIFY(!session->isAskingForFix());
    QTRY_VERIFY_WITH_TIMEOUT(!applied.isEmpty() || !session->isRunning(), 120000);
    QVERIFY(!applied.isEmpty());
    QCOMPARE(applied.first().first().value<hr::FixApplied>().fixId, chosen);
    if (early) {
        // The search stopped at the choice: no complete list came after it.
        for (const QList<QVariant>& p : found)
            QVERIFY(!p.first().value<hr::FixSearchProgress>().done);
    }
    qInfo("chose %s %s the search had ended", chosen.c_str(), early ? "before" : "after");
    session->stop();
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
}

void TestUiTraining::runsPageMenuAndStates() {
    // A failed run shows its reason as the state's tooltip; the context menu offers open
    // folder, resume (only with a checkpoint), compare and delete, which asks first.
    const QString folder = m_dir.filePath("menu-runs");
    QVERIFY(QDir().mkpath(folder + "/broken"));
    QFile events(folder + "/broken/events.jsonl");
    QVERIFY(events.open(QIODevice::WriteOnly));
    events.write(
        R"({"type":"run_started","time":10})"
        "\n"
        R"({"type":"run_failed","time":12,"message":"disk full"})"
        "\n"
        R"({"type":"run_finished","time":12,"state":"failed","reason":"disk full: free some space and resume"})"
        "\n");
    events.close();
    QFile config(folder + "/broken/config.yaml");
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("model: yolov8n.yaml\nepochs: 5\nimgsz: 320\nmemory_budget: 167772160\n");
    config.close();

    hr::ui::RunsPage page;
    page.setRunsFolder(folder);
    QTreeWidgetItem* item = page.itemOf(folder + "/broken");
    QVERIFY(item);
    using Page = hr::ui::RunsPage;
    QCOMPARE(item->text(Page::StateColumn), QString("failed"));
    QVERIFY(item->toolTip(Page::StateColumn).contains("disk full: free some space"));
    QCOMPARE(item->text(Page::EpochsColumn), QString("0/5"));
    QCOMPARE(item->text(Page::DurationColumn), QString("2 s"));
    QVERIFY(item->text(Page::TrainPeakColumn).endsWith("/ 160 MiB"));

    std::unique_ptr<QMenu> menu(page.contextMenuFor(item));
    QStringList names;
    for (QAction* action : menu->actions())
        if (!action->isSeparator())
            names << action->objectName();
    QCOMPARE(names, QStringList({"openFolder", "resumeRun", "compareRuns", "deleteRun"}));
    QAction* resume = menu->findChild<QAction*>("resumeRun");
    QVERIFY(resume && !resume->isEnabled()); // no weights/last.pt
    QAction* remove = menu->findChild<QAction*>("deleteRun");
    QVERIFY(remove && remove->isEnabled());

    // Delete asks; Cancel keeps the folder, Yes removes it.
    auto answer = [](QMessageBox::StandardButton button) {
        QTimer::singleShot(0, [button] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box);
            QCOMPARE(box->objectName(), QString("confirmDelete"));
            QTest::mouseClick(box->button(button), Qt::LeftButton);
        });
    };
    answer(QMessageBox::Cancel);
    remove->trigger();
    QVERIFY(QFileInfo::exists(folder + "/broken"));
    QVERIFY(page.itemOf(folder + "/broken"));
    answer(QMessageBox::Yes);
    remove->trigger();
    QVERIFY(!QFileInfo::exists(folder + "/broken"));
    QVERIFY(!page.itemOf(folder + "/broken"));
}

void TestUiTraining::runsPageShowsTheLiveRunAsRunning() {
    // The run this studio trains has no end event yet: its row reads "running", with the time
    // since it started and its peak so far, and cannot be deleted or resumed.
    const QString folder = m_dir.filePath("live-runs");
    QVERIFY(QDir().mkpath(folder + "/live"));
    const double started = double(QDateTime::currentSecsSinceEpoch() - 30);
    QFile events(folder + "/live/events.jsonl");
    QVERIFY(events.open(QIODevice::WriteOnly));
    // A step's peak reaches the run folder as a batch_end event (no epoch has ended yet).
    events.write(QString(R"({"type":"run_started","time":%1})"
                         "\n"
                         R"({"type":"batch_end","time":%2,"peak_bytes":125829120})"
                         "\n")
                     .arg(started, 0, 'f', 0)
                     .arg(started + 10, 0, 'f', 0)
                     .toUtf8());
    events.close();
    QFile config(folder + "/live/config.yaml");
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("model: yolov8n.yaml\nepochs: 5\nimgsz: 320\nmemory_budget: 167772160\n");
    config.close();

    using Page = hr::ui::RunsPage;
    Page page;
    page.setRunsFolder(folder);
    QTreeWidgetItem* item = page.itemOf(folder + "/live");
    QVERIFY(item);
    QCOMPARE(item->text(Page::StateColumn), QString("unfinished")); // not this studio's run
    page.setActiveRun(folder + "/live");
    page.refreshActiveRun();
    item = page.itemOf(folder + "/live");
    QVERIFY(item);
    QCOMPARE(item->text(Page::StateColumn), QString("running"));
    QCOMPARE(item->text(Page::TrainPeakColumn), QString("120 MiB / 160 MiB"));
    const double seconds = item->data(Page::DurationColumn, Qt::UserRole).toDouble();
    QVERIFY2(seconds >= 29 && seconds <= 40, qPrintable(item->text(Page::DurationColumn)));
    std::unique_ptr<QMenu> menu(page.contextMenuFor(item));
    QVERIFY(!menu->findChild<QAction*>("deleteRun")->isEnabled());
    QVERIFY(!menu->findChild<QAction*>("resumeRun")->isEnabled());
}

void TestUiTraining::longMessagesNeverWidenTheWindow() {
    hr::ui::MainWindow window;
    window.resize(1200, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const int width = window.width();
    QString message = "data loader: Headroom budget: tried to allocate 37.5 MiB";
    while (message.size() < 3000)
        message += " and a very long explanation of what happened";
    emit window.session()->failed(message + "\nsecond line");
    QCoreApplication::sendPostedEvents(); // the layout requests the label made
    QCoreApplication::processEvents();
    QCOMPARE(window.width(), width);
    QVERIFY(window.trainPage()->statusLine()->isElided());
    QVERIFY(window.trainPage()->statusLine()->toolTip().contains("second line"));
}

// Starting a run must not scan the data set on the GUI thread (issue 21): the scan of a large
// list data set runs on the trainer thread, says how far it is, and the event loop turns
// meanwhile.
void TestUiTraining::startLeavesTheScanToTheTrainerThread() {
    namespace fs = std::filesystem;
    // 30,000 entries, hard links to one 640x640 noise PNG: the scan reads each file's chunks
    // (the header check, no decode) and takes seconds, but the files take the space of one.
    const fs::path root = m_dir.filePath("biglist").toStdString();
    fs::create_directories(root / "images");
    fs::create_directories(root / "labels");
    QImage noise(640, 640, QImage::Format_RGB32);
    std::mt19937 random(7);
    for (int y = 0; y < noise.height(); ++y) {
        auto* line = reinterpret_cast<quint32*>(noise.scanLine(y));
        for (int x = 0; x < noise.width(); ++x)
            line[x] = 0xff000000u | (random() & 0xffffffu);
    }
    const fs::path image = root / "images" / "img_0.png";
    QVERIFY(noise.save(QString::fromStdString(image.string())));
    const fs::path label = root / "labels" / "img_0.txt";
    {
        QFile file(QString::fromStdString(label.string()));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("0 0.5 0.5 0.25 0.25\n");
    }
    constexpr int kImages = 30000;
    QFile list(QString::fromStdString((root / "train.txt").string()));
    QVERIFY(list.open(QIODevice::WriteOnly));
    list.write("images/img_0.png\n");
    for (int i = 1; i < kImages; ++i) {
        const std::string name = "img_" + std::to_string(i);
        fs::create_hard_link(image, root / "images" / (name + ".png"));
        fs::create_hard_link(label, root / "labels" / (name + ".txt"));
        list.write(("images/" + name + ".png\n").c_str());
    }
    list.close();
    QFile yaml(QString::fromStdString((root / "data.yaml").string()));
    QVERIFY(yaml.open(QIODevice::WriteOnly));
    yaml.write(("path: " + root.string() + "\ntrain: train.txt\nval: train.txt\nnames:\n  0: box\n")
                   .c_str());
    yaml.close();

    TrainConfig config = tinyConfig("biglist");
    config.data = (root / "data.yaml").string();
    config.epochs = 1;
    hr::ui::TrainingSession session;
    QSignalSpy started(&session, &hr::ui::TrainingSession::started);
    QStringList progress;
    connect(&session, &hr::ui::TrainingSession::logMessage, this, [&](int, const QString& text) {
        // The studio's wording of core's "scanning" line (LogWording).
        if (text.startsWith(QStringLiteral("Scanning the training images")))
            progress << text;
    });
    int ticks = 0;
    QTimer probe;
    probe.setInterval(10);
    connect(&probe, &QTimer::timeout, this, [&] {
        if (started.isEmpty())
            ++ticks;
    });
    probe.start();
    QVERIFY(session.start(config));
    // The scan writes the label cache when it ends; on the GUI thread it would be there now.
    QVERIFY2(!fs::exists(root / "labels.headroom-cache"),
             "start() scanned the data set on the GUI thread");
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty() || !session.isRunning(), 300000);
    QVERIFY(!started.isEmpty());
    QVERIFY(fs::exists(root / "labels.headroom-cache"));
    session.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!session.isRunning(), 120000);
    probe.stop();
    QVERIFY2(ticks >= 20, qPrintable(QString("the event loop ticked %1 times").arg(ticks)));
    QVERIFY2(!progress.isEmpty(), "a scan of seconds showed no progress");
    QVERIFY2(progress.last().endsWith(QStringLiteral(" of %1").arg(kImages)),
             qPrintable(progress.last()));
}

void TestUiTraining::fixCheckIsLogged() {
    // The trainer's check after a fix, as the session delivers it: the Train page's log says
    // the measured and predicted peak and time per image.
    hr::ui::MainWindow window;
    hr::FixChecked check;
    check.fixId = "batch";
    check.predictedPeak = 100 << 20;
    check.measuredPeak = 95 << 20;
    check.predictedSecondsPerImage = 0.010;
    check.measuredSecondsPerImage = 0.011;
    check.timedSteps = 20;
    emit window.session()->fixChecked(check);
    const QString log = window.trainPage()->log()->toPlainText();
    QVERIFY2(log.contains("After the fix the measured peak is 95.0 MiB, predicted 100 MiB "
                          "(-5.0%).") &&
                 log.contains("After the fix an image takes 11.0 ms, predicted 10.0 ms (10.0%, "
                              "over 20 step(s))."),
             qPrintable(log));
}

void TestUiTraining::stopInTheFirstEpochClaimsNoMap() {
    hr::ui::MainWindow window;
    window.resize(1200, 800);
    window.show();
    TrainConfig config = tinyConfig("first-epoch-stop");
    config.epochs = 50;
    config.batch = 1; // 8 steps an epoch: the stop lands within the first
    window.settingsPage()->form()->setConfig(config);
    hr::ui::TrainingSession* session = window.session();
    hr::ui::TrainPage* page = window.trainPage();
    // Stop as the first step's event arrives, as a click at that moment would.
    QMetaObject::Connection stopAtFirst =
        connect(session, &hr::ui::TrainingSession::batchEnded, this,
                [&window] { window.stopAction()->trigger(); });
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 60000);
    disconnect(stopAtFirst);

    // The step's peak is on the memory line, never "0 B"; no mAP is claimed without validation.
    const QString memory = page->memoryStatusLine()->text();
    QVERIFY2(page->trainingPeak() > 0, qPrintable(memory));
    QVERIFY2(!memory.contains("training peak 0 B") && !memory.contains("training peak –"),
             qPrintable(memory));
    const QString status = page->statusLine()->text();
    QVERIFY2(status.contains("no validation ran") && !status.contains("mAP50 0.0000"),
             qPrintable(status));

    // The next Start shows nothing of this run while the new one gets going.
    QVERIFY(page->memoryPlot()->pointCount(4) > 0);
    QVERIFY(window.startTraining());
    QCOMPARE(page->memoryPlot()->pointCount(4), 0);
    QCOMPARE(page->lossPlot()->pointCount(0), 0);
    QCOMPARE(page->trainingPeak(), std::int64_t(0));
    window.stopAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 60000);
}

void TestUiTraining::largeScanAsksAtStart() {
    // A data.yaml whose path holds more files than the scan's limit (6 here, through the
    // variable only tests set; 100000 otherwise): the run stops at the scan, on the trainer
    // thread, and the studio asks. No says why and starts nothing; Yes starts the same
    // settings with the scan confirmed.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string error;
    const QString yaml = hr::testing::makeTinyDataset(dir, 8, 4, &error);
    QVERIFY2(!yaml.isEmpty(), error.c_str());
    const ScopedEnv limit("HEADROOM_SCAN_FILE_LIMIT", "6");
    hr::ui::MainWindow window;
    window.show();
    TrainConfig config = tinyConfig("large-scan");
    config.data = yaml.toStdString();
    config.epochs = 1;
    window.settingsPage()->form()->setConfig(config);
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy started(session, &hr::ui::TrainingSession::started);

    QString asked;
    answerWhenAsked("confirmLargeScan", QMessageBox::No, &asked);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!asked.isEmpty(), 60000);
    QVERIFY2(asked.contains(yaml) && asked.contains("holds more than 6 files"), qPrintable(asked));
    QTRY_VERIFY(!session->isRunning());
    QVERIFY(started.isEmpty());
    QVERIFY2(window.statusBar()->currentMessage().startsWith("Not scanned:"),
             qPrintable(window.statusBar()->currentMessage()));
    QVERIFY(window.trainPage()->log()->toPlainText().contains("Not scanned:"));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(config.project + "/large-scan")));

    asked.clear();
    answerWhenAsked("confirmLargeScan", QMessageBox::Yes, &asked);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), 120000);
    QVERIFY(!asked.isEmpty());
    session->stop();
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 60000);
}

void TestUiTraining::processesPastTheCoresAskBeforeWorkers() {
    // Two processes on one core (this thread's affinity is what the check reads): Start asks
    // before any worker starts, in the studio's words. No starts nothing; Yes goes on as
    // --force does, to the workers' start (here a program that does not exist).
    cpu_set_t before;
    QCOMPARE(sched_getaffinity(0, sizeof before, &before), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &before)) {
            CPU_SET(cpu, &one);
            break;
        }
    QCOMPARE(sched_setaffinity(0, sizeof one, &one), 0);
    const ScopedEnv program("HEADROOM_CLI", "/nonexistent/headroom-cli");
    hr::ui::MainWindow window;
    window.show();
    TrainConfig config = tinyConfig("two-on-one");
    config.nproc = 2;
    window.settingsPage()->form()->setConfig(config);
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);

    QString asked;
    answerWhenAsked("confirmMachineLimits", QMessageBox::No, &asked);
    const bool startedNo = window.startTraining();
    QString askedYes;
    answerWhenAsked("confirmMachineLimits", QMessageBox::Yes, &askedYes);
    window.startTraining();
    sched_setaffinity(0, sizeof before, &before);

    QVERIFY(!startedNo);
    QVERIFY2(asked.contains("2 processes each train a copy of the model, but this machine has 1 "
                            "CPU cores") &&
                 asked.contains("set Processes to 1 or less"),
             qPrintable(asked));
    QCOMPARE(askedYes, asked);
    // Yes went past the check: what stopped it is the missing worker program.
    QTRY_VERIFY(!failed.isEmpty());
    QVERIFY2(failed.first().first().toString().contains("/nonexistent/headroom-cli"),
             qPrintable(failed.first().first().toString()));
    QTRY_VERIFY(!session->isRunning());
}

QTEST_MAIN(TestUiTraining)
#include "test_ui_training.moc"
