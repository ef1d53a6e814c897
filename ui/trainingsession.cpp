// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingsession.h"

#include "devicelock.h"

#include "advisor/oom_policy.h"
#include "estimate/memory_estimator.h"

#include <QMetaObject>
#include <QThread>

namespace hr::ui {

namespace {

AdvisorOptions advisorOptions(const TrainConfig& config) {
    AdvisorOptions options;
    // Calibrations already made answer first; new probe steps for at most a few seconds (a
    // person is waiting for the dialog, or the run for the automatic fix).
    options.quickPredictor = predictTrainPeakWithoutProbing;
    options.predictionSeconds = config.on_oom == OomPolicy::Ask ? 15.0 : 3.0;
    return options;
}

} // namespace

TrainingSession::TrainingSession(QObject* parent) : QObject(parent) {}

TrainingSession::~TrainingSession() {
    if (m_thread) {
        stop();
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
}

bool TrainingSession::start(const TrainConfig& config) {
    if (m_thread)
        return false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = false;
        m_waiting = false;
        m_hasAnswer = false;
        m_alwaysBest = false;
    }
    m_paused = false;
    m_runConfig = config;
    // The sink runs on the trainer thread: copy the event into a queued call so that signals
    // are always emitted on the GUI thread. Queued calls die with `this`.
    auto trainer = std::make_shared<Trainer>(config, [this](const TrainEvent& event) {
        QMetaObject::invokeMethod(
            this, [this, event] { dispatch(event); }, Qt::QueuedConnection);
    });
    // The advisor's own policy handler (the same one the CLI uses) ranks the fixes; this
    // session only supplies the person's choice. The estimator predicts each candidate's peak
    // from real calibration steps, as in the CLI; the advisor falls back to scaling the
    // report's measured breakdown where the estimator has no answer.
    trainer->setOomHandler(makeAdvisorHandler(
        config.on_oom, PeakPredictor(predictTrainPeak),
        [this](const std::vector<FixSuggestion>& fixes, const std::string&) {
            return chooseFix(fixes);
        },
        advisorOptions(config),
        [this](const OomReport& report, const std::vector<FixSuggestion>&) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_pendingReport = report;
        }));
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
    if (!m_trainer)
        return;
    m_paused = paused;
    m_trainer->requestPause(paused);
}

void TrainingSession::stop() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_answered.notify_all();
    std::lock_guard<std::mutex> lock(m_trainerMutex);
    if (!m_trainer)
        return;
    m_trainer->requestPause(false);
    m_trainer->requestStop();
}

void TrainingSession::answerOom(std::optional<int> fixIndex) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_waiting)
            return;
        if (!fixIndex) {
            m_stopping = true; // no answer: the chooser returns "stop"
        } else {
            m_answer = *fixIndex;
            m_hasAnswer = true;
        }
    }
    m_answered.notify_all();
}

void TrainingSession::setAlwaysApplyBestFix(bool on) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_alwaysBest = on;
}

bool TrainingSession::alwaysApplyBestFix() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_alwaysBest;
}

std::optional<int> TrainingSession::chooseFix(const std::vector<FixSuggestion>& fixes) {
    // Runs on the trainer thread, which is free to block: the failed step's memory is released.
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_stopping)
        return std::nullopt;
    if (m_alwaysBest) {
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
    }
    m_waiting = true;
    m_hasAnswer = false;
    const OomReport report = m_pendingReport;
    QMetaObject::invokeMethod(
        this, [this, report, fixes] { emit oomDecisionNeeded(report, fixes); },
        Qt::QueuedConnection);
    m_answered.wait(lock, [this] { return m_hasAnswer || m_stopping; });
    m_waiting = false;
    if (!m_hasAnswer)
        return std::nullopt;
    m_hasAnswer = false;
    return m_answer;
}

void TrainingSession::dispatch(const TrainEvent& event) {
    if (const auto* e = std::get_if<RunStarted>(&event)) {
        m_runConfig = e->config;
        emit started(*e);
    } else if (const auto* e = std::get_if<BatchEnd>(&event)) {
        emit batchEnded(*e);
    } else if (const auto* e = std::get_if<EpochEnd>(&event)) {
        emit epochEnded(*e);
    } else if (const auto* e = std::get_if<MemorySample>(&event)) {
        emit memorySampled(*e);
    } else if (const auto* e = std::get_if<OomOccurred>(&event)) {
        emit oomOccurred(e->report);
    } else if (const auto* e = std::get_if<FixApplied>(&event)) {
        m_runConfig = e->config;
        emit fixApplied(*e);
    } else if (const auto* e = std::get_if<FixChecked>(&event)) {
        emit fixChecked(*e);
    } else if (const auto* e = std::get_if<RunFinished>(&event)) {
        emit finished(*e);
    } else if (const auto* e = std::get_if<RunFailed>(&event)) {
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
            emit runningChanged(false);
        },
        Qt::QueuedConnection);
}

} // namespace hr::ui
