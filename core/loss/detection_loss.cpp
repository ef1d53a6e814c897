// SPDX-License-Identifier: GPL-3.0-or-later
#include "loss/detection_loss.h"

#include "loss/box_iou.h"
#include "loss/distribution_kernels.h"
#include "loss/task_aligned_assigner.h"
#include "model/anchors.h"
#include "model/parallel_rows.h"

#include <torch/torch.h>

namespace hr {

namespace F = torch::nn::functional;

namespace {

/// Targets [N, 6] (batch, cls, cx, cy, w, h normalised) -> [B, M, 5] (cls, x1, y1, x2, y2 in
/// pixels), zero-padded to the largest per-image count M.
torch::Tensor batchTargets(const torch::Tensor& targets, int64_t batch, int64_t imageH,
                           int64_t imageW, const torch::TensorOptions& options) {
    if (targets.size(0) == 0)
        return torch::zeros({batch, 0, 5}, options);
    auto t = targets.to(options);
    auto imageIndex = t.select(1, 0).to(torch::kLong);
    TORCH_CHECK(imageIndex.min().item<int64_t>() >= 0 && imageIndex.max().item<int64_t>() < batch,
                "DetectionLoss: target batch index outside [0, ", batch, ")");
    const int64_t maxCount = torch::bincount(imageIndex, {}, batch).max().item<int64_t>();
    auto out = torch::zeros({batch, maxCount, 5}, options);
    for (int64_t b = 0; b < batch; ++b) {
        auto rows = t.index({imageIndex == b});
        if (rows.size(0) > 0)
            out[b].narrow(0, 0, rows.size(0)).copy_(rows.narrow(1, 1, 5));
    }
    auto scale =
        torch::tensor({double(imageW), double(imageH), double(imageW), double(imageH)}, options);
    auto xyxy = xywhToXyxy(out.narrow(2, 1, 4) * scale);
    return torch::cat({out.narrow(2, 0, 1), xyxy}, 2);
}

/// Distribution focal loss per anchor [K, 1]: cross-entropy towards the two bins around the
/// continuous target distance, weighted by closeness, averaged over the four sides.
torch::Tensor distributionFocalLoss(const torch::Tensor& predDist /*[K*4, regMax]*/,
                                    const torch::Tensor& target /*[K, 4]*/, int regMax) {
    auto t = target.clamp(0, regMax - 1 - 0.01);
    auto left = t.to(torch::kLong);
    auto right = left + 1;
    auto weightLeft = right.to(t.scalar_type()) - t;
    auto weightRight = 1 - weightLeft;
    auto opts = F::CrossEntropyFuncOptions().reduction(torch::kNone);
    auto ceLeft = F::cross_entropy(predDist, left.view(-1), opts).view(left.sizes());
    auto ceRight = F::cross_entropy(predDist, right.view(-1), opts).view(left.sizes());
    return (ceLeft * weightLeft + ceRight * weightRight).mean(-1, true);
}

// Rows per thread's share at least; the work per row is a few dozen operations.
constexpr int64_t kExpectedBinGrain = 2048;

/// The expected bin of each distribution (last dimension), softmax(logits) . [0, 1, ...], in
/// one pass each way. LibTorch's softmax over 16 bins, its backward and the matmul took 14-20 ms
/// of each training step's CPU time (docs/decisions.md, "Layout work in the step").
class ExpectedBinFunction : public torch::autograd::Function<ExpectedBinFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx,
                                 const torch::Tensor& logits) {
        const torch::Tensor x = logits.contiguous();
        const int64_t bins = x.size(-1), rows = x.numel() / bins;
        std::vector<int64_t> sizes = x.sizes().vec();
        sizes.pop_back();
        torch::Tensor expected = torch::empty(sizes, x.options());
        torch::Tensor scale = torch::empty({rows, 2}, x.options());
        parallelRows(rows, kExpectedBinGrain, [&](int64_t begin, int64_t end) {
            kernels::expectedBin(x.data_ptr<float>(), expected.data_ptr<float>(),
                                 scale.data_ptr<float>(), bins, begin, end);
        });
        ctx->save_for_backward({x, expected, scale});
        return expected;
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor& x = saved[0];
        const torch::Tensor dExpected = grads[0].contiguous();
        const int64_t bins = x.size(-1), rows = x.numel() / bins;
        torch::Tensor dx = torch::empty_like(x);
        parallelRows(rows, kExpectedBinGrain, [&](int64_t begin, int64_t end) {
            kernels::expectedBinGrad(x.data_ptr<float>(), saved[1].data_ptr<float>(),
                                     saved[2].data_ptr<float>(), dExpected.data_ptr<float>(),
                                     dx.data_ptr<float>(), bins, begin, end);
        });
        return {dx};
    }
};

} // namespace

