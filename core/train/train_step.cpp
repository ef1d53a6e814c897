// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/train_step.h"

#include "data/batch.h"
#include "dist/data_parallel_group.h"
#include "dist/gradient_sync.h"
#include "dist/sync_batch_norm.h"
#include "dist/zero_sharding.h"
#include "eval/metrics_accumulator.h"
#include "eval/nms.h"
#include "loss/detection_loss.h"
#include "memory/cpu_memory_tracker.h"
#include "memory/resident_memory.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "train/weight_updater.h"
#include "util/text.h"
#include "util/torch_compat.h"

#include <ATen/autocast_mode.h>

#include <chrono>

namespace hr {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Turns autocast on for one forward pass (bf16 on CPU, fp16 on CUDA) and restores the previous
/// state, clearing autocast's weight cache when the outermost guard ends (as Python does).
class AutocastGuard {
public:
    AutocastGuard(bool enabled, torch::Device device)
        : m_enabled(enabled), m_cuda(device.is_cuda()) {
        if (!m_enabled)
            return;
        const c10::DeviceType type = m_cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
        m_previous = compat::autocastEnabled(type);
        if (!m_cuda) {
            m_previousCpuType = compat::autocastDtype(type);
            compat::setAutocastDtype(type, at::kBFloat16);
        }
        compat::setAutocastEnabled(type, true);
        at::autocast::increment_nesting();
    }
    ~AutocastGuard() {
        if (!m_enabled)
            return;
        const c10::DeviceType type = m_cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
        compat::setAutocastEnabled(type, m_previous);
        if (!m_cuda)
            compat::setAutocastDtype(type, m_previousCpuType);
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
    }
    AutocastGuard(const AutocastGuard&) = delete;
    AutocastGuard& operator=(const AutocastGuard&) = delete;

private:
    bool m_enabled;
    bool m_cuda;
    bool m_previous = false;
    at::ScalarType m_previousCpuType = at::kBFloat16;
};

std::array<double, 3> itemsOf(const torch::Tensor& items) {
    const torch::Tensor cpu = items.detach().to(torch::kCPU, torch::kDouble);
    return {cpu[0].item<double>(), cpu[1].item<double>(), cpu[2].item<double>()};
}

LossConfig lossConfigFor(const TrainConfig& config, const DetectionModel& model) {
    LossConfig loss;
    loss.nc = model->nc();
    loss.regMax = model->regMax();
    loss.strides = model->strides();
    loss.box = config.box;
    loss.cls = config.cls;
    loss.dfl = config.dfl;
    loss.assignerBoxesPerChunk = config.assign_chunk;
    return loss;
}

/// On the CPU, oneDNN's convolutions run on channels-last (NHWC) tensors without reordering each
/// layer's input and output, and their backward likewise (faster: docs/decisions.md,
/// "Channels-last on the CPU"). Values and shapes are unchanged; only the strides differ.
void useChannelsLast(torch::nn::Module& model) {
    torch::NoGradGuard noGrad;
    for (auto& p : model.parameters())
        if (p.dim() == 4)
            p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
}

/// A batch tensor on the device. On the CPU the loader's host block starts counting against
/// the budget here, as a copy to a GPU would (docs/ARCHITECTURE.md: What counts against a CPU
/// budget); that may throw the budget's OutOfMemoryError, in the data phase.
torch::Tensor onDevice(const torch::Tensor& tensor, const torch::Device& device) {
    if (!device.is_cpu() || !tensor.defined())
        return tensor.to(device, /*non_blocking=*/true);
    const torch::Tensor cpu = tensor.device().is_cpu() ? tensor : tensor.to(torch::kCPU);
    if (cpu.has_storage())
        CpuMemoryTracker::instance().countOnDevice(cpu.storage().data_ptr());
    return cpu;
}

} // namespace

torch::Tensor modelInput(const torch::Tensor& images) {
    TORCH_CHECK(images.scalar_type() == torch::kUInt8, "a batch's images must be 8-bit");
    const torch::Tensor laid = images.contiguous(
        images.device().is_cpu() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous);
    return laid.to(torch::kFloat32).mul_(1.0 / 255.0);
}

struct TrainStep::Impl {
    TrainConfig config;
    DetectionModel model{nullptr};
    DetectionModel ema{nullptr};
    int nc = 0;
    torch::Device device;
    std::unique_ptr<WeightUpdater> updater;
    std::unique_ptr<DetectionLoss> loss;
    std::function<void(Phase)> phaseCallback;
    Phase phase = Phase::Idle;
    // Data parallel (all null in a one-process run).
    DataParallelGroup* group = nullptr;
    std::unique_ptr<GradientSync> gradientSync;
    std::unique_ptr<OptimizerSharding> sharding;
    std::unique_ptr<DataParallelGroup> bnChannel; ///< sync_bn's own connections
    std::unique_ptr<SyncBatchNorm> syncBn;

