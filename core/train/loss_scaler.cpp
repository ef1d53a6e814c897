// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/loss_scaler.h"

#include "util/torch_compat.h"

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
    std::vector<torch::Tensor> grads;
    grads.reserve(params.size());
    for (const auto& p : params)
        if (p.grad().defined())
            grads.push_back(p.grad());
    return compat::unscaleGradients(grads, 1.0 / m_scale);
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
