// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/auto_fit.h"

#include "config/train_rules.h"
#include "estimate/memory_estimator.h"
#include "util/bytes.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace hr {

namespace {

constexpr int kSmallestImgsz = 128;

std::int64_t peakOf(const MemoryEstimate& e) {
    return std::max(e.trainPeak, e.valPeak);
}

std::string describe(const FitVariant& v) {
    return "imgsz " + std::to_string(v.imgsz) + ", AMP " + (v.amp ? "on" : "off") +
           ", checkpointing " + toString(v.checkpointing);
}

/// Records a decision: its code and values, and its English.
void decide(FitResult& result, const FitDecision& decision) {
    result.decisions.push_back(decision);
    result.reasons.push_back(fitDecisionText(decision, result));
}

/// Sets the outcome and its English summary.
void conclude(FitResult& result, FitOutcome outcome) {
    result.outcome = outcome;
    result.fits = outcome == FitOutcome::Fits || outcome == FitOutcome::AsConfigured;
    result.summary = fitSummaryText(result);
}

/// The largest batch in [1, maxBatch] whose training and validation peaks stay under `target`;
/// 0 when even batch 1 does not fit. After the calibration each prediction is a cached
/// lookup (validation batches of 12 and more add one more calibration).
int largestBatch(TrainConfig config, int maxBatch, std::int64_t target, MemoryEstimate& at,
                 std::string* error) {
    // Batch 1 first: a variant where it does not fit needs no larger batch's prediction (a
    // validation batch of 12 or more would add probes at 16 and 24 images).
    config.batch = 1;
    const MemoryEstimate one = estimateMemory(config, error);
    if (one.trainPeak <= 0)
        return -1;
    if (peakOf(one) > target)
        return 0;
    at = one;
    int lo = 1, hi = maxBatch; // invariant: lo fits, everything above hi does not
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        config.batch = mid;
        const MemoryEstimate e = estimateMemory(config, error);
        if (e.trainPeak <= 0)
            return -1;
        if (peakOf(e) <= target) {
            lo = mid;
            at = e;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/// The smallest budget whose usable part holds `peak`.
std::int64_t budgetFor(std::int64_t peak) {
    auto budget = static_cast<std::int64_t>(std::ceil(double(peak) / kFitSafety));
    while (static_cast<std::int64_t>(double(budget) * kFitSafety) < peak)
        ++budget;
    return budget;
}

/// The predicted peak of `config` at batch 1, or -1 when estimation fails.
std::int64_t batchOnePeak(TrainConfig config, std::string* error) {
    config.batch = 1;
    const MemoryEstimate e = estimateMemory(config, error);
    return e.trainPeak > 0 ? peakOf(e) : -1;
}

/// "Nothing fits" when the resident state alone passes the target: no batch, image size, AMP
/// or checkpointing changes it, so no variant needs calibrating. The smallest budget is that
/// of the decision flow's last variant at batch 1 (one calibration, at its small image size).
void explainResidentFloor(const TrainConfig& last, const MemoryBreakdown& floor, FitResult& result,
                          std::string* error) {
    const std::int64_t lastPeak = batchOnePeak(last, error);
    if (lastPeak < 0)
        return; // estimation failed: no outcome
    result.minimumBudget = budgetFor(std::max(lastPeak, floor.total));
    result.smallestVariant = fitVariantOf(last);
    result.smallestPeak = lastPeak;
    result.floor = floor;
    FitDecision decision;
    decision.kind = FitDecision::Kind::ResidentFloor;
    decision.floor = floor;
    decide(result, decision);
    conclude(result, FitOutcome::ResidentFloor);
}

} // namespace

FitVariant fitVariantOf(const TrainConfig& c) {
    return FitVariant{c.imgsz, c.amp, c.checkpointing};
}

std::string fitDecisionText(const FitDecision& d, const FitResult& fit) {
    switch (d.kind) {
    case FitDecision::Kind::AmpOn:
        return "turned AMP on (batch 1 did not fit without it)";
    case FitDecision::Kind::CheckpointingOn:
        return "turned gradient checkpointing on (batch 1 did not fit with AMP alone)";
    case FitDecision::Kind::TooLargeAtSmallest:
        return "batch 1 with " + describe(d.variant) + " does not fit even at " +
               std::to_string(d.imgsz) + " px";
    case FitDecision::Kind::ImgszLowered:
        return "lowered the image size to " + std::to_string(d.imgsz) +
               " (batch 1 did not fit at " + std::to_string(d.fromImgsz) +
               "; the largest multiple of 32 that fits, found by bisection)";
    case FitDecision::Kind::LargestBatch:
        return "batch " + std::to_string(d.batch) + " is the largest that fits (" +
               describe(d.variant) + "): training peak " + formatBytes(d.trainPeak) +
               ", validation peak " + formatBytes(d.valPeak) + " of " + formatBytes(fit.target) +
               " (90% of " + formatBytes(fit.budget) + ")";
    case FitDecision::Kind::Accumulate:
        return "accumulating " + std::to_string(d.accumulate) +
               " batches keeps the nominal batch of " + std::to_string(d.nbs);
    case FitDecision::Kind::ResidentFloor:
        return "the weights (" + formatBytes(d.floor.weights) + "), gradients (" +
               formatBytes(d.floor.gradients) + "), optimizer state (" +
               formatBytes(d.floor.optimizerState) + ") and EMA (" + formatBytes(d.floor.ema) +
               ") of " + fit.config.model + " take " + formatBytes(d.floor.total) +
               " whatever the batch, image size, AMP or checkpointing: more than " +
               formatBytes(fit.target) + " (90% of " + formatBytes(fit.budget) +
               "), so no variant was tried";
    }
    return {};
}

std::string fitSummaryText(const FitResult& fit) {
    switch (fit.outcome) {
    case FitOutcome::Failed:
        return {};
    case FitOutcome::Fits:
        return "batch " + std::to_string(fit.config.batch) + " x accumulate " +
               std::to_string(fit.accumulate) + ", " + describe(fitVariantOf(fit.config)) +
               ": predicted peak " + formatBytes(std::max(fit.trainPeak, fit.valPeak)) + " of a " +
               formatBytes(fit.budget) + " budget";
    case FitOutcome::AsConfigured:
        return "batch " + std::to_string(fit.config.batch) + " as configured";
    case FitOutcome::ResidentFloor: {
        std::string alternatives = "a smaller model scale";
        if (fit.floor.optimizerState > fit.floor.gradients) // Adam/AdamW: two state tensors
            alternatives += ", SGD instead of Adam/AdamW (one state tensor per weight, not two)";
        alternatives += " or freezing layers (no gradients or optimizer state for them)";
        // One sentence: what does not fit, the smallest budget that works, and what else to do.
        return "Nothing fits in " + formatBytes(fit.budget) +
               ": the weights, gradients, optimizer state and EMA of " + fit.config.model +
               " alone need " + formatBytes(fit.floor.total) +
               " whatever the batch, image size, AMP or checkpointing, so the smallest "
               "budget that would work is " +
               formatBytes(fit.minimumBudget) + " (batch 1 with " + describe(fit.smallestVariant) +
               " needs " + formatBytes(fit.smallestPeak) + "); below it, use " + alternatives + ".";
    }
    case FitOutcome::NothingFits:
        return "Nothing fits in " + formatBytes(fit.budget) + ": even batch 1 with " +
               describe(fit.smallestVariant) + " needs " + formatBytes(fit.smallestPeak) +
               " (batch 1 as configured needs " + formatBytes(fit.configuredPeak) +
               "), so the smallest budget that would work is " + formatBytes(fit.minimumBudget) +
               "; set at least that, or use a smaller model.";
    }
    return {};
}

FitResult fitToBudget(const TrainConfig& config, std::int64_t budget, std::string* error) {
    FitResult result;
    result.config = config;
    result.budget = budget;
    result.target = static_cast<std::int64_t>(double(budget) * kFitSafety);
    const int maxBatch = config.batch > 0 ? config.batch : std::max(config.nbs, 1);

    // The variants in the order of the decision flow: as configured, then AMP, then
    // checkpointing, then smaller images (the ladder, from index `ladder` on), each with the
    // decision that leads to it (none for the first and the ladder's).
    std::vector<std::pair<TrainConfig, std::optional<FitDecision::Kind>>> variants;
    variants.emplace_back(config, std::nullopt);
    TrainConfig next = config;
    if (!next.amp) {
        next.amp = true;
        variants.emplace_back(next, FitDecision::Kind::AmpOn);
    }
    if (next.checkpointing != Checkpointing::All) {
        next.checkpointing = Checkpointing::All;
        variants.emplace_back(next, FitDecision::Kind::CheckpointingOn);
    }
    const std::size_t ladder = variants.size();
    for (int imgsz = (next.imgsz - 1) / 32 * 32; imgsz >= kSmallestImgsz; imgsz -= 32) {
        TrainConfig smaller = next;
        smaller.imgsz = imgsz;
        variants.emplace_back(smaller, std::nullopt);
    }
    const int smallestImgsz = variants.back().first.imgsz;

    // Weights, gradients, optimizer state and EMA do not shrink with any variant: when they
    // alone pass the target, nothing fits, and no variant needs its probe steps.
    const MemoryBreakdown floor = residentFloor(config, error);
    if (floor.total <= 0)
        return result; // estimation failed; `error` says why
    if (floor.total > result.target) {
        explainResidentFloor(variants.back().first, floor, result, error);
        return result;
    }

    // Peaks grow with the image size at the same settings (every activation does; the
    // resident part stays). So a variant whose batch 1 does not fit at the smallest image size
    // does not fit at its own (it is skipped after one calibration at that cheap size), and the
    // ladder's largest image size at which batch 1 fits is found by bisection.
    std::int64_t smallestPeak = 0;
    std::int64_t firstPeak = 0;
    auto fitsAtOne = [&](const TrainConfig& variant, bool flowVariant) -> int {
        const std::int64_t peak = batchOnePeak(variant, error);
        if (peak < 0)
            return -1;
        if (flowVariant) {
            if (firstPeak == 0)
                firstPeak = peak;
            smallestPeak = smallestPeak == 0 ? peak : std::min(smallestPeak, peak);
        }
        return peak <= result.target ? 1 : 0;
    };
    auto choose = [&](const TrainConfig& variant) -> int {
        MemoryEstimate at;
        const int batch = largestBatch(variant, maxBatch, result.target, at, error);
        if (batch <= 0)
            return batch;
        result.config = variant;
        result.config.batch = batch;
        result.trainPeak = at.trainPeak;
        result.valPeak = at.valPeak;
        result.accumulate = accumulateSteps(result.config);
        FitDecision largest;
        largest.kind = FitDecision::Kind::LargestBatch;
        largest.variant = fitVariantOf(variant);
        largest.batch = batch;
        largest.trainPeak = at.trainPeak;
        largest.valPeak = at.valPeak;
        decide(result, largest);
        if (result.accumulate > 1) {
            FitDecision accumulate;
            accumulate.kind = FitDecision::Kind::Accumulate;
            accumulate.accumulate = result.accumulate;
            accumulate.nbs = config.nbs;
            decide(result, accumulate);
        }
        conclude(result, FitOutcome::Fits);
        return batch;
    };

    for (std::size_t i = 0; i < ladder; ++i) {
        const auto& [variant, why] = variants[i];
        if (why) {
            FitDecision decision;
            decision.kind = *why;
            decide(result, decision);
        }
        if (i > 0 && variant.imgsz > smallestImgsz) {
            TrainConfig small = variant;
            small.imgsz = smallestImgsz;
            const int fits = fitsAtOne(small, false);
            if (fits < 0)
                return result;
            if (fits == 0) {
                FitDecision decision;
                decision.kind = FitDecision::Kind::TooLargeAtSmallest;
                decision.variant = fitVariantOf(variant);
                decision.imgsz = smallestImgsz;
                decide(result, decision);
                continue;
            }
        }
        const int batch = choose(variant);
        if (batch < 0)
            return result; // estimation failed; `error` says why
        if (batch > 0)
            return result;
        if (fitsAtOne(variant, true) < 0)
            return result;
    }

    if (ladder < variants.size()) {
        // Bisection over the ladder (image sizes falling): the first size whose batch 1 fits.
        std::size_t lo = ladder, hi = variants.size() - 1;
        const int smallestFits = fitsAtOne(variants[hi].first, true);
        if (smallestFits < 0)
            return result;
        if (smallestFits == 1) {
            while (lo < hi) {
                const std::size_t mid = (lo + hi) / 2;
                const int fits = fitsAtOne(variants[mid].first, true);
                if (fits < 0)
                    return result;
                if (fits == 1)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            const TrainConfig& chosen = variants[hi].first;
            FitDecision lowered;
            lowered.kind = FitDecision::Kind::ImgszLowered;
            lowered.imgsz = chosen.imgsz;
            lowered.fromImgsz = hi > ladder ? chosen.imgsz + 32 : config.imgsz;
            decide(result, lowered);
            if (choose(chosen) <= 0) {
                result.fits = false;
                result.outcome = FitOutcome::Failed;
                result.summary.clear();
            }
            return result;
        }
    }

    result.minimumBudget = budgetFor(smallestPeak);
    result.smallestVariant = fitVariantOf(variants.back().first);
    result.smallestPeak = smallestPeak;
    result.configuredPeak = firstPeak;
    conclude(result, FitOutcome::NothingFits);
    return result;
}

std::int64_t smallestWorkingBudget(const TrainConfig& config) {
    if (config.memory_budget <= 0)
        return 0;
    std::string error;
    const FitResult fit = fitToBudget(config, config.memory_budget, &error);
    return !fit.fits && error.empty() ? fit.minimumBudget : 0;
}

FitResult resolveAutoBatch(const TrainConfig& config, std::int64_t deviceBytes,
                           std::string* error) {
    if (config.batch != -1) {
        FitResult unchanged;
        unchanged.config = config;
        unchanged.accumulate = accumulateSteps(config);
        conclude(unchanged, FitOutcome::AsConfigured);
        return unchanged;
    }
    const std::int64_t budget = config.memory_budget > 0 ? config.memory_budget : deviceBytes;
    return fitToBudget(config, budget, error);
}

} // namespace hr
