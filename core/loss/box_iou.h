// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

namespace hr {

/// Pairwise IoU of two sets of xyxy boxes: a [N, 4] x b [M, 4] -> [N, M]. Boxes with no area
/// give 0. Inputs must have a last dimension of 4 (TORCH_CHECK otherwise).
torch::Tensor boxIou(const torch::Tensor& a, const torch::Tensor& b);

/// Which overlap measure bboxIou computes.
enum class IouKind {
    Iou,  ///< intersection over union
    Giou, ///< IoU minus the enclosing box's share not covered by the union
    Diou, ///< IoU minus the normalised centre distance
    Ciou  ///< DIoU minus the aspect-ratio consistency term (the box loss of YOLOv8)
};

/// Element-wise overlap of broadcastable box tensors [..., 4] -> [..., 1], as Ultralytics'
/// `bbox_iou`: xyxy unless `xywh`, `eps` guards divisions. Differentiable w.r.t. both inputs
/// (CIoU's alpha is treated as a constant, as in the reference).
torch::Tensor bboxIou(const torch::Tensor& box1, const torch::Tensor& box2, IouKind kind,
                      bool xywh = false, double eps = 1e-7);

} // namespace hr
