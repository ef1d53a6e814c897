// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "startquestion.h"

#include "advisor/fix_advisor.h"
#include "advisor/fix_suggestion.h"
#include "config/train_config.h"
#include "dist/launch_env.h"
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

namespace hr {
class StderrLibraryLog;
}

namespace hr::ui {

class WorkerProcesses;

/// The GUI's only door to the trainer. Owns an hr::Trainer and the QThread it runs on, turns
/// the trainer's events into queued signals on the GUI thread, and forwards pause/stop.
/// Out-of-memory failures follow the run's on_oom policy through the advisor's handler (as in
/// the CLI). With `ask` the trainer thread emits oomDecisionNeeded() with the report at once,
/// then fixesFound() each time the advisor's search finds another fix (its predictions run
/// probe steps: seconds each), and waits until answerOom() (or stop()) answers; an answer that
/// comes before the search is done ends it. With "always apply the best fix" set, later OOMs
/// of the run apply the best fix that continues the run without asking. After a fix the
/// session emits fixChanges() with the settings it changed (for the Settings page).
/// The destructor stops the run and waits for the thread.
///
/// With nproc > 1 the run is data parallel on this machine: this process trains as rank 0
/// (its events, OOM dialog and stop work as for one process) and the session starts ranks
/// 1..N-1 as `headroom-cli train --config FILE` processes with torchrun's variables. Each
/// worker streams its memory samples to memory.rank<k>.csv in the run folder; the session
/// follows those files and emits them as memorySampled() with the worker's rank. The run
/// counts as running until rank 0 and every worker have ended (a worker still alive
/// kWorkerGrace after rank 0 ended is terminated). A worker that fails while rank 0 runs (or exits
/// before rank 0 has started) fails the run at once: failed() names its rank, how it ended and the
/// end of its output, rank 0 is aborted (Trainer::abort: its wait for the ranks gives up)
/// and the other workers are terminated. Pause is not offered for such a run (canPause()).
class TrainingSession : public QObject {
    Q_OBJECT
public:
    explicit TrainingSession(QObject* parent = nullptr);
    ~TrainingSession() override;

    /// Starts a run on a new thread (and its worker processes when nproc > 1). Returns false
    /// when one is already running, or (after emitting failed()) when the workers cannot be
    /// started. The trainer checks the settings against this machine (estimate's
    /// machineLimitProblems) and stops a scan past the file limit, failing the run with
    /// `machine_limits` or `scan_too_large`, unless `consent` says the person agreed.
    bool start(const TrainConfig& config, StartConsent consent = {});
    bool isRunning() const;
    /// Processes of the running (or last) run: nproc when workers were started, else 1.
    int processCount() const { return m_processes; }
    /// Whether pause works for this run. A paused rank 0 would leave the other ranks waiting
    /// in a collective until its timeout, so a data-parallel run offers stop only.
    bool canPause() const { return m_processes <= 1; }
    QString pauseUnavailableReason() const;
    /// The program that runs ranks 1..N-1 (headroom-cli). Default: $HEADROOM_CLI, else
    /// headroom-cli next to this program.
    void setWorkerProgram(const QString& path);
    QString workerProgram() const;
    bool isPaused() const { return m_paused; }
    /// The config the running (or last) run started with, auto-fit applied.
    const TrainConfig& runConfig() const { return m_runConfig; }

    /// Pauses or resumes between steps.
    void setPaused(bool paused);
    /// Stops after the current step (and answers a pending OOM question with "stop").
    void stop();
    /// Answers the pending oomDecisionNeeded() with the chosen fix (one that fixesFound()
    /// offered), or nothing to stop the run. Ignored when nothing is pending.
    void answerOom(const std::optional<FixSuggestion>& fix);
    /// Whether the trainer waits for answerOom().
    bool isAskingForFix() const;
    /// Whether stop() was asked for the current run (it ends after the current step).
    bool isStopping() const;
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
    /// The trainer waits for answerOom(); the fixes follow in fixesFound().
    void oomDecisionNeeded(const hr::OomReport& report);
    /// The advisor's search for the pending decision: the fixes so far, ranked, best first.
    void fixesFound(const hr::FixSearchProgress& progress);
    void fixApplied(const hr::FixApplied& event);
    /// The settings (key, new value) the fix just applied changed, as the advisor wrote them.
    void fixChanges(const QList<QPair<QString, QString>>& changes);
    void fixChecked(const hr::FixChecked& event);
    void logMessage(int level, const QString& text); ///< level: LogMessage::Level as int
    /// stop() was asked while a run is going: it ends after the current step.
    void stopping();
    /// setPaused() changed whether the run is paused.
    void pausedChanged(bool paused);
    void finished(const hr::RunFinished& event);
    void failed(const QString& message);

private:
    void dispatch(const TrainEvent& event);
    void workerEnded(int rank, int exitCode, bool crashed, const QString& how,
                     const QString& output);
    /// A worker failed during the run: report it, abort rank 0, end the other workers.
    void failRun(const QString& message);
    void maybeAllEnded();
    OomHandler makeOomHandler(const TrainConfig& config);
    std::optional<int> chooseFix(const OomReport& report, const std::vector<FixSuggestion>& fixes);
    void threadDone();

    QThread* m_thread = nullptr;
    // Owned by the worker thread, which also destroys it (a trainer's teardown frees the model
    // and joins its loader threads: too slow for the GUI thread). Guarded by m_trainerMutex.
    Trainer* m_trainer = nullptr;
    std::mutex m_trainerMutex;
    TrainConfig m_runConfig;
    bool m_paused = false;

    // Data parallel (GUI thread only).
    WorkerProcesses* m_workers = nullptr; ///< ranks 1..N-1
    int m_processes = 1;
    bool m_rankZeroStarted = false;           ///< RunStarted arrived: rank 0 has joined every rank
    std::vector<MemorySample> m_earlySamples; ///< live samples taken before RunStarted arrived
    /// This process's own c10d and Gloo lines go to <project>/network.log while rank 0 runs.
    std::unique_ptr<StderrLibraryLog> m_networkLog;
    bool m_failureReported = false;           ///< failRun() has emitted failed() for this run
    QString m_failureMessage;                 ///< what failRun() reported (the run's reason)

    // Shared with the trainer thread.
    mutable std::mutex m_mutex;
    std::condition_variable m_answered;
    bool m_waiting = false; ///< an OOM decision is pending (the search may still run)
    bool m_asking = false;  ///< ... and the person is asked (not "always apply the best fix")
    bool m_stopping = false;
    bool m_alwaysBest = false;
    std::optional<FixSuggestion> m_answer; ///< the person's choice, when given
    /// GUI thread: a fix decided and not yet applied, with its title in the UI's language.
    struct PendingFix {
        std::string id;
        QString title;
        QList<QPair<QString, QString>> changes;
    };
    std::vector<PendingFix> m_pendingChanges;
};

} // namespace hr::ui
