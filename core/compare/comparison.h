// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/strategy.h"
#include "memory/phase.h"
#include "results/results_files.h"
#include "runs/run_store.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hr {

/// A run's training and validation peaks, kept apart as the trainer records them (the epoch's
/// combined peak, results.csv's, can hide what a strategy saves in training behind a large
/// val_batch): the training peak of each batch_end and epoch_end (the allocator's peak over the
/// epoch's training steps), the validation peak of each epoch_end, and an OOM's peak in the
/// phase that failed.
class RunPeaks {
public:
    void training(std::int64_t bytes) { m_train = std::max(m_train, bytes); }
    void validation(std::int64_t bytes) { m_val = std::max(m_val, bytes); }
    void oom(Phase phase, std::int64_t bytes);

    std::int64_t trainPeak() const { return m_train; }
    std::int64_t valPeak() const { return m_val; } ///< 0 = no validation measured

private:
    std::int64_t m_train = 0, m_val = 0;
};

/// The peaks of a loaded run folder's events.jsonl.
RunPeaks runPeaks(const RunRecord& run);

/// One strategy (or one existing run) as measured from its run folder.
struct ComparisonRow {
    std::string strategy;    ///< strategy name, or the run folder's name
    std::string description; ///< what it changes, in words
    std::string runDir;      ///< empty when the run never started
    /// "done", "stopped" (by the user or patience), "OOM", "failed", "incomplete" (no end event
    /// in events.jsonl), "invalid" (the strategy's settings were rejected), "not run".
    std::string status;
    std::string oomPhase; ///< phase of the first OOM ("forward", "backward" ...), when any
    std::string message;  ///< why it failed or was not run (the CLI's English)
    /// The message as a code and its values, for a UI in another language: a run's failure
    /// code (RunFailed::code), or "comparison_stopped" (-), "strategy_invalid" (`problems`
    /// holds the diagnostics), "run_unreadable" (detail). Empty when not coded.
    std::string messageCode;
    std::vector<std::string> messageArgs;
    Diagnostics problems; ///< "strategy_invalid": the strategy's errors
    int ooms = 0;         ///< OOM events in the run (recovered ones included)

    int batch = 0, accumulate = 0, imgsz = 0, epochs = 0;
    bool amp = false;
    std::string checkpointing;

    std::int64_t trainPeakBytes = 0; ///< training steps' peak (see RunPeaks)
    std::int64_t valPeakBytes = 0;   ///< validation's peak (see RunPeaks); 0 = none measured
    double meanEpochSeconds = 0;     ///< mean of results.csv's epoch_seconds
    double imagesPerSecond = 0;      ///< mean of results.csv's images_per_s
    double map50 = 0, map = 0;       ///< of the last epoch (map = mAP@0.5:0.95)
    bool hasMetrics = false;         ///< at least one epoch finished
    bool pareto = false;             ///< on the (training peak, mAP@0.5:0.95) front

    std::optional<PublishedClaim> claim;
    RunRecord run; ///< the folder's curves (epochs, memory timeline, events)
    /// The last validation's per-class rows ("all" first) from per_class.csv; empty when the
    /// run has none.
    std::vector<PerClassRow> perClass;

    /// mAP@0.5:0.95 against wall time since the run started: (seconds, map) per epoch. Uses the
    /// epoch_end event times when there are events, else cumulative epoch_seconds.
    std::vector<std::pair<double, double>> mapOverWallTime() const;
};

/// A set of rows measured the same way; row 0 is the baseline ratios refer to.
struct Comparison {
    std::vector<ComparisonRow> rows;
    std::string title;
};

/// A row from a loaded run folder; `strategy` (may be null) supplies name, description and claim.
ComparisonRow rowFromRun(const RunRecord& run, const Strategy* strategy);

/// Loads each folder with RunStore. A folder that cannot be read is a row with status "not run"
/// and the reason in `message`. Marks the Pareto front.
Comparison compareRunFolders(const std::vector<std::string>& dirs);

/// Indices of the points not dominated by another: a point (memory, map) is dominated when
/// another has memory <= and map >= with at least one strict. Sorted by memory, ascending.
/// Equal points are all kept.
std::vector<size_t> paretoFront(const std::vector<std::pair<double, double>>& points);

/// Sets `pareto` on the rows with metrics that are on the (training peak, mAP@0.5:0.95) front.
void markParetoFront(Comparison& comparison);

/// The measured value over the baseline's (row 0), or nothing when either is missing or zero.
std::optional<double> measuredRatio(const Comparison& c, size_t row, double ComparisonRow::*field);
/// The training peak over the baseline's, when the baseline finished: the measured number the
/// published memory claim (a training-time figure) is set beside.
std::optional<double> measuredMemoryRatio(const Comparison& c, size_t row);
/// The claimed ratio to the baseline's claim (memory or epoch minutes), or nothing.
std::optional<double> claimedRatio(const Comparison& c, size_t row, double PublishedClaim::*field);

} // namespace hr
