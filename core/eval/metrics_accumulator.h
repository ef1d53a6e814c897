// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "eval/average_precision.h"
#include "eval/metrics.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace hr {

/// Collects the detections and ground truth of a validation set image by image and turns them
/// into precision, recall, mAP@0.5, mAP@0.5:0.95, per-class results and a confusion matrix,
/// as Ultralytics' DetectionValidator does. Keeps only small per-detection records (no
/// tensors). Not thread-safe.
class MetricsAccumulator {
public:
    /// `confusionConf`/`confusionIou`: the confidence and (class-agnostic) IoU above which a
    /// detection counts in the confusion matrix.
    explicit MetricsAccumulator(int nc, double confusionConf = 0.25, double confusionIou = 0.45);

    /// One image: detections [n, 6] (x1, y1, x2, y2, score, class) sorted by falling score as
    /// nonMaxSuppression returns them, ground truth boxes [m, 4] xyxy in the same pixels and
    /// classes [m]. A detection is a true positive at IoU threshold t when it takes a box of
    /// its class with IoU >= t. Class indices outside [0, nc) fail a TORCH_CHECK. `image` names
    /// the image for the confusion matrix' cells (MetricsResult::confusionHits).
    void add(const torch::Tensor& detections, const torch::Tensor& gtBoxesXyxy,
             const torch::Tensor& gtClasses, const std::string& image = {});

    /// Metrics of everything added so far (zeros when no ground truth was seen).
    MetricsResult compute() const;

    int imageCount() const { return images_; }

private:
    void addToConfusion(const std::vector<float>& det, const std::vector<float>& gtBox,
                        const std::vector<int>& gtCls, const std::vector<float>& iou);

    int nc_;
    double confusionConf_;
    double confusionIou_;
    int images_ = 0;
    std::vector<ScoredDetection> detections_;
    std::vector<int> targetClasses_;
    std::vector<int> imagesPerClass_;
    std::vector<ConfusionHit> hits_; ///< the matrix, sparse: its dense form is made in compute()
    std::vector<std::string> imageNames_;
};

} // namespace hr
