// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <vector>

namespace hr {

/// Indices of the boxes greedy non-maximum suppression keeps, by falling score: a box is
/// dropped when its IoU with a kept, higher-scoring box is above `iouThreshold`
/// (torchvision.ops.nms). boxes [N, 4] xyxy, scores [N]; returns int64 [K] on the CPU.
torch::Tensor nms(const torch::Tensor& boxes, const torch::Tensor& scores, double iouThreshold);

/// Ultralytics' non_max_suppression for the decoded head output `decoded` [B, 4 + nc, A]
/// (xyxy pixels, then class probabilities). Per image, candidates above `conf` (the best
/// class, or every class above `conf` with `multiLabel`, as validation uses), at most 30000 by
/// score, are suppressed per class (across classes with `agnostic`) and the best `maxDet`
/// kept. Returns one tensor [n, 6] per image (x1, y1, x2, y2, score, class) sorted by falling
/// score, on the input's device. Bad shapes fail a TORCH_CHECK.
std::vector<torch::Tensor> nonMaxSuppression(const torch::Tensor& decoded, double conf = 0.001,
                                             double iou = 0.7, int maxDet = 300,
                                             bool agnostic = false, bool multiLabel = false);

/// Clips detections [n, >= 4] (xyxy first) in place to the rectangle (x1, y1)-(x2, y2): the
/// part of a letterboxed input its image covers. Validation scores the boxes predict writes,
/// and those never reach into the padding (Ultralytics 8.3's validator clips the same way).
void clipBoxes(torch::Tensor& detections, float x1, float y1, float x2, float y2);

} // namespace hr
