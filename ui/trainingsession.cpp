// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingsession.h"

#include "failurewording.h"
#include "fixwording.h"
#include "logwording.h"

#include "devicelock.h"
#include "workerprocesses.h"

#include "advisor/oom_policy.h"
#include "compare/measured_accuracy.h"
#include "dist/stderr_library_log.h"
#include "dist/worker_launcher.h"
#include "estimate/auto_fit.h"
#include "estimate/host_memory.h"
#include "estimate/memory_estimator.h"

#include <QMetaObject>
#include <QThread>
#include <algorithm>
#include <utility>

namespace hr::ui {

namespace {

AdvisorOptions advisorOptionsWithMeasuredAccuracy(const TrainConfig& config, bool ask) {
    AdvisorOptions options = advisorOptions(config, ask);
    // mAP measured by finished runs of these settings (a strategy comparison) beats a
    // published figure.
    options.measuredAccuracy = measuredAccuracyOfRuns(config.project);
    return options;
}

} // namespace

TrainingSession::TrainingSession(QObject* parent) : QObject(parent) {
    m_workers = new WorkerProcesses(this);
    connect(m_workers, &WorkerProcesses::memorySampled, this, &TrainingSession::memorySampled);
    connect(m_workers, &WorkerProcesses::logMessage, this, &TrainingSession::logMessage);
    connect(m_workers, &WorkerProcesses::workerEnded, this, &TrainingSession::workerEnded);
}

TrainingSession::~TrainingSession() {
    if (m_thread) {
        stop();
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    // Rank 0 has ended: the workers' destructor ends those still running, without signals.
    delete m_workers;
    m_workers = nullptr;
}

bool TrainingSession::isRunning() const {
    return m_thread != nullptr || m_workers->running() > 0;
}

void TrainingSession::setWorkerProgram(const QString& path) {
    m_workers->setProgram(path);
}

QString TrainingSession::workerProgram() const {
    return m_workers->program();
}

QString TrainingSession::pauseUnavailableReason() const {
    if (canPause())
        return {};
    return tr("Pause is not available in a data-parallel run: while rank 0 pauses, the other "
              "%1 processes wait in a collective and give up after its timeout. Stop ends "
              "every rank at the same step.")
        .arg(m_processes - 1);
}

void TrainingSession::workerEnded(int rank, int exitCode, bool crashed, const QString& how,
                                  const QString& output) {
    // A worker that fails while rank 0 trains (or leaves before rank 0 has joined them all)
    // ends the run now: rank 0 would wait for it until HEADROOM_DIST_TIMEOUT.
    const bool failed = exitCode != 0 || crashed;
    const bool runGoesOn = m_thread && !m_failureReported;
    if (failed || (runGoesOn && !m_rankZeroStarted)) {
        // The worker's output is headroom-cli's English (or whatever the program printed), not
        // coded: it goes to the log as the program's raw output, under a line saying so, and
        // the failure itself is worded here.
        const QString raw =
            output.isEmpty()
                ? QString()
                : tr("The raw output of rank %1 (the program's own words, not translated):")
                          .arg(rank) +
                      QLatin1Char('\n') + output;
        if (!runGoesOn) {
            emit logMessage(
                int(LogMessage::Level::Error),
                tr("Rank %1 %2.").arg(rank).arg(how) + QLatin1Char(' ') +
                    (output.isEmpty() ? tr("It wrote nothing.") : tr("Its last output is below.")));
        } else {
            failRun(tr("Rank %1 %2 before the run ended, so the run cannot go on; the other "
                       "ranks were stopped.")
                        .arg(rank)
                        .arg(how) +
                    QLatin1Char(' ') +
                    (output.isEmpty() ? tr("It wrote nothing.")
                                      : tr("The end of its output is in the log, marked as its "
                                           "raw output.")) +
                    QLatin1Char(' ') +
                    tr("Fix what it says and start again; Resume continues from the last "
                       "finished epoch."));
        }
        if (!raw.isEmpty())
            emit logMessage(int(LogMessage::Level::Error), raw);
    }
    maybeAllEnded();
}

void TrainingSession::failRun(const QString& message) {
    m_failureReported = true;
    m_failureMessage = message;
    emit failed(message);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true; // answers an OOM question that is waiting
    }
    m_answered.notify_all();
    {
        std::lock_guard<std::mutex> lock(m_trainerMutex);
        if (m_trainer)
            m_trainer->abort(message.toStdString());
    }
    m_workers->terminateAll();
}

void TrainingSession::maybeAllEnded() {
    if (m_workers->isStarting() || m_thread || m_workers->running() > 0)
        return;
    m_workers->finish();
    emit runningChanged(false);
}

bool TrainingSession::start(const TrainConfig& config, StartConsent consent) {
    if (isRunning())
        return false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = false;
        m_waiting = false;
        m_asking = false;
        m_answer.reset();
        m_alwaysBest = false;
    }
    m_pendingChanges.clear();
    m_paused = false;
    m_failureReported = false;
    m_rankZeroStarted = false;
    m_earlySamples.clear();
    m_runConfig = config;
    m_processes = 1;
    LaunchEnv launch;
    const bool dataParallel = config.nproc > 1;
    if (dataParallel) {
        QString why;
        if (!m_workers->start(config, launch, &why, consent.largeScan)) {
            emit failed(tr("Cannot start the data-parallel run: %1").arg(why));
            return false;
        }
        m_processes = config.nproc;
        m_networkLog = std::make_unique<StderrLibraryLog>(config.project + "/network.log", 0);
    }
    // The sink runs on the trainer thread: copy the event into a queued call so that signals
    // are always emitted on the GUI thread. Queued calls die with `this`.
    auto trainer = std::make_shared<Trainer>(config, [this](const TrainEvent& event) {
        QMetaObject::invokeMethod(
            this, [this, event] { dispatch(event); }, Qt::QueuedConnection);
    });
    trainer->setOomHandler(makeOomHandler(config));
    trainer->confirmLargeScan(consent.largeScan);
    if (!consent.machineLimits)
        trainer->setMachineCheck(hr::machineLimitProblems); // on the trainer thread
    // Samples straight from the sampler's thread: the curve moves during a long step and while
    // the advisor waits for a choice (the event stream's copies are for the run folder).
    trainer->setLiveSampleSink([this](const MemorySample& sample) {
        QMetaObject::invokeMethod(
            this,
            [this, sample] {
                // The sampler starts before RunStarted is sent, and the pages clear their
                // curves on RunStarted: earlier samples wait for it.
                if (!m_rankZeroStarted)
                    m_earlySamples.push_back(sample);
                else
                    emit memorySampled(sample);
            },
            Qt::QueuedConnection);
    });
    // Runs on the trainer thread; lets an impossible budget end in one sentence naming the minimum.
    trainer->setMinimumBudget(hr::smallestWorkingBudget);
    if (dataParallel)
        trainer->setLaunch(launch); // this process is rank 0; the workers are the others
    {
        std::lock_guard<std::mutex> lock(m_trainerMutex);
        m_trainer = trainer.get();
    }
    m_thread = QThread::create([this, trainer]() mutable {
        {
            // Waits for an estimate in progress: its probe steps lift the budget meanwhile.
            const std::lock_guard<std::timed_mutex> device(deviceLock());
            trainer->run();
        }
        {
            std::lock_guard<std::mutex> lock(m_trainerMutex);
            m_trainer = nullptr;
        }
        trainer.reset(); // the teardown runs here, off the GUI thread
    });
    m_thread->setObjectName(QStringLiteral("trainer"));
    connect(m_thread, &QThread::finished, this, &TrainingSession::threadDone);
    m_thread->start();
    emit runningChanged(true);
    return true;
}

