// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/memory_estimator.h"
#include "estimate/probe_batch.h"
#include "util/user_message.h"

#include "config/data_config.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "dist/zero_sharding.h"
#include "eval/metrics_accumulator.h"
#include "memory/cpu_memory_tracker.h"
#include "memory/memory_probe.h"
#include "memory/memory_sampler.h"
#include "memory/phase.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "train/train_step.h"
#include "util/bytes.h"
#include "util/process_time.h"
#include "util/text.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <sstream>

namespace hr {

namespace {

// Probe batch sizes of the calibration: small, so that it takes seconds.
constexpr int kProbeBatchSmall = 2;
constexpr int kProbeBatchLarge = 4;
// Validation batches from this size on are predicted from two more validation probes at
// kValProbeSmall and kValProbeLarge images (forward only, measured once per settings when first
// needed): the slope measured at 2 and 4 images under-predicted validation at 32-64 images by
// 13-22% (estimate --matrix). A likely cause, not verified: LibTorch's CPU convolution picks
// its algorithm by batch size (with one thread, 1x1 convolutions go to oneDNN from batch 16
// on, whose format reorders add copies).
constexpr int kValLargeFrom = 12;
constexpr int kValProbeSmall = 16;
constexpr int kValProbeLarge = 24;
// More targets than this per image are not worth sizing for (Ultralytics caps detections at 300).
constexpr int kMaxObjectsPerImage = 300;

struct DataFacts {
    int nc = 0;
    int objectsPerImage = 1;
    int trainImages = 0;
};

/// Peak bytes = intercept + slope x images.
struct Line {
    double intercept = 0, slope = 0;
    double at(double images) const { return intercept + slope * images; }
};

/// The parts of a training step whose peaks are fitted apart. One line through the step's
/// overall peaks is wrong when the part that peaks changes with the batch: with gradient
/// checkpointing the optimizer step (weights, gradients, optimizer state, its snapshot and
/// temporaries: about constant) can be the step's peak at batch 2-4 while backward's recompute
/// (growing with the batch) takes over at larger batches; and the loss (the assigner's
/// temporaries, per image) grows faster than the model's forward: yolov8s 256 px with AMP and
/// checkpointing peaks in the forward pass at batch 2-4 and in the loss at batch 32, and one
/// line through forward and loss together under-predicted that by 12% (estimate --matrix).
enum StepPart { PartForward, PartLoss, PartBackward, PartOptimizer, kStepParts };

/// The part of the step a trainer phase belongs to.
StepPart partOf(Phase phase) {
    switch (phase) {
    case Phase::Loss:
        return PartLoss;
    case Phase::Backward:
        return PartBackward;
    case Phase::Optimizer:
    case Phase::Ema:
        return PartOptimizer;
    default:
        return PartForward; // data, forward
    }
}

using StepPeaks = std::array<std::int64_t, kStepParts>;

using StepLines = std::array<Line, kStepParts>;

/// CPU seconds of one training step (the process's, every thread: another process's load on a
/// shared machine does not stretch them as it stretches wall time): forward, loss and backward
/// (with the batch's move to the device) apart from the optimizer step and EMA, which run once
/// per accumulation group.
struct StepSeconds {
    double work = 0.0;
    double optimizer = 0.0;
};

/// The median of the values; 0 for none.
double median(std::vector<double> values) {
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// Seconds per image of steps of `images` images that accumulate `accumulate` batches: the
/// optimizer step and EMA run once per accumulation group.
double perImageSeconds(double stepSeconds, double optimizerSeconds, int accumulate, double images) {
    return (stepSeconds + optimizerSeconds / std::max(accumulate, 1)) / images;
}

/// Time of training steps on this machine: seconds of forward + loss + backward against
/// images (a line through the medians at the two probe batches) and the optimizer step + EMA.
struct StepTimes {
    Line work;
    double optimizer = 0.0;
    int steps = 0; ///< timed steps per probe batch (after a warm-up step)
    /// Seconds per image of a run at `images` per step accumulating `accumulate` batches.
    double perImage(double images, int accumulate) const {
        return perImageSeconds(work.at(images), optimizer, accumulate, images);
    }
};

/// Peaks as the per-image model: a line per step part for training, one for validation.
struct Calibration {
    /// A step that starts without gradients: every step without accumulation, the first batch
    /// of an accumulation group.
    StepLines fresh;
    /// A step that starts with the previous batch's gradients (accumulation). Measured, not
    /// fresh + the gradients' bytes: that over-predicted yolov8s 320 px batch 2 with
    /// checkpointing by 13% (estimate --matrix), because backward's peak comes late, when most
    /// of the step's own gradients exist in a fresh step too (the recompute of the first,
    /// largest layers runs last); the optimizer step holds all gradients either way.
    StepLines held;
    Line val;
    /// Validation at kValLargeFrom images and more: from probes at kValProbeSmall/Large.
    bool valLargeProbed = false;
    Line valLarge;
    MemoryBreakdown resident;
    std::string device;
    int objectsPerImage = 1;
    int imgsz = 0; ///< the image size the probe steps ran at
    /// Bytes of the trainable parameters' gradients. Probe steps run the optimizer every step
    /// (gradients freed before the next forward); with accumulation they stay allocated
    /// through the next batch's forward and backward, on top of its activations.
    std::int64_t gradientBytes = 0;
    /// Elements of each trainable parameter: ZeRO's owner assignment of a data-parallel run
    /// is computed from them (each rank keeps the optimizer state of the parameters it owns).
    std::vector<std::int64_t> trainableNumels;
    std::string family;   ///< the calibration key without the image size
    bool derived = false; ///< scaled from another image size's calibration, no probe steps
    StepTimes times;      ///< the probe steps' timings (not valid when `derived`)
};

std::mutex g_mutex; // one calibration at a time; guards the caches
std::map<std::string, DataFacts> g_dataCache;
std::map<std::string, Calibration> g_calibrations;

bool dataFacts(const TrainConfig& config, DataFacts& facts, std::string* error) {
    std::string path = config.data;
    if (path.empty()) {
        path = ensureBuiltinDataset(error);
        if (path.empty())
            return false;
    }
    const std::string key =
        path + (config.single_cls ? "|single" : "") + (config.mosaic > 0 ? "|mosaic" : "");
    const auto cached = g_dataCache.find(key);
    if (cached != g_dataCache.end()) {
        facts = cached->second;
        return true;
    }
    const DataConfigResult loaded = loadDataConfig(path);
    if (!loaded.config) {
        if (error)
            *error = loaded.diagnostics.empty() ? "cannot read " + path
                                                : loaded.diagnostics.front().toString();
        return false;
    }
    ScanOptions options;
    options.singleCls = config.single_cls;
    const DatasetReport report = scanDataset(*loaded.config, Split::Train, options);
    facts.nc = config.single_cls ? 1 : loaded.config->nc();
    // A mosaic tile holds parts of four images: size the assigner for four images' objects.
    const int perImage = std::max(1, report.stats.maxObjectsPerImage);
    facts.objectsPerImage = std::min(kMaxObjectsPerImage, perImage * (config.mosaic > 0 ? 4 : 1));
    facts.trainImages = report.stats.images;
    g_dataCache[key] = facts;
    return true;
}

/// Everything a calibration depends on except the image size.
std::string calibrationFamily(const TrainConfig& c, const DataFacts& facts,
                              const std::string& device) {
    std::ostringstream key;
    key << c.model << '|' << c.scale << '|' << c.amp << '|' << toString(c.checkpointing) << '|'
        << c.optimizer << '|' << c.optimizer_offload << '|' << facts.nc << '|'
        << facts.objectsPerImage << '|' << c.assign_chunk << '|' << device << '|' << c.weights
        << '|';
    for (int layer : c.freeze)
        key << layer << ',';
    return key.str();
}

std::string calibrationKey(const TrainConfig& c, const DataFacts& facts,
                           const std::string& device) {
    return calibrationFamily(c, facts, device) + "@" + std::to_string(c.imgsz);
}

/// A calibration for `imgsz` scaled from the cached one of the same family whose image size is
/// nearest: the per-image slopes follow the pixel count (yolov8n on CPU, slopes at 224 and 416
/// scaled from 320: -4% and +0.1% of their own calibrations), the intercepts stay (what is
/// left above the resident state at batch 0 is ~3 MiB at 224-416 px).
std::optional<Calibration> scaledCalibration(const std::string& family, int imgsz) {
    const Calibration* nearest = nullptr;
    for (const auto& [key, c] : g_calibrations) {
        if (c.family != family || c.derived || c.imgsz <= 0)
            continue;
        if (!nearest || std::abs(c.imgsz - imgsz) < std::abs(nearest->imgsz - imgsz))
            nearest = &c;
    }
    if (!nearest)
        return std::nullopt;
    Calibration out = *nearest;
    const double ratio = double(imgsz) * imgsz / (double(nearest->imgsz) * nearest->imgsz);
    for (StepLines* lines : {&out.fresh, &out.held})
        for (Line& line : *lines)
            line.slope *= ratio;
    out.val.slope *= ratio;
    out.valLarge.slope *= ratio;
    out.imgsz = imgsz;
    out.derived = true;
    out.times = StepTimes{}; // time is not scaled: only probe steps at this size say it
    return out;
}

/// Planned optimizer iterations, as Ultralytics counts them for `optimizer: auto`.
std::int64_t plannedIterations(const TrainConfig& config, const DataFacts& facts) {
    const int batch = std::max(config.batch, 1);
    const double perEpoch =
        std::ceil(double(std::max(facts.trainImages, 1)) / double(std::max(batch, config.nbs)));
    return static_cast<std::int64_t>(perEpoch * std::max(config.epochs, 1));
}

/// Everything a probe needs: the device's probe, the model, a TrainStep. The budget of the CPU
/// tracker is lifted meanwhile (a paused run in the same process keeps its own) and restored.
/// Peaks are counted above what was allocated when the session began: a run that asks the
/// estimator from inside an OOM recovery still holds its own weights, and they are not the
/// probe's.
class ProbeSession {
public:
    ProbeSession(const TrainConfig& config, const DataFacts& facts, int stepBatch,
                 std::string* error) {
        m_nc = facts.nc;
        m_probe = makeProbe(config.device, error);
        if (!m_probe)
            return;
        m_savedBudget = m_probe->budget();
        m_probe->setBudget(0);
        m_baseline = m_probe->allocated();
        ModelBuild build = buildModel(config.model, facts.nc, config.scale);
        if (!build.model) {
            if (error)
                *error = build.diagnostics.empty() ? "cannot build " + config.model
                                                   : build.diagnostics.front().toString();
            return;
        }
        TrainConfig stepConfig = config;
        stepConfig.batch = stepBatch;
        const std::string name = m_probe->deviceName();
        const torch::Device device =
            name == "cpu" ? torch::Device(torch::kCPU) : torch::Device(name);
        m_step = std::make_unique<TrainStep>(stepConfig, build.model, facts.nc, device,
                                             plannedIterations(config, facts));
        StepSchedule schedule = m_step->schedule();
        schedule.accumulate = 1; // every probe step also runs the optimizer
        m_step->setSchedule(schedule);
        m_step->setPhaseCallback([this](Phase next) { enterPhase(next); });
    }
    ~ProbeSession() {
        m_step.reset();
        if (m_probe) {
            m_probe->setBudget(m_savedBudget);
            m_probe->resetPeak();
        }
    }
    bool ready() const { return m_step != nullptr; }
    MemoryProbe& probe() { return *m_probe; }
    TrainStep& step() { return *m_step; }

    /// Peaks of one training step on `batch` (already built, so it counts as live data), per
    /// part of the step: the allocator's peak is read and reset whenever the phase changes.
    StepPeaks trainPeaks(const Batch& batch) {
        m_parts.fill(0);
        m_seconds = {};
        m_probe->resetPeak();
        m_recording = true;
        m_phaseStart = processCpuSeconds();
        try {
            m_step->step(batch);
        } catch (...) {
            m_recording = false;
            throw;
        }
        m_recording = false;
        return m_parts;
    }
    /// The timings of the last trainPeaks() step.
    StepSeconds lastSeconds() const { return m_seconds; }
    /// Peak of one whole training step on `batch`.
    std::int64_t trainPeak(const Batch& batch) {
        const StepPeaks parts = trainPeaks(batch);
        return *std::max_element(parts.begin(), parts.end());
    }
    /// Peak of one validation batch as the trainer runs it: forward, losses, decode, NMS and
    /// the metrics of every image.
    std::int64_t valPeak(const Batch& batch) {
        MetricsAccumulator metrics(std::max(m_nc, 1));
        m_probe->resetPeak();
        m_step->validateBatch(batch, &metrics);
        return m_probe->peak() - m_baseline;
    }

private:
    /// Closes the phase that ends: its peak goes to its part of the step.
    void enterPhase(Phase next) {
        if (m_recording) {
            std::int64_t& part = m_parts[partOf(m_phase)];
            part = std::max(part, m_probe->peak() - m_baseline);
            m_probe->resetPeak();
            const double now = processCpuSeconds();
            (partOf(m_phase) == PartOptimizer ? m_seconds.optimizer : m_seconds.work) +=
                now - m_phaseStart;
            m_phaseStart = now;
        }
        m_phase = next;
    }

    ProbeStepScope m_probeSteps; ///< a run's sampler tags these steps Phase::Probe
    std::unique_ptr<MemoryProbe> m_probe;
    std::unique_ptr<TrainStep> m_step;
    std::int64_t m_savedBudget = 0;
    std::int64_t m_baseline = 0;
    int m_nc = 1;
    Phase m_phase = Phase::Idle;
    bool m_recording = false;
    StepPeaks m_parts{};
    StepSeconds m_seconds;
    double m_phaseStart = 0.0; ///< processCpuSeconds() when the phase began
};

/// Times `pairs` pairs of steps on `batch` that accumulate two batches (the second steps the
/// optimizer): every step's forward-backward seconds go to `work`, every optimizer step's to
/// `optimizer`.
void timePairs(ProbeSession& session, const Batch& batch, int pairs, std::vector<double>& work,
               std::vector<double>& optimizer) {
    for (int i = 0; i < pairs; ++i) {
        session.trainPeaks(batch);
        work.push_back(session.lastSeconds().work);
        session.trainPeaks(batch);
        work.push_back(session.lastSeconds().work);
        optimizer.push_back(session.lastSeconds().optimizer);
    }
}

/// The line through two probe points (x1, y1) and (x2, y2), images against peak bytes: the
/// slope is never negative (a lower second peak is noise, not memory a larger batch frees) and
/// the intercept passes through the first point.
Line fitLine(double x1, double y1, double x2, double y2) {
    Line line;
    line.slope = std::max(0.0, (y2 - y1) / (x2 - x1));
    line.intercept = y1 - line.slope * x1;
    return line;
}

/// The line through two timings, images against seconds, through the larger batch's point:
/// the per-step part (intercept) is never negative and neither is the per-image part, whatever
/// the noise of two medians.
Line timeLine(double x1, double y1, double x2, double y2) {
    Line line;
    line.slope = std::clamp((y2 - y1) / (x2 - x1), 0.0, std::max(0.0, y2 / x2));
    line.intercept = y2 - line.slope * x2;
    return line;
}

bool calibrate(const TrainConfig& config, const DataFacts& facts, Calibration& out,
               std::string* error) {
    ProbeSession session(config, facts, kProbeBatchSmall, error);
    if (!session.ready())
        return false;
    const int objects = facts.objectsPerImage;
    const int nc = facts.nc;
    // Each probe batch lives only while its own steps run, as a run's batch does: a batch
    // built ahead would count in the other batch's peaks, adding its images to the intercept
    // and leaving the batch's own bytes out of the per-image slope.
    StepPeaks fresh1, held1, fresh2, held2;
    double v1 = 0, v2 = 0;
    // The memory probes are the first pair at each batch; one more step at each batch, after
    // every memory probe (they would change the validation probes measured after them), makes
    // three timed steps there after the warm-up step (at the large batch the median leaves out
    // the first step at its shape, which prepares the kernels).
    std::vector<double> workSmall, workLarge, optimizer;
    auto timed = [&session](const Batch& batch, std::vector<double>& work,
                            std::vector<double>& optimizerSeconds) {
        const StepPeaks peaks = session.trainPeaks(batch);
        work.push_back(session.lastSeconds().work);
        if (session.lastSeconds().optimizer > 0)
            optimizerSeconds.push_back(session.lastSeconds().optimizer);
        return peaks;
    };
    {
        const Batch small = probeBatch(kProbeBatchSmall, config.imgsz, objects, nc);
        session.step().step(small); // creates gradients, optimizer state: the steady state
        // Pairs of steps accumulating two batches: the first starts without gradients and does
        // not step the optimizer, the second starts with the first one's gradients and steps.
        StepSchedule schedule = session.step().schedule();
        schedule.accumulate = 2;
        session.step().setSchedule(schedule);
        fresh1 = timed(small, workSmall, optimizer);
        held1 = timed(small, workSmall, optimizer);
        v1 = double(session.valPeak(small));
    }
    {
        const Batch large = probeBatch(kProbeBatchLarge, config.imgsz, objects, nc);
        fresh2 = timed(large, workLarge, optimizer);
        held2 = timed(large, workLarge, optimizer);
        v2 = double(session.valPeak(large));
        timed(large, workLarge, optimizer);
    }
    {
        const Batch small = probeBatch(kProbeBatchSmall, config.imgsz, objects, nc);
        timed(small, workSmall, optimizer);
    }
    // Without accumulation every step runs the optimizer as the second of a pair does.
    fresh1[PartOptimizer] = held1[PartOptimizer];
    fresh2[PartOptimizer] = held2[PartOptimizer];
    out.times.work =
        timeLine(kProbeBatchSmall, median(workSmall), kProbeBatchLarge, median(workLarge));
    out.times.optimizer = median(optimizer);
    out.times.steps = static_cast<int>(workLarge.size());
    for (int part = 0; part < kStepParts; ++part) {
        out.fresh[part] =
            fitLine(kProbeBatchSmall, double(fresh1[part]), kProbeBatchLarge, double(fresh2[part]));
        out.held[part] =
            fitLine(kProbeBatchSmall, double(held1[part]), kProbeBatchLarge, double(held2[part]));
    }
    out.val = fitLine(kProbeBatchSmall, v1, kProbeBatchLarge, v2);
    out.resident = session.step().residentMemory();
    out.gradientBytes = 0;
    out.trainableNumels.clear();
    for (const auto& p : session.step().model()->parameters())
        if (p.requires_grad()) {
            out.gradientBytes += p.numel() * static_cast<std::int64_t>(p.element_size());
            out.trainableNumels.push_back(p.numel());
        }
    out.device = session.probe().deviceName();
    out.objectsPerImage = objects;
    out.imgsz = config.imgsz;
    return true;
}

/// The validation probes at kValProbeSmall and kValProbeLarge images (no training step: the
/// resident state of validation is weights, EMA, and the gradients and optimizer state a run
/// holds, which a training step at batch 2 creates first).
bool calibrateLargeValidation(const TrainConfig& config, const DataFacts& facts, Calibration& out,
                              std::string* error) {
    ProbeSession session(config, facts, kProbeBatchSmall, error);
    if (!session.ready())
        return false;
    const int objects = facts.objectsPerImage;
    session.step().step(probeBatch(kProbeBatchSmall, config.imgsz, objects, facts.nc));
    const auto v1 =
        double(session.valPeak(probeBatch(kValProbeSmall, config.imgsz, objects, facts.nc)));
    const auto v2 =
        double(session.valPeak(probeBatch(kValProbeLarge, config.imgsz, objects, facts.nc)));
    out.valLarge = fitLine(kValProbeSmall, v1, kValProbeLarge, v2);
    out.valLargeProbed = true;
    return true;
}

std::int64_t imageBytes(int batch, int imgsz) {
    return std::int64_t(batch) * 3 * imgsz * imgsz * std::int64_t(sizeof(float));
}

} // namespace

namespace {

/// The calibration for `config`: cached, newly measured with probe steps, or (without probing)
/// scaled from another image size. Nothing, with `error` filled, when none can be had.
std::optional<Calibration> calibrationFor(const TrainConfig& config, bool probe,
                                          std::string* error) {
    std::lock_guard<std::mutex> lock(g_mutex);
    DataFacts facts;
    if (!dataFacts(config, facts, error))
        return std::nullopt;
    const std::unique_ptr<MemoryProbe> memoryProbe = makeProbe(config.device, error);
    if (!memoryProbe)
        return std::nullopt;
    const std::string family = calibrationFamily(config, facts, memoryProbe->deviceName());
    const std::string key = calibrationKey(config, facts, memoryProbe->deviceName());
    const bool largeValidation = validationBatch(config) >= kValLargeFrom;
    const auto cached = g_calibrations.find(key);
    if (cached != g_calibrations.end() &&
        (!probe || !largeValidation || cached->second.valLargeProbed))
        return cached->second;
    if (!probe && cached == g_calibrations.end()) {
        auto scaled = scaledCalibration(family, config.imgsz);
        if (!scaled && error)
            *error = "no calibration of these settings yet";
        return scaled;
    }
    Calibration calibration;
    if (cached != g_calibrations.end())
        calibration = cached->second;
    try {
        if (cached == g_calibrations.end() && !calibrate(config, facts, calibration, error))
            return std::nullopt;
        if (largeValidation && !calibration.valLargeProbed &&
            !calibrateLargeValidation(config, facts, calibration, error))
            return std::nullopt;
    } catch (const c10::Error& e) {
        if (error)
            *error = std::string("probe step failed: ") + e.what_without_backtrace();
        return std::nullopt;
    } catch (const std::exception& e) {
        if (error)
            *error = "probe step failed: " + userMessage(e);
        return std::nullopt;
    }
    calibration.family = family;
    g_calibrations[key] = calibration;
    return calibration;
}

/// The share of the optimizer state the most loaded rank keeps under ZeRO-1: parameters go,
/// largest first, to the least-loaded rank (OptimizerSharding's rule), and Adam/SGD state is
/// proportional to the elements a rank owns.
double largestStateShare(const Calibration& calibration, int ranks) {
    if (ranks <= 1 || calibration.trainableNumels.empty())
        return 1.0;
    const std::vector<int> owner = assignParameterOwners(calibration.trainableNumels, ranks);
    std::vector<std::int64_t> load(static_cast<std::size_t>(ranks), 0);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < owner.size(); ++i) {
        load[static_cast<std::size_t>(owner[i])] += calibration.trainableNumels[i];
        total += calibration.trainableNumels[i];
    }
    return total > 0 ? double(*std::max_element(load.begin(), load.end())) / double(total) : 1.0;
}

MemoryEstimate estimateFrom(const TrainConfig& config, const Calibration& calibration) {
    MemoryEstimate estimate;
    const int batch = std::max(config.batch, 1);
    // Data parallel: `batch` is the total; each rank steps on its share (the trainer's rule),
    // rank 0 alone validates, at the validation batch of the total.
    const int ranks = std::max(config.nproc, 1);
    const int rankBatch = hr::rankBatch(batch, ranks);
    const int valBatch = validationBatch(config);
    // The batches the loader queues are host memory, on a GPU and under a CPU budget alike
    // (docs/decisions.md, 2026-12-01): only the batch the step moves to the device counts, and
    // the probe steps measured it with the step.
    // ZeRO-1 keeps the optimizer state of the owned parameters only; the calibration's
    // intercepts hold all of it.
    const double stateShare = config.zero == 1 ? largestStateShare(calibration, ranks) : 1.0;
    const auto stateSaved = static_cast<std::int64_t>(
        std::llround(double(calibration.resident.optimizerState) * (1.0 - stateShare)));
    // The gradient all-reduce copies each ~4 MiB bucket of gradients into a flat tensor when
    // backward has produced it and keeps it until backward ends: up to one more copy of the
    // gradients on top of backward's peak (counted whole: an upper bound).
    const std::int64_t bucketCopies = ranks > 1 ? calibration.gradientBytes : 0;

    estimate.batch = batch;
    estimate.ranks = ranks;
    estimate.rankBatch = rankBatch;
    estimate.valBatch = valBatch;
    estimate.device = calibration.device;
    estimate.objectsPerImage = calibration.objectsPerImage;
    const bool large = valBatch >= kValLargeFrom && calibration.valLargeProbed;
    const Line& val = large ? calibration.valLarge : calibration.val;
    estimate.perImageVal = std::llround(val.slope);
    // Accumulating over several batches keeps the gradients between them (Ultralytics' rule:
    // accumulate = round(nbs / batch), batch being the total over the ranks): every batch of a
    // group but the first starts with them.
    const int accumulate = accumulateSteps(config.nbs, batch);
    const StepLines& lines = accumulate > 1 ? calibration.held : calibration.fresh;
    int peakPart = PartForward;
    for (int part = 1; part < kStepParts; ++part)
        if (lines[part].at(rankBatch) > lines[peakPart].at(rankBatch))
            peakPart = part;
    const double stepPeak = lines[peakPart].at(rankBatch);
    estimate.perImageTrain = std::llround(lines[peakPart].slope);
    estimate.trainPeak = std::llround(stepPeak) + bucketCopies - stateSaved;
    estimate.valPeak = std::llround(val.at(valBatch)) - stateSaved;

    MemoryBreakdown& b = estimate.breakdown;
    b = calibration.resident;
    b.optimizerState -= stateSaved;
    if (accumulate > 1)
        b.gradients = std::max(b.gradients, calibration.gradientBytes);
    b.batchData = imageBytes(rankBatch, config.imgsz);
    b.activations = std::max<std::int64_t>(0, estimate.trainPeak - b.resident() - b.batchData);
    b.other =
        std::max<std::int64_t>(0, estimate.trainPeak - b.resident() - b.batchData - b.activations);
    b.total = estimate.trainPeak;

    std::ostringstream note;
    note << "calibrated with real training steps at batch " << kProbeBatchSmall << " and "
         << kProbeBatchLarge << " on " << calibration.device << " (" << calibration.objectsPerImage
         << " targets per image)";
    static const char* const kPartNames[kStepParts] = {"forward pass", "loss", "backward pass",
                                                       "optimizer step"};
    note << "; the step peaks in its " << kPartNames[peakPart];
    note << "; counts the batch on the device, not the loader's queued batches (host memory)";
    if (ranks > 1) {
        note << "; per rank of " << ranks << ": training batch " << rankBatch
             << ", gradients' all-reduce copies counted";
        if (config.zero == 1)
            note << ", " << std::lround(stateShare * 100.0)
                 << "% of the optimizer state (ZeRO-1, the most loaded rank)";
        note << "; rank 0 validates at batch " << valBatch;
    }
    if (valBatch >= kValLargeFrom && calibration.valLargeProbed)
        note << "; validation from probes at " << kValProbeSmall << " and " << kValProbeLarge
             << " images";
    note << "; validation NMS is sized by an untrained model's few candidates";
    if (calibration.derived)
        note << "; per-image memory scaled by the pixel count from a calibration at another "
                "image size";
    estimate.note = note.str();
    MemoryEstimate::How& how = estimate.how;
    how.probeBatchSmall = kProbeBatchSmall;
    how.probeBatchLarge = kProbeBatchLarge;
    how.probeDevice = calibration.device;
    how.peakPart = static_cast<MemoryEstimate::How::PeakPart>(peakPart);
    how.stateShare = ranks > 1 && config.zero == 1 ? stateShare : 1.0;
    if (valBatch >= kValLargeFrom && calibration.valLargeProbed) {
        how.valProbeSmall = kValProbeSmall;
        how.valProbeLarge = kValProbeLarge;
    }
    how.scaledFromOtherSize = calibration.derived;
    return estimate;
}

} // namespace

MemoryEstimate estimateMemory(const TrainConfig& config, std::string* error) {
    const std::optional<Calibration> calibration = calibrationFor(config, true, error);
    return calibration ? estimateFrom(config, *calibration) : MemoryEstimate{};
}

namespace {
/// The training peak, or the larger of the training and validation peaks.
std::optional<std::int64_t> peakOf(const MemoryEstimate& estimate, bool withValidation) {
    if (estimate.trainPeak <= 0)
        return std::nullopt;
    return withValidation ? std::max(estimate.trainPeak, estimate.valPeak) : estimate.trainPeak;
}

/// An estimate from calibrations already made (or scaled from another image size's), if any.
std::optional<MemoryEstimate> estimateWithoutProbing(const TrainConfig& config) {
    std::string error;
    const std::optional<Calibration> calibration = calibrationFor(config, false, &error);
    if (!calibration)
        return std::nullopt;
    return estimateFrom(config, *calibration);
}

std::optional<std::int64_t> peakWithProbing(const TrainConfig& config, bool withValidation) {
    std::string error;
    return peakOf(estimateMemory(config, &error), withValidation);
}

std::optional<std::int64_t> peakWithoutProbing(const TrainConfig& config, bool withValidation) {
    const std::optional<MemoryEstimate> estimate = estimateWithoutProbing(config);
    return estimate ? peakOf(*estimate, withValidation) : std::nullopt;
}
} // namespace

std::optional<std::int64_t> predictTrainPeak(const TrainConfig& config) {
    return peakWithProbing(config, false);
}

std::optional<std::int64_t> predictTrainPeakWithoutProbing(const TrainConfig& config) {
    return peakWithoutProbing(config, false);
}

std::optional<std::int64_t> predictPeak(const TrainConfig& config) {
    return peakWithProbing(config, true);
}

std::optional<std::int64_t> predictPeakWithoutProbing(const TrainConfig& config) {
    return peakWithoutProbing(config, true);
}

namespace {
int accumulateOf(const TrainConfig& config) {
    const int batch = std::max(config.batch, 1);
    return std::max(1,
                    static_cast<int>(std::lround(double(std::max(config.nbs, 1)) / double(batch))));
}

std::optional<StepTimeEstimate> stepTimeFrom(const TrainConfig& config,
                                             const Calibration& calibration) {
    if (calibration.derived || calibration.times.steps <= 0)
        return std::nullopt;
    const int ranks = std::max(config.nproc, 1);
    const int rankBatch = std::max(1, std::max(config.batch, 1) / ranks);
    StepTimeEstimate t;
    t.accumulate = accumulateOf(config);
    t.stepSeconds = calibration.times.work.at(rankBatch);
    t.optimizerSeconds = calibration.times.optimizer;
    t.secondsPerImage = calibration.times.perImage(rankBatch, t.accumulate);
    t.timedSteps = calibration.times.steps;
    return t;
}
} // namespace

std::optional<StepTimeEstimate> predictStepTime(const TrainConfig& config, std::string* error) {
    const std::optional<Calibration> calibration = calibrationFor(config, true, error);
    return calibration ? stepTimeFrom(config, *calibration) : std::nullopt;
}

std::optional<StepTimeEstimate> predictStepTimeWithoutProbing(const TrainConfig& config) {
    std::string error;
    const std::optional<Calibration> calibration = calibrationFor(config, false, &error);
    return calibration ? stepTimeFrom(config, *calibration) : std::nullopt;
}

std::optional<double> secondsPerImageWithoutProbing(const TrainConfig& config) {
    const std::optional<StepTimeEstimate> t = predictStepTimeWithoutProbing(config);
    return t ? std::optional<double>(t->secondsPerImage) : std::nullopt;
}

MemoryBreakdown residentFloor(const TrainConfig& config, std::string* error) {
    std::lock_guard<std::mutex> lock(g_mutex);
    MemoryBreakdown floor;
    DataFacts facts;
    if (!dataFacts(config, facts, error))
        return floor;
    try {
        ProbeSession session(config, facts, kProbeBatchSmall, error);
        if (!session.ready())
            return floor;
        // Before the first step: weights and the EMA copy exist, gradients and optimizer state
        // not yet; they are sized from the trainable parameters.
        const MemoryBreakdown built = session.step().residentMemory();
        std::int64_t trainable = 0;
        for (const auto& p : session.step().model()->parameters())
            if (p.requires_grad())
                trainable += p.numel() * static_cast<std::int64_t>(p.element_size());
        const OptimizerChoice& choice = session.step().optimizerChoice();
        const bool sgd = toLower(choice.name) == "sgd";
        const int stateTensors = sgd ? (choice.momentum != 0.0 ? 1 : 0) : 2;
        const bool stateElsewhere =
            (config.optimizer_offload && session.probe().deviceName() != "cpu") ||
            (config.nproc > 1 && config.zero == 1);
        floor.weights = built.weights;
        floor.ema = built.ema;
        floor.gradients = trainable;
        floor.optimizerState = stateElsewhere ? 0 : stateTensors * trainable;
        floor.total = floor.resident();
    } catch (const c10::Error& e) {
        if (error)
            *error = std::string("building the model failed: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        if (error)
            *error = "building the model failed: " + userMessage(e);
    }
    return floor;
}

int assignerObjectsPerImage(const TrainConfig& config) {
    std::lock_guard<std::mutex> lock(g_mutex);
    DataFacts facts;
    std::string error;
    return dataFacts(config, facts, &error) ? facts.objectsPerImage : 0;
}

std::optional<MeasuredPeaks> measurePeaks(const TrainConfig& config, std::string* error,
                                          int timedPairs) {
    std::lock_guard<std::mutex> lock(g_mutex);
    DataFacts facts;
    if (!dataFacts(config, facts, error))
        return std::nullopt;
    const int batch = std::max(config.batch, 1);
    try {
        ProbeSession session(config, facts, batch, error);
        if (!session.ready())
            return std::nullopt;
        MeasuredPeaks peaks;
        const int accumulate = accumulateSteps(config.nbs, batch);
        {
            // Freed before validation, as a run's last training batch is.
            const Batch train = probeBatch(batch, config.imgsz, facts.objectsPerImage, facts.nc);
            session.step().step(train); // optimizer state now exists
            if (accumulate > 1) {
                // As in a run that accumulates: the batch before leaves its gradients, the
                // measured one runs forward and backward on top of them and then the optimizer
                // step.
                StepSchedule schedule = session.step().schedule();
                schedule.accumulate = 2;
                session.step().setSchedule(schedule);
                session.step().step(train);
            }
            peaks.stepPeak = session.trainPeak(train);
        }
        const Batch val =
            probeBatch(validationBatch(config), config.imgsz, facts.objectsPerImage, facts.nc);
        peaks.valPeak = session.valPeak(val);
        if (timedPairs > 0) {
            StepSchedule schedule = session.step().schedule();
            schedule.accumulate = 2;
            session.step().setSchedule(schedule);
            std::vector<double> work, optimizer;
            const Batch train = probeBatch(batch, config.imgsz, facts.objectsPerImage, facts.nc);
            timePairs(session, train, timedPairs, work, optimizer);
            peaks.time.accumulate = accumulate;
            peaks.time.stepSeconds = median(work);
            peaks.time.optimizerSeconds = median(optimizer);
            peaks.time.secondsPerImage = perImageSeconds(
                peaks.time.stepSeconds, peaks.time.optimizerSeconds, accumulate, batch);
            peaks.time.timedSteps = static_cast<int>(work.size());
        }
        return peaks;
    } catch (const c10::Error& e) {
        if (error)
            *error = std::string("measuring step failed: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        if (error)
            *error = "measuring step failed: " + userMessage(e);
    }
    return std::nullopt;
}

std::optional<std::vector<std::pair<double, double>>> timeStepsInTurns(const TrainConfig& first,
                                                                       const TrainConfig& second,
                                                                       int rounds,
                                                                       std::string* error) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const std::array<const TrainConfig*, 2> configs = {&first, &second};
    std::array<DataFacts, 2> facts;
    for (std::size_t i = 0; i < 2; ++i)
        if (!dataFacts(*configs[i], facts[i], error))
            return std::nullopt;
    try {
        std::array<std::unique_ptr<ProbeSession>, 2> sessions;
        std::array<Batch, 2> batches;
        for (std::size_t i = 0; i < 2; ++i) {
            const TrainConfig& c = *configs[i];
            const int batch = std::max(c.batch, 1);
            sessions[i] = std::make_unique<ProbeSession>(c, facts[i], batch, error);
            if (!sessions[i]->ready())
                return std::nullopt;
            batches[i] = probeBatch(batch, c.imgsz, facts[i].objectsPerImage, facts[i].nc);
            sessions[i]->step().step(batches[i]); // optimizer state now exists
            StepSchedule schedule = sessions[i]->step().schedule();
            schedule.accumulate = 2;
            sessions[i]->step().setSchedule(schedule);
            std::vector<double> work, optimizer;
            timePairs(*sessions[i], batches[i], 1, work, optimizer); // warm-up, not counted
        }
        std::vector<std::pair<double, double>> out;
        for (int round = 0; round < rounds; ++round) {
            std::array<double, 2> perImage{};
            for (std::size_t i = 0; i < 2; ++i) {
                const int batch = std::max(configs[i]->batch, 1);
                std::vector<double> work, optimizer;
                timePairs(*sessions[i], batches[i], 1, work, optimizer);
                perImage[i] = perImageSeconds(median(work), median(optimizer),
                                              accumulateSteps(configs[i]->nbs, batch), batch);
            }
            out.emplace_back(perImage[0], perImage[1]);
        }
        return out;
    } catch (const c10::Error& e) {
        if (error)
            *error = std::string("timing steps failed: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        if (error)
            *error = "timing steps failed: " + userMessage(e);
    }
    return std::nullopt;
}

void clearEstimateCache() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_calibrations.clear();
    g_dataCache.clear();
}

Batch probeBatch(int batch, int imgsz, int objects, int nc) {
    Batch out;
    out.images = torch::rand({batch, 3, imgsz, imgsz});
    const std::int64_t n = std::int64_t(batch) * objects;
    auto targets = torch::empty({n, 6});
    targets.select(1, 0).copy_(torch::arange(batch).repeat_interleave(objects).to(torch::kFloat));
    targets.select(1, 1).copy_(torch::randint(std::max(nc, 1), {n}).to(torch::kFloat));
    targets.narrow(1, 2, 2).copy_(torch::rand({n, 2}) * 0.6 + 0.2);
    targets.narrow(1, 4, 2).copy_(torch::rand({n, 2}) * 0.25 + 0.05);
    out.targets = targets;
    out.paths.assign(std::size_t(batch), std::string());
    return out;
}

} // namespace hr
