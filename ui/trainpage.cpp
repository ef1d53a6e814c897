// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainpage.h"

#include "bytestext.h"
#include "elidedlabel.h"
#include "failurewording.h"
#include "oomadvisordialog.h"
#include "plotwidget.h"
#include "runspage.h"
#include "trainingsession.h"

#include <QAction>
#include <QDateTime>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

#include <qcustomplot.h>

namespace hr::ui {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// The shading bands of the memory plot: forward (+loss), backward, optimizer (+EMA), validation.
int phaseGroup(Phase phase) {
    switch (phase) {
    case Phase::Forward:
    case Phase::Loss:
        return 0;
    case Phase::Backward:
        return 1;
    case Phase::Optimizer:
    case Phase::Ema:
        return 2;
    case Phase::Validation:
        return 3;
    default:
        return -1;
    }
}

QToolButton* buttonFor(QAction* action, QWidget* parent) {
    auto* button = new QToolButton(parent);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setIconSize(QSize(20, 20));
    return button;
}

} // namespace

QString formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("–");
    const qint64 s = qRound64(seconds);
    if (s >= 3600)
        return TrainPage::tr("%1 h %2 min")
            .arg(s / 3600)
            .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return TrainPage::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return TrainPage::tr("%1 s").arg(s);
}

