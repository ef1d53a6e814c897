// SPDX-License-Identifier: GPL-3.0-or-later
// The estimator's calibrations and data-set facts, kept for the process. Shared by the
// estimator's sources; not part of its interface.
#pragma once

#include "estimate/calibration.h"
#include "estimate/memory_estimator.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace hr::estimate {

/// Calibrations per settings and device, and the facts of each data set they read. One probe
/// session at a time: whoever runs probe steps holds lock() (the calibration, the resident
/// floor, measured peaks), as the probes share the device's peak counter.
class CalibrationCache {
public:
    /// The process's cache, which every estimator entry point shares.
    static CalibrationCache& shared();

    /// Held while probe steps run or the caches are read or written.
    std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(m_mutex); }

    /// The facts of `config`'s data set (read once per data set, single_cls and mosaic).
    /// False, with `error` filled, when it cannot be read. The caller holds lock().
    bool dataFacts(const TrainConfig& config, DataFacts& facts, std::string* error,
                   const std::unique_lock<std::mutex>& held);

    /// The calibration for `config`: cached, newly measured with probe steps, or (without
    /// probing) scaled from another image size. Nothing, with `error` filled, when none can be
    /// had. Takes lock() itself.
    std::optional<Calibration> calibrationFor(const TrainConfig& config, bool probe,
                                              std::string* error);

    /// The key of the time factor of `after` against `before`: both configs' calibration keys
    /// with their batches and nominal batches (the accumulation). False, with `error` filled,
    /// when a data set cannot be read or the device has no probe. The caller holds lock().
    bool timeFactorKey(const TrainConfig& before, const TrainConfig& after, std::string& key,
                       std::string* error, const std::unique_lock<std::mutex>& held);
    /// Time factors measured so far, by timeFactorKey(). The caller holds lock().
    std::map<std::string, TimeFactor>& timeFactors(const std::unique_lock<std::mutex>& /*held*/) {
        return m_timeFactors;
    }

    /// Forgets every calibration, time factor and data-set fact.
    void clear();

private:
    std::optional<Calibration> scaledCalibration(const std::string& family, int imgsz) const;

    std::mutex m_mutex;
    std::map<std::string, DataFacts> m_dataFacts;
    std::map<std::string, Calibration> m_calibrations;
    std::map<std::string, TimeFactor> m_timeFactors;
};

} // namespace hr::estimate
