// SPDX-License-Identifier: GPL-3.0-or-later
// The studio's promise on the mouse path: the real MainWindow driven only by clicks and typed
// text (widgets found by objectName, tabs by their bar), from the built-in sample through an
// out-of-memory error, the advisor and its best fix, to the finished run on the Runs page.
// The built-in sample is generated small (HEADROOM_BUILTIN_DATA) so that CI's 2 cores manage;
// every wait is on a condition.
#include "datapage.h"
#include "elidedlabel.h"
#include "estimatorservice.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "oomadvisordialog.h"
#include "plotwidget.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"

#include "data/synthetic_dataset.h"
#include "estimate/memory_estimator.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>
#include <set>

using hr::ui::MainWindow;

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

/// What one journey typed and what it saw.
struct JourneyResult {
    QString runDir;
    qint64 advisorAfterMs = -1;      ///< from the OOM signal to the advisor on screen
    bool advisorShownEarly = false;  ///< the dialog was up before the search had finished
    bool progressBeforeDone = false; ///< fixesFound() arrived with done == false
    QString firstFailedPhase;
    QString diagnosis; ///< the advisor's diagnosis as it opened
};

} // namespace

class TestUiJourney : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void builtinSampleOomAdvisorBestFixRunsPage();
    void afterEarlierRunAndCalibration();
    void batchMoveIsFirstToFail();

private:
    // --- a person's hands -----------------------------------------------------------------
    void clickTab(MainWindow& window, MainWindow::Page page);
    void clickAction(MainWindow& window, QAction* action);
    void typeInto(QWidget* root, const QString& objectName, const QString& text);
    void chooseFirst(QWidget* root, const QString& objectName);
    void clickButton(QWidget* root, const QString& objectName);

    /// Data → built-in sample; Settings → the journey's values typed in.
    void chooseBuiltinAndType(MainWindow& window, const QString& name, const QString& budget,
                              const QString& imgsz = QStringLiteral("320"),
                              const QString& epochs = QStringLiteral("2"));
    /// Start → advisor → best fix → the run ends. Checks the promise along the way.
    void startAndApplyBestFix(MainWindow& window, std::int64_t budget, JourneyResult& result);
    /// The Runs page row of the run: finished, peak within the budget and equal to the Train
    /// page's training peak.
    void checkRunsPage(MainWindow& window, const JourneyResult& run, std::int64_t budget);
    /// The issue's journey: built-in sample, budget 160 MiB, batch 32, 320 px, "ask me",
    /// Start, the best fix, then the run on the Runs page.
    void journeyAt160MiB(MainWindow& window, const QString& name, JourneyResult& run);

    QTemporaryDir m_dir;
};

void TestUiJourney::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_journey");
    // The built-in sample's generator and settings, with fewer images: 32 training images make
    // one batch of 32, the batch the journey starts with.
    const QString builtin = m_dir.filePath("builtin");
    hr::SyntheticOptions options;
    options.train = 32;
    options.val = 8;
    std::string error;
    QVERIFY2(hr::makeSyntheticDataset(builtin.toStdString(), options, &error), error.c_str());
    qputenv("HEADROOM_BUILTIN_DATA", builtin.toLocal8Bit());
}

void TestUiJourney::clickTab(MainWindow& window, MainWindow::Page page) {
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    QTabBar* bar = tabs->tabBar();
    const int index = static_cast<int>(page);
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
    QTRY_COMPARE(tabs->currentIndex(), index);
}

void TestUiJourney::clickAction(MainWindow& window, QAction* action) {
    auto* tools = window.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    QVERIFY(tools);
    auto* button = qobject_cast<QToolButton*>(tools->widgetForAction(action));
    QVERIFY(button);
    QVERIFY2(button->isEnabled(), qPrintable(action->text()));
    QTest::mouseClick(button, Qt::LeftButton);
}

void TestUiJourney::typeInto(QWidget* root, const QString& objectName, const QString& text) {
    auto* widget = root->findChild<QWidget*>(objectName);
    QVERIFY2(widget, qPrintable(objectName));
    QWidget* target = widget;
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(widget))
        target = spin->findChild<QLineEdit*>();
    QVERIFY(target);
    QTest::mouseClick(target, Qt::LeftButton);
    QTest::keyClick(target, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(target, Qt::Key_Delete);
    QTest::keyClicks(target, text);
    QTest::keyClick(target, Qt::Key_Tab);
}