TrainPage::TrainPage(TrainingSession* session, QAction* start, QAction* pause, QAction* stop,
                     QWidget* parent)
    : QWidget(parent), m_session(session) {
    auto* layout = new QVBoxLayout(this);

    auto* controls = new QHBoxLayout;
    controls->addWidget(buttonFor(start, this));
    controls->addWidget(buttonFor(pause, this));
    controls->addWidget(buttonFor(stop, this));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("idle"));
    controls->addWidget(m_progress, 1);
    m_results = new QToolButton(this);
    m_results->setObjectName(QStringLiteral("showResults"));
    m_results->setText(tr("Results"));
    m_results->setToolTip(tr("What the last validation found: the per-class table, the confusion "
                             "matrix and the curves, on the Runs page."));
    m_results->setEnabled(false);
    connect(m_results, &QToolButton::clicked, this, [this] { emit resultsRequested(m_runDir); });
    controls->addWidget(m_results);
    layout->addLayout(controls);

    auto* statusRow = new QHBoxLayout;
    m_status =
        new ElidedLabel(tr("No run yet. Press Start to train with the current settings."), this);
    m_status->setObjectName(QStringLiteral("status"));
    m_memoryStatus = new QLabel(this);
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_memoryStatus);
    layout->addLayout(statusRow);

    m_memory = new PlotWidget(tr("Device memory"), this);
    m_memory->setObjectName(QStringLiteral("memoryPlot"));
    m_memory->setAxisLabels(tr("seconds"), tr("MiB"));
    m_phaseSeries[0] = m_memory->addShadingSeries(tr("forward"), 5);
    m_phaseSeries[1] = m_memory->addShadingSeries(tr("backward"), 1);
    m_phaseSeries[2] = m_memory->addShadingSeries(tr("optimizer"), 2);
    m_phaseSeries[3] = m_memory->addShadingSeries(tr("validation"), 3);
    m_allocated = m_memory->addSeries(tr("allocated"), 0);
    m_peak = m_memory->addSeries(tr("peak"), 1, true);
    // The advisor measures candidate fixes with probe steps of their own: not the run's memory.
    m_probeShading = m_memory->addShadingSeries(tr("advisor's probe steps"), 4);
    m_probeMemory = m_memory->addSeries(tr("probe step memory"), 4, true);
    // Samples keep coming while the advisor dialog is open; the run's memory stays flat then.
    m_waitShading = m_memory->addShadingSeries(tr("waiting for your choice"), 6);

    m_loss = new PlotWidget(tr("Losses"), this);
    m_loss->setObjectName(QStringLiteral("lossPlot"));
    m_loss->setAxisLabels(tr("epoch"), tr("loss"));
    m_trainLoss[0] = m_loss->addSeries(tr("box"), 0);
    m_trainLoss[1] = m_loss->addSeries(tr("cls"), 1);
    m_trainLoss[2] = m_loss->addSeries(tr("dfl"), 2);
    m_valLoss[0] = m_loss->addSeries(tr("val box"), 0, true);
    m_valLoss[1] = m_loss->addSeries(tr("val cls"), 1, true);
    m_valLoss[2] = m_loss->addSeries(tr("val dfl"), 2, true);

    m_map = new PlotWidget(tr("Accuracy"), this);
    m_map->setObjectName(QStringLiteral("mapPlot"));
    m_map->setAxisLabels(tr("epoch"), tr("value"));
    m_map50 = m_map->addSeries(tr("mAP50"), 0);
    m_map5095 = m_map->addSeries(tr("mAP50-95"), 1);
    m_precision = m_map->addSeries(tr("precision"), 2, true);
    m_recall = m_map->addSeries(tr("recall"), 3, true);

    m_lr = new PlotWidget(tr("Learning rate"), this);
    m_lr->setObjectName(QStringLiteral("lrPlot"));
    m_lr->setAxisLabels(tr("epoch"), tr("lr"));
    m_lrSeries = m_lr->addSeries(tr("lr"), 0);
    // Rates like 0.00004 in a compact form ("4e-05"): the shortest plot has little room.
    m_lr->plot()->yAxis->setNumberFormat(QStringLiteral("g"));
    m_lr->plot()->yAxis->setNumberPrecision(2);

    auto* plots = new QWidget(this);
    auto* grid = new QGridLayout(plots);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_memory, 0, 0, 1, 2);
    grid->addWidget(m_loss, 1, 0);
    grid->addWidget(m_map, 1, 1);
    grid->addWidget(m_lr, 2, 0, 1, 2);
    grid->setRowStretch(0, 3);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 2);

    m_log = new LogView(this);
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setMaximumBlockCount(5000);
    m_log->setPlaceholderText(tr("The run's log appears here."));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(plots);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    // Start answers at once: the trainer first waits for a calibration that holds the device,
    // then reads the data set and builds the model before its first event.
    connect(session, &TrainingSession::runningChanged, this, [this](bool running) {
        if (!running)
            return;
        // The previous run's curves and peak would read as this run's until its first event.
        resetRunView();
        m_progress->setRange(0, 0);
        m_progress->setFormat(tr("starting…"));
        m_status->setText(tr("Starting: waiting for any memory calibration to finish, then "
                             "reading the data set and building the model…"));
    });
    connect(session, &TrainingSession::started, this, &TrainPage::onStarted);
    connect(session, &TrainingSession::batchEnded, this, &TrainPage::onBatch);
    connect(session, &TrainingSession::pausedChanged, this, &TrainPage::onPausedChanged);
    connect(session, &TrainingSession::epochEnded, this, &TrainPage::onEpoch);
    connect(session, &TrainingSession::memorySampled, this, &TrainPage::onMemory);
    connect(session, &TrainingSession::finished, this, &TrainPage::onFinished);
    connect(session, &TrainingSession::failed, this, &TrainPage::onFailed);
    connect(session, &TrainingSession::fixApplied, this, &TrainPage::onFixApplied);
    connect(session, &TrainingSession::fixChecked, this, &TrainPage::onFixChecked);
    connect(session, &TrainingSession::oomOccurred, this, &TrainPage::onOom);
    connect(session, &TrainingSession::stopping, this, &TrainPage::onStopping);
    connect(session, &TrainingSession::oomDecisionNeeded, this,
            [this] { setWaitingForChoice(true); });
    connect(session, &TrainingSession::logMessage, this,
            [this](int level, const QString& text) { appendLog(text, level); });
}

