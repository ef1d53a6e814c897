// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "memory/memory_breakdown.h"
#include "memory/phase.h"
#include "train/optimizer_factory.h"

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hr {

class DataParallelGroup;
class DetectionModel;
class MetricsAccumulator;
struct Batch;
class ModelEma;
class WeightUpdater;

/// The model's input from a batch's 8-bit images (Batch::images), on their device: float32 in
/// [0, 1], in the layout the model's weights use (see useChannelsLast): channels-last on the
/// CPU, as the loader writes them, and the plain layout on a GPU.
torch::Tensor modelInput(const torch::Tensor& images);

/// What one training step did, with the time each part took.
struct StepOutput {
    double loss = 0.0;                    ///< total loss as back-propagated (before loss scaling)
    std::array<double, 3> items{0, 0, 0}; ///< box, cls, dfl (per-image means, as Ultralytics logs)
    int images = 0;
    bool optimizerStepped = false; ///< this step completed an accumulation group
    bool stepSkipped = false;      ///< fp16 overflow: the scaler skipped the update
    double dataSeconds = 0;        ///< batch to the device
    double forwardSeconds = 0;     ///< forward and loss
    double backwardSeconds = 0;
    double optimizerSeconds = 0; ///< unscale, clip, step, zero_grad, EMA (0 when not stepped)
};

/// What one validation batch produced.
struct ValidationOutput {
    std::array<double, 3> items{0, 0, 0}; ///< box, cls, dfl losses of the batch
    int images = 0;
};

/// The learning-rate / momentum / accumulation setting of one moment of the schedule.
struct StepSchedule {
    std::array<double, 3> lr{0, 0, 0}; ///< pg0 weights (decay), pg1 norm weights, pg2 biases
    double momentum = 0.0;             ///< SGD momentum (Adam's beta1 is left alone)
    int accumulate = 1;                ///< batches per optimizer step
};

/// Exactly one training step of a detection model, and single validation batches: the unit the
/// trainer loops over and the memory estimator probes with.
///
/// Owns the model (a shared LibTorch module handle), the optimizer with Ultralytics' three
/// parameter groups, the EMA copy, the fp16 loss scaler and the accumulation counter.
/// Failures (c10::OutOfMemoryError included) propagate as exceptions from step() and
/// validateBatch(); currentPhase() then says where it happened, and resetAccumulation() releases
/// gradients of the broken accumulation group while keeping weights, optimizer state and EMA.
class TrainStep {
public:
    /// Builds the optimizer for `model` on `device` (the model is moved there). `iterations` is
    /// the planned number of optimizer iterations of the run (for `optimizer: auto`; 0 = small).
    /// Applies config.checkpointing, config.freeze and config.amp.
    TrainStep(const TrainConfig& config, DetectionModel model, int nc, torch::Device device,
              std::int64_t iterations = 0);
    ~TrainStep();
    TrainStep(const TrainStep&) = delete;
    TrainStep& operator=(const TrainStep&) = delete;

    /// Data to device, forward, loss, backward; when the accumulation group is complete also
    /// unscale, clip (max norm 10), optimizer step and EMA update.
    StepOutput step(const Batch& batch);

    /// One validation batch on the EMA model (eval mode, no gradients): losses, decode, NMS
    /// (config conf / iou / max_det) and, when `metrics` is given, the detections added to it.
    ValidationOutput validateBatch(const Batch& batch, MetricsAccumulator* metrics);

    /// Drops the gradients of a partial accumulation group (after an OOM or a batch change).
    void resetAccumulation();

    /// Sets learning rates, momentum and the accumulation target (warmup / schedule).
    void setSchedule(const StepSchedule& schedule);
    StepSchedule schedule() const;

    /// Initial learning rate of each group (lr0 after `auto`), the base of the schedule.
    double initialLr() const;
    const OptimizerChoice& optimizerChoice() const;

    /// Applies a changed config to the live step: AMP, checkpointing, freeze, optimizer kind
    /// (SGD <-> Adam/AdamW re-creates the optimizer with the same groups and learning rates),
    /// optimizer offload, batch (weight decay scaling). Weights and EMA are kept.
    void applyConfig(const TrainConfig& config);

    /// Data-parallel training over `group` (nullptr = one process; the group must outlive the
    /// step). Gradients are averaged over the ranks in buckets launched from autograd hooks
    /// during backward; the loss is multiplied by the number of ranks as Ultralytics does, so
    /// N ranks x batch B update the weights as 1 rank x batch N*B. After the forward pass, the
    /// backward pass and the optimizer step, the ranks agree whether all succeeded: a failure
    /// (out of memory) on any rank makes step() throw on every rank at the same point, with
    /// weights and optimizer state unchanged. With config.zero == 1 the optimizer keeps the
    /// state of this rank's share of the parameters only and owners broadcast their updates.
    void setDataParallel(DataParallelGroup* group);

    /// Called with the phase whenever it changes (for the memory sampler).
    void setPhaseCallback(std::function<void(Phase)> callback);
    Phase currentPhase() const;

    DetectionModel& model();
    DetectionModel& emaModel();
    ModelEma& ema();
    torch::optim::Optimizer& optimizer();
    WeightUpdater& updater();
    const TrainConfig& config() const;
    torch::Device device() const;
    /// Optimizer steps done so far (the EMA update count follows it).
    std::int64_t optimizerSteps() const;

    /// Current fp16 loss scale (1 when the scaler is off).
    double lossScale() const;

    /// Writes the EMA model as the archive's model (writeModel(), so loadModel() on the file
    /// gives the EMA weights), the trained weights ("train_model"), optimizer state, EMA update
    /// count and the loss scaler.
    void save(torch::serialize::OutputArchive& archive,
              const std::vector<std::string>& classNames) const;
    /// Restores what save() wrote. Throws c10::Error when the archive does not match the model.
    /// Under ZeRO a rank other than 0 skips the optimizer state (the archive holds rank 0's
    /// shard); its own comes from loadOptimizerShard().
    void load(torch::serialize::InputArchive& archive);
    /// Data parallel: gradient buckets, and how many of them the last all-reduced backward
    /// launched while it was still running (overlap); {0, 0} in a one-process run.
    std::pair<int, int> gradientBuckets() const;
    /// ZeRO: whether this rank's optimizer state is a shard that rank 0's checkpoint lacks.
    bool ownsSeparateOptimizerShard() const;
    void saveOptimizerShard(torch::serialize::OutputArchive& archive) const;
    void loadOptimizerShard(torch::serialize::InputArchive& archive);

    /// Bytes held right now by weights, gradients, optimizer state and the EMA copy
    /// (activations, batchData and other are 0).
    MemoryBreakdown residentMemory() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace hr
