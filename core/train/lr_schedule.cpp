// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/lr_schedule.h"

#include "config/train_config.h"
#include "config/train_rules.h"

#include <algorithm>
#include <cmath>

namespace hr {

namespace {
/// numpy.interp on two points, with its operation order: the accumulation is rounded from this
/// value, so a last-bit difference at a half would change which batches step.
double interpolate(double x, double x0, double x1, double y0, double y1) {
    if (x <= x0)
        return y0;
    if (x >= x1)
        return y1;
    const double slope = (y1 - y0) / (x1 - x0);
    return slope * (x - x0) + y0;
}

/// Python's round() and numpy's round() take halves to even, as nearbyint does in the default
/// rounding mode; std::lround would take 2.5 to 3 where Ultralytics takes it to 2.
int roundHalfEven(double x) {
    return static_cast<int>(std::nearbyint(x));
}

int warmupLength(double warmupEpochs, int batchesPerEpoch) {
    if (warmupEpochs <= 0)
        return -1;
    return std::max(roundHalfEven(warmupEpochs * batchesPerEpoch), 100);
}

int baseAccumulate(int nbs, int batch) {
    TrainConfig c;
    c.nbs = nbs;
    c.batch = batch;
    return accumulateSteps(c);
}
} // namespace

LrSchedule::LrSchedule(const TrainConfig& config, double initialLr, double warmupBiasLr,
                       int batchesPerEpoch)
    : m_epochs(std::max(config.epochs, 1)), m_lrf(config.lrf), m_cosine(config.cos_lr),
      m_initialLr(initialLr), m_warmupBiasLr(warmupBiasLr),
      m_warmupMomentum(config.warmup_momentum), m_momentum(config.momentum),
      m_warmupEpochs(config.warmup_epochs), m_nbs(std::max(config.nbs, 1)),
      m_batch(std::max(config.batch, 1)), m_batchesPerEpoch(std::max(batchesPerEpoch, 1)),
      m_warmup(warmupLength(config.warmup_epochs, std::max(batchesPerEpoch, 1))) {}

double LrSchedule::factor(int epoch) const {
    const double e = epoch;
    if (m_cosine)
        return ((1.0 - std::cos(e * M_PI / m_epochs)) / 2.0) * (m_lrf - 1.0) + 1.0;
    return std::max(1.0 - e / m_epochs, 0.0) * (1.0 - m_lrf) + m_lrf;
}

void LrSchedule::setBatch(int batch, int batchesPerEpoch) {
    m_batch = std::max(batch, 1);
    m_batchesPerEpoch = std::max(batchesPerEpoch, 1);
    // The warmup keeps its length in images, so a smaller batch warms up over more iterations.
    if (m_warmup > 0)
        m_warmup = warmupLength(m_warmupEpochs, m_batchesPerEpoch);
}

LrSchedule::Point LrSchedule::at(int epoch, int batchIndex) const {
    Point p;
    const double target = m_initialLr * factor(epoch);
    const long long ni = static_cast<long long>(epoch) * m_batchesPerEpoch + batchIndex;
    p.lr = {target, target, target};
    p.momentum = m_momentum;
    p.accumulate = baseAccumulate(m_nbs, m_batch);
    if (m_warmup > 0 && ni <= m_warmup) {
        p.warmingUp = true;
        const double x = static_cast<double>(ni);
        p.accumulate = std::max(1, roundHalfEven(interpolate(
                                       x, 0, m_warmup, 1.0, static_cast<double>(m_nbs) / m_batch)));
        p.lr[0] = interpolate(x, 0, m_warmup, 0.0, target);
        p.lr[1] = interpolate(x, 0, m_warmup, 0.0, target);
        p.lr[2] = interpolate(x, 0, m_warmup, m_warmupBiasLr, target);
        p.momentum = interpolate(x, 0, m_warmup, m_warmupMomentum, m_momentum);
    }
    return p;
}

} // namespace hr