void TestUiJourney::chooseFirst(QWidget* root, const QString& objectName) {
    auto* combo = root->findChild<QComboBox*>(objectName);
    QVERIFY2(combo, qPrintable(objectName));
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    QCOMPARE(combo->currentIndex(), 0);
}

void TestUiJourney::clickButton(QWidget* root, const QString& objectName) {
    auto* button = root->findChild<QAbstractButton*>(objectName);
    QVERIFY2(button, qPrintable(objectName));
    QTRY_VERIFY2(button->isVisible() && button->isEnabled(), qPrintable(objectName));
    QTest::mouseClick(button, Qt::LeftButton);
}

void TestUiJourney::chooseBuiltinAndType(MainWindow& window, const QString& name,
                                         const QString& budget, const QString& imgsz,
                                         const QString& epochs) {
    clickTab(window, MainWindow::Page::Data);
    clickButton(window.dataPage(), QStringLiteral("useBuiltin"));
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    QTRY_VERIFY_WITH_TIMEOUT(
        QString::fromStdString(form->config().data).startsWith(m_dir.filePath("builtin")), 60000);
    clickTab(window, MainWindow::Page::Settings);
    typeInto(form, QStringLiteral("memory_budget"), budget);
    typeInto(form, QStringLiteral("batch"), QStringLiteral("32"));
    typeInto(form, QStringLiteral("imgsz"), imgsz);
    chooseFirst(form, QStringLiteral("on_oom")); // "ask me"
    // Short for CI: two epochs, two loader threads, the runs in the test's folder.
    typeInto(form, QStringLiteral("epochs"), epochs);
    typeInto(form, QStringLiteral("workers"), QStringLiteral("2"));
    typeInto(form, QStringLiteral("project"), m_dir.filePath("runs"));
    typeInto(form, QStringLiteral("name"), name);
    const hr::TrainConfig c = form->config();
    QCOMPARE(c.batch, 32);
    QCOMPARE(c.imgsz, imgsz.toInt());
    QCOMPARE(c.on_oom, hr::OomPolicy::Ask);
    QCOMPARE(c.epochs, epochs.toInt());
    QCOMPARE(QString::fromStdString(c.name), name);
}