void TrainingSession::setPaused(bool paused) {
    bool changed = false;
    {
        std::lock_guard<std::mutex> lock(m_trainerMutex);
        if (!m_trainer || !canPause())
            return;
        changed = m_paused != paused;
        m_paused = paused;
        m_trainer->requestPause(paused);
    }
    if (changed)
        emit pausedChanged(paused);
}

void TrainingSession::stop() {
    // The trainer learns of the stop before the OOM handler wakes with "stop", so that it ends
    // the run at once instead of treating the answer as "no fix fits".
    {
        std::lock_guard<std::mutex> lock(m_trainerMutex);
        if (m_trainer) {
            m_trainer->requestPause(false);
            m_trainer->requestStop();
        }
    }
    bool first = false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        first = !m_stopping;
        m_stopping = true;
    }
    m_answered.notify_all();
    if (first && isRunning())
        emit stopping();
    if (!m_thread && m_workers->running() > 0)
        m_workers->endAfter(std::chrono::milliseconds(0)); // rank 0 has ended: end them now
}

void TrainingSession::answerOom(const std::optional<FixSuggestion>& fix) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_waiting)
            return;
        if (!fix)
            m_stopping = true; // no answer: the chooser returns "stop"
        else
            m_answer = fix;
    }
    m_answered.notify_all();
}

bool TrainingSession::isAskingForFix() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_waiting && m_asking && !m_answer && !m_stopping;
}

bool TrainingSession::isStopping() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stopping && isRunning();
}

