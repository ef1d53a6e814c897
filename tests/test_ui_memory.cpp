// SPDX-License-Identifier: GPL-3.0-or-later
// GUI tests of the memory panel on the Settings page: background estimates that follow the
// form, Auto-fit under a budget, and an event loop that stays responsive while the estimator
// calibrates. Tiny synthetic data, yolov8n at 64-96 px, offscreen.
#include "estimatorservice.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "ui_test_env.h"

#include "data/synthetic_dataset.h"
#include "estimate/memory_estimator.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <qcustomplot.h>

#include <algorithm>

using hr::TrainConfig;

namespace {
constexpr int kWaitMs = 180000; // a calibration on a loaded 2-core machine
constexpr std::int64_t kMiB = 1024 * 1024;

std::int64_t peakOf(const hr::MemoryEstimate& e) {
    return std::max(e.trainPeak, e.valPeak);
}
} // namespace

class TestUiMemory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void batchChangeGivesLargerTrainPeak();
    void autoFitAppliesBatchUnderBudget();
    void autoFitSaysWhenNothingFits();
    void unreadableDataIsReportedInWords();
    void startWithAutoBatchFitsFirst();
    void guiStaysResponsiveWhileCalibrating();
    void typedBudgetNamesFieldAndLabelStaysWhole();
    void everyNumberNamesItsSource();

private:
    TrainConfig tinyConfig() const;

    QTemporaryDir m_dir;
    QString m_dataYaml;
};

void TestUiMemory::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_memory");
    std::string error;
    m_dataYaml = hr::testing::makeTinyDataset(m_dir, 6, 2, &error);
    QVERIFY2(!m_dataYaml.isEmpty(), error.c_str());
}

TrainConfig TestUiMemory::tinyConfig() const {
    TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = m_dataYaml.toStdString();
    c.imgsz = 64;
    c.batch = 2;
    c.workers = 1;
    c.threads = 1;
    c.mosaic = 0.0;
    c.device = "cpu";
    c.project = m_dir.filePath("runs").toStdString();
    return c;
}

void TestUiMemory::batchChangeGivesLargerTrainPeak() {
    hr::ui::MainWindow window;
    window.resize(1300, 850);
    window.show();
    window.settingsPage()->form()->setConfig(tinyConfig());
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QVERIFY(panel->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasEstimate() && !panel->service()->isBusy(), kWaitMs);
    QCOMPARE(panel->outcome().estimate.batch, 2);
    const std::int64_t atTwo = panel->outcome().estimate.trainPeak;
    QVERIFY(atTwo > 0);
    QVERIFY2(panel->statusText().contains("Training peak"), qPrintable(panel->statusText()));

    // A burst of edits in the form costs one estimate: the debounce waits for the last one.
    auto* batch = qobject_cast<QSpinBox*>(window.settingsPage()->form()->editor("batch"));
    QVERIFY(batch);
    const int before = panel->service()->estimatesDelivered();
    for (int value = 3; value <= 8; ++value)
        batch->setValue(value);
    QTRY_VERIFY_WITH_TIMEOUT(panel->outcome().estimate.batch == 8, kWaitMs);
    QTRY_VERIFY(!panel->service()->isBusy());
    QCOMPARE(panel->service()->estimatesDelivered() - before, 1);
    QVERIFY2(panel->outcome().estimate.trainPeak > atTwo,
             qPrintable(QString("batch 8: %1, batch 2: %2")
                            .arg(panel->outcome().estimate.trainPeak)
                            .arg(atTwo)));
    // The breakdown adds up to the training peak.
    const hr::MemoryBreakdown& b = panel->outcome().estimate.breakdown;
    QCOMPARE(b.resident() + b.activations + b.batchData + b.other,
             panel->outcome().estimate.trainPeak);
}

