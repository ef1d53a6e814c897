// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "eval/metrics.h"

#include <string>
#include <vector>

namespace hr {

/// Writes what one validation found into `runDir`, each file replaced whole (atomic_file):
/// per_class.csv, confusion_matrix.csv, curves.csv and confusion_images.csv (results_files.h)
/// and Ultralytics'
/// plots under their names (result_plots.h). `names` are the data set's class names. Returns
/// false and fills `error` (the file and why) when a file cannot be written.
bool writeValidationResults(const std::string& runDir, const std::vector<std::string>& names,
                            const MetricsResult& metrics, std::string* error);

} // namespace hr
