// SPDX-License-Identifier: GPL-3.0-or-later
#include "eval/nms.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

namespace hr {

namespace {

constexpr int64_t kMaxCandidates = 30000; // Ultralytics' max_nms

/// Greedy suppression over `order` (indices into the box/score arrays, by falling score);
/// appends the kept indices to `kept`, stopping after `limit` of them (later ones could never
/// make the final cut).
void greedySuppress(const float* box, const std::vector<int64_t>& order, double iouThreshold,
                    size_t limit, std::vector<int64_t>& kept) {
    std::vector<char> removed(order.size(), 0);
    size_t taken = 0;
    for (size_t i = 0; i < order.size() && taken < limit; ++i) {
        if (removed[i])
            continue;
        ++taken;
        const float* a = box + 4 * order[i];
        kept.push_back(order[i]);
        const float areaA = (a[2] - a[0]) * (a[3] - a[1]);
        for (size_t j = i + 1; j < order.size(); ++j) {
            if (removed[j])
                continue;
            const float* b = box + 4 * order[j];
            const float w = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
            const float h = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
            const float inter = w * h;
            const float areaB = (b[2] - b[0]) * (b[3] - b[1]);
            if (inter / (areaA + areaB - inter) > iouThreshold)
                removed[j] = 1;
        }
    }
}

/// Indices sorted by falling score (stable for equal scores).
std::vector<int64_t> byFallingScore(const float* score, int64_t n) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [score](int64_t a, int64_t b) { return score[a] > score[b]; });
    return order;
}

} // namespace

torch::Tensor nms(const torch::Tensor& boxes, const torch::Tensor& scores, double iouThreshold) {
    TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4 && scores.dim() == 1 &&
                    scores.size(0) == boxes.size(0),
                "nms expects boxes [N,4] and scores [N], got ", boxes.sizes(), " and ",
                scores.sizes());
    auto b = boxes.to(torch::kCPU, torch::kFloat).contiguous();
    auto s = scores.to(torch::kCPU, torch::kFloat).contiguous();
    std::vector<int64_t> kept;
    greedySuppress(b.data_ptr<float>(), byFallingScore(s.data_ptr<float>(), s.size(0)),
                   iouThreshold, size_t(b.size(0)), kept);
    return torch::tensor(kept, torch::kLong);
}

std::vector<torch::Tensor> nonMaxSuppression(const torch::Tensor& decoded, double conf, double iou,
                                             int maxDet, bool agnostic, bool multiLabel) {
    torch::NoGradGuard noGrad;
    TORCH_CHECK(decoded.dim() == 3 && decoded.size(1) > 4,
                "nonMaxSuppression expects [B, 4 + nc, A], got ", decoded.sizes());
    const int64_t nc = decoded.size(1) - 4;
    auto all = decoded.to(torch::kCPU, torch::kFloat).transpose(1, 2).contiguous(); // [B, A, 4+nc]
    std::vector<torch::Tensor> out;
    for (int64_t bi = 0; bi < all.size(0); ++bi) {
        auto x = all[bi];
        auto boxes = x.narrow(1, 0, 4);
        auto cls = x.narrow(1, 4, nc);
        torch::Tensor candBoxes, candScores, candClasses;
        if (multiLabel) {
            auto ij = (cls > conf).nonzero();
            auto i = ij.select(1, 0), j = ij.select(1, 1);
            candBoxes = boxes.index({i});
            candScores = cls.index({i, j});
            candClasses = j;
        } else {
            auto [best, j] = cls.max(1);
            auto keep = best > conf;
            candBoxes = boxes.index({keep});
            candScores = best.index({keep});
            candClasses = j.index({keep});
        }
        if (candScores.size(0) > kMaxCandidates) {
            auto top = std::get<1>(candScores.topk(kMaxCandidates));
            candBoxes = candBoxes.index({top});
            candScores = candScores.index({top});
            candClasses = candClasses.index({top});
        }
        candBoxes = candBoxes.contiguous();
        candScores = candScores.contiguous();
        candClasses = candClasses.contiguous();
        const int64_t n = candScores.size(0);
        const float* score = candScores.data_ptr<float>();
        const int64_t* klass = candClasses.data_ptr<int64_t>();
        const auto order = byFallingScore(score, n);

        // Per-class suppression equals Ultralytics' class-offset trick without its O(n^2)
        // cost across classes; no class can contribute more than maxDet boxes.
        const size_t limit = size_t(std::max(maxDet, 0));
        std::vector<int64_t> kept;
        if (agnostic) {
            greedySuppress(candBoxes.data_ptr<float>(), order, iou, limit, kept);
        } else {
            std::vector<std::vector<int64_t>> perClass(nc);
            for (int64_t i : order)
                perClass[klass[i]].push_back(i);
            for (const auto& group : perClass)
                greedySuppress(candBoxes.data_ptr<float>(), group, iou, limit, kept);
            std::stable_sort(kept.begin(), kept.end(),
                             [score](int64_t a, int64_t b) { return score[a] > score[b]; });
        }
        if (int64_t(kept.size()) > maxDet)
            kept.resize(std::max(maxDet, 0));
        auto idx = torch::tensor(kept, torch::kLong);
        auto det = torch::cat({candBoxes.index({idx}), candScores.index({idx}).unsqueeze(1),
                               candClasses.index({idx}).to(torch::kFloat).unsqueeze(1)},
                              1);
        out.push_back(det.to(decoded.device()));
    }
    return out;
}

void clipBoxes(torch::Tensor& detections, float x1, float y1, float x2, float y2) {
    if (detections.numel() == 0)
        return;
    detections.select(1, 0).clamp_(x1, x2);
    detections.select(1, 1).clamp_(y1, y2);
    detections.select(1, 2).clamp_(x1, x2);
    detections.select(1, 3).clamp_(y1, y2);
}

} // namespace hr
