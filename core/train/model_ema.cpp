// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/model_ema.h"

#include <cmath>

namespace hr {

namespace {
/// Parameters then buffers, in registration order: the same order for two modules of the same
/// structure.
std::vector<torch::Tensor> stateOf(const torch::nn::Module& module) {
    std::vector<torch::Tensor> state = module.parameters(true);
    std::vector<torch::Tensor> buffers = module.buffers(true);
    state.insert(state.end(), buffers.begin(), buffers.end());
    return state;
}
} // namespace

ModelEma::ModelEma(std::shared_ptr<torch::nn::Module> shadow, double decay, double tau)
    : m_shadow(std::move(shadow)), m_decay(decay), m_tau(tau) {
    TORCH_CHECK(m_shadow, "ModelEma needs a shadow module");
    for (auto& p : m_shadow->parameters(true))
        p.set_requires_grad(false);
}

void ModelEma::copyFrom(const torch::nn::Module& model) {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> mine = stateOf(*m_shadow);
    std::vector<torch::Tensor> theirs = stateOf(model);
    TORCH_CHECK(mine.size() == theirs.size(), "EMA shadow has ", mine.size(),
                " tensors, the model ", theirs.size());
    for (size_t i = 0; i < mine.size(); ++i)
        mine[i].copy_(theirs[i].detach());
}

double ModelEma::nextDecay() const {
    return m_decay * (1.0 - std::exp(-static_cast<double>(m_updates + 1) / m_tau));
}

void ModelEma::update(const torch::nn::Module& model) {
    torch::NoGradGuard noGrad;
    const double d = nextDecay();
    ++m_updates;
    std::vector<torch::Tensor> mine = stateOf(*m_shadow);
    std::vector<torch::Tensor> theirs = stateOf(model);
    TORCH_CHECK(mine.size() == theirs.size(), "EMA shadow has ", mine.size(),
                " tensors, the model ", theirs.size());
    for (size_t i = 0; i < mine.size(); ++i) {
        if (!mine[i].is_floating_point())
            continue;
        mine[i].mul_(d).add_(theirs[i].detach().to(mine[i].dtype()), 1.0 - d);
    }
}

} // namespace hr
