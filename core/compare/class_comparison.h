// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Runs compared class by class: each run's last validation (its per_class.csv) side by side,
// with each run's difference from the first. This is where a memory fix's cost in accuracy
// shows per class. Torch-free.

#include "compare/comparison.h"

#include <optional>
#include <string>
#include <vector>

namespace hr {

/// The file writeComparison adds beside compare.csv when a run has validated.
inline constexpr const char* kClassComparisonCsv = "compare_classes.csv";

/// One class across the runs; a run without that class (or without results) has no value.
struct ClassAcrossRuns {
    std::string name;
    std::vector<std::optional<double>> ap50; ///< per run
    std::vector<std::optional<double>> ap;   ///< AP@0.5:0.95 per run
    std::vector<std::optional<int>> instances;
    /// Run `run`'s AP@0.5:0.95 minus the first run's; empty when either has none.
    std::optional<double> apChange(std::size_t run) const;
};

struct ClassComparison {
    std::vector<std::string> runs;        ///< the rows' names, in the comparison's order
    std::vector<bool> hasResults;         ///< per run: its per_class.csv was read
    std::vector<ClassAcrossRuns> classes; ///< the first run's classes, then any others
};

/// The classes of the comparison's rows (ComparisonRow::perClass), "all" first.
ClassComparison compareByClass(const Comparison& comparison);

/// The table for a terminal: a line per class with each run's AP50-95 and, after the first
/// run, its change; "-" where a run has no value.
std::string classComparisonText(const ClassComparison& table);

/// CSV text: class, then per run "<run> AP50", "<run> AP50-95" and, after the first run,
/// "<run> change" (its AP50-95 minus the first run's); empty where a run has no value.
std::string classComparisonCsv(const ClassComparison& table);

} // namespace hr