void TestUiJourney::startAndApplyBestFix(MainWindow& window, std::int64_t budget,
                                         JourneyResult& result) {
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy started(session, &hr::ui::TrainingSession::started);
    QSignalSpy ooms(session, &hr::ui::TrainingSession::oomOccurred);
    QSignalSpy epochs(session, &hr::ui::TrainingSession::epochEnded);
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QSignalSpy changes(session, &hr::ui::TrainingSession::fixChanges);
    int probeSamples = 0;
    QMetaObject::Connection c4 = connect(session, &hr::ui::TrainingSession::memorySampled, this,
                                         [&](const hr::MemorySample& sample) {
                                             if (sample.phase == hr::Phase::Probe)
                                                 ++probeSamples;
                                         });
    QElapsedTimer clock;
    qint64 oomAt = -1;
    QMetaObject::Connection c1 =
        connect(session, &hr::ui::TrainingSession::oomOccurred, this, [&](const hr::OomReport& r) {
            if (oomAt < 0) {
                oomAt = clock.elapsed();
                result.firstFailedPhase = QString::fromLatin1(hr::toString(r.phase));
            }
        });
    // Connected after the window's own slot: the advisor is up when this runs.
    QMetaObject::Connection c2 =
        connect(session, &hr::ui::TrainingSession::oomDecisionNeeded, this, [&] {
            if (result.advisorAfterMs >= 0 || !window.advisor())
                return;
            result.advisorAfterMs = clock.elapsed() - oomAt;
            result.advisorShownEarly = !window.advisor()->searchDone();
        });
    QMetaObject::Connection c3 = connect(session, &hr::ui::TrainingSession::fixesFound, this,
                                         [&](const hr::FixSearchProgress& p) {
                                             if (!p.done)
                                                 result.progressBeforeDone = true;
                                         });
    clock.start();
    clickAction(window, window.startAction());
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty() || !failed.isEmpty(), 120000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    result.runDir = QString::fromStdString(started.first().first().value<hr::RunStarted>().runDir);

    // The OOM reaches the advisor, never the run's end.
    QTRY_VERIFY2_WITH_TIMEOUT(window.advisor() != nullptr || !session->isRunning(),
                              qPrintable(window.trainPage()->log()->toPlainText()), 180000);
    QVERIFY2(window.advisor(), qPrintable("the run ended without the advisor:\n" +
                                          window.trainPage()->log()->toPlainText()));
    QVERIFY(failed.isEmpty());
    QCOMPARE(ooms.count(), 1);
    QVERIFY(window.advisor()->isVisible());
    qInfo("OOM in %s; the advisor was on screen %lld ms after it, %s",
          qPrintable(result.firstFailedPhase), result.advisorAfterMs,
          result.advisorShownEarly ? "before its predictions" : "with its predictions");
    QVERIFY2(result.advisorAfterMs >= 0 && result.advisorAfterMs < 1000,
             qPrintable(QString::number(result.advisorAfterMs)));
    auto* diagnosis = window.advisor()->findChild<QLabel*>(QStringLiteral("diagnosis"));
    QVERIFY(diagnosis && !diagnosis->text().isEmpty());
    result.diagnosis = diagnosis->text();
    QVERIFY(!diagnosis->text().contains(QStringLiteral("frame #")));

    // The cards fill in; the best one is applied with a click once the search is done.
    QTRY_VERIFY_WITH_TIMEOUT(window.advisor() && window.advisor()->searchDone(), 400000);
    QVERIFY2(!window.advisor()->fixes().empty(), "no fix predicted to fit");
    const hr::FixSuggestion best = window.advisor()->fixes().front();
    qInfo("best fix: %s (predicted peak %lld MiB); %s", best.title.c_str(),
          static_cast<long long>(best.predictedPeak / kMiB),
          result.progressBeforeDone ? "the cards arrived one by one" : "all at once");
    clickButton(window.advisor(), QStringLiteral("apply0"));
    QTRY_VERIFY(window.advisor() == nullptr); // the dialog closes on the click

    // Once the fix is in Settings, the memory panel shows no prediction made for the settings
    // it replaced (the estimate the panel had when the run started was for batch 32).
    const int fixedBatch = best.config.batch;
    QTRY_VERIFY_WITH_TIMEOUT(window.settingsPage()->form()->config().batch == fixedBatch, 60000);
    clickTab(window, MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    const bool stillTraining = session->isRunning();
    QVERIFY2(!stillTraining || !panel->hasEstimate() ||
                 panel->outcome().estimate.batch == fixedBatch,
             qPrintable(panel->statusText()));
    if (!stillTraining)
        qInfo("the run ended before the memory panel could be checked during it");

    // Every epoch runs once; no second OOM; the run finishes.
    QTRY_VERIFY2_WITH_TIMEOUT(!session->isRunning() || ooms.count() > 1,
                              qPrintable(window.trainPage()->log()->toPlainText()), 300000);
    QVERIFY2(ooms.count() == 1, qPrintable("a second OOM after the best fix:\n" +
                                           window.trainPage()->log()->toPlainText()));
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    QCOMPARE(finished.count(), 1);
    const hr::RunFinished end = finished.first().first().value<hr::RunFinished>();
    QCOMPARE(end.state, hr::RunState::Finished);
    QCOMPARE(window.trainPage()->runState(), QString("finished"));
    std::multiset<int> done, planned;
    for (const QList<QVariant>& e : epochs)
        done.insert(e.first().value<hr::EpochEnd>().epoch);
    for (int epoch = 0; epoch < session->runConfig().epochs; ++epoch)
        planned.insert(epoch);
    QCOMPARE(done, planned);

    // The memory curve: probe steps in a band of their own, the OOM marked, the run's own
    // line never above the budget.
    hr::ui::TrainPage* train = window.trainPage();
    QVERIFY(!train->oomMarks().isEmpty());
    QCustomPlot* plot = train->memoryPlot()->plot();
    const int allocated = train->memorySeriesOfRank(0);
    int points = 0;
    for (auto it = plot->graph(allocated)->data()->begin();
         it != plot->graph(allocated)->data()->end(); ++it) {
        if (std::isnan(it->value))
            continue;
        ++points;
        QVERIFY2(
            it->value * kMiB <= double(budget),
            qPrintable(QString("the run's memory at %1 s: %2 MiB").arg(it->key).arg(it->value)));
    }
    QVERIFY(points > 0);
    // The advisor's probe steps (none when its predictions came from calibrations cached by
    // earlier work in this process) are drawn in their band, never on the run's line.
    QCOMPARE(train->memoryPlot()->pointCount(train->probeShadingSeries()) > 0, probeSamples > 0);
    QVERIFY(train->trainingPeak() > 0 && train->trainingPeak() <= budget);

    // The fix is in Settings now, marked, so that the next Start does not run out again.
    QCOMPARE(changes.count(), 1);
    const auto changed = changes.first().first().value<QList<QPair<QString, QString>>>();
    QVERIFY(!changed.isEmpty());
    const hr::TrainConfig inForce = session->runConfig();
    const hr::TrainConfig settings = window.settingsPage()->form()->config();
    QCOMPARE(settings.batch, inForce.batch);
    QCOMPARE(settings.imgsz, inForce.imgsz);
    QCOMPARE(settings.amp, inForce.amp);
    QCOMPARE(settings.nbs, inForce.nbs);
    QCOMPARE(settings.checkpointing, inForce.checkpointing);
    bool marked = false;
    for (const auto& [key, value] : changed)
        if (QWidget* editor = window.settingsPage()->form()->editor(key))
            marked = marked || editor->property("changedByAdvisor").toBool();
    QVERIFY(marked);

    disconnect(c1);
    disconnect(c2);
    disconnect(c3);
    disconnect(c4);
}

void TestUiJourney::checkRunsPage(MainWindow& window, const JourneyResult& run,
                                  std::int64_t budget) {
    clickTab(window, MainWindow::Page::Runs);
    hr::ui::RunsPage* runs = window.runsPage();
    QTreeWidgetItem* item = nullptr;
    QTRY_VERIFY((item = runs->itemOf(run.runDir)) != nullptr);
    QCOMPARE(item->text(hr::ui::RunsPage::StateColumn), QString("finished"));
    const int epochs = window.session()->runConfig().epochs;
    QCOMPARE(item->text(hr::ui::RunsPage::EpochsColumn), QString("%1/%1").arg(epochs));
    QCOMPARE(item->text(hr::ui::RunsPage::ImageSizeColumn).isEmpty(), false);
    const qlonglong peak = item->data(hr::ui::RunsPage::TrainPeakColumn, Qt::UserRole).toLongLong();
    qInfo("Runs page: training peak %lld KiB of a %lld KiB budget; Train page %lld KiB",
          peak / 1024, static_cast<long long>(budget / 1024),
          static_cast<long long>(window.trainPage()->trainingPeak() / 1024));
    QVERIFY(peak > 0);
    QVERIFY2(peak <= budget, qPrintable(item->text(hr::ui::RunsPage::TrainPeakColumn)));
    QCOMPARE(peak, qlonglong(window.trainPage()->trainingPeak()));
    QVERIFY(item->text(hr::ui::RunsPage::TrainPeakColumn).contains(QStringLiteral("/")));
}

void TestUiJourney::journeyAt160MiB(MainWindow& window, const QString& name, JourneyResult& run) {
    chooseBuiltinAndType(window, name, QStringLiteral("160 MiB"));
    if (QTest::currentTestFailed())
        return;
    startAndApplyBestFix(window, 160 * kMiB, run);
    if (QTest::currentTestFailed())
        return;
    checkRunsPage(window, run, 160 * kMiB);
}

void TestUiJourney::builtinSampleOomAdvisorBestFixRunsPage() {
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    JourneyResult run;
    journeyAt160MiB(window, QStringLiteral("journey"), run);
    if (QTest::currentTestFailed())
        return;
    // No message ever widened the window.
    QVERIFY2(window.width() <= 1280, qPrintable(QString::number(window.width())));
}

void TestUiJourney::afterEarlierRunAndCalibration() {
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::ui::TrainingSession* session = window.session();
    hr::ui::SettingsForm* form = window.settingsPage()->form();

    // An earlier run without a budget, stopped after a few steps.
    chooseBuiltinAndType(window, QStringLiteral("earlier"), QString());
    if (QTest::currentTestFailed())
        return;
    typeInto(form, QStringLiteral("batch"), QStringLiteral("8"));
    QCOMPARE(form->config().memory_budget, std::int64_t(0));
    QSignalSpy batches(session, &hr::ui::TrainingSession::batchEnded);
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    clickAction(window, window.startAction());
    QTRY_VERIFY_WITH_TIMEOUT(batches.count() >= 2 || !session->isRunning(), 180000);
    QVERIFY(session->isRunning());
    clickAction(window, window.stopAction());
    // Stop acknowledges at once, then the run ends as "stopped".
    QVERIFY(!window.stopAction()->isEnabled());
    QCOMPARE(window.stopAction()->text(), QString("Stopping…"));
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().value<hr::RunFinished>().state, hr::RunState::Stopped);
    QCOMPARE(window.trainPage()->runState(), QString("stopped"));

    // The memory panel calibrates other settings (real probe steps).
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QSignalSpy estimated(panel->service(), &hr::ui::EstimatorService::estimateReady);
    clickTab(window, MainWindow::Page::Settings);
    typeInto(form, QStringLiteral("imgsz"), QStringLiteral("256"));
    QTRY_VERIFY_WITH_TIMEOUT(!estimated.isEmpty() && !panel->service()->isBusy(), 180000);

    // The journey: nothing from the earlier work counts toward the new run's budget.
    JourneyResult run;
    journeyAt160MiB(window, QStringLiteral("after"), run);
    if (QTest::currentTestFailed())
        return;
    QTreeWidgetItem* earlier = nullptr;
    for (int i = 0; i < window.runsPage()->runList()->topLevelItemCount(); ++i)
        if (window.runsPage()->runList()->topLevelItem(i)->text(0) == QLatin1String("earlier"))
            earlier = window.runsPage()->runList()->topLevelItem(i);
    QVERIFY(earlier);
    QCOMPARE(earlier->text(hr::ui::RunsPage::StateColumn), QString("stopped"));
}

