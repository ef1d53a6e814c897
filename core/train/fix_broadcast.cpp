// SPDX-License-Identifier: GPL-3.0-or-later
// The fix broadcast: in a data-parallel run rank 0 decides each OOM fix and the other ranks
// apply the same one, at the same step.
#include "train/trainer_impl.h"

#include "util/text.h"

#include <cstdlib>
#include <sstream>

namespace hr {

namespace {

/// A fix chosen by rank 0, sent to the other ranks as text: id, description, predicted peak
/// and the YAML of the new config.
std::string encodeDecision(const OomDecision& decision) {
    if (decision.stop)
        return {};
    return decision.fixId + "\n" + decision.description + "\n" +
           std::to_string(decision.predictedPeak) + "\n" + toYaml(decision.config);
}

OomDecision decodeDecision(const std::string& text) {
    OomDecision decision;
    std::istringstream in(text);
    std::string peak;
    if (text.empty() || !std::getline(in, decision.fixId) ||
        !std::getline(in, decision.description) || !std::getline(in, peak))
        return decision;
    const std::string yaml = text.substr(static_cast<size_t>(in.tellg()));
    TrainConfigResult parsed = parseTrainConfig(yaml, "fix from rank 0");
    if (!parsed.config)
        throw RunError("the fix sent by rank 0 is unreadable:\n" +
                           formatDiagnostics(parsed.diagnostics),
                       "fix_broadcast", diagnosticArgs(parsed.diagnostics));
    decision.stop = false;
    decision.config = *parsed.config;
    decision.predictedPeak = std::strtoll(peak.c_str(), nullptr, 10);
    return decision;
}

} // namespace

std::chrono::milliseconds collectiveTimeout() {
    if (const char* text = std::getenv("HEADROOM_DIST_TIMEOUT"); text && *text) {
        const long seconds = std::strtol(text, nullptr, 10);
        if (seconds > 0)
            return std::chrono::seconds(seconds);
    }
    return std::chrono::seconds(600);
}

OomDecision Trainer::Impl::decideFix(const OomReport& report, Phase phase) {
    // Validation runs on rank 0 alone, so its fixes are rank 0's alone too.
    if (!group || phase == Phase::Validation || validating) {
        OomDecision decision = oomHandler ? oomHandler(report) : OomDecision{};
        if (group && !decision.stop)
            validationFix = decision;
        return decision;
    }
    std::string text;
    if (leader() && oomHandler)
        text = encodeDecision(oomHandler(report));
    return decodeDecision(group->broadcastText(text, 0));
}

void Trainer::Impl::shareEpochEnd(int epoch) {
    // Early stopping follows rank 0's validation on every rank.
    torch::Tensor best = torch::full({1}, static_cast<std::int64_t>(bestEpoch));
    group->broadcast(best, 0);
    bestEpoch = static_cast<int>(best.item<std::int64_t>());
    // A fix from rank 0's validation (batch, imgsz, ...) applies to every rank.
    const std::string fix = group->broadcastText(
        leader() && validationFix ? encodeDecision(*validationFix) : std::string(), 0);
    if (!leader() && !fix.empty())
        applyFix(decodeDecision(fix), epoch, 0);
    validationFix.reset();
}

} // namespace hr