    Impl(const TrainConfig& c, DetectionModel m, int classes, torch::Device d)
        : config(c), model(std::move(m)), nc(classes), device(d) {}

    void setPhase(Phase p) {
        phase = p;
        if (phaseCallback)
            phaseCallback(p);
    }
    void applyModelSettings() {
        model->setCheckpointing(config.checkpointing);
        model->freeze(config.freeze);
    }

    /// Runs one part of a step; under data parallelism every rank then learns whether every
    /// rank's part succeeded. A failure elsewhere becomes an out-of-memory error here (the
    /// only failure a rank recovers from), so every rank leaves the step at the same point.
    /// `onLocalFailure` runs before the agreement when this rank's part threw.
    void together(const std::function<void()>& part,
                  const std::function<void()>& onLocalFailure = {}) {
        if (!group) {
            part();
            return;
        }
        std::exception_ptr failure;
        try {
            part();
        } catch (...) {
            failure = std::current_exception();
            if (onLocalFailure) {
                try {
                    onLocalFailure();
                } catch (...) {
                }
            }
        }
        // Synchronised BatchNorm: a rank that failed meets the others in the BatchNorm they
        // wait in; one that learnt of another's failure there counts as ok below, so that the
        // agreement names the rank that failed.
        bool told = false;
        if (syncBn) {
            told = syncBn->failureReceived();
            syncBn->closePhase(!failure);
        }
        const std::vector<int> failed = group->failedRanks(!failure || told);
        if (failure)
            std::rethrow_exception(failure);
        if (!failed.empty())
            TORCH_CHECK_WITH(OutOfMemoryError, false, "rank ", failed.front(),
                             " ran out of memory in the ", toString(phase),
                             " phase; every rank drops this step");
    }

    /// (Re)builds the gradient all-reduce and ZeRO ownership for the trainable parameters.
    void connectDataParallel() {
        gradientSync.reset();
        sharding.reset();
        updater->setStepHooks({});
        if (!group) {
            updater->setParameterFilter({});
            if (syncBn) {
                model->setBatchNormForward(BatchNormForward{});
                syncBn.reset();
                bnChannel.reset();
            }
            return;
        }
        gradientSync = std::make_unique<GradientSync>(*group, model->parameters());
        if (config.sync_bn && !syncBn) {
            // Every rank opens the channel here, at the same point of the set-up.
            bnChannel = group->openChannel("sync_bn");
            syncBn = std::make_unique<SyncBatchNorm>(
                *bnChannel, model->setBatchNormForward(BatchNormForward{}));
            SyncBatchNorm* sync = syncBn.get();
            model->setBatchNormForward(
                [sync](torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& input) {
                    return sync->forward(bn, input);
                });
        }
        WeightUpdater::StepHooks hooks;
        hooks.agree = [this](bool ok) {
            const std::vector<int> failed = group->failedRanks(ok);
            if (ok && !failed.empty())
                TORCH_CHECK_WITH(OutOfMemoryError, false, "rank ", failed.front(),
                                 " ran out of memory in the optimizer phase; every rank drops "
                                 "this step");
        };
        if (config.zero == 1) {
            sharding = std::make_unique<OptimizerSharding>(*group, model->parameters());
            updater->setParameterFilter(
                [this](const torch::Tensor& p) { return sharding->owns(p); });
            hooks.afterStep = [this] { sharding->broadcastUpdated(); };
        } else {
            updater->setParameterFilter({});
        }
        updater->setStepHooks(std::move(hooks));
    }
};

TrainStep::TrainStep(const TrainConfig& config, DetectionModel model, int nc, torch::Device device,
                     std::int64_t iterations)
    : d(std::make_unique<Impl>(config, std::move(model), nc, device)) {
    TORCH_CHECK(d->model, "TrainStep needs a model");
    TORCH_CHECK(d->model->nc() == nc, "the model has ", d->model->nc(), " classes, the data ", nc);
    d->model->to(device);
    if (device.is_cpu())
        useChannelsLast(*d->model);
    d->model->train();
    d->applyModelSettings();
    // The EMA is a second model of the same architecture; it is only ever evaluated.
    ModelBuild shadow =
        buildModelFromText(d->model->yamlText(), d->model->sourceName(), nc, d->model->scale());
    TORCH_CHECK(shadow.model, "cannot build the EMA copy: ", formatDiagnostics(shadow.diagnostics));
    d->ema = shadow.model;
    d->ema->to(device);
    if (device.is_cpu())
        useChannelsLast(*d->ema);
    d->ema->eval();
    d->updater = std::make_unique<WeightUpdater>(
        config, d->model.ptr(), resolveOptimizer(config, nc, iterations), d->ema.ptr(), device);
    d->updater->setPhaseCallback([this](Phase p) { d->setPhase(p); });
    d->loss = std::make_unique<DetectionLoss>(lossConfigFor(config, d->model));
}

