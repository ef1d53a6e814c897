// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "logview.h"
#include "train/events.h"

#include <QMap>
#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;
class QAction;

namespace hr::ui {

class PlotWidget;
class TrainingSession;

/// The Train page: start/pause/stop, a progress bar with ETA, live plots of device memory
/// (budget line, phase shading), losses, mAP and learning rate, and the run's log.
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
    /// The memory plot's "allocated" series of a rank of a data-parallel run (rank 0's is the
    /// one-process run's "allocated"), or -1 when that rank has sent no sample yet.
    int memorySeriesOfRank(int rank) const;

public slots:
    void appendLog(const QString& text, int level = 0);

private:
    void onStarted(const hr::RunStarted& event);
    void onBatch(const hr::BatchEnd& event);
    void onEpoch(const hr::EpochEnd& event);
    void onMemory(const hr::MemorySample& sample);
    void onFinished(const hr::RunFinished& event);
    void onFailed(const QString& message);
    void onFixApplied(const hr::FixApplied& event);
    void onFixChecked(const hr::FixChecked& event);
    void onOom(const hr::OomReport& report);

    TrainingSession* m_session;
    PlotWidget* m_memory;
    PlotWidget* m_loss;
    PlotWidget* m_map;
    PlotWidget* m_lr;
    QProgressBar* m_progress;
    QLabel* m_status;
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
};

/// "1 h 05 min", "3 min 20 s", "45 s".
QString formatDuration(double seconds);

} // namespace hr::ui
