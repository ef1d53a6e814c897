// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the advisor's sources (levers, search, formatting); not part of its interface.
#pragma once

#include "advisor/fix_advisor.h"
#include "advisor/fix_cost_model.h"
#include "advisor/oom_diagnosis.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hr::advisor {

using Changes = std::vector<std::pair<std::string, std::string>>;

/// One setting of one lever: a change to the config and what it costs.
struct Step {
    std::string title;
    Changes changes;
    std::function<void(TrainConfig&)> apply;
    FixEffect effect;
    std::string reason;
    Changes values;        ///< FixPart::values: what a UI words title and reason from
    double severity = 0.0; ///< ranks steps of a lever whose accuracy cost grows within its level
    bool restarts = false;
};

/// A kind of change with its settings, mildest first.
struct Lever {
    std::string id;
    std::vector<Step> steps;
};

/// True for "cuda", "cuda:1".
bool isCuda(const std::string& device);

/// The peak the failed step needed at least.
inline std::int64_t observedNeed(const OomReport& r) {
    return std::max(r.peakBytes, r.allocatedBytes + r.requestedBytes);
}

/// The device levers for an OOM in `phase`, in the decision flow's order (ARCHITECTURE.md),
/// which breaks ties in the ranking.
std::vector<Lever> deviceLevers(const TrainConfig& c, bool cuda, Phase phase, int objectsPerImage,
                                int deviceCount);

/// The host-memory levers (image cache on disk, fewer workers, mosaic off) that apply to `c`.
std::vector<Lever> hostLevers(const TrainConfig& c);

} // namespace hr::advisor