TrainStep::~TrainStep() = default;

StepOutput TrainStep::step(const Batch& batch) {
    StepOutput out;
    auto t0 = Clock::now();
    d->setPhase(Phase::Data);
    const torch::Tensor images = modelInput(onDevice(batch.images, d->device));
    const torch::Tensor targets = onDevice(batch.targets, d->device);
    out.images = static_cast<int>(images.size(0));
    out.dataSeconds = secondsSince(t0);

    t0 = Clock::now();
    d->setPhase(Phase::Forward);
    d->model->train();
    std::vector<torch::Tensor> raw;
    LossOutput loss;
    d->together([&] {
        {
            AutocastGuard autocast(d->config.amp, d->device);
            raw = d->model->forward(images);
        }
        d->setPhase(Phase::Loss);
        loss = d->loss->compute(raw, targets, images.size(2), images.size(3));
    });
    out.forwardSeconds = secondsSince(t0);

    t0 = Clock::now();
    d->setPhase(Phase::Backward);
    if (d->group) {
        GradientSync& sync = *d->gradientSync;
        // Only the batch that completes the accumulation group is all-reduced (DDP no_sync).
        sync.setEnabled(d->updater->pending() + 1 >= d->updater->accumulate());
        d->together(
            [&] {
                d->updater->backward(loss.total * static_cast<double>(d->group->size()));
                sync.finish();
            },
            [&] {
                raw.clear();
                sync.abandon();
            });
    } else {
        d->updater->backward(loss.total);
    }
    raw.clear();
    out.loss = loss.total.item<double>();
    out.items = itemsOf(loss.items);
    out.backwardSeconds = secondsSince(t0);

    if (d->updater->due()) {
        t0 = Clock::now();
        out.stepSkipped = !d->updater->step();
        out.optimizerStepped = true;
        out.optimizerSeconds = secondsSince(t0);
    }
    d->setPhase(Phase::Idle);
    return out;
}

ValidationOutput TrainStep::validateBatch(const Batch& batch, MetricsAccumulator* metrics) {
    ValidationOutput out;
    torch::NoGradGuard noGrad;
    d->setPhase(Phase::Validation);
    const torch::Tensor images = modelInput(onDevice(batch.images, d->device));
    const torch::Tensor targets = onDevice(batch.targets, d->device);
    out.images = static_cast<int>(images.size(0));
    d->ema->eval();
    std::vector<torch::Tensor> raw;
    {
        // Under training's precision on the CPU too (bf16 there): as fast again as fp32, the
        // same mAP within 0.0002 (docs/decisions.md, "Validation in bf16"); amp=false for fp32.
        AutocastGuard autocast(d->config.amp, d->device);
        raw = d->ema->forward(images);
    }
    for (auto& r : raw)
        r = r.to(torch::kFloat);
    const int64_t h = images.size(2), w = images.size(3);
    out.items = itemsOf(d->loss->compute(raw, targets, h, w).items);
    if (!metrics)
        return out;
    const torch::Tensor decoded = d->ema->decode(raw);
    raw.clear();
    const std::vector<torch::Tensor> detections = nonMaxSuppression(
        decoded, d->config.conf, d->config.iou, d->config.max_det, d->config.single_cls, true);
    const torch::Tensor cpuTargets = batch.targets.to(torch::kCPU, torch::kFloat);
    for (int64_t i = 0; i < out.images; ++i) {
        torch::Tensor found = detections[static_cast<size_t>(i)].to(torch::kCPU);
        if (static_cast<size_t>(i) < batch.letterbox.size()) {
            const LetterboxInfo& box = batch.letterbox[static_cast<size_t>(i)];
            clipBoxes(found, box.padX, box.padY, box.padX + box.originalW * box.scale,
                      box.padY + box.originalH * box.scale);
        }
        const torch::Tensor rows = cpuTargets.index({cpuTargets.select(1, 0) == i});
        const torch::Tensor xywh =
            rows.slice(1, 2, 6) * torch::tensor({float(w), float(h), float(w), float(h)});
        const torch::Tensor xyxy = torch::cat({xywh.slice(1, 0, 2) - xywh.slice(1, 2, 4) / 2,
                                               xywh.slice(1, 0, 2) + xywh.slice(1, 2, 4) / 2},
                                              1);
        metrics->add(found, xyxy, rows.select(1, 1).to(torch::kLong),
                     static_cast<size_t>(i) < batch.paths.size() ? batch.paths[size_t(i)]
                                                                 : std::string());
    }
    d->setPhase(Phase::Idle);
    return out;
}

void TrainStep::resetAccumulation() {
    d->updater->resetAccumulation();
}