void TrainingSession::setAlwaysApplyBestFix(bool on) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_alwaysBest = on;
}

bool TrainingSession::alwaysApplyBestFix() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_alwaysBest;
}

OomHandler TrainingSession::makeOomHandler(const TrainConfig& config) {
    const bool ask = config.on_oom == OomPolicy::Ask;
    // The fixes of the report being decided and the report itself, shared by the handler's
    // parts; all of them run on the trainer thread, one OOM at a time.
    struct Pending {
        OomReport report;
        std::vector<FixSuggestion> fixes;
    };
    auto pending = std::make_shared<Pending>();
    // The person sees each fix as soon as it is predicted, and may choose before the search
    // (probe steps, seconds each) is done: then it ends here, as it does on stop().
    FixProgress progress = [this](const FixSearchProgress& p) {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_stopping || m_answer)
            return false;
        if (m_asking)
            QMetaObject::invokeMethod(
                this, [this, p] { emit fixesFound(p); }, Qt::QueuedConnection);
        return true;
    };
    // The advisor's own policy handler (the same one the CLI uses) ranks the fixes; this
    // session supplies the person's choice. The estimator predicts each candidate's peak from
    // real calibration steps, as in the CLI; the advisor falls back to scaling the report's
    // measured breakdown where the estimator has no answer.
    // Made at the first OOM, on the trainer thread: the advisor's options come from a scan of
    // the data set, which start() on the GUI thread must not wait for.
    auto makeAdvisor = [this, config, ask, pending, progress]() {
        return makeAdvisorHandler(
            config.on_oom, PeakPredictor(predictPeak),
            [this, pending](const std::vector<FixSuggestion>& fixes, const std::string&) {
                return chooseFix(pending->report, fixes);
            },
            advisorOptionsWithMeasuredAccuracy(config, ask),
            [pending](const OomReport&, const std::vector<FixSuggestion>& fixes) {
                pending->fixes = fixes;
            },
            progress);
    };
    auto advisor = std::make_shared<OomHandler>();
    return [this, ask, advisor, makeAdvisor, pending](const OomReport& report) {
        if (!*advisor)
            *advisor = makeAdvisor();
        pending->report = report;
        pending->fixes.clear();
        {
            // The dialog opens now, with the diagnosis; the fixes follow as they are found.
            std::lock_guard<std::mutex> lock(m_mutex);
            m_waiting = true;
            m_answer.reset();
            m_asking = ask && !m_alwaysBest && !m_stopping;
            if (m_asking)
                QMetaObject::invokeMethod(
                    this, [this, report] { emit oomDecisionNeeded(report); }, Qt::QueuedConnection);
        }
        OomDecision decision = (*advisor)(report);
        std::optional<FixSuggestion> chosen;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            chosen = std::move(m_answer);
            m_answer.reset();
            m_waiting = false;
            m_asking = false;
            if (m_stopping)
                chosen.reset();
        }
        // A fix chosen from an early list is applied as it was shown, even when the search,
        // ended by the choice, ranked it out of the final list.
        if (chosen && !decision.stop)
            decision = decisionFor(*chosen);
        if (decision.stop)
            return decision;
        const FixSuggestion* fix = chosen ? &*chosen : nullptr;
        for (const FixSuggestion& f : pending->fixes)
            if (!fix && f.id == decision.fixId)
                fix = &f;
        PendingFix pendingFix{decision.fixId, {}, {}};
        if (fix) {
            pendingFix.title = FixWording::title(*fix);
            for (const auto& [key, value] : fix->changes)
                pendingFix.changes.append(
                    {QString::fromStdString(key), QString::fromStdString(value)});
        }
        // Queued before the trainer's FixApplied event, so dispatch() finds them.
        QMetaObject::invokeMethod(
            this, [this, pendingFix] { m_pendingChanges.push_back(pendingFix); },
            Qt::QueuedConnection);
        return decision;
    };
}

std::optional<int> TrainingSession::chooseFix(const OomReport& report,
                                              const std::vector<FixSuggestion>& fixes) {
    // Runs on the trainer thread, which is free to block: the failed step's memory is released.
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_stopping)
        return std::nullopt;
    if (!m_asking && !m_answer) {
        // "Always apply the best fix": the best that continues the run, without asking.
        for (int i = 0; i < int(fixes.size()); ++i) {
            if (fixes[size_t(i)].restarts)
                continue;
            const QString line = tr("Out of memory again: applying the best fix, %1")
                                     .arg(FixWording::title(fixes[size_t(i)]));
            QMetaObject::invokeMethod(
                this, [this, line] { emit logMessage(int(LogMessage::Level::Warning), line); },
                Qt::QueuedConnection);
            return i;
        }
        // Only fixes that restart the run: that is the person's decision.
        m_asking = true;
        FixSearchProgress all{fixes, 1, 1, true};
        QMetaObject::invokeMethod(
            this,
            [this, report, all] {
                emit oomDecisionNeeded(report);
                emit fixesFound(all);
            },
            Qt::QueuedConnection);
    }
    m_answered.wait(lock, [this] { return m_answer.has_value() || m_stopping; });
    if (m_stopping || !m_answer)
        return std::nullopt;
    for (int i = 0; i < int(fixes.size()); ++i)
        if (fixes[size_t(i)].id == m_answer->id)
            return i;
    return 0; // ranked out of the list the search ended with: the handler applies m_answer
}

