// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "estimate/auto_fit.h"
#include "estimate/memory_estimator.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <optional>

class QThread;

namespace hr::ui {

/// A memory prediction for the settings form, with what it is measured against.
struct EstimateOutcome {
    MemoryEstimate estimate;
    std::int64_t budget = 0;   ///< config.memory_budget, 0 when none
    std::int64_t capacity = 0; ///< the device's memory (RAM on CPU), 0 when unknown
    int autoBatch = 0;         ///< for batch -1: the batch auto-fit picks (the estimate's batch)
};

/// The GUI's door to the estimator (hr::estimateMemory, hr::fitToBudget). Both run on one
/// worker thread, one job at a time; signals arrive on the GUI thread. Estimates are debounced
/// (a burst of setting changes costs one calibration) and only the newest request counts: a
/// request replaced before it started never runs, one replaced while running is dropped when it
/// ends. The first estimate for a model and image size calibrates with real probe steps
/// (seconds); later ones that only change the batch are instant (the core caches calibrations).
/// While held (a run is training) no job starts. The destructor waits for the running job.
class EstimatorService : public QObject {
    Q_OBJECT
public:
    explicit EstimatorService(QObject* parent = nullptr);
    ~EstimatorService() override;

    /// Estimates `config` once no newer request came for the debounce interval.
    void requestEstimate(const TrainConfig& config);
    /// Fits `config` to its memory budget, or to the device's memory when it has none. Starts as
    /// soon as the worker is free.
    void requestFit(const TrainConfig& config);

    /// Milliseconds a request waits for a newer one (default 300).
    void setDebounceInterval(int ms);
    int debounceInterval() const;

    /// While held no job starts; requests wait and the newest runs on release.
    void setHeld(bool held);
    bool isHeld() const { return m_held; }
    /// A job runs on the worker thread.
    bool isBusy() const { return m_running; }
    /// Estimate requests answered so far (results delivered or failed), stale ones excluded.
    int estimatesDelivered() const { return m_delivered; }

signals:
    /// A job started (true) or the worker went idle (false).
    void busyChanged(bool busy);
    void estimateReady(const hr::ui::EstimateOutcome& outcome);
    /// The estimate could not be made; `message` says why in words.
    void estimateFailed(const QString& message);
    void fitReady(const hr::FitResult& result);
    void fitFailed(const QString& message);

private:
    enum class Kind { Estimate, Fit };
    void startNext();
    void run(Kind kind, const TrainConfig& config, int generation);
    void jobDone();

    QThread* m_thread;
    QObject* m_worker; ///< lives on m_thread: the context of the queued jobs
    QTimer m_debounce;
    std::optional<TrainConfig> m_pendingEstimate;
    std::optional<TrainConfig> m_pendingFit;
    int m_generation = 0; ///< of the newest estimate request
    bool m_running = false;
    bool m_busySignalled = false;
    bool m_held = false;
    int m_delivered = 0;
};

} // namespace hr::ui