void TrainPage::appendLog(const QString& text, int level) {
    const QString time = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
    QString prefix;
    if (level == int(LogMessage::Level::Warning))
        prefix = tr("warning: ");
    else if (level == int(LogMessage::Level::Error))
        prefix = tr("error: ");
    m_log->appendLine(QStringLiteral("%1  %2%3").arg(time, prefix, text));
}

int TrainPage::memorySeriesOfRank(int rank) const {
    if (rank == 0)
        return m_allocated;
    return m_rankSeries.value(rank, -1);
}

void TrainPage::resetRunView() {
    for (PlotWidget* plot : {m_memory, m_loss, m_map, m_lr})
        plot->clear();
    m_peaks = RunPeaks();
    m_lastSample.reset();
    m_lastBatch.reset();
    m_memory->clearMarkers();
    m_memoryStatus->clear();
}

void TrainPage::onStarted(const hr::RunStarted& event) {
    resetRunView();
    m_runDir = QString::fromStdString(event.runDir);
    m_results->setEnabled(false);
    // A data-parallel run draws one allocated curve per rank; rank 0's peak and phases.
    m_ranks = std::max(1, event.config.nproc);
    m_memory->setSeriesName(m_allocated, m_ranks > 1 ? tr("rank 0 allocated") : tr("allocated"));
    m_memory->setSeriesName(m_peak, m_ranks > 1 ? tr("rank 0 peak") : tr("peak"));
    m_currentPhaseGroup = -2;
    m_inProbe = false;
    m_waiting = false;
    m_state.clear();
    m_progress->setToolTip(QString());
    m_epochs = event.config.epochs;
    m_budget = event.config.memory_budget;
    m_memory->setReferenceLine(m_budget / kMiB, tr("budget %1").arg(bytesText(m_budget)));
    const int total = std::max(1, event.config.epochs * std::max(1, event.batchesPerEpoch));
    m_progress->setRange(0, total);
    m_progress->setValue(event.startEpoch * std::max(1, event.batchesPerEpoch));
    m_progress->setFormat(tr("starting…"));
    m_status->setText(tr("Run %1 started: %2 parameters, batch %3, image size %4.")
                          .arg(QString::fromStdString(event.runDir))
                          .arg(QLocale().toString(qlonglong(event.parameters)))
                          .arg(event.config.batch)
                          .arg(event.config.imgsz));
    appendLog(m_status->text());
    if (m_ranks > 1)
        appendLog(tr("Data parallel over %1 processes on this machine: batch %2 in total, "
                     "%3 per process; this window trains as rank 0, the others are "
                     "headroom-cli workers; the memory plot has one curve per rank.")
                      .arg(m_ranks)
                      .arg(event.config.batch)
                      .arg(std::max(1, event.config.batch / m_ranks)));
}

void TrainPage::onBatch(const hr::BatchEnd& event) {
    m_peaks.training(event.peakBytes);
    refreshMemoryStatus();
    const int perEpoch = std::max(1, event.batchesPerEpoch);
    const double x = event.epoch + double(event.batchIndex + 1) / perEpoch;
    m_loss->append(m_trainLoss[0], x, event.boxLoss);
    m_loss->append(m_trainLoss[1], x, event.clsLoss);
    m_loss->append(m_trainLoss[2], x, event.dflLoss);
    m_lr->append(m_lrSeries, x, event.lr);
    const int total = std::max(1, m_epochs * perEpoch);
    m_progress->setRange(0, total);
    m_progress->setValue(std::min(total, event.epoch * perEpoch + event.batchIndex + 1));
    m_lastBatch = event;
    showProgressText();
    // The step in flight when Pause was pressed still ends; the status keeps saying "paused".
    if (m_session->isPaused())
        return;
    m_status->setText(tr("%1 images/s · box %2 · cls %3 · dfl %4")
                          .arg(event.imagesPerSecond, 0, 'f', 1)
                          .arg(event.boxLoss, 0, 'f', 3)
                          .arg(event.clsLoss, 0, 'f', 3)
                          .arg(event.dflLoss, 0, 'f', 3));
}

