// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hr {

struct TrainConfig;

/// The optimizer Ultralytics' `optimizer: auto` rule chooses, or the configured one.
struct OptimizerChoice {
    std::string name = "SGD"; ///< "SGD", "Adam" or "AdamW"
    double lr = 0.01;
    double momentum = 0.937;
    bool automatic = false; ///< chosen by `auto`
    /// Where the warmup starts the bias lr: config.warmup_bias_lr, or 0 under `auto`
    /// (Ultralytics keeps an Adam bias lr that low).
    double warmupBiasLr = 0.1;
};

/// Resolves `auto`: AdamW with lr round(0.002 * 5 / (4 + nc), 6) and momentum 0.9 when the run
/// has at most 10000 optimizer iterations, else SGD with lr 0.01 and momentum 0.9. Other names are
/// returned with config.lr0 / config.momentum (case-insensitive; unknown names fall back to SGD).
OptimizerChoice resolveOptimizer(const TrainConfig& config, int nc, std::int64_t iterations);

/// The planned optimizer iterations Ultralytics feeds the auto rule:
/// ceil(images / max(batch, nbs)) * epochs.
std::int64_t plannedIterations(const TrainConfig& config, std::int64_t trainImages);

/// Ultralytics' three parameter groups: pg0 weights that decay (conv / linear), pg1 weights of
/// normalisation layers (no decay), pg2 biases (no decay).
struct ParamGroups {
    std::array<std::vector<torch::Tensor>, 3> groups;
    std::int64_t count(int group) const;
};

/// Splits every parameter of `model` (frozen ones included: they get no gradient, so the
/// optimizer skips them) into the three groups. A module counts as a norm layer when its class
/// name contains "Norm"; a parameter is a bias when its name contains "bias".
ParamGroups splitParameters(const torch::nn::Module& model);

/// Creates the optimizer with groups in the order pg0, pg1, pg2; only pg0 gets `weightDecay`.
/// SGD is Nesterov SGD with `choice.momentum`; Adam / AdamW use betas (momentum, 0.999).
std::unique_ptr<torch::optim::Optimizer>
makeOptimizer(const OptimizerChoice& choice, const ParamGroups& groups, double weightDecay);

/// Sets the learning rate of one group.
void setGroupLr(torch::optim::Optimizer& optimizer, size_t group, double lr);
double groupLr(const torch::optim::Optimizer& optimizer, size_t group);

/// Sets SGD momentum in every group; no effect on Adam / AdamW (Ultralytics warms only SGD's).
void setMomentum(torch::optim::Optimizer& optimizer, double momentum);

/// Bytes held by the optimizer's state tensors (momentum buffers, Adam moments).
std::int64_t optimizerStateBytes(torch::optim::Optimizer& optimizer);

/// Moves every state tensor of the optimizer to `device` (optimizer offload: state on the host).
void moveOptimizerState(torch::optim::Optimizer& optimizer, torch::Device device);

} // namespace hr
