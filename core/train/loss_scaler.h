// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <vector>

namespace hr {

/// Dynamic loss scaling for fp16 training (LibTorch has no GradScaler): the loss is multiplied
/// by `scale` before backward so small fp16 gradients do not flush to zero; gradients are
/// divided by it before the optimizer step. A step whose gradients hold inf/NaN is skipped and
/// the scale halves; after `growthInterval` clean steps it doubles. Disabled, it is the identity.
class LossScaler {
public:
    explicit LossScaler(bool enabled, double initialScale = 65536.0, double growthFactor = 2.0,
                        double backoffFactor = 0.5, int growthInterval = 2000);

    bool enabled() const { return m_enabled; }
    void setEnabled(bool enabled);
    double scale() const { return m_enabled ? m_scale : 1.0; }

    /// loss * scale (or loss).
    torch::Tensor scaleLoss(const torch::Tensor& loss) const;

    /// Divides the gradients of `params` by the scale in place. Returns true when every
    /// gradient is finite (always true when disabled).
    bool unscale(const std::vector<torch::Tensor>& params);

    /// Adjusts the scale after a step; `finite` is unscale()'s answer.
    void update(bool finite);

    /// Raw state for checkpoints.
    double rawScale() const { return m_scale; }
    int goodSteps() const { return m_goodSteps; }
    void restore(double scale, int goodSteps);

private:
    bool m_enabled;
    double m_scale;
    double m_growth;
    double m_backoff;
    int m_interval;
    int m_goodSteps = 0;
};

} // namespace hr