void TrainPage::showProgressText() {
    if (!m_lastBatch)
        return;
    const hr::BatchEnd& event = *m_lastBatch;
    // An ETA measured before a pause says nothing about when a paused run ends.
    const QString eta = m_session->isPaused() ? tr("paused") : formatDuration(event.etaSeconds);
    m_progress->setFormat(tr("epoch %1/%2 · batch %3/%4 · ETA %5")
                              .arg(event.epoch + 1)
                              .arg(m_epochs)
                              .arg(event.batchIndex + 1)
                              .arg(std::max(1, event.batchesPerEpoch))
                              .arg(eta));
}

void TrainPage::onPausedChanged(bool paused) {
    showProgressText();
    const QString line = paused ? tr("Paused: training waits after the current step. Press "
                                     "Pause (F6) again to continue.")
                                : tr("Resumed: training continues.");
    m_status->setText(line);
    appendLog(line);
}

void TrainPage::onEpoch(const hr::EpochEnd& event) {
    if (event.valPeakBytes > 0) // it validated: its results files are written
        m_results->setEnabled(!m_runDir.isEmpty());
    m_peaks.training(event.trainPeakBytes);
    m_peaks.validation(event.valPeakBytes);
    refreshMemoryStatus();
    const double x = event.epoch + 1;
    m_loss->append(m_valLoss[0], x, event.valBoxLoss);
    m_loss->append(m_valLoss[1], x, event.valClsLoss);
    m_loss->append(m_valLoss[2], x, event.valDflLoss);
    m_map->append(m_map50, x, event.map50);
    m_map->append(m_map5095, x, event.map);
    m_map->append(m_precision, x, event.precision);
    m_map->append(m_recall, x, event.recall);
    appendLog(tr("epoch %1/%2: mAP50 %3, mAP50-95 %4, precision %5, recall %6, peak %7, %8%9")
                  .arg(event.epoch + 1)
                  .arg(event.epochs)
                  .arg(event.map50, 0, 'f', 4)
                  .arg(event.map, 0, 'f', 4)
                  .arg(event.precision, 0, 'f', 3)
                  .arg(event.recall, 0, 'f', 3)
                  .arg(bytesText(event.peakBytes()))
                  .arg(formatDuration(event.epochSeconds))
                  .arg(event.best ? tr(" (best so far)") : QString()));
}

void TrainPage::onMemory(const hr::MemorySample& sample) {
    if (sample.rank > 0) {
        auto it = m_rankSeries.find(sample.rank);
        if (it == m_rankSeries.end())
            it = m_rankSeries.insert(
                sample.rank,
                m_memory->addSeries(tr("rank %1 allocated").arg(sample.rank), 2 + sample.rank));
        m_memory->append(*it, sample.seconds, sample.allocated / kMiB);
        return;
    }
    if (sample.oom)
        addOomMark(sample.seconds);
    m_lastSampleSeconds = sample.seconds;
    if (m_waiting)
        m_memory->append(m_waitShading, sample.seconds, 1.0);
    const double gap = std::numeric_limits<double>::quiet_NaN();
    const bool probe = sample.phase == Phase::Probe;
    if (probe != m_inProbe) {
        // The run's lines break over the probe steps; the probe line lives only there.
        m_memory->append(probe ? m_allocated : m_probeMemory, sample.seconds, gap);
        if (probe)
            m_memory->append(m_peak, sample.seconds, gap);
        m_memory->append(m_probeShading, sample.seconds, probe ? 1.0 : 0.0);
        m_inProbe = probe;
    }
    if (probe) {
        m_memory->append(m_probeMemory, sample.seconds, sample.allocated / kMiB);
    } else {
        m_memory->append(m_allocated, sample.seconds, sample.allocated / kMiB);
        m_memory->append(m_peak, sample.seconds, sample.peakSinceLastStep / kMiB);
    }
    const int group = probe ? -1 : phaseGroup(sample.phase);
    if (group != m_currentPhaseGroup) {
        for (int i = 0; i < 4; ++i)
            m_memory->append(m_phaseSeries[i], sample.seconds, i == group ? 1.0 : 0.0);
        m_currentPhaseGroup = group;
    }
    if (sample.budget > 0 && sample.budget != m_budget) {
        m_budget = sample.budget;
        m_memory->setReferenceLine(m_budget / kMiB, tr("budget %1").arg(bytesText(m_budget)));
    }
    m_lastSample = sample;
    updateMemoryStatus(sample);
}