void TestUiMemory::autoFitAppliesBatchUnderBudget() {
    // A budget between what batch 1 and batch 16 need, from the same estimator.
    TrainConfig config = tinyConfig();
    std::string error;
    config.batch = 1;
    const hr::MemoryEstimate one = hr::estimateMemory(config, &error);
    QVERIFY2(one.trainPeak > 0, error.c_str());
    config.batch = 16;
    const hr::MemoryEstimate sixteen = hr::estimateMemory(config, &error);
    QVERIFY2(sixteen.trainPeak > peakOf(one), error.c_str());
    const auto budget =
        static_cast<std::int64_t>(double(peakOf(one) + peakOf(sixteen)) / 2.0 / 0.9);
    QVERIFY2(budget >= 64 * kMiB, "the config validator needs a budget of at least 64 MiB");
    config.memory_budget = budget; // batch stays 16: auto-fit's largest candidate

    hr::ui::MainWindow window;
    window.resize(1300, 850);
    window.show();
    window.settingsPage()->form()->setConfig(config);
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasEstimate() && !panel->service()->isBusy(), kWaitMs);
    QVERIFY2(panel->statusText().contains("budget"), qPrintable(panel->statusText()));

    QSignalSpy fitted(panel, &hr::ui::MemoryPanel::fitFinished);
    panel->autoFitButton()->click();
    QVERIFY(!panel->autoFitButton()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(fitted.count(), 1, kWaitMs);
    const auto result = fitted.first().first().value<hr::FitResult>();
    QVERIFY2(result.fits, result.summary.c_str());
    const int chosen = window.settingsPage()->form()->config().batch;
    QCOMPARE(chosen, result.config.batch);
    QVERIFY2(chosen >= 1 && chosen < 16, qPrintable(QString::number(chosen)));
    QVERIFY(panel->autoFitButton()->isEnabled());
    QVERIFY2(panel->fitText().contains(QString("batch %1").arg(chosen)),
             qPrintable(panel->fitText()));

    // The panel follows the applied settings: its prediction is under 90% of the budget.
    QTRY_VERIFY_WITH_TIMEOUT(panel->outcome().estimate.batch == chosen, kWaitMs);
    QVERIFY2(
        double(peakOf(panel->outcome().estimate)) <= 0.9 * double(budget),
        qPrintable(
            QString("peak %1 of budget %2").arg(peakOf(panel->outcome().estimate)).arg(budget)));
    QVERIFY2(!panel->statusText().contains("out of memory"), qPrintable(panel->statusText()));
}

void TestUiMemory::autoFitSaysWhenNothingFits() {
    // The validator's smallest budget (64 MiB) cannot hold yolov8s' weights, gradients, optimizer
    // state and EMA at any batch or image size.
    TrainConfig config = tinyConfig();
    config.model = "yolov8s.yaml";
    config.imgsz = 128;
    config.memory_budget = 64 * kMiB;
    hr::ui::MainWindow window;
    window.show();
    window.settingsPage()->form()->setConfig(config);
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QSignalSpy fitted(panel, &hr::ui::MemoryPanel::fitFinished);
    panel->autoFitButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(fitted.count(), 1, kWaitMs);
    const auto result = fitted.first().first().value<hr::FitResult>();
    QVERIFY(!result.fits);
    QVERIFY(result.minimumBudget > 64 * kMiB);
    QCOMPARE(window.settingsPage()->form()->config().batch, 2); // nothing applied
    QVERIFY2(panel->fitText().contains("Nothing fits") &&
                 panel->fitText().contains("smallest budget"),
             qPrintable(panel->fitText()));
}

void TestUiMemory::unreadableDataIsReportedInWords() {
    hr::ui::MainWindow window;
    window.show();
    TrainConfig config = tinyConfig();
    config.data = m_dir.filePath("missing/data.yaml").toStdString();
    window.settingsPage()->form()->setConfig(config);
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->statusText().startsWith("No prediction"), kWaitMs);
    QVERIFY(!panel->hasEstimate());
    QVERIFY2(panel->statusText().contains("missing"), qPrintable(panel->statusText()));
}

