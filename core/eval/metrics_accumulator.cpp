// SPDX-License-Identifier: GPL-3.0-or-later
#include "eval/metrics_accumulator.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace hr {

namespace {

std::vector<float> toFloats(const torch::Tensor& t) {
    auto c = t.to(torch::kCPU, torch::kFloat).contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

/// IoU of ground-truth box l with detection d, Ultralytics' box_iou (eps 1e-7).
float pairIou(const float* g, const float* d) {
    const float w = std::max(0.0f, std::min(g[2], d[2]) - std::max(g[0], d[0]));
    const float h = std::max(0.0f, std::min(g[3], d[3]) - std::max(g[1], d[1]));
    const float inter = w * h;
    const float areaG = (g[2] - g[0]) * (g[3] - g[1]);
    const float areaD = (d[2] - d[0]) * (d[3] - d[1]);
    return inter / (areaG + areaD - inter + 1e-7f);
}

struct Pair {
    int label;
    int det;
    float iou;
};

/// Pairs by falling IoU, then one per detection (its best), then one per label. With
/// `relabelByIou` the label step keeps each label's best pair (confusion matrix); without it
/// the pair of the earliest (highest-scoring) detection, as Ultralytics' match_predictions.
std::vector<Pair> uniqueMatches(std::vector<Pair> pairs, bool relabelByIou) {
    auto byIou = [](const Pair& a, const Pair& b) { return a.iou > b.iou; };
    std::stable_sort(pairs.begin(), pairs.end(), byIou);
    std::vector<Pair> perDet;
    std::set<int> seenDet;
    for (const auto& p : pairs)
        if (seenDet.insert(p.det).second)
            perDet.push_back(p);
    if (relabelByIou)
        std::stable_sort(perDet.begin(), perDet.end(), byIou);
    else
        std::sort(perDet.begin(), perDet.end(),
                  [](const Pair& a, const Pair& b) { return a.det < b.det; });
    std::vector<Pair> out;
    std::set<int> seenLabel;
    for (const auto& p : perDet)
        if (seenLabel.insert(p.label).second)
            out.push_back(p);
    return out;
}

} // namespace

MetricsAccumulator::MetricsAccumulator(int nc, double confusionConf, double confusionIou)
    : nc_(nc), confusionConf_(confusionConf), confusionIou_(confusionIou),
      imagesPerClass_(std::max(nc, 0), 0) {
    TORCH_CHECK(nc > 0, "MetricsAccumulator: nc must be positive, got ", nc);
}

void MetricsAccumulator::add(const torch::Tensor& detections, const torch::Tensor& gtBoxesXyxy,
                             const torch::Tensor& gtClasses, const std::string& image) {
    TORCH_CHECK(detections.numel() == 0 || (detections.dim() == 2 && detections.size(1) == 6),
                "MetricsAccumulator: detections must be [n, 6], got ", detections.sizes());
    TORCH_CHECK(gtBoxesXyxy.numel() == 0 || (gtBoxesXyxy.dim() == 2 && gtBoxesXyxy.size(1) == 4),
                "MetricsAccumulator: ground-truth boxes must be [m, 4], got ", gtBoxesXyxy.sizes());
    const auto det = toFloats(detections);
    const auto gtBox = toFloats(gtBoxesXyxy);
    const int n = int(det.size() / 6), m = int(gtBox.size() / 4);
    TORCH_CHECK(gtClasses.numel() == m, "MetricsAccumulator: ", m, " boxes but ", gtClasses.numel(),
                " classes");
    std::vector<int> gtCls;
    for (float c : toFloats(gtClasses))
        gtCls.push_back(int(c));
    for (int i = 0; i < n; ++i) {
        const int c = int(det[6 * i + 5]);
        TORCH_CHECK(c >= 0 && c < nc_, "MetricsAccumulator: detection class ", c, " outside [0, ",
                    nc_, ")");
    }
    for (int c : gtCls)
        TORCH_CHECK(c >= 0 && c < nc_, "MetricsAccumulator: ground-truth class ", c,
                    " outside [0, ", nc_, ")");

    std::vector<float> iou(size_t(m) * n);
    for (int l = 0; l < m; ++l)
        for (int d = 0; d < n; ++d)
            iou[size_t(l) * n + d] = pairIou(&gtBox[4 * l], &det[6 * d]);

    const auto thresholds = iouThresholds();
    std::vector<ScoredDetection> scored(n);
    for (int d = 0; d < n; ++d) {
        scored[d].confidence = det[6 * d + 4];
        scored[d].cls = int(det[6 * d + 5]);
    }
    for (int t = 0; t < kIouThresholdCount; ++t) {
        const float threshold = float(thresholds[t]);
        std::vector<Pair> pairs;
        for (int l = 0; l < m; ++l)
            for (int d = 0; d < n; ++d) {
                const float v = iou[size_t(l) * n + d];
                if (gtCls[l] == scored[d].cls && v >= threshold)
                    pairs.push_back({l, d, v});
            }
        for (const auto& p : uniqueMatches(std::move(pairs), false))
            scored[p.det].correct[t] = true;
    }
    detections_.insert(detections_.end(), scored.begin(), scored.end());
    targetClasses_.insert(targetClasses_.end(), gtCls.begin(), gtCls.end());
    for (int c : std::set<int>(gtCls.begin(), gtCls.end()))
        ++imagesPerClass_[c];
    imageNames_.push_back(image);
    addToConfusion(det, gtBox, gtCls, iou);
    ++images_;
}

void MetricsAccumulator::addToConfusion(const std::vector<float>& det,
                                        const std::vector<float>& gtBox,
                                        const std::vector<int>& gtCls,
                                        const std::vector<float>& iou) {
    const int n = int(det.size() / 6), m = int(gtCls.size());
    std::vector<int> confident; // detections counted in the matrix
    for (int d = 0; d < n; ++d)
        if (det[6 * d + 4] > confusionConf_)
            confident.push_back(d);

    std::vector<Pair> pairs;
    for (int l = 0; l < m; ++l)
        for (int d : confident) {
            const float v = iou[size_t(l) * n + d];
            if (v > confusionIou_)
                pairs.push_back({l, d, v});
        }
    const auto matches = uniqueMatches(std::move(pairs), true);
    std::vector<int> detForLabel(m, -1);
    std::vector<char> detMatched(n, 0);
    for (const auto& p : matches) {
        detForLabel[p.label] = p.det;
        detMatched[p.det] = 1;
    }
    // This image's cells, counted apart so that each (cell, image) is one hit.
    std::map<std::pair<int, int>, int> cells;
    for (int l = 0; l < m; ++l) {
        const int d = detForLabel[l];
        const int predicted = d >= 0 ? int(det[6 * d + 5]) : nc_; // nc_: missed (background)
        ++cells[{predicted, gtCls[l]}];
    }
    for (int d : confident)
        if (!detMatched[d])
            ++cells[{int(det[6 * d + 5]), nc_}]; // detection of background
    for (const auto& [cell, count] : cells)
        hits_.push_back({cell.first, cell.second, images_, count});
}

MetricsResult MetricsAccumulator::compute() const {
    auto result = apPerClass(detections_, targetClasses_, imagesPerClass_, nc_);
    if (nc_ >= 0 && nc_ <= kDenseConfusionClasses) {
        result.confusion.assign(size_t(nc_) + 1, std::vector<int>(size_t(nc_) + 1, 0));
        for (const ConfusionHit& hit : hits_)
            result.confusion[size_t(hit.predicted)][size_t(hit.actual)] += hit.count;
    }
    result.confusionHits = hits_;
    result.confusionImages = imageNames_;
    result.images = images_;
    return result;
}

} // namespace hr
