// SPDX-License-Identifier: GPL-3.0-or-later
// OOM recovery: an out-of-memory failure caught in any phase becomes a report, the handler's
// decision, and the new config applied to the live run.
#include "train/trainer_impl.h"

#include "config/settings_table.h"
#include "memory/resident_memory.h"
#include "util/bytes.h"
#include "util/speed_checks.h"
#include "util/text.h"
#include "util/user_message.h"

#include <algorithm>
#include <cstdlib>

#ifdef HEADROOM_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace hr {

namespace {

bool sameTrainLoader(const TrainConfig& a, const TrainConfig& b) {
    return sameSettings(a, b, kAffectsLoader);
}

bool sameValLoader(const TrainConfig& a, const TrainConfig& b) {
    // A fix keeps the device, and the fields compared here do not depend on it.
    const torch::Device cpu(torch::kCPU);
    const LoaderOptions x = LoaderOptions::fromConfig(a, false, cpu);
    const LoaderOptions y = LoaderOptions::fromConfig(b, false, cpu);
    return x.imgsz == y.imgsz && x.batch == y.batch && x.workers == y.workers && x.cache == y.cache;
}

} // namespace

bool isOomMessage(const std::string& message) {
    const std::string lower = toLower(message);
    return lower.find("out of memory") != std::string::npos ||
           lower.find("headroom budget: tried to allocate") != std::string::npos ||
           lower.find("cuda_error_out_of_memory") != std::string::npos ||
           lower.find("cudnn_status_alloc_failed") != std::string::npos;
}

OomFailure oomFailureOfCurrentException() {
    try {
        throw;
    } catch (const c10::OutOfMemoryError& e) {
        return OomFailure{e.what_without_backtrace(), false};
    } catch (const c10::Error& e) {
        if (!isOomMessage(e.what_without_backtrace()))
            throw;
        return OomFailure{e.what_without_backtrace(), false};
    } catch (const std::bad_alloc& e) {
        return OomFailure{std::string("host memory exhausted: ") + e.what(), true};
    }
}

HostFault HostFault::fromEnvironment() {
    HostFault fault;
    const char* text = std::getenv("HEADROOM_TEST_HOST_ALLOC_FAIL");
    if (!text || !*text)
        return fault;
    const std::string value(text);
    const std::size_t colon = value.find(':');
    if (colon != std::string::npos && parsePhase(value.substr(0, colon), fault.phase))
        fault.left = std::max(0, std::atoi(value.c_str() + colon + 1));
    return fault;
}

void Trainer::Impl::fillSnapshot(OomReport& report, const OomFailure& failure) {
    report.breakdown = step ? step->residentMemory() : MemoryBreakdown{};
    report.breakdown.batchData = failure.hostMemory ? 0 : failedBatchBytes;
    report.requestedBytes = parseRequestedBytes(failure.message);
    if (probe) {
        report.budgetBytes = probe->budget() > 0 ? probe->budget() : probe->capacity();
        const AllocationFailure snap = probe->lastFailure();
        if (snap.serial != 0 && snap.serial != lastFailureSerial && !failure.hostMemory) {
            // The refusal this failure came from: every figure from that one moment.
            lastFailureSerial = snap.serial;
            report.requestedBytes = snap.requested;
            report.allocatedBytes = snap.allocated;
            report.peakBytes = snap.peak;
            report.budgetBytes = snap.budget;
        } else {
            // No snapshot (CUDA, host RAM): the allocator's message names what was in use;
            // the probe's figures come after the failed step released its memory.
            report.allocatedBytes = parseAllocatedBytes(failure.message);
            if (report.allocatedBytes == 0)
                report.allocatedBytes = probe->allocated();
            report.peakBytes = std::max(probe->peak(), report.allocatedBytes);
            if (report.requestedBytes == 0)
                report.requestedBytes = probe->lastFailedRequest();
        }
    }
    // The bars add up to what the failed moment needed: in use + the refused request (or the
    // step's peak before it, when higher).
    attributePeak(report.breakdown,
                  std::max(report.peakBytes, report.allocatedBytes + report.requestedBytes));
}

std::optional<OomStop> Trainer::Impl::budgetTooSmall(const std::string& held) {
    const std::int64_t budget = config.memory_budget;
    if (budget <= 0)
        return std::nullopt;
    std::int64_t works = 0;
    if (minimumBudget) {
        if (probe)
            probe->setBudget(0); // the estimator's probe steps measure without the budget
        try {
            works = minimumBudget(config);
        } catch (const std::exception&) {
            works = 0;
        }
        if (probe)
            probe->setBudget(budget);
    }
    const std::string what = config.model + " at " + std::to_string(config.imgsz) + " px";
    const std::string imgsz = std::to_string(config.imgsz);
    if (works > budget) {
        const std::int64_t mib = std::int64_t(1) << 20;
        const std::string needed = std::to_string((works + mib - 1) / mib);
        return OomStop("memory_budget " + formatBytes(budget) + " is too small for " + what +
                           " whatever the batch, AMP, checkpointing or image size: set "
                           "memory_budget=" +
                           needed + "MiB or more (or use a smaller model) and start again.",
                       "budget_too_small", {formatBytes(budget), config.model, imgsz, needed});
    }
    if (held.empty())
        return std::nullopt;
    return OomStop("memory_budget " + formatBytes(budget) + " is too small: " + held + " of " +
                       what +
                       " do not fit in it, so raise memory_budget (or remove it) and "
                       "start again.",
                   "budget_too_small_for_model", {formatBytes(budget), config.model, imgsz});
}

