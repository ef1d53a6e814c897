// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hr {

/// The settings auto-fit chose for a memory budget, and why. LibTorch-free.
struct FitResult {
    bool fits = false;
    TrainConfig config;         ///< the input with batch / amp / checkpointing / imgsz chosen
    std::int64_t budget = 0;    ///< the budget fitted against
    std::int64_t target = 0;    ///< 90% of the budget: what the peaks must stay under
    std::int64_t trainPeak = 0; ///< predicted at the chosen settings
    std::int64_t valPeak = 0;
    int accumulate = 1;               ///< keeps the nominal batch (nbs)
    std::int64_t minimumBudget = 0;   ///< when nothing fits: the smallest budget that would work
    std::vector<std::string> reasons; ///< each decision in words, in order
    std::string summary;              ///< one line: what was chosen, or why nothing fits
};

/// Picks settings that fit `budget` bytes with peaks at most 90% of it: the largest batch first
/// (up to config.batch, or nbs when batch is -1), keeping the nominal batch through
/// accumulation; when even batch 1 does not fit, AMP, then gradient checkpointing, then smaller
/// image sizes (steps of 32, down to 128). When nothing fits, `fits` is false and the summary
/// names the smallest budget that would work. Fills `error` (and returns fits = false with an
/// empty summary) when estimation itself fails.
FitResult fitToBudget(const TrainConfig& config, std::int64_t budget, std::string* error);

/// The smallest budget in which `config` trains with some setting fitToBudget tries, when
/// config.memory_budget is too small for all of them; 0 when something fits it (or there is
/// no budget, or estimation fails). For Trainer::setMinimumBudget.
std::int64_t smallestWorkingBudget(const TrainConfig& config);

/// Resolves `batch: -1` for a run: fits to config.memory_budget, or to `deviceBytes` when there
/// is no budget. Returns the config unchanged when batch is not -1.
FitResult resolveAutoBatch(const TrainConfig& config, std::int64_t deviceBytes, std::string* error);

} // namespace hr
