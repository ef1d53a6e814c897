// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>

namespace hr {

/// Exponential moving average of a model's floating-point parameters and buffers, as
/// Ultralytics keeps it: decay d = 0.9999 * (1 - exp(-updates / 2000)), so early updates follow
/// the model closely. `shadow` is a separate module with the same structure as the trained one
/// (the caller builds it); ModelEma shares ownership of it. Shape mismatches throw c10::Error.
class ModelEma {
public:
    ModelEma(std::shared_ptr<torch::nn::Module> shadow, double decay = 0.9999, double tau = 2000.0);

    /// Copies `model`'s parameters and buffers into the shadow (no averaging).
    void copyFrom(const torch::nn::Module& model);

    /// One EMA update from `model` (call after each optimizer step).
    void update(const torch::nn::Module& model);

    /// The decay the next update will use.
    double nextDecay() const;

    std::int64_t updates() const { return m_updates; }
    void setUpdates(std::int64_t updates) { m_updates = updates; }
    torch::nn::Module& shadow() { return *m_shadow; }
    const std::shared_ptr<torch::nn::Module>& shadowPtr() const { return m_shadow; }

private:
    std::shared_ptr<torch::nn::Module> m_shadow;
    double m_decay;
    double m_tau;
    std::int64_t m_updates = 0;
};

} // namespace hr
