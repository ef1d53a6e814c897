// SPDX-License-Identifier: GPL-3.0-or-later
#include "advisor/oom_diagnosis.h"

#include "advisor/fix_advisor.h"
#include "advisor/fix_levers.h"
#include "config/train_rules.h"
#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace hr {
namespace {

const char* phaseSubject(Phase phase) {
    switch (phase) {
    case Phase::Data:
        return "Moving the batch to the device";
    case Phase::Forward:
        return "The forward pass";
    case Phase::Loss:
        return "The loss (target assignment)";
    case Phase::Backward:
        return "The backward pass";
    case Phase::Optimizer:
        return "The optimizer step";
    case Phase::Ema:
        return "The EMA update";
    case Phase::Validation:
        return "Validation";
    case Phase::Loader:
        return "Assembling the batch in the data loader";
    case Phase::Checkpoint:
        return "Writing the checkpoint";
    case Phase::Probe:
        return "A probe step";
    case Phase::Idle:
        break;
    }
    return "A training step";
}

std::string optimizerStateName(const TrainConfig& c) {
    const std::string name = toLower(c.optimizer);
    if (name == "adamw")
        return "AdamW state";
    if (name == "adam")
        return "Adam state";
    if (name == "sgd")
        return "SGD momentum";
    return "optimizer state";
}

std::string listWords(const std::vector<std::string>& words) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out += i + 1 == words.size() ? " and " : ", ";
        out += words[i];
    }
    return out;
}

int anchorsAt(int imgsz) {
    int total = 0;
    for (int stride : {8, 16, 32})
        total += (imgsz / stride) * (imgsz / stride);
    return total;
}

} // namespace

bool hostFailureInCpuStep(const OomReport& r) {
    if (!r.hostMemory || advisor::isCuda(r.device))
        return false;
    switch (r.phase) {
    case Phase::Forward:
    case Phase::Loss:
    case Phase::Backward:
    case Phase::Optimizer:
    case Phase::Ema:
    case Phase::Validation:
        return true;
    default:
        return false;
    }
}