void TestUiMemory::startWithAutoBatchFitsFirst() {
    // batch -1 and a budget between what batch 4 and batch 5 need: Start fits, then trains at 4.
    TrainConfig config = tinyConfig();
    std::string error;
    config.batch = 4;
    const hr::MemoryEstimate four = hr::estimateMemory(config, &error);
    config.batch = 5;
    const hr::MemoryEstimate five = hr::estimateMemory(config, &error);
    QVERIFY2(peakOf(five) > peakOf(four), error.c_str());
    config.memory_budget =
        static_cast<std::int64_t>(double(peakOf(four) + peakOf(five)) / 2.0 / 0.9);
    QVERIFY2(config.memory_budget >= 64 * kMiB, "the validator needs at least 64 MiB");
    config.batch = -1;
    config.epochs = 1;
    config.name = "autobatch";
    config.on_oom = hr::OomPolicy::Stop;

    hr::ui::MainWindow window;
    window.show();
    window.settingsPage()->form()->setConfig(config);
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy started(session, &hr::ui::TrainingSession::started);
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QVERIFY(window.startTraining());
    QVERIFY(!session->isRunning()); // the fit comes first
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, kWaitMs);
    QCOMPARE(window.settingsPage()->form()->config().batch, 4);
    QCOMPARE(session->runConfig().batch, 4);
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), kWaitMs);
    QVERIFY2(failed.isEmpty(),
             failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 1);
}

void TestUiMemory::guiStaysResponsiveWhileCalibrating() {
    hr::clearEstimateCache(); // the next estimate calibrates with real probe steps
    TrainConfig config = tinyConfig();
    config.imgsz = 96;
    config.memory_budget = 160 * kMiB;
    hr::ui::MainWindow window;
    window.show();
    window.settingsPage()->form()->setConfig(config);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QSignalSpy busy(panel->service(), &hr::ui::EstimatorService::busyChanged);

    // A 10 ms timer measures the longest gap between two of its ticks while the estimator works.
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
    // Showing the page lays out the whole form once: that is not the estimator's doing. The
    // estimate it asks for starts after the debounce interval, with the probe already ticking.
    window.showPage(hr::ui::MainWindow::Page::Settings);
    QCoreApplication::processEvents();
    QVERIFY(busy.isEmpty());
    clock.start();
    probe.start();
    QTRY_VERIFY_WITH_TIMEOUT(!busy.isEmpty(), 5000);
    QVERIFY(busy.first().first().toBool());
    QVERIFY2(panel->statusText().startsWith("Calibrating"), qPrintable(panel->statusText()));
    // The budget typed is on the chart while the first estimate is made, not "none".
    if (!panel->hasEstimate())
        QVERIFY2(panel->budgetLabelText() == "budget 160 MiB",
                 qPrintable(panel->budgetLabelText()));
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasEstimate() && !panel->service()->isBusy(), kWaitMs);
    probe.stop();
    const qint64 busyFor = clock.elapsed();
    QCOMPARE(panel->outcome().estimate.batch, 2);
    QVERIFY2(ticks > busyFor / 20,
             qPrintable(QString("%1 ticks in %2 ms").arg(ticks).arg(busyFor)));
    qInfo("longest event-loop gap %lld ms in %lld ms of estimating", worst, busyFor);
    QVERIFY2(worst < 100, qPrintable(QString("longest event-loop gap %1 ms").arg(worst)));
}

