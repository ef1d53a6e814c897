// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "config/train_config.h"
#include "memory/oom_report.h"
#include "train/events.h"
#include "train/trainer.h"

#include <QObject>
#include <QString>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QThread;

namespace hr::ui {

/// The GUI's only door to the trainer. Owns an hr::Trainer and the QThread it runs on, turns
/// the trainer's events into queued signals on the GUI thread, and forwards pause/stop.
/// Out-of-memory failures follow the run's on_oom policy through the advisor's handler (as in
/// the CLI); with `ask` the trainer thread emits oomDecisionNeeded() with the ranked fixes and
/// blocks until answerOom() (or stop()) answers. With "always apply the best fix" set, later
/// OOMs of the run apply the best fix that continues the run without asking.
/// The destructor stops the run and waits for the thread.
class TrainingSession : public QObject {
    Q_OBJECT
public:
    explicit TrainingSession(QObject* parent = nullptr);
    ~TrainingSession() override;

    /// Starts a run on a new thread. Returns false when one is already running.
    bool start(const TrainConfig& config);
    bool isRunning() const { return m_thread != nullptr; }
    bool isPaused() const { return m_paused; }
    /// The config the running (or last) run started with, auto-fit applied.
    const TrainConfig& runConfig() const { return m_runConfig; }

    /// Pauses or resumes between steps.
    void setPaused(bool paused);
    /// Stops after the current step (and answers a pending OOM question with "stop").
    void stop();
    /// Answers the pending oomDecisionNeeded() with the index of the chosen fix, or nothing to
    /// stop the run. Ignored when nothing is pending.
    void answerOom(std::optional<int> fixIndex);
    /// Apply the best fitting fix without asking, for the rest of this run.
    void setAlwaysApplyBestFix(bool on);
    bool alwaysApplyBestFix() const;

signals:
    void runningChanged(bool running);
    void started(const hr::RunStarted& event);
    void batchEnded(const hr::BatchEnd& event);
    void epochEnded(const hr::EpochEnd& event);
    void memorySampled(const hr::MemorySample& sample);
    void oomOccurred(const hr::OomReport& report);
    /// The trainer waits for answerOom(); `fixes` are ranked, best first.
    void oomDecisionNeeded(const hr::OomReport& report,
                           const std::vector<hr::FixSuggestion>& fixes);
    void fixApplied(const hr::FixApplied& event);
    void fixChecked(const hr::FixChecked& event);
    void logMessage(int level, const QString& text); ///< level: LogMessage::Level as int
    void finished(const hr::RunFinished& event);
    void failed(const QString& message);

private:
    void dispatch(const TrainEvent& event);
    std::optional<int> chooseFix(const std::vector<FixSuggestion>& fixes);
    void threadDone();

    QThread* m_thread = nullptr;
    // Owned by the worker thread, which also destroys it (a trainer's teardown frees the model
    // and joins its loader threads: too slow for the GUI thread). Guarded by m_trainerMutex.
    Trainer* m_trainer = nullptr;
    std::mutex m_trainerMutex;
    TrainConfig m_runConfig;
    bool m_paused = false;

    // Shared with the trainer thread.
    mutable std::mutex m_mutex;
    std::condition_variable m_answered;
    bool m_waiting = false;
    bool m_hasAnswer = false;
    bool m_stopping = false;
    bool m_alwaysBest = false;
    int m_answer = 0;
    OomReport m_pendingReport;
};

} // namespace hr::ui
