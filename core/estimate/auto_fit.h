// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "memory/memory_breakdown.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hr {

/// The settings of a fit variant that a decision names.
struct FitVariant {
    int imgsz = 0;
    bool amp = false;
    Checkpointing checkpointing = Checkpointing::None;
};

/// The variant `config` is at.
FitVariant fitVariantOf(const TrainConfig& config);

/// One decision of auto-fit as a kind and its values: the CLI words it in English
/// (fitDecisionText), a UI in its own language. The budget, its usable part (target) and the
/// model are the FitResult's.
struct FitDecision {
    enum class Kind {
        AmpOn,              ///< batch 1 did not fit without AMP: turned it on
        CheckpointingOn,    ///< batch 1 did not fit with AMP alone: turned checkpointing on
        TooLargeAtSmallest, ///< batch 1 with `variant` does not fit even at `imgsz` px
        ImgszLowered,       ///< lowered the image size to `imgsz`; batch 1 did not fit at
                            ///< `fromImgsz` (bisection over multiples of 32)
        LargestBatch,       ///< `batch` is the largest that fits with `variant`, at `trainPeak`
                            ///< and `valPeak`
        Accumulate,         ///< accumulating `accumulate` batches keeps the nominal batch `nbs`
        ResidentFloor,      ///< the weights, gradients, optimizer state and EMA (`floor`) alone
                            ///< pass the target, so no variant was tried
    };
    Kind kind = Kind::AmpOn;
    FitVariant variant;
    int batch = 0;
    int imgsz = 0;
    int fromImgsz = 0;
    int accumulate = 0;
    int nbs = 0;
    std::int64_t trainPeak = 0;
    std::int64_t valPeak = 0;
    MemoryBreakdown floor;
};

/// What auto-fit concluded, for the one-line summary.
enum class FitOutcome {
    Failed,        ///< estimation failed (the `error` of the call says why): no summary
    Fits,          ///< config fits: batch x accumulate at its settings, peak of the budget
    AsConfigured,  ///< resolveAutoBatch: the batch was not -1, nothing was fitted
    ResidentFloor, ///< nothing fits: the resident state alone passes the target
    NothingFits,   ///< nothing fits: even batch 1 with the smallest variant passes it
};

/// The settings auto-fit chose for a memory budget, and why. LibTorch-free. The decisions and
/// the outcome are codes and values; `reasons` and `summary` are their English (the CLI's).
struct FitResult {
    bool fits = false;
    FitOutcome outcome = FitOutcome::Failed;
    TrainConfig config;         ///< the input with batch / amp / checkpointing / imgsz chosen
    std::int64_t budget = 0;    ///< the budget fitted against
    std::int64_t target = 0;    ///< 90% of the budget: what the peaks must stay under
    std::int64_t trainPeak = 0; ///< predicted at the chosen settings
    std::int64_t valPeak = 0;
    int accumulate = 1;             ///< keeps the nominal batch (nbs)
    std::int64_t minimumBudget = 0; ///< when nothing fits: the smallest budget that would work
    /// When nothing fits: the decision flow's last variant, batch 1's peak with it, batch 1's
    /// peak as configured (NothingFits) and the resident state (ResidentFloor).
    FitVariant smallestVariant;
    std::int64_t smallestPeak = 0;
    std::int64_t configuredPeak = 0;
    MemoryBreakdown floor;
    std::vector<FitDecision> decisions; ///< each decision, in order
    std::vector<std::string> reasons;   ///< the decisions in English (fitDecisionText)
    std::string summary;                ///< one line in English (fitSummaryText); empty: failed
};

/// A decision of `fit` in the CLI's English.
std::string fitDecisionText(const FitDecision& decision, const FitResult& fit);

/// The one-line summary of `fit` in the CLI's English; empty when the fit failed.
std::string fitSummaryText(const FitResult& fit);

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
