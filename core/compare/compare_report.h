// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"

#include <string>

namespace hr {

/// compare.csv: a header and one row per strategy (columns: see comparisonCsvHeader()).
std::string comparisonCsv(const Comparison& comparison);
std::string comparisonCsvHeader();

/// The table for a terminal: one line per strategy, the published claim beside the measured
/// value where there is one (as ratios to the first row), '*' on the Pareto front.
std::string comparisonText(const Comparison& comparison);

/// A self-contained HTML page (inline CSS and SVG; nothing fetched): memory over time, mAP over
/// epochs and over wall time, training loss over epochs, the table (training and validation
/// peaks apart), and the training peak vs mAP with the Pareto front marked.
std::string comparisonHtml(const Comparison& comparison);

/// Writes `dir`/compare.csv and `dir`/compare.html (creating `dir`), and compare_classes.csv
/// when a run has validated. Returns false and fills `error` on failure.
bool writeComparison(const Comparison& comparison, const std::string& dir, std::string* error);

} // namespace hr
