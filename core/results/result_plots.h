// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Ultralytics' validation plots, drawn by Headroom with OpenCV under Ultralytics' file names:
// confusion_matrix.png, confusion_matrix_normalized.png, PR_curve.png, F1_curve.png,
// P_curve.png and R_curve.png. They show the tables of results_files.h.

#include "results/results_files.h"

#include <string>
#include <vector>

namespace hr {

/// The plot files, in the order writeResultPlots() writes them.
const std::vector<std::string>& resultPlotFiles();

/// PNG bytes of each plot (same order as resultPlotFiles()). The confusion matrix is drawn as
/// counts and normalised by its columns (each true class sums to 1); the curves per class
/// (with a legend below 21 classes, grey lines otherwise) and "all classes" bold, the F1 curve
/// with the best-F1 confidence marked. Empty curve tables give empty axes; an empty confusion
/// table (too many classes) gives "" for its two plots.
std::vector<std::string> drawResultPlots(const std::vector<PerClassRow>& perClass,
                                         const ConfusionTable& confusion, const CurveTable& curves);

} // namespace hr