torch::Tensor expectedBin(const torch::Tensor& logits) {
    if (logits.device().is_cpu() && logits.scalar_type() == torch::kFloat && logits.dim() >= 1 &&
        logits.size(-1) > 0)
        return ExpectedBinFunction::apply(logits);
    return logits.softmax(-1).matmul(torch::arange(logits.size(-1), logits.options()));
}

DetectionLoss::DetectionLoss(LossConfig config) : config_(std::move(config)) {
    TORCH_CHECK(config_.nc > 0 && config_.regMax > 0 && !config_.strides.empty(),
                "DetectionLoss: nc ", config_.nc, ", regMax ", config_.regMax,
                " and strides must be positive/non-empty");
}

LossOutput DetectionLoss::compute(const std::vector<torch::Tensor>& raw,
                                  const torch::Tensor& targets, int64_t imageH,
                                  int64_t imageW) const {
    const auto& c = config_;
    TORCH_CHECK(raw.size() == c.strides.size(), "DetectionLoss: ", raw.size(),
                " output levels but ", c.strides.size(), " strides");
    TORCH_CHECK(targets.dim() == 2 && targets.size(1) == 6,
                "DetectionLoss: targets must be [N, 6], got ", targets.sizes());
    const int64_t no = 4 * c.regMax + c.nc;
    const int64_t batch = raw.front().size(0);
    std::vector<torch::Tensor> flat;
    for (const auto& level : raw) {
        TORCH_CHECK(level.dim() == 4 && level.size(0) == batch && level.size(1) == no,
                    "DetectionLoss: each level must be [", batch, ", ", no, ", H, W], got ",
                    level.sizes());
        flat.push_back(level.to(torch::kFloat).view({batch, no, -1}));
    }
    auto all = torch::cat(flat, 2);
    // One split, not two narrows: its backward writes the two gradients into one tensor, where
    // each narrow's zero-fills a tensor of all's size and the two are then added.
    const auto parts = all.split_with_sizes({4 * c.regMax, c.nc}, 1);
    auto predDist = parts[0].permute({0, 2, 1}).contiguous(); // [B,A,4R]
    auto predScores = parts[1].permute({0, 2, 1}).contiguous();
    const int64_t na = predScores.size(1);
    const auto options = predScores.options();

    auto [points, strideTensor] = makeAnchors(raw, c.strides, 0.5);
    points = points.to(options);
    strideTensor = strideTensor.to(options);

    auto gt = batchTargets(targets.detach(), batch, imageH, imageW, options);
    auto gtLabels = gt.narrow(2, 0, 1);
    auto gtBoxes = gt.narrow(2, 1, 4);
    auto maskGt = gtBoxes.sum(2, true).gt(0.0);

    // Decode the distributions to distances (expected bin) and boxes, in grid units.
    torch::Tensor predBoxes;
    if (c.regMax > 1) {
        auto dist = expectedBin(predDist.view({batch, na, 4, c.regMax}));
        predBoxes = distanceToBox(dist, points);
    } else {
        predBoxes = distanceToBox(predDist, points);
    }

    TaskAlignedAssigner assigner(c.topk, c.nc, c.alpha, c.beta, 1e-9, c.assignerChunkElements,
                                 c.assignerBoxesPerChunk);
    auto assigned =
        assigner.assign(predScores.detach().sigmoid(), predBoxes.detach() * strideTensor,
                        points * strideTensor, gtLabels, gtBoxes, maskGt);

    auto targetScoresSum = assigned.targetScores.sum().clamp_min(1.0);
    auto clsLoss = F::binary_cross_entropy_with_logits(
                       predScores, assigned.targetScores,
                       F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone))
                       .sum() /
                   targetScoresSum;

    auto boxLoss = torch::zeros({}, options);
    auto dflLoss = torch::zeros({}, options);
    const auto& fg = assigned.foregroundMask;
    if (fg.any().item<bool>()) {
        auto targetBoxes = assigned.targetBoxes / strideTensor;
        auto weight = assigned.targetScores.sum(-1).index({fg}).unsqueeze(-1); // [K, 1]
        auto iou = bboxIou(predBoxes.index({fg}), targetBoxes.index({fg}), IouKind::Ciou);
        boxLoss = ((1.0 - iou) * weight).sum() / targetScoresSum;
        if (c.regMax > 1) {
            auto targetLtrb = boxToDistance(points, targetBoxes, c.regMax - 1);
            auto dfl = distributionFocalLoss(predDist.index({fg}).view({-1, c.regMax}),
                                             targetLtrb.index({fg}), c.regMax);
            dflLoss = (dfl * weight).sum() / targetScoresSum;
        }
    }

    auto items = torch::stack({boxLoss * c.box, clsLoss * c.cls, dflLoss * c.dfl});
    LossOutput out;
    out.total = items.sum() * double(batch);
    out.items = items.detach();
    return out;
}

} // namespace hr
