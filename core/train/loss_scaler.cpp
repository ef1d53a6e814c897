// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/loss_scaler.h"

namespace hr {

LossScaler::LossScaler(bool enabled, double initialScale, double growthFactor, double backoffFactor,
                       int growthInterval)
    : m_enabled(enabled), m_scale(initialScale), m_growth(growthFactor), m_backoff(backoffFactor),
      m_interval(growthInterval) {
    TORCH_CHECK(initialScale > 0 && growthFactor > 1 && backoffFactor > 0 && backoffFactor < 1,
                "invalid loss scaler settings: scale ", initialScale, " growth ", growthFactor,
                " backoff ", backoffFactor);
}

void LossScaler::setEnabled(bool enabled) {
    m_enabled = enabled;
    m_goodSteps = 0;
}

torch::Tensor LossScaler::scaleLoss(const torch::Tensor& loss) const {
    return m_enabled ? loss * m_scale : loss;
}

bool LossScaler::unscale(const std::vector<torch::Tensor>& params) {
    if (!m_enabled)
        return true;
    torch::NoGradGuard noGrad;
    const double inverse = 1.0 / m_scale;
    // Collect one flag on the device and read it once: a sync per tensor would stall CUDA.
    torch::Tensor bad;
    for (const auto& p : params) {
        torch::Tensor g = p.grad();
        if (!g.defined())
            continue;
        g.mul_(inverse);
        torch::Tensor flag = g.isfinite().logical_not().any();
        bad = bad.defined() ? bad.logical_or(flag) : flag;
    }
    return !bad.defined() || !bad.item<bool>();
}

void LossScaler::update(bool finite) {
    if (!m_enabled)
        return;
    if (!finite) {
        m_scale *= m_backoff;
        m_goodSteps = 0;
        return;
    }
    if (++m_goodSteps >= m_interval) {
        m_scale *= m_growth;
        m_goodSteps = 0;
    }
}

void LossScaler::restore(double scale, int goodSteps) {
    m_scale = scale;
    m_goodSteps = goodSteps;
}

} // namespace hr
