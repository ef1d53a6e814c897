// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "memory/oom_report.h"

#include <functional>
#include <string>
#include <vector>

namespace hr {

/// How far suggestFixes() has come on one report, for a person watching the fixes arrive.
struct FixSearchProgress {
    std::vector<FixSuggestion> fixes; ///< found so far, ranked as suggestFixes() returns them
    int checked = 0;                  ///< lever combinations judged so far
    int planned = 0; ///< combinations planned so far (grows when pairs or triples are needed)
    bool done = false;
};

/// Called by suggestFixes() before the first prediction, before each prediction of the full
/// predictor (probe steps), after each judged combination and at the end (done). Returning
/// false ends the search at once: suggestFixes() returns what it has found.
using FixProgress = std::function<bool(const FixSearchProgress&)>;

/// Ranks the ways out of an out-of-memory failure.
///
/// Device OOM: candidates are a smaller batch with accumulation to the same nominal batch, AMP,
/// gradient checkpointing (backbone, then all), a smaller imgsz (multiples of 32), freezing the
/// backbone, SGD instead of Adam/AdamW, optimizer state on the host, a smaller validation batch
/// (validation OOM), releasing cached blocks (CUDA, when reserved - allocated is large), DDP with
/// sharded optimizer state (deviceCount > 1), chunked assignment (assign_chunk, OOM in the loss
/// phase with options.objectsPerImage unknown or many) and a smaller model scale (restarts the
/// run). Each
/// is predicted with `predictor`; only those predicted to fit within safety x budget are
/// returned, ranked by accuracy cost, then speed. When no single change fits, combinations
/// (pairs, then triples) are tried. Predictions are scaled up when the predictor underestimated
/// the config that failed (its prediction below what the failed step needed).
///
/// Host OOM (`report.hostMemory`): only host fixes (image cache off, fewer workers, mosaic off),
/// stated as such, with no device prediction.
///
/// An empty `predictor` uses reportScalingPredictor(report). Returns an empty list when nothing
/// is predicted to fit. `progress`, when given, sees the ranked list grow and can end the
/// search early (the predictions with probe steps take seconds each).
std::vector<FixSuggestion> suggestFixes(const OomReport& report, const PeakPredictor& predictor,
                                        const AdvisorOptions& options = AdvisorOptions{},
                                        const FixProgress& progress = {});

/// A rough predictor built only from the report's measured breakdown: the peak is weights +
/// EMA + gradients + optimizer state (counted at full size even when the failure came before
/// the first optimizer step created them) + what the failed phase added. That last part scales
/// with batch x imgsz^2 (validation: val batch) and AMP keeps 60% of it (ARCHITECTURE.md, platform
/// facts); in the optimizer/EMA phases it scales
/// with the optimizer state instead. SGD keeps half of Adam's state, offload none. Data
/// parallel follows the estimator: batch / nproc images per rank, ZeRO-1 keeps 1/nproc of the
/// state, plus one copy of the gradients for the all-reduce. Changes it has no model for
/// (checkpointing, freezing, model scale, chunked assignment) give no prediction. Used when no
/// estimator is given.
PeakPredictor reportScalingPredictor(const OomReport& report);

/// One lever the advisor knows at one setting, applied to a config alone.
struct LeverChange {
    std::string lever; ///< "batch", "amp", "checkpointing", "imgsz", "freeze", ...
    std::string title; ///< "batch 4 + accumulate 16 (nominal batch 64)"
    std::vector<std::pair<std::string, std::string>> changes;
    TrainConfig config;       ///< `config` with the change
    double speedFactor = 1.0; ///< the cost model's figure (before any timing)
    FigureBasis speedBasis;   ///< where that figure comes from
};

/// The mildest setting of every device-memory lever the advisor knows that applies to
/// `config` on `device` (both checkpointing settings): smaller batch with accumulation, AMP,
/// checkpointing, image size, model scale, freezing, SGD, optimizer offload (CUDA) and chunked
/// assignment (as for a loss-phase OOM with `objectsPerImage` boxes per image, 0 = unknown).
/// What `headroom-cli bench fixes` predicts and measures.
std::vector<LeverChange> leverFirstSteps(const TrainConfig& config, const std::string& device,
                                         int objectsPerImage);

/// The suggestions as a JSON array (for the run folder and events.jsonl).
std::string fixSuggestionsToJson(const std::vector<FixSuggestion>& fixes);

/// One line per suggestion: "1. batch 8 + accumulate 8 ... peak 2.1 GiB, time x1.06, ...".
std::string formatFixList(const std::vector<FixSuggestion>& fixes);

} // namespace hr
