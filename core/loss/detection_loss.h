// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace hr {

/// Settings of the YOLOv8 detection loss; names and defaults follow Ultralytics.
struct LossConfig {
    int nc = 80;                             ///< number of classes
    int regMax = 16;                         ///< DFL bins per box side (1 = no DFL)
    std::vector<int64_t> strides{8, 16, 32}; ///< stride of each head level
    double box = 7.5;                        ///< CIoU loss gain
    double cls = 0.5;                        ///< BCE class loss gain
    double dfl = 1.5;                        ///< distribution focal loss gain
    int topk = 10;                           ///< assigner: anchors per box
    double alpha = 0.5;                      ///< assigner: score exponent
    double beta = 6.0;                       ///< assigner: IoU exponent
    std::int64_t assignerChunkElements = 0;  ///< assigner slice size, 0 = automatic
    std::int64_t assignerBoxesPerChunk = 0;  ///< assigner boxes per slice at most, 0 = no cap
};

/// Result of DetectionLoss::compute.
struct LossOutput {
    /// Scalar to call backward() on: (box + cls + dfl, each times its gain) x batch size, as
    /// Ultralytics' v8DetectionLoss returns it.
    torch::Tensor total;
    /// [3] detached box, cls, dfl losses (with gains, not multiplied by the batch size).
    torch::Tensor items;
};

/// The expected bin of each distribution of logits along the last dimension: softmax(logits)
/// . [0, 1, ..., bins - 1], the box side a DFL head predicts, differentiable. Float CPU tensors
/// take one fused pass each way.
torch::Tensor expectedBin(const torch::Tensor& logits);

/// YOLOv8/YOLOv9 anchor-free detection loss (Ultralytics' v8DetectionLoss): task-aligned
/// assignment, BCE class loss, CIoU box loss and distribution focal loss, each normalised by
/// the sum of the target scores. Stateless apart from its configuration; const methods are safe
/// to call from several threads. Shape errors fail a TORCH_CHECK (c10::Error).
class DetectionLoss {
public:
    explicit DetectionLoss(LossConfig config);

    /// raw: the model's training output, one map per level [B, 4*regMax + nc, H/s, W/s]
    /// (box distribution channels first, then class logits). targets: [N, 6] rows
    /// (batch index, class, cx, cy, w, h) normalised to the image of imageH x imageW pixels.
    /// Computed in float32 whatever the dtype of `raw`.
    LossOutput compute(const std::vector<torch::Tensor>& raw, const torch::Tensor& targets,
                       int64_t imageH, int64_t imageW) const;

    const LossConfig& config() const { return config_; }

private:
    LossConfig config_;
};

} // namespace hr