std::string describeOom(const OomReport& r) {
    const TrainConfig& c = r.config;
    std::ostringstream out;
    const std::string where = "(epoch " + std::to_string(r.epoch + 1) + ", step " +
                              std::to_string(r.batchIndex + 1) + ")";

    if (r.hostMemory) {
        out << "Host RAM ran out, not the device: " << phaseSubject(r.phase) << ' ' << where
            << " could not allocate";
        if (r.requestedBytes > 0)
            out << ' ' << formatBytes(r.requestedBytes);
        out << ". In host memory live the image cache (cache=" << c.cache << "), " << c.workers
            << " loader workers with their prefetched batches, and mosaic";
        if (c.mixup > 0.0)
            out << "/mixup";
        if (hostFailureInCpuStep(r))
            out << " canvases. On the CPU host RAM also holds the step's tensors, so device "
                   "settings (batch, AMP, checkpointing) help as well as host fixes.";
        else
            out << " canvases. Device settings (batch, AMP, checkpointing) would not help; host "
                   "fixes would.";
        return out.str();
    }

    const std::int64_t need = std::max(r.peakBytes, r.allocatedBytes + r.requestedBytes);
    const std::int64_t resident = std::min(r.breakdown.resident(), need);
    const bool validation = r.phase == Phase::Validation;
    const int batch = validation ? validationBatch(c) : c.batch;

    out << phaseSubject(r.phase) << (validation ? " with batch " : " of batch ") << batch << " at "
        << c.imgsz << " px " << where << " needed " << formatBytes(need - resident)
        << (validation ? " for activations and batch data" : " of activations and batch data");

    std::vector<std::string> held;
    if (r.breakdown.weights > 0)
        held.push_back("weights");
    if (r.breakdown.gradients > 0)
        held.push_back("gradients");
    if (r.breakdown.optimizerState > 0)
        held.push_back(optimizerStateName(c));
    if (r.breakdown.ema > 0)
        held.push_back("the EMA copy");
    if (!held.empty())
        out << "; " << listWords(held) << (held.size() > 1 ? " hold " : " holds ")
            << formatBytes(resident);
    if (r.budgetBytes > 0)
        out << "; the budget is " << formatBytes(r.budgetBytes);
    out << '.';
    if (r.requestedBytes > 0)
        out << " The failed request was " << formatBytes(r.requestedBytes) << " with "
            << formatBytes(r.allocatedBytes) << " in use.";

    switch (r.phase) {
    case Phase::Validation:
        out << " Validation keeps no gradients, but it runs " << batch
            << " images at once; a smaller validation batch fixes this without changing "
               "training.";
        break;
    case Phase::Loss:
        out << " The task-aligned assigner builds tensors of batch x objects x "
            << anchorsAt(c.imgsz) << " anchors, so images with many objects make the loss the "
            << "peak; assigning in chunks of images bounds them.";
        break;
    case Phase::Optimizer:
        out << " The optimizer step needs room for its state ("
            << (toLower(c.optimizer) == "sgd" ? "SGD: one tensor per weight"
                                              : "Adam/AdamW: two tensors per weight")
            << "), created on the first step.";
        break;
    case Phase::Backward:
        out << " Backward holds the forward's saved activations while it creates gradients.";
        break;
    default:
        break;
    }

    if (!r.timeline.empty() && r.device.rfind("cuda", 0) == 0) {
        const MemorySample& last = r.timeline.back();
        const std::int64_t cached = last.reserved - last.allocated;
        if (cached > 0 && r.budgetBytes > 0 && cached * 10 >= r.budgetBytes)
            out << " The CUDA allocator held " << formatBytes(last.reserved) << " reserved for "
                << formatBytes(last.allocated) << " allocated: " << formatBytes(cached)
                << " sat in cached blocks (fragmentation).";
    }
    return out.str();
}

std::string adviceToJson(const OomReport& report, const std::vector<FixSuggestion>& fixes) {
    std::ostringstream out;
    out << "{\"phase\":\"" << toString(report.phase)
        << "\",\"host_memory\":" << (report.hostMemory ? "true" : "false") << ",\"diagnosis\":\""
        << jsonEscape(describeOom(report)) << "\",\"fixes\":" << fixSuggestionsToJson(fixes) << '}';
    return out.str();
}

std::string describeFixCheck(const FixChecked& check) {
    std::string text;
    if (check.predictedPeak <= 0) {
        text = "measured peak " + formatBytes(check.measuredPeak) + " (no prediction)";
    } else {
        const double error = (static_cast<double>(check.measuredPeak) - check.predictedPeak) /
                             static_cast<double>(check.predictedPeak);
        char percent[32];
        std::snprintf(percent, sizeof percent, "%+.0f%%", error * 100.0);
        text = "predicted " + formatBytes(check.predictedPeak) + ", measured " +
               formatBytes(check.measuredPeak) + " (" + percent + ")";
    }
    if (check.timedSteps > 0 && check.measuredSecondsPerImage > 0) {
        char time[160];
        if (check.predictedSecondsPerImage > 0)
            std::snprintf(
                time, sizeof time,
                "; time per image predicted %.1f ms, measured %.1f ms (%+.0f%%) over "
                "%d steps",
                check.predictedSecondsPerImage * 1e3, check.measuredSecondsPerImage * 1e3,
                100.0 * (check.measuredSecondsPerImage / check.predictedSecondsPerImage - 1.0),
                check.timedSteps);
        else
            std::snprintf(time, sizeof time,
                          "; time per image measured %.1f ms over %d steps (no prediction)",
                          check.measuredSecondsPerImage * 1e3, check.timedSteps);
        text += time;
    }
    return text;
}

} // namespace hr