void TrainStep::setSchedule(const StepSchedule& schedule) {
    d->updater->setLearningRates(schedule.lr);
    if (d->updater->choice().name == "SGD")
        d->updater->setMomentum(schedule.momentum);
    d->updater->setAccumulate(schedule.accumulate);
}

StepSchedule TrainStep::schedule() const {
    StepSchedule s;
    s.lr = d->updater->learningRates();
    s.momentum = d->updater->momentum();
    s.accumulate = d->updater->accumulate();
    return s;
}

double TrainStep::initialLr() const {
    return d->updater->choice().lr;
}
const OptimizerChoice& TrainStep::optimizerChoice() const {
    return d->updater->choice();
}

void TrainStep::applyConfig(const TrainConfig& config) {
    const TrainConfig previous = d->config;
    d->config = config;
    d->applyModelSettings();
    OptimizerChoice choice = d->updater->choice();
    if (toLower(config.optimizer) != toLower(previous.optimizer) &&
        toLower(config.optimizer) != "auto") {
        const OptimizerChoice wanted = resolveOptimizer(config, d->nc, 0);
        choice.name = wanted.name;
        choice.automatic = false;
    }
    d->updater->applyConfig(config, choice);
    if (config.box != previous.box || config.cls != previous.cls || config.dfl != previous.dfl ||
        config.assign_chunk != previous.assign_chunk)
        d->loss = std::make_unique<DetectionLoss>(lossConfigFor(config, d->model));
    // New trainable parameters need new buckets and owners (ZeRO then restarts the state).
    if (d->group && (config.freeze != previous.freeze || config.zero != previous.zero))
        d->connectDataParallel();
}

void TrainStep::setDataParallel(DataParallelGroup* group) {
    d->group = group && group->size() > 1 ? group : nullptr;
    d->connectDataParallel();
}

void TrainStep::setPhaseCallback(std::function<void(Phase)> callback) {
    d->phaseCallback = std::move(callback);
}
Phase TrainStep::currentPhase() const {
    return d->phase;
}
DetectionModel& TrainStep::model() {
    return d->model;
}
DetectionModel& TrainStep::emaModel() {
    return d->ema;
}
ModelEma& TrainStep::ema() {
    return *d->updater->ema();
}
torch::optim::Optimizer& TrainStep::optimizer() {
    return d->updater->optimizer();
}
WeightUpdater& TrainStep::updater() {
    return *d->updater;
}
const TrainConfig& TrainStep::config() const {
    return d->config;
}
torch::Device TrainStep::device() const {
    return d->device;
}
std::int64_t TrainStep::optimizerSteps() const {
    return d->updater->steps();
}
double TrainStep::lossScale() const {
    return d->updater->scaler().scale();
}

void TrainStep::save(torch::serialize::OutputArchive& archive,
                     const std::vector<std::string>& classNames) const {
    writeModel(archive, d->ema, classNames);
    torch::serialize::OutputArchive weights;
    d->model->save(weights);
    archive.write("train_model", weights);
    torch::serialize::OutputArchive state;
    d->updater->save(state, /*withEmaWeights=*/false);
    archive.write("train_state", state);
}

void TrainStep::load(torch::serialize::InputArchive& archive) {
    LoadedModel stored = readModel(archive);
    TORCH_CHECK(stored.model, "checkpoint has no usable model: ", stored.error);
    TORCH_CHECK(stored.model->architectureKey() == d->ema->architectureKey(),
                "checkpoint was written for ", stored.model->architectureName(), ", this run uses ",
                d->ema->architectureName());
    stored.model->to(d->device);
    d->updater->ema()->copyFrom(*stored.model);
    torch::serialize::InputArchive weights;
    archive.read("train_model", weights);
    d->model->load(weights);
    d->model->to(d->device);
    if (d->device.is_cpu())
        useChannelsLast(*d->model); // the stored tensors bring their own strides
    torch::serialize::InputArchive state;
    archive.read("train_state", state);
    d->updater->load(state, !ownsSeparateOptimizerShard());
}

std::pair<int, int> TrainStep::gradientBuckets() const {
    if (!d->gradientSync)
        return {0, 0};
    return {d->gradientSync->bucketCount(), d->gradientSync->bucketsLaunchedDuringBackward()};
}

bool TrainStep::ownsSeparateOptimizerShard() const {
    return d->sharding && d->group && d->group->rank() != 0;
}

void TrainStep::saveOptimizerShard(torch::serialize::OutputArchive& archive) const {
    d->updater->saveOptimizerState(archive);
}

void TrainStep::loadOptimizerShard(torch::serialize::InputArchive& archive) {
    d->updater->loadOptimizerState(archive);
}

MemoryBreakdown TrainStep::residentMemory() const {
    return measureResident(*d->model, &d->updater->optimizer(), d->ema.ptr().get());
}

} // namespace hr
