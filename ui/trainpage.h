// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"
#include "logview.h"
#include "train/events.h"

#include <QMap>
#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;
class QToolButton;
class QAction;

namespace hr::ui {

class ElidedLabel;
class PlotWidget;
class TrainingSession;

/// The Train page: start/pause/stop, a progress bar with ETA, live plots of device memory
/// (budget line, phase shading, the advisor's probe steps as a band and a line of their own,
/// a mark at each out-of-memory error), losses, mAP and learning rate, and the run's log.
/// Its training peak is core's RunPeaks over the same events the run folder keeps, so the
/// Runs page shows the same number.
/// It only listens to a TrainingSession's signals; the window decides what to start.
class TrainPage : public QWidget {
    Q_OBJECT
public:
    TrainPage(TrainingSession* session, QAction* start, QAction* pause, QAction* stop,
              QWidget* parent = nullptr);

    PlotWidget* memoryPlot() const { return m_memory; }
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* mapPlot() const { return m_map; }
    PlotWidget* lrPlot() const { return m_lr; }
    QProgressBar* progressBar() const { return m_progress; }
    LogView* log() const { return m_log; }
    /// The one-line status under the controls (elided; the whole text is its tooltip).
    ElidedLabel* statusLine() const { return m_status; }
    /// The memory figures right of the status line: now, the training peak, the budget.
    QLabel* memoryStatusLine() const { return m_memoryStatus; }
    /// The memory plot's "allocated" series of a rank of a data-parallel run (rank 0's is the
    /// one-process run's "allocated"), or -1 when that rank has sent no sample yet.
    int memorySeriesOfRank(int rank) const;
    /// The memory plot's series of the advisor's probe steps: their shading and their memory.
    int probeShadingSeries() const { return m_probeShading; }
    int probeMemorySeries() const { return m_probeMemory; }
    /// The memory plot's shading of the time the run waits for a choice in the advisor.
    int waitingShadingSeries() const { return m_waitShading; }
    /// True while the run waits for the advisor's choice (the plot says so).
    bool waitingForChoice() const { return m_waiting; }
    /// Out-of-memory marks on the memory plot (its only markers): their times (seconds), in
    /// order.
    QVector<double> oomMarks() const;
    /// The run's training peak so far (probe steps excluded), as the Runs page will show it.
    std::int64_t trainingPeak() const { return m_peaks.trainPeak(); }
    /// How the last run ended: RunState's name ("finished", "stopped", ...); "" while running.
    QString runState() const { return m_state; }
    /// "Results": enabled once the run has validated; asks for its Results view.
    QToolButton* resultsButton() const { return m_results; }

signals:
    /// The user asked for what the last validation of the run in `runDir` found.
    void resultsRequested(const QString& runDir);

public slots:
    void appendLog(const QString& text, int level = 0);

private:
    void onStarted(const hr::RunStarted& event);
    void onBatch(const hr::BatchEnd& event);
    void onEpoch(const hr::EpochEnd& event);
    /// Pause pressed or released: the status line, a log line and the ETA say so.
    void onPausedChanged(bool paused);
    /// The progress bar's epoch, batch and ETA from the last batch.
    void showProgressText();
    void onMemory(const hr::MemorySample& sample);
    void onFinished(const hr::RunFinished& event);
    void onFailed(const QString& message);
    void onFixApplied(const hr::FixApplied& event);
    void onFixChecked(const hr::FixChecked& event);
    void onOom(const hr::OomReport& report);
    void onStopping();
    /// Marks the memory plot while the run waits for the person's choice of a fix.
    void setWaitingForChoice(bool waiting);
    void addOomMark(double seconds);
    void updateMemoryStatus(const hr::MemorySample& sample);
    /// updateMemoryStatus() with the last sample, after the peaks changed without one.
    void refreshMemoryStatus();
    /// Empties the plots and figures of the previous run (at Start, and again at RunStarted).
    void resetRunView();

    TrainingSession* m_session;
    PlotWidget* m_memory;
    PlotWidget* m_loss;
    PlotWidget* m_map;
    PlotWidget* m_lr;
    QProgressBar* m_progress;
    ElidedLabel* m_status;
    QLabel* m_memoryStatus;
    LogView* m_log;

    int m_allocated = -1, m_peak = -1;
    QMap<int, int> m_rankSeries; ///< rank >= 1 -> its allocated series
    int m_ranks = 1;             ///< processes of the current run
    int m_phaseSeries[4] = {-1, -1, -1, -1};
    int m_currentPhaseGroup = -2;
    int m_trainLoss[3] = {-1, -1, -1}, m_valLoss[3] = {-1, -1, -1};
    int m_map50 = -1, m_map5095 = -1, m_precision = -1, m_recall = -1, m_lrSeries = -1;
    int m_epochs = 0;
    std::int64_t m_budget = 0;
    int m_probeShading = -1, m_probeMemory = -1;
    bool m_inProbe = false;
    int m_waitShading = -1;
    bool m_waiting = false;
    double m_lastSampleSeconds = 0;
    std::optional<hr::BatchEnd> m_lastBatch;      ///< of this run, for the progress bar
    std::optional<hr::MemorySample> m_lastSample; ///< of this run, for the status line
    RunPeaks m_peaks;
    QString m_state;
    QString m_runDir;
    QToolButton* m_results;
};

/// "1 h 05 min", "3 min 20 s", "45 s".
QString formatDuration(double seconds);

} // namespace hr::ui
