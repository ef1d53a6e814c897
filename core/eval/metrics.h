// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Validation results as plain values: no LibTorch, so the GUI and run files can use them.

#include <string>
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

/// Ultralytics' curves of one class at IoU 0.50, each sampled at `MetricsResult::curveGrid`.
struct ClassCurves {
    std::vector<double> precision;   ///< precision of the detections at or above each confidence
    std::vector<double> recall;      ///< recall at each confidence
    std::vector<double> f1;          ///< 2PR / (P + R) at each confidence
    std::vector<double> prPrecision; ///< the precision envelope at each recall (PR curve)
};

/// The most classes for which MetricsResult::confusion is made: its (nc + 1)^2 counts took
/// 40 GB at nc 100000 (issue 45); 1000 classes take 4 MB.
inline constexpr int kDenseConfusionClasses = 1000;

/// The objects (or false detections) of one image in one confusion-matrix cell.
struct ConfusionHit {
    int predicted = 0; ///< row: a class, or nc for background (missed)
    int actual = 0;    ///< column: a class, or nc for background (false detection)
    int image = 0;     ///< index into MetricsResult::confusionImages
    int count = 0;
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
    /// box is [nc][true], a false detection is [predicted][nc]). Empty above
    /// kDenseConfusionClasses classes, where confusionHits alone hold the cells.
    std::vector<std::vector<int>> confusion;
    /// The images behind each cell: one hit per (cell, image) with its count, and the images
    /// they name (those given to MetricsAccumulator::add, in its order; empty names when none
    /// were given).
    std::vector<ConfusionHit> confusionHits;
    std::vector<std::string> confusionImages;
    int images = 0; ///< validation images seen
    /// 1000 points from 0 to 1: the confidences of the P, R and F1 curves and the recalls of
    /// the PR curve. Empty when no class had ground truth.
    std::vector<double> curveGrid;
    std::vector<ClassCurves> curves; ///< one per perClass entry, in the same order
    /// The curves "all classes" of Ultralytics' plots: P, R and F1 are the class means
    /// box-smoothed (fraction 0.1), the PR curve the plain mean.
    ClassCurves allClasses;
    /// The confidence of the best smoothed mean F1, where `precision` and `recall` are taken.
    double bestF1Confidence = 0;

    double fitness() const { return hr::fitness(map50, map); }
};

} // namespace hr
