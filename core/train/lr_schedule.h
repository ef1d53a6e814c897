// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>

namespace hr {

struct TrainConfig;

/// Ultralytics' learning-rate schedule: linear (or cosine with cos_lr) decay from lr0 to lr0 * lrf
/// over the epochs, stepped once per epoch, with a warmup over
/// max(round(warmup_epochs * batches), 100) iterations that raises the weight lrs from 0, lowers
/// the bias lr from warmup_bias_lr, raises SGD momentum from warmup_momentum and ramps the
/// accumulation from 1 to round(nbs / batch). Pure arithmetic, no state.
class LrSchedule {
public:
    /// `initialLr` and `warmupBiasLr` are the OptimizerChoice's lr and warmupBiasLr (what
    /// `optimizer: auto` resolved to). `batchesPerEpoch` >= 1.
    LrSchedule(const TrainConfig& config, double initialLr, double warmupBiasLr,
               int batchesPerEpoch);

    /// lr multiplier of an epoch: linear max(1 - e/epochs, 0) * (1 - lrf) + lrf, or the
    /// one-cycle cosine ((1 - cos(e * pi / epochs)) / 2) * (lrf - 1) + 1.
    double factor(int epoch) const;

    /// Warmup length in iterations; -1 when warmup_epochs <= 0.
    int warmupIterations() const { return m_warmup; }

    /// The settings for batch `batch` of epoch `epoch` (both 0-based). lr order: pg0 weights,
    /// pg1 norm weights, pg2 biases.
    struct Point {
        std::array<double, 3> lr{0, 0, 0};
        double momentum = 0;
        int accumulate = 1;
        bool warmingUp = false;
    };
    Point at(int epoch, int batchIndex) const; ///< batchIndex: 0-based within the epoch

    /// Changes the batch size (after an OOM fix) keeping everything else; the accumulation target
    /// follows round(nbs / batch).
    void setBatch(int batch, int batchesPerEpoch);

private:
    int m_epochs;
    double m_lrf;
    bool m_cosine;
    double m_initialLr;
    double m_warmupBiasLr;
    double m_warmupMomentum;
    double m_momentum;
    double m_warmupEpochs;
    int m_nbs;
    int m_batch;
    int m_batchesPerEpoch;
    int m_warmup;
};

} // namespace hr
