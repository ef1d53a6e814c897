// SPDX-License-Identifier: GPL-3.0-or-later
// The rough predictor built from an OOM report's measured breakdown (no estimator).
#include "advisor/fix_advisor.h"

#include "advisor/fix_levers.h"
#include "config/train_rules.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>

namespace hr {

PeakPredictor reportScalingPredictor(const OomReport& report) {
    const TrainConfig base = report.config;
    const MemoryBreakdown parts = report.breakdown;
    const Phase phase = report.phase;
    const std::int64_t need = advisor::observedNeed(report);
    const std::int64_t resident = std::min(parts.resident(), need);
    // What the failed phase added on top of the resident state: activations and batch data.
    // The optimizer step and the EMA update add temporaries that do not scale with the batch.
    const bool stepPhase = phase == Phase::Optimizer || phase == Phase::Ema;
    // A forward pass that failed had not finished, and backward holds more than forward's
    // end: what it showed is a lower bound. Assume a whole step needs twice what was seen (a
    // cautious guess that may cost some speed, never another OOM as often as a low one); the
    // loss phase sits at forward's end, so backward's extra alone remains. The estimator,
    // when the caller passes it, replaces this guess with calibrated numbers.
    const double unfinished = phase == Phase::Forward ? 2.0 : (phase == Phase::Loss ? 1.3 : 1.0);
    const double variable = stepPhase ? 0.0 : unfinished * static_cast<double>(need - resident);
    const double stepExtra = stepPhase ? static_cast<double>(need - resident) : 0.0;
    // State tensors per weight: AdamW/Adam two, SGD one (momentum); "auto" picks AdamW for the
    // short runs where it matters here (Ultralytics' rule).
    auto stateTensors = [](const TrainConfig& c) {
        if (c.optimizer_offload)
            return 0.0;
        return toLower(c.optimizer) == "sgd" ? 1.0 : 2.0;
    };
    auto ranks = [](const TrainConfig& c) { return std::max(c.nproc, 1); };
    auto stepImages = [](const TrainConfig& c) {
        return static_cast<double>(rankBatch(c.batch, c.nproc));
    };
    // The share of the optimizer state one rank keeps (ZeRO-1 shards it over the ranks).
    auto stateShare = [ranks](const TrainConfig& c) { return c.zero == 1 ? 1.0 / ranks(c) : 1.0; };
    const double w = static_cast<double>(parts.weights);
    // On the first step gradients and optimizer state do not exist yet when forward/backward
    // fail; a full step will hold them, so count them at their full size.
    const double grads = std::max(static_cast<double>(parts.gradients), w);
    const double baseState = std::max(static_cast<double>(parts.optimizerState),
                                      stateTensors(base) * w * stateShare(base));
    return [=](const TrainConfig& c) -> std::optional<std::int64_t> {
        if (c.checkpointing != base.checkpointing || c.freeze != base.freeze ||
            c.model != base.model || c.model_scale != base.model_scale ||
            c.assign_chunk != base.assign_chunk || (base.optimizer_offload && !c.optimizer_offload))
            return std::nullopt;
        if (base.batch <= 0 || base.imgsz <= 0)
            return std::nullopt;
        // Data parallel (the estimator's rule): a rank trains on batch / nproc images, rank 0
        // validates at the whole validation batch, ZeRO-1 keeps 1/nproc of the state, and
        // the gradient all-reduce adds up to one copy of the gradients.
        const double side = static_cast<double>(c.imgsz) / base.imgsz;
        const double images = phase == Phase::Validation
                                  ? static_cast<double>(validationBatch(c)) / validationBatch(base)
                                  : stepImages(c) / stepImages(base);
        double activations = variable * side * side * images;
        // bf16/fp16 autocast keeps about 60% (ARCHITECTURE.md, platform facts).
        if (c.amp && !base.amp)
            activations *= 0.6;
        else if (!c.amp && base.amp)
            activations /= 0.6;
        const double tensors = stateTensors(base) > 0 ? stateTensors(c) / stateTensors(base) : 1.0;
        const double ratio = tensors * stateShare(c) / stateShare(base);
        const double state = baseState * ratio;
        const double copies = (ranks(c) > 1 ? grads : 0.0) - (ranks(base) > 1 ? grads : 0.0);
        const double total = w + static_cast<double>(parts.ema) + grads + state + activations +
                             stepExtra * (stateTensors(base) > 0 ? ratio : 1.0) + copies;
        return static_cast<std::int64_t>(std::llround(total));
    };
}

} // namespace hr