bool Trainer::Impl::recover(const OomFailure& failure, Phase phase, int epoch, int batchIndex) {
    // Whatever the failed step held is gone with the unwound stack; drop the gradients of the
    // broken accumulation group too and give cached blocks back.
    step->resetAccumulation();
#ifdef HEADROOM_WITH_CUDA
    if (device.is_cuda())
        c10::cuda::CUDACachingAllocator::emptyCache();
#endif
    OomReport report;
    report.phase = phase;
    report.rawMessage = userText(failure.message);
    report.hostMemory = failure.hostMemory;
    report.config = config;
    report.epoch = epoch;
    report.batchIndex = batchIndex;
    report.device = device.str();
    fillSnapshot(report, failure);
    if (sampler) {
        const MemorySample mark = sampler->markOom(phase, report.allocatedBytes, report.peakBytes);
        report.seconds = mark.seconds;
        report.timeline = sampler->timelineSince(5.0);
    }
    drainSamples();
    emit(OomOccurred{report});
    if (folder)
        folder->writeOomReport(report);
    if (++oomsWithoutProgress > 8) {
        if (auto why = budgetTooSmall())
            throw *why;
    }
    if (oomsWithoutProgress > 8)
        throw OomStop("out of memory " + std::to_string(oomsWithoutProgress - 1) +
                          " times in a row without a completed step; giving up",
                      "oom_repeated", {std::to_string(oomsWithoutProgress - 1)});
    const OomDecision decision = decideFix(report, phase);
    if (decision.stop) {
        // A person who stopped the run (or closed the studio) wants it ended now, not an
        // estimate of the smallest budget first; and a fix that fits shows the budget is not
        // too small.
        if (!stopRequested && !decision.fixFits)
            if (auto why = budgetTooSmall())
                throw *why;
        return false;
    }
    const Diagnostics problems = hr::validate(decision.config, "fix " + decision.fixId);
    if (hasErrors(problems))
        throw RunError("the fix '" + decision.fixId + "' gave an invalid config:\n" +
                           formatDiagnostics(problems),
                       "fix_invalid", argsWithDiagnostics({decision.fixId}, problems));
    applyFix(decision, epoch, batchIndex);
    if (probe)
        probe->resetPeak();
    return true;
}

void Trainer::Impl::applyFix(const OomDecision& decision, int epoch, int batchIndex) {
    const TrainConfig previous = config;
    config = decision.config;
    // Process-level settings are not the fix's to change.
    config.resume = previous.resume;
    if (config.memory_budget != previous.memory_budget && probe)
        probe->setBudget(config.memory_budget);
    if (!sameTrainLoader(previous, config)) {
        makeTrainLoader();
        schedule->setBatch(config.batch, batchesPerEpoch());
    }
    if (!sameValLoader(previous, config))
        valLoader.reset(); // rebuilt at the next validation
    step->applyConfig(config);
    if (folder)
        folder->writeConfig(config);
    FixApplied applied;
    applied.fixId = decision.fixId;
    applied.description = decision.description;
    applied.config = config;
    applied.predictedPeak = decision.predictedPeak;
    applied.epoch = epoch;
    applied.batchIndex = batchIndex;
    emit(applied);
    double seconds = 0;
    std::int64_t images = 0;
    for (const auto& [stepSeconds, stepImages] : recentSteps) {
        seconds += stepSeconds;
        images += stepImages;
    }
    fixCheck = FixCheck{};
    fixCheck.active = true;
    fixCheck.fixId = decision.fixId;
    fixCheck.predicted = decision.predictedPeak;
    fixCheck.correction = decision.speedCorrection;
    if (images > 0 && decision.speedFactor > 0 &&
        recentSteps.size() >= static_cast<std::size_t>(kFixBaseSteps))
        fixCheck.predictedPerImage = seconds / double(images) * decision.speedFactor;
    recentSteps.clear();
    recentWarmUp = kUntimedSteps;
    peakSinceFix = 0;
}

void Trainer::Impl::emitFixCheck() {
    FixChecked check{fixCheck.fixId, fixCheck.predicted, peakSinceFix};
    check.predictedSecondsPerImage = fixCheck.predictedPerImage;
    check.timedSteps = fixCheck.steps;
    if (fixCheck.images > 0)
        check.measuredSecondsPerImage = fixCheck.seconds / double(fixCheck.images);
    if (check.timedSteps >= kFixCheckSteps && check.predictedSecondsPerImage > 0 &&
        check.measuredSecondsPerImage > 0 && leader())
        recordSpeedCheck(device.str(), fixCheck.fixId,
                         fixCheck.correction * check.measuredSecondsPerImage /
                             check.predictedSecondsPerImage);
    emit(check);
    fixCheck.active = false;
}

void Trainer::Impl::noteStepTime(double seconds, std::int64_t images) {
    // A step at new shapes (a run's first, a fix's first) times neither the base nor the check.
    if (recentWarmUp > 0) {
        --recentWarmUp;
        return;
    }
    recentSteps.emplace_back(seconds, images);
    while (recentSteps.size() > static_cast<std::size_t>(kFixCheckSteps))
        recentSteps.pop_front();
    if (!fixCheck.active)
        return;
    fixCheck.seconds += seconds;
    fixCheck.images += images;
    if (++fixCheck.steps >= kFixCheckSteps && fixCheck.epochEnded)
        emitFixCheck();
}

} // namespace hr
