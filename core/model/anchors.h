// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <utility>
#include <vector>

namespace hr {

/// Anchor points of anchor-free detection: the centre of every cell of every output level, in
/// that level's grid units, plus the level's stride per anchor.
/// `maps` are the raw head outputs [B, C, H_i, W_i]; returns {points [A, 2] (x, y),
/// strides [A, 1]} with A = sum H_i * W_i, levels in order, row-major within a level.
std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& maps,
                                                    const std::vector<int64_t>& strides,
                                                    double offset = 0.5);

/// Distances (left, top, right, bottom) from anchor points to box sides -> boxes.
/// `distance` [..., 4], `points` [..., 2] broadcastable. xyxy when `xywh` is false.
torch::Tensor distanceToBox(const torch::Tensor& distance, const torch::Tensor& points,
                            bool xywh = false);

/// xyxy boxes -> (left, top, right, bottom) distances from `points`, clamped to
/// [0, maxDistance - 0.01] (the DFL target range for reg_max bins).
torch::Tensor boxToDistance(const torch::Tensor& points, const torch::Tensor& boxes,
                            double maxDistance);

/// (cx, cy, w, h) -> (x1, y1, x2, y2), last dimension 4.
torch::Tensor xywhToXyxy(const torch::Tensor& boxes);
/// (x1, y1, x2, y2) -> (cx, cy, w, h), last dimension 4.
torch::Tensor xyxyToXywh(const torch::Tensor& boxes);

} // namespace hr