void TrainPage::refreshMemoryStatus() {
    if (m_lastSample)
        updateMemoryStatus(*m_lastSample);
}

void TrainPage::updateMemoryStatus(const hr::MemorySample& sample) {
    const QString budget = m_budget > 0 ? tr(" of %1").arg(bytesText(m_budget)) : QString();
    // Until a training step has ended there is no training peak to show, not a peak of 0 B.
    const QString peak =
        m_peaks.trainPeak() > 0 ? bytesText(m_peaks.trainPeak()) : QStringLiteral("–");
    if (m_waiting && sample.phase != Phase::Probe) {
        m_memoryStatus->setText(
            tr("waiting for your choice · training peak %1%2").arg(peak, budget));
        return;
    }
    if (sample.phase == Phase::Probe) {
        m_memoryStatus->setText(tr("advisor probing a fix · training peak %1%2").arg(peak, budget));
        return;
    }
    m_memoryStatus->setText(
        tr("memory %1 · training peak %2%3").arg(bytesText(sample.allocated), peak, budget));
}

void TrainPage::setWaitingForChoice(bool waiting) {
    if (waiting == m_waiting)
        return;
    m_waiting = waiting;
    m_memory->append(m_waitShading, m_lastSampleSeconds, waiting ? 1.0 : 0.0);
}

QVector<double> TrainPage::oomMarks() const {
    return m_memory->markerKeys();
}

void TrainPage::addOomMark(double seconds) {
    // One mark per failure: the report and the sampler's OOM sample name the same moment.
    for (double t : oomMarks())
        if (std::abs(t - seconds) < 1.0)
            return;
    m_memory->addMarker(seconds, tr("out of memory"), QColor(200, 30, 30));
}

void TrainPage::onFinished(const hr::RunFinished& event) {
    setWaitingForChoice(false);
    if (m_progress->maximum() == 0) // ended before it started: no more busy bar
        m_progress->setRange(0, 1);
    m_state = QString::fromLatin1(hr::toString(event.state));
    QString how = runStateWords(m_state);
    if (event.state == RunState::Finished) {
        m_progress->setValue(m_progress->maximum());
        if (event.stoppedEarly)
            how = tr("finished early (no improvement)");
    }
    m_progress->setFormat(how);
    const QString reason =
        event.reason.empty()
            ? QString()
            : FailureWording::reason(event.reasonCode, event.reasonArgs, event.reason);
    m_progress->setToolTip(reason);
    if (!reason.isEmpty()) {
        // A failure keeps its message on the status line; the reason is also the tooltip.
        // A run that failed before its folder existed has no name to give.
        m_status->setText(
            event.runDir.empty()
                ? tr("The run %1: %2").arg(how, reason)
                : tr("Run %1 %2: %3").arg(QString::fromStdString(event.runDir), how, reason));
        m_status->setToolTip(reason);
        if (!event.runDir.empty())
            appendLog(tr("Run %1 %2 after %3 epochs.")
                          .arg(QString::fromStdString(event.runDir), how)
                          .arg(event.epochsDone));
        return;
    }
    refreshMemoryStatus();
    if (event.epochsDone == 0) {
        // No validation ran: a "best mAP 0.0000" would be a number nobody measured.
        m_status->setText(tr("Run %1 %2 before its first epoch ended: no validation ran, so "
                             "there is no mAP yet.")
                              .arg(QString::fromStdString(event.runDir), how));
        appendLog(m_status->text());
        return;
    }
    m_status->setText(tr("Run %1 %2 after %3 epochs: best mAP50 %4, mAP50-95 %5.")
                          .arg(QString::fromStdString(event.runDir), how)
                          .arg(event.epochsDone)
                          .arg(event.map50, 0, 'f', 4)
                          .arg(event.map, 0, 'f', 4));
    appendLog(m_status->text());
}

