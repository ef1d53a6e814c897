// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/auto_fit.h"

#include "estimate/memory_estimator.h"
#include "util/bytes.h"

#include <algorithm>
#include <cmath>

namespace hr {

namespace {

constexpr double kUsableFraction = 0.9;
constexpr int kSmallestImgsz = 128;

std::int64_t peakOf(const MemoryEstimate& e) {
    return std::max(e.trainPeak, e.valPeak);
}

std::string describe(const TrainConfig& c) {
    std::string text = "imgsz " + std::to_string(c.imgsz) + ", AMP " + (c.amp ? "on" : "off") +
                       ", checkpointing " + toString(c.checkpointing);
    return text;
}

/// The largest batch in [1, maxBatch] whose training and validation peaks stay under `target`;
/// 0 when even batch 1 does not fit. The estimate is linear in the batch, so each probe is a
/// cached lookup.
int largestBatch(TrainConfig config, int maxBatch, std::int64_t target, MemoryEstimate& at,
                 std::string* error) {
    int lo = 0, hi = maxBatch; // invariant: lo fits (0 = none), everything above hi does not
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

} // namespace

FitResult fitToBudget(const TrainConfig& config, std::int64_t budget, std::string* error) {
    FitResult result;
    result.config = config;
    result.budget = budget;
    result.target = static_cast<std::int64_t>(double(budget) * kUsableFraction);
    const int maxBatch = config.batch > 0 ? config.batch : std::max(config.nbs, 1);

    // The variants in the order of the decision flow: as configured, then AMP, then
    // checkpointing, then smaller images.
    std::vector<std::pair<TrainConfig, std::string>> variants;
    variants.emplace_back(config, "");
    TrainConfig next = config;
    if (!next.amp) {
        next.amp = true;
        variants.emplace_back(next, "turned AMP on (batch 1 did not fit without it)");
    }
    if (next.checkpointing != Checkpointing::All) {
        next.checkpointing = Checkpointing::All;
        variants.emplace_back(next, "turned gradient checkpointing on (batch 1 did not fit with "
                                    "AMP alone)");
    }
    for (int imgsz = (next.imgsz - 1) / 32 * 32; imgsz >= kSmallestImgsz; imgsz -= 32) {
        next.imgsz = imgsz;
        variants.emplace_back(next, "lowered the image size to " + std::to_string(imgsz) +
                                        " (batch 1 did not fit at the larger size)");
    }

    std::int64_t smallestPeak = 0;
    std::int64_t firstPeak = 0;
    for (const auto& [variant, why] : variants) {
        if (!why.empty())
            result.reasons.push_back(why);
        MemoryEstimate at;
        const int batch = largestBatch(variant, maxBatch, result.target, at, error);
        if (batch < 0) {
            result.summary.clear();
            return result; // estimation failed; `error` says why
        }
        if (batch > 0) {
            result.fits = true;
            result.config = variant;
            result.config.batch = batch;
            result.trainPeak = at.trainPeak;
            result.valPeak = at.valPeak;
            result.accumulate = accumulateSteps(result.config);
            result.reasons.push_back(
                "batch " + std::to_string(batch) + " is the largest that fits (" +
                describe(variant) + "): training peak " + formatBytes(at.trainPeak) +
                ", validation peak " + formatBytes(at.valPeak) + " of " +
                formatBytes(result.target) + " (90% of " + formatBytes(budget) + ")");
            if (result.accumulate > 1)
                result.reasons.push_back("accumulating " + std::to_string(result.accumulate) +
                                         " batches keeps the nominal batch of " +
                                         std::to_string(config.nbs));
            result.summary = "batch " + std::to_string(batch) + " x accumulate " +
                             std::to_string(result.accumulate) + ", " + describe(result.config) +
                             ": predicted peak " + formatBytes(peakOf(at)) + " of a " +
                             formatBytes(budget) + " budget";
            return result;
        }
        TrainConfig one = variant;
        one.batch = 1;
        const MemoryEstimate e = estimateMemory(one, error);
        if (e.trainPeak <= 0)
            return result;
        if (firstPeak == 0)
            firstPeak = peakOf(e);
        smallestPeak = smallestPeak == 0 ? peakOf(e) : std::min(smallestPeak, peakOf(e));
    }

    result.minimumBudget =
        static_cast<std::int64_t>(std::ceil(double(smallestPeak) / kUsableFraction));
    const TrainConfig& last = variants.back().first;
    result.summary = "Nothing fits in " + formatBytes(budget) + ": even batch 1 with " +
                     describe(last) + " needs " + formatBytes(smallestPeak) +
                     " (batch 1 as configured needs " + formatBytes(firstPeak) +
                     "). The smallest budget that would work is " +
                     formatBytes(result.minimumBudget) + ".";
    return result;
}

FitResult resolveAutoBatch(const TrainConfig& config, std::int64_t deviceBytes,
                           std::string* error) {
    if (config.batch != -1) {
        FitResult unchanged;
        unchanged.fits = true;
        unchanged.config = config;
        unchanged.accumulate = accumulateSteps(config);
        unchanged.summary = "batch " + std::to_string(config.batch) + " as configured";
        return unchanged;
    }
    const std::int64_t budget = config.memory_budget > 0 ? config.memory_budget : deviceBytes;
    return fitToBudget(config, budget, error);
}

} // namespace hr
