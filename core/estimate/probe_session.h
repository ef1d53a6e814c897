// SPDX-License-Identifier: GPL-3.0-or-later
// Probe steps of the real training step, with their peaks per step part and their CPU time.
// Shared by the estimator's sources; not part of its interface.
#pragma once

#include "data/batch.h"
#include "estimate/calibration.h"
#include "memory/memory_probe.h"
#include "memory/memory_sampler.h"
#include "memory/phase.h"
#include "train/train_step.h"

#include <memory>
#include <string>
#include <vector>

namespace hr::estimate {

/// Everything a probe needs: the device's probe, the model, a TrainStep. The budget of the CPU
/// tracker is lifted meanwhile (a paused run in the same process keeps its own) and restored.
/// Peaks are counted above what was allocated when the session began: a run that asks the
/// estimator from inside an OOM recovery still holds its own weights, and they are not the
/// probe's.
class ProbeSession {
public:
    ProbeSession(const TrainConfig& config, const DataFacts& facts, int stepBatch,
                 std::string* error);
    ~ProbeSession();
    bool ready() const { return m_step != nullptr; }
    MemoryProbe& probe() { return *m_probe; }
    TrainStep& step() { return *m_step; }

    /// Peaks of one training step on `batch` (already built, so it counts as live data), per
    /// part of the step: the allocator's peak is read and reset whenever the phase changes.
    StepPeaks trainPeaks(const Batch& batch);
    /// The timings of the last trainPeaks() step.
    StepSeconds lastSeconds() const { return m_seconds; }
    /// Peak of one whole training step on `batch`.
    std::int64_t trainPeak(const Batch& batch);
    /// Peak of one validation batch as the trainer runs it: forward, losses, decode, NMS and
    /// the metrics of every image.
    std::int64_t valPeak(const Batch& batch);

private:
    /// Closes the phase that ends: its peak goes to its part of the step.
    void enterPhase(Phase next);

    ProbeStepScope m_probeSteps; ///< a run's sampler tags these steps Phase::Probe
    std::unique_ptr<MemoryProbe> m_probe;
    std::unique_ptr<TrainStep> m_step;
    std::int64_t m_savedBudget = 0;
    std::int64_t m_baseline = 0;
    int m_nc = 1;
    Phase m_phase = Phase::Idle;
    bool m_recording = false;
    StepPeaks m_parts{};
    StepSeconds m_seconds;
    double m_phaseStart = 0.0; ///< stepCpuSeconds() when the phase began
};

/// Times `pairs` pairs of steps on `batch` that accumulate two batches (the second steps the
/// optimizer): every step's forward-backward seconds go to `work`, every optimizer step's to
/// `optimizer`.
void timePairs(ProbeSession& session, const Batch& batch, int pairs, std::vector<double>& work,
               std::vector<double>& optimizer);

} // namespace hr::estimate