void TestUiMemory::typedBudgetNamesFieldAndLabelStaysWhole() {
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    TrainConfig config = tinyConfig();
    config.batch = 16;
    window.settingsPage()->form()->setConfig(config);
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasEstimate() && !panel->service()->isBusy(), kWaitMs);
    // How the estimate was made, worded by the panel from core's values.
    QVERIFY2(panel->noteText().contains("calibrated with real training steps at batch 2 and 4"),
             qPrintable(panel->noteText()));
    const std::int64_t peak = peakOf(panel->outcome().estimate);

    // Typed text the parser rejects: the panel names the field, in red, at once.
    auto* budget = qobject_cast<QLineEdit*>(window.settingsPage()->form()->editor("memory_budget"));
    QVERIFY(budget);
    QTest::mouseClick(budget, Qt::LeftButton);
    QTest::keyClicks(budget, "lots");
    QVERIFY2(panel->statusText().contains("Memory budget"), qPrintable(panel->statusText()));

    // Budgets far above and far below the peak: the label is whole inside the chart each time.
    for (const std::int64_t bytes : {std::int64_t(peak * 3), std::int64_t(64) * kMiB}) {
        budget->selectAll();
        QTest::keyClicks(budget, QString("%1 MiB").arg(bytes / kMiB));
        QVERIFY2(!panel->statusText().contains("No prediction"), qPrintable(panel->statusText()));
        QTRY_VERIFY_WITH_TIMEOUT(panel->hasEstimate() && !panel->service()->isBusy() &&
                                     panel->outcome().budget == (bytes / kMiB) * kMiB,
                                 kWaitMs);
        QVERIFY2(panel->statusText().contains("Training peak"), qPrintable(panel->statusText()));
        QTRY_VERIFY(panel->budgetLabelText().startsWith("budget "));
        QApplication::processEvents();
        const QRect label = panel->budgetLabelRect();
        QVERIFY2(panel->plotRect().contains(label),
                 qPrintable(QString("label %1,%2 %3x%4 outside the chart %5x%6 (budget %7)")
                                .arg(label.x())
                                .arg(label.y())
                                .arg(label.width())
                                .arg(label.height())
                                .arg(panel->plotRect().width())
                                .arg(panel->plotRect().height())
                                .arg(bytes)));
    }
}

void TestUiMemory::everyNumberNamesItsSource() {
    hr::ui::MainWindow window;
    window.resize(1300, 850);
    window.show();
    TrainConfig config = tinyConfig();
    config.memory_budget = 512 * kMiB;
    window.settingsPage()->form()->setConfig(config);
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->hasEstimate() && !panel->service()->isBusy(), kWaitMs);

    // Each source as the panel words it; a constant is never called measured.
    const QStringList sources = {"Source: measured here", "Source: published figure",
                                 "Source: FLOP count",    "Source: assumption",
                                 "Source: byte count",    "Source: your setting"};
    auto namesSource = [&sources](const QString& tip) {
        return std::any_of(sources.begin(), sources.end(),
                           [&tip](const QString& s) { return tip.contains(s); });
    };
    // Every label that shows a number (the parts, peaks, budget, status, note).
    int numbers = 0;
    for (QLabel* label : panel->findChildren<QLabel*>()) {
        if (!label->isVisible() || !label->text().contains(QRegularExpression("[0-9]")))
            continue;
        ++numbers;
        QVERIFY2(namesSource(label->toolTip()),
                 qPrintable(label->text() + " has tooltip: " + label->toolTip()));
    }
    QVERIFY2(numbers >= 12, qPrintable(QString::number(numbers)));
    auto* plot = panel->findChild<QCustomPlot*>();
    QVERIFY(plot);
    QVERIFY2(plot->toolTip().contains("Training peak: Source: measured here") &&
                 plot->toolTip().contains("Budget: Source: your setting"),
             qPrintable(plot->toolTip()));

    // Row by row: the tooltip on a part's name is its figure's source.
    auto tipOf = [panel](const QString& name) {
        for (QLabel* label : panel->findChildren<QLabel*>())
            if (label->text() == name || label->text() == "<b>" + name + "</b>")
                return label->toolTip();
        return QString();
    };
    for (const char* counted : {"Weights", "Gradients", "Optimizer state", "EMA"})
        QVERIFY2(tipOf(counted).startsWith("Source: measured here. The bytes of"),
                 qPrintable(tipOf(counted)));
    QVERIFY2(tipOf("Training peak")
                 .contains("training steps at batch 2 and 4 on cpu, on a line "
                           "to batch 2"),
             qPrintable(tipOf("Training peak")));
    QVERIFY(tipOf("Validation peak").startsWith("Source: measured here"));
    // The batch's bytes are arithmetic on its shape, not a measurement.
    QVERIFY2(tipOf("Batch data").startsWith("Source: byte count. 2 images") &&
                 !tipOf("Batch data").contains("measured"),
             qPrintable(tipOf("Batch data")));
    QVERIFY2(tipOf("Budget").contains("margin Auto-fit leaves for fragmentation and growth: "
                                      "assumption, not measured"),
             qPrintable(tipOf("Budget")));
}

QTEST_MAIN(TestUiMemory)
#include "test_ui_memory.moc"
