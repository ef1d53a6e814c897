// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"
#include "compare/strategy.h"
#include "config/train_config.h"
#include "train/events.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace hr {
class StrategyRunner;
}

namespace hr::ui {

/// The GUI's door to strategy comparisons: runs a strategy matrix (hr::StrategyRunner) on a
/// worker thread and reports its events as queued signals on the GUI thread, or measures
/// existing run folders. The destructor stops a running matrix and waits for its thread.
class ComparisonSession : public QObject {
    Q_OBJECT
public:
    explicit ComparisonSession(QObject* parent = nullptr);
    ~ComparisonSession() override;

    /// Starts the matrix on a new thread. Returns false when one is already running or a
    /// strategy's settings are rejected (`error` then says which and why).
    bool start(const TrainConfig& base, const std::vector<Strategy>& strategies,
               QString* error = nullptr);
    bool isRunning() const { return m_thread != nullptr; }
    /// Stops the running strategy after its step; the rest are not run.
    void stop();

    /// Measures existing run folders (no training) and emits comparisonReady().
    void compareFolders(const QStringList& runDirs);

    const Comparison& comparison() const { return m_comparison; }

signals:
    void runningChanged(bool running);
    /// Strategy `index` started its run in `runDir`.
    void strategyStarted(int index, const QString& name, const QString& runDir);
    void epochEnded(int index, const hr::EpochEnd& event);
    void oomOccurred(int index, const QString& phase);
    void comparisonReady(const hr::Comparison& comparison);

private:
    void dispatch(size_t index, const TrainEvent& event);
    void threadDone();

    QThread* m_thread = nullptr;
    std::vector<Strategy> m_strategies;
    Comparison m_comparison;
    std::shared_ptr<Comparison> m_result; ///< written by the worker, read after it finished
    std::mutex m_runnerMutex;
    StrategyRunner* m_runner = nullptr; ///< guarded by m_runnerMutex; owned by the worker
};

} // namespace hr::ui
