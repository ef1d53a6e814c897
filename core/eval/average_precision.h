// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Torch-free AP math of Ultralytics' ap_per_class / compute_ap.

#include "eval/metrics.h"

#include <array>
#include <vector>

namespace hr {

/// Number of IoU thresholds of mAP@0.5:0.95 (0.50, 0.55, ..., 0.95).
constexpr int kIouThresholdCount = 10;

/// The IoU thresholds 0.50:0.05:0.95.
std::array<double, kIouThresholdCount> iouThresholds();

/// One prediction of a validation set after matching to the ground truth.
struct ScoredDetection {
    double confidence = 0;
    int cls = 0;
    std::array<bool, kIouThresholdCount> correct{}; ///< true positive at each IoU threshold
};

/// A precision-recall curve closed with (0, 1) and (1, 0) and made monotone: each precision is
/// the best at its recall or any higher one.
struct PrecisionEnvelope {
    std::vector<double> recall;
    std::vector<double> precision;
};
PrecisionEnvelope precisionEnvelope(const std::vector<double>& recall,
                                    const std::vector<double>& precision);

/// Box filter of width 2 * round(n * fraction) / 2 + 1, the edges padded with the end values
/// (Ultralytics' smooth()). `y` must not be empty.
std::vector<double> smoothCurve(const std::vector<double>& y, double fraction);

/// Area under a precision-recall curve: recall/precision are the cumulative values of the
/// predictions sorted by falling confidence. The curve is closed with (0, 1) and (1, 0), made
/// monotone (precision envelope) and integrated at 101 recall points (COCO). Perfect
/// detection gives 0.995 (the segment to recall 1.0 ends at precision 0), as in Ultralytics.
/// Empty input gives 0.
double averagePrecision(std::vector<double> recall, std::vector<double> precision);

/// Precision, recall and AP per class and their means (Ultralytics' ap_per_class):
/// `detections` of all images, `targetClasses` one entry per ground-truth box, and
/// `imagesPerClass[c]` the number of images with class c (may be empty). Classes without
/// ground truth are not reported and do not enter the means. The confusion matrix is left
/// empty. Class indices must be in [0, nc).
MetricsResult apPerClass(std::vector<ScoredDetection> detections,
                         const std::vector<int>& targetClasses,
                         const std::vector<int>& imagesPerClass, int nc);

/// numpy.interp: piecewise-linear interpolation of (xp, fp) at x, xp non-decreasing;
/// `left`/`right` outside the range.
double interpolate(double x, const std::vector<double>& xp, const std::vector<double>& fp,
                   double left, double right);

} // namespace hr
