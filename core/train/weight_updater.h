// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/phase.h"
#include "train/loss_scaler.h"
#include "train/model_ema.h"
#include "train/optimizer_factory.h"
#include "util/torch_compat.h"

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

namespace hr {

struct TrainConfig;

/// Turns losses into weight updates the way Ultralytics does, for any module: backward of the
/// (scaled) loss, accumulation until `accumulate` batches are in, then unscale, clip to max
/// norm 10, optimizer step (skipped on fp16 overflow), scaler update, gradients released, EMA
/// update. Owns the optimizer (three parameter groups), the loss scaler and the EMA.
/// Errors propagate as c10::Error (c10::OutOfMemoryError included) with the object still usable:
/// resetAccumulation() drops a broken group's gradients.
class WeightUpdater {
public:
    /// `ema` may be null (no EMA). The loss scaler is enabled for config.amp on a CUDA device.
    /// Weight decay of pg0 = weight_decay * batch * round(nbs / batch) / nbs.
    WeightUpdater(const TrainConfig& config, std::shared_ptr<torch::nn::Module> model,
                  OptimizerChoice choice, std::shared_ptr<torch::nn::Module> ema,
                  torch::Device device);

    /// Back-propagates `loss` (scaled when fp16) and counts one batch toward the group.
    void backward(const torch::Tensor& loss);
    /// True when the accumulation group is complete.
    bool due() const { return m_pending >= m_accumulate; }
    /// Completes the group. Returns false when the step was skipped (fp16 overflow).
    bool step();
    /// Releases gradients of the partial group.
    void resetAccumulation();
    int pending() const { return m_pending; }

    void setAccumulate(int accumulate) { m_accumulate = std::max(accumulate, 1); }
    int accumulate() const { return m_accumulate; }
    void setLearningRates(const std::array<double, 3>& lr);
    std::array<double, 3> learningRates() const;
    void setMomentum(double momentum);
    double momentum() const { return m_momentum; }

    /// Rebuilds what a changed config needs: the optimizer kind (state is dropped when the kind
    /// changes; learning rates are kept), weight decay for a new batch, AMP's scaler, offload.
    void applyConfig(const TrainConfig& config, const OptimizerChoice& choice);

    torch::optim::Optimizer& optimizer() { return *m_optimizer; }
    const OptimizerChoice& choice() const { return m_choice; }
    LossScaler& scaler() { return m_scaler; }
    ModelEma* ema() { return m_ema.get(); }
    std::int64_t steps() const { return m_steps; }
    double weightDecay() const { return m_weightDecay; }

    /// Data-parallel hooks of step() (each optional). `agree` is called once the local optimizer
    /// step is done, with whether it succeeded; it throws when another rank failed, and this
    /// rank's step is then undone (weights and state as before). `afterStep` runs when every
    /// rank's step succeeded, before the EMA update (ZeRO: owners broadcast their parameters).
    struct StepHooks {
        std::function<void(bool ok)> agree;
        std::function<void()> afterStep;
    };
    void setStepHooks(StepHooks hooks) { m_hooks = std::move(hooks); }

    /// ZeRO stage 1: the optimizer holds, and steps, only the parameters `owns` accepts (its
    /// state is dropped and rebuilt). An empty function = all parameters.
    void setParameterFilter(std::function<bool(const torch::Tensor&)> owns);

    /// Called with Phase::Optimizer and Phase::Ema as step() enters them.
    void setPhaseCallback(std::function<void(Phase)> callback) { m_phase = std::move(callback); }

    /// Optimizer state, scaler, step and EMA update counts; the EMA weights too when
    /// `withEmaWeights` (the trainer writes them as the checkpoint's model instead).
    void save(torch::serialize::OutputArchive& archive, bool withEmaWeights = true) const;
    /// `optimizerState` false: everything but the optimizer's state (ZeRO: another rank's
    /// shard is in the archive; this rank's comes from loadOptimizerState()).
    void load(torch::serialize::InputArchive& archive, bool optimizerState = true);
    void saveOptimizerState(torch::serialize::OutputArchive& archive) const;
    void loadOptimizerState(torch::serialize::InputArchive& archive);

private:
    void rebuildOptimizer();
    /// Copies the weights and optimizer state the next step changes into host memory that is
    /// not a tensor allocation (outside any device budget), so a step that fails half way (out
    /// of memory) can be undone: weights and state are exactly as before it.
    void takeSnapshot();
    void restoreSnapshot();

    struct Snapshot {
        std::vector<char> bytes; ///< reused across steps
        std::vector<torch::Tensor> tensors;
        std::vector<size_t> offsets;
        std::vector<compat::OptimizerStateKey> stateKeys; ///< state entries that existed
        std::vector<std::int64_t> adamSteps;
    } m_snapshot;

    std::shared_ptr<torch::nn::Module> m_model;
    std::vector<torch::Tensor> m_params;
    OptimizerChoice m_choice;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    std::unique_ptr<ModelEma> m_ema;
    LossScaler m_scaler;
    torch::Device m_device;
    bool m_offload = false;
    double m_weightDecay = 0;
    double m_momentum = 0;
    int m_accumulate = 1;
    int m_pending = 0;
    std::int64_t m_steps = 0;
    std::function<void(Phase)> m_phase;
    StepHooks m_hooks;
    std::function<bool(const torch::Tensor&)> m_owns;
};

/// Weight decay as Ultralytics scales it: weight_decay * batch * accumulate / nbs.
double scaledWeightDecay(const TrainConfig& config);

} // namespace hr
