// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <cstdint>

namespace hr {

/// What TaskAlignedAssigner::assign returns; every tensor is new and owned by the caller.
struct AssignerResult {
    torch::Tensor targetLabels;   ///< [B, A] int64 class of the assigned box
    torch::Tensor targetBoxes;    ///< [B, A, 4] assigned box, same units as the input boxes
    torch::Tensor targetScores;   ///< [B, A, nc] one-hot class x normalised alignment metric
    torch::Tensor foregroundMask; ///< [B, A] bool, true where an anchor has a box
    torch::Tensor targetGtIndex;  ///< [B, A] int64 index of the assigned box within its image
    int chunks = 0;               ///< how many slices of the box dimension were processed
};

/// Task-aligned label assignment of TOOD / YOLOv8 (Ultralytics' TaskAlignedAssigner): for each
/// ground-truth box, the `topk` anchors inside it with the highest score^alpha * CIoU^beta become
/// positives; an anchor claimed by several boxes keeps the one it overlaps most. Target scores
/// are scaled so that each box's best anchor gets that box's best IoU.
///
/// The box dimension is processed in slices so that no intermediate holds more than
/// `chunkElements` (batch x boxes x anchors) values; 0 chooses a default (~4 M values, about
/// 100 MB of temporaries). `maxBoxesPerChunk` > 0 caps a slice at that many boxes as well (the
/// `assign_chunk` config key: a fixed, smaller slice when the default still does not fit).
/// Slicing does not change the result. Invalid shapes fail a TORCH_CHECK (c10::Error).
class TaskAlignedAssigner {
public:
    TaskAlignedAssigner(int topk, int nc, double alpha = 0.5, double beta = 6.0, double eps = 1e-9,
                        std::int64_t chunkElements = 0, std::int64_t maxBoxesPerChunk = 0);

    /// predScores [B, A, nc] probabilities (after sigmoid), predBoxes [B, A, 4] xyxy,
    /// anchorPoints [A, 2] in the same units as the boxes, gtLabels [B, M, 1], gtBoxes
    /// [B, M, 4] xyxy, maskGt [B, M, 1] (1 for real boxes, 0 for padding). Runs without
    /// gradient.
    AssignerResult assign(const torch::Tensor& predScores, const torch::Tensor& predBoxes,
                          const torch::Tensor& anchorPoints, const torch::Tensor& gtLabels,
                          const torch::Tensor& gtBoxes, const torch::Tensor& maskGt) const;

    /// The slice size used for a problem of the given size (boxes per slice, at least 1): the
    /// element limit's, capped by maxBoxesPerChunk when that is set.
    std::int64_t boxesPerChunk(std::int64_t batch, std::int64_t maxBoxes,
                               std::int64_t anchors) const;

    static constexpr std::int64_t kDefaultChunkElements = std::int64_t(1) << 22;

private:
    int topk_;
    int nc_;
    double alpha_;
    double beta_;
    double eps_;
    std::int64_t chunkElements_;
    std::int64_t maxBoxesPerChunk_;
};

} // namespace hr
