// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/calibration.h"

#include "config/train_rules.h"

#include "estimate/probe_batch.h"
#include "estimate/probe_session.h"
#include "model/detection_model.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace hr::estimate {

bool Calibration::complete(const TrainConfig& config) const {
    return !derived && (valLargeProbed || validationBatch(config) < kValLargeFrom);
}

namespace {

/// The line through two timings, images against seconds, through the larger batch's point:
/// the per-step part (intercept) is never negative and neither is the per-image part, whatever
/// the noise of two medians.
Line timeLine(double x1, double y1, double x2, double y2) {
    Line line;
    line.slope = std::clamp((y2 - y1) / (x2 - x1), 0.0, std::max(0.0, y2 / x2));
    line.intercept = y2 - line.slope * x2;
    return line;
}

} // namespace

Line fitLine(double x1, double y1, double x2, double y2) {
    Line line;
    line.slope = std::max(0.0, (y2 - y1) / (x2 - x1));
    line.intercept = y1 - line.slope * x1;
    return line;
}

std::int64_t plannedIterations(const TrainConfig& config, const DataFacts& facts) {
    const int batch = std::max(config.batch, 1);
    const double perEpoch =
        std::ceil(double(std::max(facts.trainImages, 1)) / double(std::max(batch, config.nbs)));
    return static_cast<std::int64_t>(perEpoch * std::max(config.epochs, 1));
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

} // namespace hr::estimate
