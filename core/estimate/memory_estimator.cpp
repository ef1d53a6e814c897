// SPDX-License-Identifier: GPL-3.0-or-later
// The estimator's predictions from a calibration: peaks per rank, breakdown, note, step time.
#include "estimate/memory_estimator.h"

#include "dist/zero_sharding.h"
#include "estimate/calibration.h"
#include "estimate/calibration_cache.h"
#include "estimate/host_memory.h"
#include "util/bytes.h"
#include "util/machine.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace hr {

using estimate::Calibration;
using estimate::CalibrationCache;
using estimate::Line;
using estimate::StepLines;

namespace {

/// A batch's images as the loader hands them over: 8-bit (Batch::images).
std::int64_t imageBytes(int batch, int imgsz) {
    return std::int64_t(batch) * 3 * imgsz * imgsz;
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
    const bool large = valBatch >= estimate::kValLargeFrom && calibration.valLargeProbed;
    const Line& val = large ? calibration.valLarge : calibration.val;
    estimate.perImageVal = std::llround(val.slope);
    // Accumulating over several batches keeps the gradients between them (Ultralytics' rule:
    // accumulate = round(nbs / batch), batch being the total over the ranks): every batch of a
    // group but the first starts with them.
    const int accumulate = accumulateSteps(config.nbs, batch);
    const StepLines& lines = accumulate > 1 ? calibration.held : calibration.fresh;
    int peakPart = estimate::PartForward;
    for (int part = 1; part < estimate::kStepParts; ++part)
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
    note << "calibrated with real training steps at batch " << estimate::kProbeBatchSmall << " and "
         << estimate::kProbeBatchLarge << " on " << calibration.device << " ("
         << calibration.objectsPerImage << " targets per image)";
    static const char* const kPartNames[estimate::kStepParts] = {"forward pass", "loss",
                                                                 "backward pass", "optimizer step"};
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
    if (valBatch >= estimate::kValLargeFrom && calibration.valLargeProbed)
        note << "; validation from probes at " << estimate::kValProbeSmall << " and "
             << estimate::kValProbeLarge << " images";
    note << "; validation NMS is sized by an untrained model's few candidates";
    if (calibration.derived)
        note << "; per-image memory scaled by the pixel count from a calibration at another "
                "image size";
    estimate.note = note.str();
    MemoryEstimate::How& how = estimate.how;
    how.probeBatchSmall = estimate::kProbeBatchSmall;
    how.probeBatchLarge = estimate::kProbeBatchLarge;
    how.probeDevice = calibration.device;
    how.peakPart = static_cast<MemoryEstimate::How::PeakPart>(peakPart);
    how.stateShare = ranks > 1 && config.zero == 1 ? stateShare : 1.0;
    if (valBatch >= estimate::kValLargeFrom && calibration.valLargeProbed) {
        how.valProbeSmall = estimate::kValProbeSmall;
        how.valProbeLarge = estimate::kValProbeLarge;
    }
    how.scaledFromOtherSize = calibration.derived;
    return estimate;
}

} // namespace

namespace {
std::optional<MemoryEstimate> estimateWithoutProbing(const TrainConfig& config);

/// False, with `error` filled, when the probe steps of a calibration of `config` would need
/// more host memory than this machine has free (hostMemoryNeed at the larger probe batch): at
/// nc 100000 they took 24 GB and the kernel ended the run, where no figure is the better answer.
bool probesFitHost(const TrainConfig& config, std::string* error) {
    CalibrationCache& cache = CalibrationCache::shared();
    estimate::DataFacts facts;
    {
        const auto held = cache.lock();
        if (!cache.dataFacts(config, facts, nullptr, held))
            return true; // the calibration itself names the data set's problem
    }
    TrainConfig probe = config;
    probe.batch = estimate::kProbeBatchLarge * std::max(config.nproc, 1);
    const std::int64_t need = hostMemoryNeed(probe, facts.nc).bytes;
    const MachineFacts machine = machineFacts();
    if (need <= 0 || machine.availableBytes <= 0 || need <= machine.availableBytes)
        return true;
    if (error)
        *error = "the calibration's probe steps (batch " + std::to_string(estimate::kProbeBatchLarge) +
                 ") would need at least " + formatBytes(need) + " of host memory, and this machine has " +
                 formatBytes(machine.availableBytes) + " available";
    return false;
}
} // namespace

MemoryEstimate estimateMemory(const TrainConfig& config, std::string* error) {
    // A calibration already measured answers at once; the host check (it builds the model
    // for its resident floor) is only for probe steps still to run.
    std::string ignored;
    if (const std::optional<Calibration> known =
            CalibrationCache::shared().calibrationFor(config, false, &ignored);
        known && known->complete(config))
        return estimateFrom(config, *known);
    // New ones must fit the host; until then a scaled calibration answers, if any.
    if (!probesFitHost(config, error)) {
        const std::optional<MemoryEstimate> cached = estimateWithoutProbing(config);
        return cached ? *cached : MemoryEstimate{};
    }
    const std::optional<Calibration> calibration =
        CalibrationCache::shared().calibrationFor(config, true, error);
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
    const std::optional<Calibration> calibration =
        CalibrationCache::shared().calibrationFor(config, false, &error);
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
std::optional<StepTimeEstimate> stepTimeFrom(const TrainConfig& config,
                                             const Calibration& calibration) {
    if (calibration.derived || calibration.times.steps <= 0)
        return std::nullopt;
    const int rankBatch = hr::rankBatch(std::max(config.batch, 1), config.nproc);
    StepTimeEstimate t;
    t.accumulate = accumulateSteps(config.nbs, std::max(config.batch, 1));
    t.stepSeconds = calibration.times.work.at(rankBatch);
    t.optimizerSeconds = calibration.times.optimizer;
    t.secondsPerImage = calibration.times.perImage(rankBatch, t.accumulate);
    t.timedSteps = calibration.times.steps;
    return t;
}
} // namespace

std::optional<StepTimeEstimate> predictStepTime(const TrainConfig& config, std::string* error) {
    const std::optional<Calibration> calibration =
        CalibrationCache::shared().calibrationFor(config, true, error);
    return calibration ? stepTimeFrom(config, *calibration) : std::nullopt;
}

std::optional<StepTimeEstimate> predictStepTimeWithoutProbing(const TrainConfig& config) {
    std::string error;
    const std::optional<Calibration> calibration =
        CalibrationCache::shared().calibrationFor(config, false, &error);
    return calibration ? stepTimeFrom(config, *calibration) : std::nullopt;
}

int assignerObjectsPerImage(const TrainConfig& config) {
    CalibrationCache& cache = CalibrationCache::shared();
    const std::unique_lock<std::mutex> held = cache.lock();
    estimate::DataFacts facts;
    std::string error;
    return cache.dataFacts(config, facts, &error, held) ? facts.objectsPerImage : 0;
}

void clearEstimateCache() {
    CalibrationCache::shared().clear();
}

} // namespace hr
