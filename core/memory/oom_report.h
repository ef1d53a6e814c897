// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "memory/memory_breakdown.h"
#include "memory/memory_sample.h"
#include "memory/phase.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hr {

/// What the trainer knows at the moment a step ran out of memory. Produced by the trainer,
/// explained and answered with fixes by the advisor, saved as JSON in the run folder.
/// Every byte figure comes from one snapshot taken inside the failing allocation (before the
/// failed step unwound and released its tensors), so text, bars and CLI agree:
/// allocatedBytes + requestedBytes > budgetBytes, and breakdown.total == allocatedBytes.
struct OomReport {
    Phase phase = Phase::Idle;
    std::int64_t requestedBytes = 0;    ///< the allocation that failed, 0 when unknown
    std::int64_t allocatedBytes = 0;    ///< live bytes at the failed request (the snapshot)
    std::int64_t budgetBytes = 0;       ///< the budget (or device capacity) in force
    std::int64_t peakBytes = 0;         ///< peak of the failed step, up to the failed request
    double seconds = 0;                 ///< when it failed, on the memory timeline's clock
    MemoryBreakdown breakdown;          ///< the snapshot's parts; total == allocatedBytes
    std::vector<MemorySample> timeline; ///< the last seconds before the failure
    TrainConfig config;                 ///< the config of the failed step
    int epoch = 0;                      ///< 0-based
    int batchIndex = 0;                 ///< 0-based within the epoch
    int rank = 0;
    std::string device;      ///< "cpu", "cuda:0"
    bool hostMemory = false; ///< host RAM ran out, not the device
    std::string rawMessage;  ///< the allocator's own message
};

} // namespace hr
