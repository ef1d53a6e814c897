// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Validation results as plain values: no LibTorch, so the GUI and run files can use them.

#include <vector>

namespace hr {

/// Ultralytics' model-selection fitness: best.pt is the epoch with the highest.
inline double fitness(double map50, double map) {
    return 0.1 * map50 + 0.9 * map;
}

/// Detection quality of one class over a validation set.
struct ClassMetrics {
    int cls = 0;          ///< class index
    int instances = 0;    ///< ground-truth boxes of this class
    int images = 0;       ///< images containing at least one such box
    double precision = 0; ///< at the confidence that maximises the mean F1 over classes
    double recall = 0;    ///< at the same confidence
    double ap50 = 0;      ///< average precision at IoU 0.50
    double ap = 0;        ///< average precision averaged over IoU 0.50:0.05:0.95
};

/// Detection quality of a whole validation set, as Ultralytics' val reports it: means over the
/// classes that have ground truth.
struct MetricsResult {
    double precision = 0;
    double recall = 0;
    double map50 = 0;                   ///< mAP@0.5
    double map = 0;                     ///< mAP@0.5:0.95
    std::vector<ClassMetrics> perClass; ///< classes with ground truth, ascending class index
    /// (nc + 1) x (nc + 1) counts indexed [predicted][true]; index nc is background (a missed
    /// box is [nc][true], a false detection is [predicted][nc]).
    std::vector<std::vector<int>> confusion;

    double fitness() const { return hr::fitness(map50, map); }
};

} // namespace hr
