// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimatorservice.h"

#include "config/data_config.h"
#include "devicelock.h"
#include "diagnosticwording.h"
#include "fitwording.h"
#include "memory/memory_probe.h"
#include "util/user_message.h"

#include <QMetaObject>
#include <QStringList>
#include <QThread>

#include <chrono>
#include <exception>
#include <memory>
#include <mutex>

namespace hr::ui {

namespace {

constexpr int kDefaultDebounceMs = 300;

/// Waits for the device (a run may hold it) and gives up when the thread is asked to stop.
bool lockDevice(std::unique_lock<std::timed_mutex>& lock) {
    using namespace std::chrono_literals;
    while (!lock.try_lock_for(100ms)) {
        if (QThread::currentThread()->isInterruptionRequested())
            return false;
    }
    return true;
}

} // namespace

EstimatorService::EstimatorService(QObject* parent)
    : QObject(parent), m_thread(new QThread), m_worker(new QObject) {
    m_thread->setObjectName(QStringLiteral("estimator"));
    m_worker->moveToThread(m_thread);
    m_thread->start(QThread::LowPriority);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDefaultDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &EstimatorService::startNext);
}

EstimatorService::~EstimatorService() {
    m_debounce.stop();
    m_thread->requestInterruption();
    m_thread->quit();
    m_thread->wait(); // a calibration cannot be cut short: it ends within seconds
    delete m_worker;
    delete m_thread;
}

void EstimatorService::requestEstimate(const TrainConfig& config) {
    ++m_generation;
    m_pendingEstimate = config;
    m_debounce.start();
}

void EstimatorService::requestFit(const TrainConfig& config) {
    m_pendingFit = config;
    startNext();
}

void EstimatorService::setDebounceInterval(int ms) {
    m_debounce.setInterval(ms);
}

int EstimatorService::debounceInterval() const {
    return m_debounce.interval();
}

void EstimatorService::setHeld(bool held) {
    m_held = held;
    if (!m_held)
        startNext();
}

void EstimatorService::startNext() {
    if (m_running || m_held)
        return;
    if (m_pendingFit) {
        const TrainConfig config = *m_pendingFit;
        m_pendingFit.reset();
        run(Kind::Fit, config, m_generation);
    } else if (m_pendingEstimate && !m_debounce.isActive()) {
        const TrainConfig config = *m_pendingEstimate;
        m_pendingEstimate.reset();
        run(Kind::Estimate, config, m_generation);
    }
}

void EstimatorService::run(Kind kind, const TrainConfig& config, int generation) {
    m_running = true;
    if (!m_busySignalled) {
        m_busySignalled = true;
        emit busyChanged(true);
    }

    QMetaObject::invokeMethod(m_worker, [this, kind, config, generation] {
        // Worker thread. Everything it learns goes back to the GUI thread in one queued call.
        std::unique_lock<std::timed_mutex> device(deviceLock(), std::defer_lock);
        if (!lockDevice(device))
            return; // the service is being destroyed
        EstimateOutcome outcome;
        FitResult fit;         // Kind::Fit's result, or batch -1's fit that found nothing
        bool noBudget = false; // Kind::Fit without a budget on a device of unknown size
        std::string error;
        // A data.yaml that does not load stops the estimate here, so that its problems reach
        // the panel coded (the estimator words them in English only).
        Diagnostics dataProblems;
        if (!config.data.empty())
            if (const DataConfigResult loaded = loadDataConfig(config.data); !loaded.config)
                dataProblems = loaded.diagnostics;
        try {
            const std::unique_ptr<MemoryProbe> probe =
                dataProblems.empty() ? makeProbe(config.device, &error) : nullptr;
            if (probe) {
                outcome.budget = config.memory_budget;
                outcome.capacity = probe->capacity();
                if (kind == Kind::Fit) {
                    const std::int64_t budget =
                        config.memory_budget > 0 ? config.memory_budget : outcome.capacity;
                    if (budget <= 0)
                        noBudget = true;
                    else
                        fit = fitToBudget(config, budget, &error);
                } else {
                    TrainConfig at = config;
                    if (at.batch == -1) {
                        const FitResult chosen = resolveAutoBatch(at, outcome.capacity, &error);
                        if (error.empty() && !chosen.fits)
                            fit = chosen; // worded on the GUI thread
                        at = chosen.config;
                        outcome.autoBatch = at.batch;
                    }
                    if (error.empty() && fit.outcome == FitOutcome::Failed)
                        outcome.estimate = estimateMemory(at, &error);
                }
            }
        } catch (const std::exception& e) {
            error = hr::userMessage(e);
        }
        device.unlock();

        QMetaObject::invokeMethod(
            this,
            [this, kind, generation, outcome, fit, noBudget, error, dataProblems] {
                if (!dataProblems.empty()) {
                    QStringList lines;
                    for (const Diagnostic& d : dataProblems)
                        if (d.severity == Diagnostic::Severity::Error)
                            lines << DiagnosticWording::located(d);
                    const QString text = lines.join(QLatin1Char('\n'));
                    if (kind == Kind::Fit)
                        emit fitFailed(text);
                    else if (generation == m_generation) {
                        ++m_delivered;
                        emit estimateFailed(text);
                    }
                } else if (kind == Kind::Fit) {
                    if (fit.outcome != FitOutcome::Failed)
                        emit fitReady(fit);
                    else if (noBudget)
                        emit fitFailed(tr("the device's memory size is unknown: set a memory "
                                          "budget"));
                    else
                        emit fitFailed(error.empty() ? tr("auto-fit gave no answer")
                                                     : QString::fromStdString(error));
                } else if (generation == m_generation) {
                    ++m_delivered;
                    if (outcome.estimate.trainPeak > 0)
                        emit estimateReady(outcome);
                    else if (fit.outcome != FitOutcome::Failed)
                        emit estimateFailed(FitWording::summary(fit));
                    else
                        emit estimateFailed(error.empty() ? tr("the estimator gave no answer")
                                                          : QString::fromStdString(error));
                }
                jobDone();
            },
            Qt::QueuedConnection);
    });
}

void EstimatorService::jobDone() {
    m_running = false;
    startNext();
    if (!m_running && m_busySignalled) {
        m_busySignalled = false;
        emit busyChanged(false);
    }
}

} // namespace hr::ui