void TrainPage::onFailed(const QString& message) {
    setWaitingForChoice(false);
    if (m_progress->maximum() == 0)
        m_progress->setRange(0, 1);
    m_progress->setFormat(tr("failed"));
    m_progress->setToolTip(message);
    m_status->setText(tr("The run failed: %1").arg(message));
    appendLog(m_status->text(), int(LogMessage::Level::Error));
}

void TrainPage::onFixApplied(const hr::FixApplied& event) {
    setWaitingForChoice(false);
    appendLog(tr("Fix applied at epoch %1, batch %2: %3 (predicted peak %4). Training continues.")
                  .arg(event.epoch + 1)
                  .arg(event.batchIndex + 1)
                  .arg(QString::fromStdString(event.description))
                  .arg(event.predictedPeak > 0 ? bytesText(event.predictedPeak) : tr("unknown")));
}

void TrainPage::onFixChecked(const hr::FixChecked& event) {
    if (event.predictedPeak <= 0) {
        appendLog(tr("After the fix the measured peak is %1.").arg(bytesText(event.measuredPeak)));
    } else {
        const double error =
            100.0 * double(event.measuredPeak - event.predictedPeak) / double(event.predictedPeak);
        appendLog(tr("After the fix the measured peak is %1, predicted %2 (%3%).")
                      .arg(bytesText(event.measuredPeak), bytesText(event.predictedPeak))
                      .arg(error, 0, 'f', 1));
    }
    if (event.timedSteps <= 0 || event.measuredSecondsPerImage <= 0)
        return;
    const double measuredMs = event.measuredSecondsPerImage * 1e3;
    if (event.predictedSecondsPerImage <= 0) {
        appendLog(
            tr("After the fix an image takes %1 ms (over %n step(s)).", nullptr, event.timedSteps)
                .arg(measuredMs, 0, 'f', 1));
        return;
    }
    const double predictedMs = event.predictedSecondsPerImage * 1e3;
    appendLog(tr("After the fix an image takes %1 ms, predicted %2 ms (%3%, over %n step(s)).",
                 nullptr, event.timedSteps)
                  .arg(measuredMs, 0, 'f', 1)
                  .arg(predictedMs, 0, 'f', 1)
                  .arg(100.0 * (measuredMs / predictedMs - 1.0), 0, 'f', 1));
}

void TrainPage::onStopping() {
    setWaitingForChoice(false);
    m_progress->setFormat(tr("stopping…"));
    m_status->setText(tr("Stopping after the current step…"));
    appendLog(m_status->text());
}

void TrainPage::onOom(const hr::OomReport& report) {
    m_peaks.oom(report.phase, report.peakBytes);
    if (report.seconds > 0)
        addOomMark(report.seconds);
    else if (!report.timeline.empty())
        addOomMark(report.timeline.back().seconds);
    appendLog(tr("Out of memory in the %1 at epoch %2, batch %3: %4 requested with %5 allocated.")
                  .arg(phaseName(report.phase))
                  .arg(report.epoch + 1)
                  .arg(report.batchIndex + 1)
                  .arg(bytesText(report.requestedBytes), bytesText(report.allocatedBytes)),
              int(LogMessage::Level::Warning));
}

} // namespace hr::ui
