// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingsession.h"

#include "devicelock.h"

#include "advisor/oom_policy.h"
#include "compare/measured_accuracy.h"
#include "dist/worker_launcher.h"
#include "estimate/auto_fit.h"
#include "estimate/memory_estimator.h"
#include "memory/memory_sampler.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QMetaObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>

namespace hr::ui {

namespace {

AdvisorOptions advisorOptions(const TrainConfig& config) {
    AdvisorOptions options;
    // Calibrations already made answer first; new probe steps for at most a few seconds (a
    // person is waiting for the dialog, or the run for the automatic fix).
    // The larger of the training and validation peaks: a fix must fit both phases.
    options.quickPredictor = predictPeakWithoutProbing;
    options.predictionSeconds = predictionSecondsFor(config.on_oom);
    // Speeds timed by the same probe steps, corrected by this machine's earlier fixes.
    options.timePredictor = secondsPerImageWithoutProbing;
    options.useSpeedChecks = true;
    // mAP measured by finished runs of these settings (a strategy comparison) beats a
    // published figure.
    options.measuredAccuracy = measuredAccuracyOfRuns(config.project);
    // Chunked assignment is offered for a loss-phase OOM on crowded images; a data-parallel run
    // has nproc devices already, so sharding the optimizer state is a fix there.
    options.objectsPerImage = assignerObjectsPerImage(config);
    options.deviceCount = std::max(options.deviceCount, config.nproc);
    return options;
}

/// The last `count` lines of a worker's output, indented, for the log and the failure.
QString lastLines(const QByteArray& output, int count) {
    QString lines = QString::fromLocal8Bit(hr::lastLines(output.toStdString(), count, "    "));
    lines.chop(1); // the last newline
    return lines;
}

constexpr int kWorkerGraceMs = 30000;

} // namespace

struct TrainingSession::Worker {
    int rank = 0;
    QProcess* process = nullptr; ///< a child of the session
    bool running = false;
    qint64 offset = 0;  ///< bytes of memory.rank<k>.csv read so far
    QByteArray partial; ///< the start of a line not yet complete
};

TrainingSession::TrainingSession(QObject* parent) : QObject(parent) {
    m_memoryPoll = new QTimer(this);
    m_memoryPoll->setInterval(250);
    connect(m_memoryPoll, &QTimer::timeout, this, &TrainingSession::readWorkerMemory);
    m_workerGrace = new QTimer(this);
    m_workerGrace->setSingleShot(true);
    connect(m_workerGrace, &QTimer::timeout, this, [this] {
        for (auto& w : m_workers)
            if (w->running) {
                emit logMessage(int(LogMessage::Level::Warning),
                                tr("rank %1 is still running %2 s after rank 0 ended; "
                                   "terminating it")
                                    .arg(w->rank)
                                    .arg(kWorkerGraceMs / 1000));
                w->process->terminate();
            }
    });
}

TrainingSession::~TrainingSession() {
    if (m_thread) {
        stop();
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    // Rank 0 has ended, so the workers' next collective fails; end them now without signals.
    for (auto& w : m_workers) {
        QObject::disconnect(w->process, nullptr, this, nullptr);
        if (w->running) {
            w->process->terminate();
            if (!w->process->waitForFinished(5000)) {
                w->process->kill();
                w->process->waitForFinished(5000);
            }
        }
    }
}

QString TrainingSession::workerProgram() const {
    if (!m_workerProgram.isEmpty())
        return m_workerProgram;
    const QByteArray fromEnv = qgetenv("HEADROOM_CLI");
    if (!fromEnv.isEmpty())
        return QString::fromLocal8Bit(fromEnv);
    return QCoreApplication::applicationDirPath() + QStringLiteral("/headroom-cli");
}

QString TrainingSession::pauseUnavailableReason() const {
    if (canPause())
        return {};
    return tr("Pause is not available in a data-parallel run: while rank 0 pauses, the other "
              "%1 processes wait in a collective and give up after its timeout. Stop ends "
              "every rank at the same step.")
        .arg(m_processes - 1);
}

bool TrainingSession::startWorkers(const TrainConfig& config, LaunchEnv& rank0) {
    const QString program = workerProgram();
    const QFileInfo info(program);
    auto refuse = [this](const QString& why) {
        const QString message = tr("Cannot start the data-parallel run: %1").arg(why);
        emit failed(message);
        return false;
    };
    if (!info.isFile() || !info.isExecutable())
        return refuse(tr("the worker program %1 does not exist or is not executable (set "
                         "HEADROOM_CLI to the path of headroom-cli)")
                          .arg(program));
    const int port = freeLocalPort();
    if (port <= 0)
        return refuse(tr("no free TCP port on the loopback interface for the rendezvous"));
    auto dir = std::make_unique<QTemporaryDir>();
    const QString file = dir->filePath(QStringLiteral("config.yaml"));
    std::string error;
    if (!dir->isValid() || !saveTrainConfig(config, file.toStdString(), &error))
        return refuse(tr("cannot write the workers' settings file: %1")
                          .arg(error.empty() ? dir->errorString() : QString::fromStdString(error)));

    rank0 = LaunchEnv{};
    rank0.rank = 0;
    rank0.worldSize = config.nproc;
    rank0.localRank = 0;
    rank0.localWorldSize = config.nproc;
    rank0.masterAddr = "127.0.0.1";
    rank0.masterPort = port;

    m_workerConfigDir = std::move(dir);
    for (auto& w : m_workers)
        w->process->deleteLater();
    m_workers.clear();
    m_workersRunning = 0;
    for (int rank = 1; rank < config.nproc; ++rank) {
        auto worker = std::make_unique<Worker>();
        worker->rank = rank;
        worker->process = new QProcess(this);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("RANK"), QString::number(rank));
        env.insert(QStringLiteral("WORLD_SIZE"), QString::number(config.nproc));
        env.insert(QStringLiteral("LOCAL_RANK"), QString::number(rank));
        env.insert(QStringLiteral("LOCAL_WORLD_SIZE"), QString::number(config.nproc));
        env.insert(QStringLiteral("MASTER_ADDR"), QString::fromStdString(rank0.masterAddr));
        env.insert(QStringLiteral("MASTER_PORT"), QString::number(port));
        worker->process->setProcessEnvironment(env);
        worker->process->setProcessChannelMode(QProcess::MergedChannels);
        worker->process->setProgram(program);
        worker->process->setArguments({QStringLiteral("train"), QStringLiteral("--config"), file});
        connect(worker->process, &QProcess::finished, this,
                [this, rank](int code, QProcess::ExitStatus status) {
                    workerEnded(rank, code, status == QProcess::CrashExit);
                });
        connect(worker->process, &QProcess::errorOccurred, this,
                [this, rank](QProcess::ProcessError error) {
                    if (error == QProcess::FailedToStart)
                        workerEnded(rank, -1, true);
                });
        worker->running = true;
        ++m_workersRunning;
        QProcess* process = worker->process;
        m_workers.push_back(std::move(worker));
        m_startingWorkers = true; // a start failure is reported below, not as the run's end
        process->start();
        m_startingWorkers = false;
        if (!m_workers.back()->running) {
            const QString why = process->errorString();
            for (auto& w : m_workers) {
                QObject::disconnect(w->process, nullptr, this, nullptr);
                if (w->running) {
                    w->process->kill();
                    w->process->waitForFinished(5000);
                }
                w->process->deleteLater();
            }
            m_workers.clear();
            m_workersRunning = 0;
            m_workerConfigDir.reset();
            return refuse(tr("rank %1 (%2) did not start: %3").arg(rank).arg(program, why));
        }
    }
    m_processes = config.nproc;
    emit logMessage(int(LogMessage::Level::Info),
                    tr("Started ranks 1-%1 as %2 (rendezvous on 127.0.0.1:%3).")
                        .arg(config.nproc - 1)
                        .arg(program)
                        .arg(port));
    return true;
}

void TrainingSession::readWorkerMemory() {
    if (m_runDir.isEmpty())
        return;
    for (auto& w : m_workers) {
        QFile file(QStringLiteral("%1/memory.rank%2.csv").arg(m_runDir).arg(w->rank));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        if (file.size() < w->offset) { // rewritten: read it again
            w->offset = 0;
            w->partial.clear();
        }
        if (file.size() == w->offset || !file.seek(w->offset))
            continue;
        const QByteArray bytes = file.readAll();
        w->offset += bytes.size();
        w->partial += bytes;
        const qsizetype end = w->partial.lastIndexOf('\n');
        if (end < 0)
            continue;
        const std::string complete = w->partial.left(end + 1).toStdString();
        w->partial.remove(0, end + 1);
        for (MemorySample sample : MemorySampler::parseCsv(complete)) {
            sample.rank = w->rank;
            emit memorySampled(sample);
        }
    }
}

void TrainingSession::workerEnded(int rank, int exitCode, bool crashed) {
    for (auto& w : m_workers) {
        if (w->rank != rank || !w->running)
            continue;
        w->running = false;
        --m_workersRunning;
        // A worker that fails while rank 0 trains (or leaves before rank 0 has joined them
        // all) ends the run now: rank 0 would wait for it until HEADROOM_DIST_TIMEOUT.
        const bool failed = exitCode != 0 || crashed;
        const bool runGoesOn = m_thread && !m_failureReported;
        if (!failed && !(runGoesOn && !m_rankZeroStarted))
            continue;
        const QString output = lastLines(w->process->readAll(), 8);
        const QString how = exitCode < 0 ? tr("could not start (%1)").arg(w->process->errorString())
                            : crashed    ? tr("crashed (ended by a signal)")
                                         : tr("exited with status %1").arg(exitCode);
        if (!runGoesOn) {
            emit logMessage(int(LogMessage::Level::Error),
                            tr("rank %1 %2").arg(rank).arg(how) +
                                (output.isEmpty() ? QString() : QStringLiteral(":\n") + output));
            continue;
        }
        failRun(tr("Rank %1 %2 before the run ended, so the run cannot go on; the other "
                   "ranks were stopped.")
                    .arg(rank)
                    .arg(how) +
                QLatin1Char('\n') +
                (output.isEmpty() ? tr("It wrote nothing.")
                                  : tr("The end of its output:") + QLatin1Char('\n') + output) +
                QLatin1Char('\n') +
                tr("Fix what it says and start again; Resume continues from the last finished "
                   "epoch."));
    }
    readWorkerMemory();
    maybeAllEnded();
}

void TrainingSession::failRun(const QString& message) {
    m_failureReported = true;
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
    for (auto& w : m_workers)
        if (w->running)
            w->process->terminate(); // a worker ends its rendezvous wait or its run on SIGTERM
}

void TrainingSession::maybeAllEnded() {
    if (m_startingWorkers || m_thread || m_workersRunning > 0)
        return;
    m_memoryPoll->stop();
    m_workerGrace->stop();
    m_workerConfigDir.reset();
    emit runningChanged(false);
}

bool TrainingSession::start(const TrainConfig& config) {
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
    m_runConfig = config;
    m_runDir.clear();
    m_processes = 1;
    LaunchEnv launch;
    const bool dataParallel = config.nproc > 1;
    if (dataParallel && !startWorkers(config, launch))
        return false;
    // The sink runs on the trainer thread: copy the event into a queued call so that signals
    // are always emitted on the GUI thread. Queued calls die with `this`.
    auto trainer = std::make_shared<Trainer>(config, [this](const TrainEvent& event) {
        QMetaObject::invokeMethod(
            this, [this, event] { dispatch(event); }, Qt::QueuedConnection);
    });
    trainer->setOomHandler(makeOomHandler(config));
    // Samples straight from the sampler's thread: the curve moves during a long step and while
    // the advisor waits for a choice (the event stream's copies are for the run folder).
    trainer->setLiveSampleSink([this](const MemorySample& sample) {
        QMetaObject::invokeMethod(
            this, [this, sample] { emit memorySampled(sample); }, Qt::QueuedConnection);
    });
    // Runs on the trainer thread; lets an impossible budget end in one sentence naming the minimum.
    trainer->setMinimumBudget(hr::smallestWorkingBudget);
    if (dataParallel) {
        trainer->setLaunch(launch); // this process is rank 0; the workers are the others
        m_memoryPoll->start();
    }
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
    std::lock_guard<std::mutex> lock(m_trainerMutex);
    if (!m_trainer || !canPause())
        return;
    m_paused = paused;
    m_trainer->requestPause(paused);
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
    if (!m_thread && m_workersRunning > 0)
        m_workerGrace->start(0); // rank 0 has ended: end the workers now
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
    OomHandler advisor = makeAdvisorHandler(
        config.on_oom, PeakPredictor(predictPeak),
        [this, pending](const std::vector<FixSuggestion>& fixes, const std::string&) {
            return chooseFix(pending->report, fixes);
        },
        advisorOptions(config),
        [pending](const OomReport&, const std::vector<FixSuggestion>& fixes) {
            pending->fixes = fixes;
        },
        std::move(progress));
    return [this, ask, advisor, pending](const OomReport& report) {
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
        OomDecision decision = advisor(report);
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
        QList<QPair<QString, QString>> changes;
        if (fix)
            for (const auto& [key, value] : fix->changes)
                changes.append({QString::fromStdString(key), QString::fromStdString(value)});
        // Queued before the trainer's FixApplied event, so dispatch() finds them.
        QMetaObject::invokeMethod(
            this,
            [this, id = decision.fixId, changes] { m_pendingChanges.emplace_back(id, changes); },
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
                                     .arg(QString::fromStdString(fixes[size_t(i)].title));
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
        m_runDir = QString::fromStdString(e->runDir);
        m_rankZeroStarted = true;
        emit started(*e);
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
        emit fixApplied(*e);
        const auto it =
            std::find_if(m_pendingChanges.begin(), m_pendingChanges.end(),
                         [e](const auto& pending) { return pending.first == e->fixId; });
        if (it != m_pendingChanges.end()) {
            const QList<QPair<QString, QString>> changes = it->second;
            m_pendingChanges.erase(m_pendingChanges.begin(), it + 1);
            emit fixChanges(changes);
        }
    } else if (const auto* e = std::get_if<FixChecked>(&event)) {
        emit fixChecked(*e);
    } else if (const auto* e = std::get_if<RunFinished>(&event)) {
        emit finished(*e);
    } else if (const auto* e = std::get_if<RunFailed>(&event)) {
        // After failRun() rank 0's own failure is a consequence, not a second failure.
        if (m_failureReported)
            emit logMessage(int(LogMessage::Level::Error), QString::fromStdString(e->message));
        else
            emit failed(QString::fromStdString(e->message));
    } else if (const auto* e = std::get_if<LogMessage>(&event)) {
        emit logMessage(static_cast<int>(e->level), QString::fromStdString(e->text));
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
            if (m_workersRunning > 0)
                m_workerGrace->start(kWorkerGraceMs);
            maybeAllEnded();
        },
        Qt::QueuedConnection);
}

} // namespace hr::ui