void TestUiJourney::batchMoveIsFirstToFail() {
    // Loader batches are host memory (docs/decisions.md): the first allocation of a run that
    // counts a batch is the step moving it to the device. A budget above what the run holds
    // before its first step (weights and EMA) but below that plus one batch makes the move the
    // first allocation to fail; the budget is also high enough for a fix (batch 1 fits).
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // 640 px: a batch of 32 (150 MiB) outweighs the run's state, so such a budget exists
    // above what the strongest fix needs. One epoch: 32 images at the fixed settings.
    chooseBuiltinAndType(window, QStringLiteral("batchmove"), QString(), QStringLiteral("640"),
                         QStringLiteral("1"));
    if (QTest::currentTestFailed())
        return;
    hr::TrainConfig c = window.settingsPage()->form()->config();
    std::string error;
    const hr::MemoryBreakdown floor = hr::residentFloor(c, &error);
    QVERIFY2(floor.total > 0, error.c_str());
    const std::int64_t beforeFirstStep = floor.weights + floor.ema;
    const std::int64_t batchBytes =
        std::int64_t(c.batch) * 3 * c.imgsz * c.imgsz * std::int64_t(sizeof(float));
    // The advisor's image-size lever goes down to half the size; with its batch lever that
    // pair is the strongest fix that continues the run (probe steps: this machine's numbers).
    hr::TrainConfig one = c;
    one.batch = 1;
    one.imgsz = c.imgsz / 2;
    const auto smallest = hr::predictPeak(one);
    QVERIFY(smallest.has_value());
    // The advisor's fixes must fit within 90% of the budget; the budget's floor is 64 MiB.
    const std::int64_t lowest = std::max<std::int64_t>(64 * kMiB, std::int64_t(*smallest / 0.85));
    const std::int64_t highest = beforeFirstStep + batchBytes * 8 / 10;
    qInfo("before the first step %lld MiB, one batch %lld MiB, batch 1 at half the size needs "
          "%lld MiB: a budget "
          "in [%lld, %lld] MiB",
          static_cast<long long>(beforeFirstStep / kMiB), static_cast<long long>(batchBytes / kMiB),
          static_cast<long long>(*smallest / kMiB), static_cast<long long>(lowest / kMiB),
          static_cast<long long>(highest / kMiB));
    QVERIFY2(lowest < highest, "no budget makes the batch's move the first failure here");
    const std::int64_t budget = (lowest + highest) / 2 / kMiB * kMiB;
    typeInto(window.settingsPage()->form(), QStringLiteral("memory_budget"),
             QStringLiteral("%1 MiB").arg(budget / kMiB));
    QCOMPARE(window.settingsPage()->form()->config().memory_budget, budget);

    JourneyResult run;
    startAndApplyBestFix(window, budget, run);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(run.firstFailedPhase, QString("data"));
    QVERIFY2(run.diagnosis.contains(QStringLiteral("moving the batch to the device")),
             qPrintable(run.diagnosis));
    checkRunsPage(window, run, budget);
}

QTEST_MAIN(TestUiJourney)
#include "test_ui_journey.moc"