void TrainingSession::dispatch(const TrainEvent& event) {
    if (const auto* e = std::get_if<RunStarted>(&event)) {
        m_runConfig = e->config;
        m_rankZeroStarted = true;
        if (m_processes > 1)
            m_workers->followMemory(QString::fromStdString(e->runDir));
        emit started(*e);
        for (const MemorySample& sample : std::exchange(m_earlySamples, {}))
            emit memorySampled(sample);
    } else if (const auto* e = std::get_if<BatchEnd>(&event)) {
        emit batchEnded(*e);
    } else if (const auto* e = std::get_if<EpochEnd>(&event)) {
        emit epochEnded(*e);
    } else if (std::holds_alternative<MemorySample>(event)) {
        // Already shown as it was taken (setLiveSampleSink).
    } else if (const auto* e = std::get_if<OomOccurred>(&event)) {
        emit oomOccurred(e->report);
    } else if (const auto* e = std::get_if<FixApplied>(&event)) {
        m_runConfig = e->config;
        FixApplied applied = *e;
        const auto it =
            std::find_if(m_pendingChanges.begin(), m_pendingChanges.end(),
                         [e](const PendingFix& pending) { return pending.id == e->fixId; });
        if (it == m_pendingChanges.end()) {
            emit fixApplied(applied);
        } else {
            const PendingFix pending = *it;
            m_pendingChanges.erase(m_pendingChanges.begin(), it + 1);
            // The log names the fix as the advisor's card did, in the UI's language.
            if (!pending.title.isEmpty())
                applied.description = pending.title.toStdString();
            emit fixApplied(applied);
            emit fixChanges(pending.changes);
        }
    } else if (const auto* e = std::get_if<FixChecked>(&event)) {
        emit fixChecked(*e);
    } else if (const auto* e = std::get_if<RunFinished>(&event)) {
        if (m_failureReported) {
            // Rank 0's reason is a consequence of failRun(): the run ended for the worker's.
            RunFinished end = *e;
            end.reason = m_failureMessage.toStdString();
            end.reasonCode.clear();
            end.reasonArgs.clear();
            emit finished(end);
        } else {
            emit finished(*e);
        }
    } else if (const auto* e = std::get_if<RunFailed>(&event)) {
        // After failRun() (a worker failed) rank 0's own failure is a consequence, not a second
        // failure: it gave up its wait for the ranks. Its detail is core's English and comes
        // from where it stopped (the rendezvous, a collective), so it is logged as raw words.
        if (m_failureReported) {
            QString words = QString::fromStdString(e->message);
            words.replace(QLatin1Char('\n'), QStringLiteral("\n    "));
            emit logMessage(int(LogMessage::Level::Error),
                            tr("Rank 0 stopped as well, as the run had already failed. Its own "
                               "words (the program's, not translated):") +
                                QStringLiteral("\n    ") + words);
        } else {
            emit failed(FailureWording::reason(e->code, e->args, e->message));
        }
    } else if (const auto* e = std::get_if<LogMessage>(&event)) {
        emit logMessage(static_cast<int>(e->level), LogWording::line(e->code, e->args, e->text));
    }
}

void TrainingSession::threadDone() {
    // Events queued before the thread ended are delivered first: they were posted earlier.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (!m_thread)
                return;
            m_thread->deleteLater();
            m_thread = nullptr;
            if (m_networkLog && m_networkLog->lines() > 0)
                emit logMessage(int(LogMessage::Level::Info),
                                tr("%1 lines of the network library's log (c10d, Gloo) are in %2.")
                                    .arg(m_networkLog->lines())
                                    .arg(QString::fromStdString(m_networkLog->path())));
            m_networkLog.reset(); // the trainer, and its process group, have ended
            if (m_workers->running() > 0)
                m_workers->endAfter(kWorkerGrace);
            maybeAllEnded();
        },
        Qt::QueuedConnection);
}

} // namespace hr::ui
