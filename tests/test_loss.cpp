// SPDX-License-Identifier: GPL-3.0-or-later
#include "loss/box_iou.h"
#include "loss/detection_loss.h"
#include "loss/task_aligned_assigner.h"
#include "model/anchors.h"

#include "torch_threads_guard.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>

namespace {

torch::Tensor boxes(std::initializer_list<float> values) {
    return torch::tensor(std::vector<float>(values)).view({-1, 4});
}

double value(const torch::Tensor& t) {
    return t.item<double>();
}

/// Anchor points (pixels) of square levels of an image `size` px wide at the given strides.
std::pair<torch::Tensor, torch::Tensor> pixelAnchors(int64_t size, std::vector<int64_t> strides) {
    std::vector<torch::Tensor> maps;
    for (auto s : strides)
        maps.push_back(torch::zeros({1, 1, size / s, size / s}));
    auto [points, stride] = hr::makeAnchors(maps, strides);
    return {points * stride, stride};
}

/// Indices where a [A] bool tensor is true.
/// Inputs of an assignment with many overlapping random boxes on a 64 px image (so anchors are
/// contested): `m` boxes per image with sides 6 to 6 + `sizeSpan` px, each kept with probability
/// 1 - `dropBelow`, and predicted boxes of about 2 x `halfSide` px around the anchors.
struct CrowdedAssignment {
    torch::Tensor points, gt, labels, mask, pred, scores;
};

CrowdedAssignment crowdedAssignment(int64_t bs, int64_t m, int64_t nc, double sizeSpan,
                                    double dropBelow, double halfSide) {
    CrowdedAssignment c;
    c.points = pixelAnchors(64, {8, 16, 32}).first;
    const int64_t na = c.points.size(0);
    auto centre = torch::rand({bs, m, 2}) * 64;
    auto size = torch::rand({bs, m, 2}) * sizeSpan + 6;
    c.gt = torch::cat({centre - size / 2, centre + size / 2}, 2);
    c.labels = torch::randint(0, nc, {bs, m, 1}).to(torch::kFloat);
    c.mask = (torch::rand({bs, m, 1}) > dropBelow).to(torch::kFloat);
    c.pred = torch::cat({c.points - halfSide, c.points + halfSide}, 1).unsqueeze(0) +
             torch::randn({bs, na, 4}) * 3;
    c.scores = torch::rand({bs, na, nc});
    return c;
}

std::vector<int64_t> trueIndices(const torch::Tensor& mask) {
    auto idx = mask.nonzero().view(-1);
    return std::vector<int64_t>(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + idx.numel());
}

} // namespace

class TestLoss : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { torch::manual_seed(0); }
    void pairwiseIou();
    void iouVariants();
    void iouXywhMatchesXyxy();
    void ciouGradientFlows();
    void assignerPicksTopkInsideBox();
    void assignerResolvesOverlapByIou();
    void assignerBoxBetweenLevels();
    void assignerIgnoresPaddingAndEmptyImages();
    void assignerChunkingKeepsResult();
    void assignerChunkSizing();
    void assignerBoxCapKeepsTargets();
    void assignerMatchesLoopReferenceOnBatch();
    void assignerTinyAlignmentGivesNoTarget();
    void lossEmptyTargetsIsFinite();
    void lossWithManyObjectsIsChunkedAndFinite();
    void lossAssignChunkKeepsLoss();
    void lossFallsWithGradientSteps();
    void lossRejectsBadShapes();
    void lossIgnoresTargetRowOrder();
    void expectedBinMatchesSoftmax_data();
    void expectedBinMatchesSoftmax();
};

void TestLoss::pairwiseIou() {
    auto a = boxes({0, 0, 2, 2, 0, 0, 4, 2});
    auto b = boxes({1, 1, 3, 3, 0, 0, 2, 2, 10, 10, 11, 11});
    auto iou = hr::boxIou(a, b);
    QCOMPARE(iou.sizes(), torch::IntArrayRef({2, 3}));
    // (0,0,2,2) vs (1,1,3,3): intersection 1, union 4 + 4 - 1.
    QVERIFY(std::abs(value(iou[0][0]) - 1.0 / 7.0) < 1e-6);
    QVERIFY(std::abs(value(iou[0][1]) - 1.0) < 1e-6);
    QVERIFY(std::abs(value(iou[0][2])) < 1e-9);
    // (0,0,4,2) vs (1,1,3,3): intersection 2x1, union 8 + 4 - 2.
    QVERIFY(std::abs(value(iou[1][0]) - 0.2) < 1e-6);
    QVERIFY(std::abs(value(iou[1][1]) - 0.5) < 1e-6);
}

void TestLoss::iouVariants() {
    // Overlapping squares (0,0,2,2) and (1,1,3,3): IoU 1/7, enclosing box 3x3.
    auto a = boxes({0, 0, 2, 2}), b = boxes({1, 1, 3, 3});
    const double iou = 1.0 / 7.0;
    QVERIFY(std::abs(value(hr::bboxIou(a, b, hr::IouKind::Iou)[0][0]) - iou) < 1e-5);
    QVERIFY(std::abs(value(hr::bboxIou(a, b, hr::IouKind::Giou)[0][0]) - (iou - 2.0 / 9.0)) < 1e-5);
    // Centres (1,1) and (2,2): squared distance 2, squared diagonal 18.
    QVERIFY(std::abs(value(hr::bboxIou(a, b, hr::IouKind::Diou)[0][0]) - (iou - 2.0 / 18.0)) <
            1e-5);
    // Equal aspect ratios: CIoU equals DIoU.
    QVERIFY(std::abs(value(hr::bboxIou(a, b, hr::IouKind::Ciou)[0][0]) - (iou - 2.0 / 18.0)) <
            1e-5);

    // (0,0,4,2) vs (0,0,2,2): IoU 0.5, centres 1 apart, enclosing 4x2 (diagonal^2 20),
    // aspect term v = 4/pi^2 (atan(1) - atan(2))^2, alpha = v / (v - IoU + 1).
    auto c = boxes({0, 0, 4, 2}), d = boxes({0, 0, 2, 2});
    const double v = 4.0 / (M_PI * M_PI) * std::pow(std::atan(1.0) - std::atan(2.0), 2);
    const double alpha = v / (v - 0.5 + 1.0);
    QVERIFY(std::abs(value(hr::bboxIou(c, d, hr::IouKind::Iou)[0][0]) - 0.5) < 1e-5);
    QVERIFY(std::abs(value(hr::bboxIou(c, d, hr::IouKind::Giou)[0][0]) - 0.5) < 1e-5);
    QVERIFY(std::abs(value(hr::bboxIou(c, d, hr::IouKind::Diou)[0][0]) - (0.5 - 1.0 / 20.0)) <
            1e-5);
    const double ciou = 0.5 - (1.0 / 20.0 + v * alpha);
    QVERIFY2(std::abs(value(hr::bboxIou(c, d, hr::IouKind::Ciou)[0][0]) - ciou) < 1e-5,
             qPrintable(QString::number(value(hr::bboxIou(c, d, hr::IouKind::Ciou)[0][0]))));

    // Disjoint boxes: IoU 0, GIoU negative (gap share of the enclosing box).
    auto e = boxes({0, 0, 1, 1}), f = boxes({2, 0, 3, 1});
    QVERIFY(std::abs(value(hr::bboxIou(e, f, hr::IouKind::Iou)[0][0])) < 1e-6);
    QVERIFY(std::abs(value(hr::bboxIou(e, f, hr::IouKind::Giou)[0][0]) - (-1.0 / 3.0)) < 1e-5);
}

void TestLoss::iouXywhMatchesXyxy() {
    auto a = torch::rand({5, 4}) * 10;
    auto b = torch::rand({5, 4}) * 10;
    auto xyxyA = hr::xywhToXyxy(a), xyxyB = hr::xywhToXyxy(b);
    for (auto kind : {hr::IouKind::Iou, hr::IouKind::Giou, hr::IouKind::Diou, hr::IouKind::Ciou})
        QVERIFY(torch::allclose(hr::bboxIou(a, b, kind, true), hr::bboxIou(xyxyA, xyxyB, kind),
                                1e-4, 1e-5));
}

void TestLoss::ciouGradientFlows() {
    auto pred = boxes({0, 0, 4, 2}).requires_grad_(true);
    auto target = boxes({1, 0, 5, 3});
    auto loss = (1 - hr::bboxIou(pred, target, hr::IouKind::Ciou)).sum();
    loss.backward();
    QVERIFY(pred.grad().defined());
    QVERIFY(pred.grad().abs().sum().item<double>() > 0);
    QVERIFY(torch::isfinite(pred.grad()).all().item<bool>());
}

void TestLoss::assignerPicksTopkInsideBox() {
    // 4x4 anchors of stride 8 (centres 4, 12, 20, 28); one box of class 1 covering the
    // top-left 2x3 anchors. Predictions equal the box, so the alignment is score^0.5 and the
    // top 2 scores inside the box win; the best score lies outside and must not be picked.
    auto [points, stride] = pixelAnchors(32, {8});
    const int64_t na = points.size(0);
    auto gt = boxes({0, 0, 24, 16}).view({1, 1, 4});
    auto scores = torch::full({1, na, 2}, 0.1);
    scores[0][5][1] = 0.8;  // inside (12, 12)
    scores[0][2][1] = 0.9;  // inside (20, 4)
    scores[0][15][1] = 1.0; // outside (28, 28)
    scores[0][1][0] = 1.0;  // inside, but the wrong class
    auto pred = gt.expand({1, na, 4}).clone();
    hr::TaskAlignedAssigner assigner(2, 2);
    auto r =
        assigner.assign(scores, pred, points, torch::ones({1, 1, 1}), gt, torch::ones({1, 1, 1}));
    QCOMPARE(trueIndices(r.foregroundMask[0]), (std::vector<int64_t>{2, 5}));
    QCOMPARE(r.targetLabels[0][2].item<int64_t>(), int64_t(1));
    QVERIFY(torch::allclose(r.targetBoxes[0][5], gt[0][0]));
    // The best anchor's target score is the box's best IoU (1), the other's is scaled by the
    // ratio of alignments sqrt(0.8) / sqrt(0.9); the other class stays 0.
    QVERIFY(std::abs(value(r.targetScores[0][2][1]) - 1.0) < 1e-4);
    QVERIFY(std::abs(value(r.targetScores[0][5][1]) - std::sqrt(0.8 / 0.9)) < 1e-4);
    QCOMPARE(value(r.targetScores[0][5][0]), 0.0);
    QVERIFY(std::abs(value(r.targetScores.sum()) - value(r.targetScores[0][2][1]) -
                     value(r.targetScores[0][5][1])) < 1e-6);
}

void TestLoss::assignerResolvesOverlapByIou() {
    // Box 0 (0,0,16,16) holds anchors 0,1,4,5; box 1 (8,8,32,32) holds 5,6,7,9,10,11,13,14,15.
    // Anchor 5 (12,12) is in both; its prediction (6,6,18,18) overlaps box 0 more.
    auto [points, stride] = pixelAnchors(32, {8});
    const int64_t na = points.size(0);
    auto pred = torch::cat({points - 6, points + 6}, 1).unsqueeze(0);
    auto gt = boxes({0, 0, 16, 16, 8, 8, 32, 32}).view({1, 2, 4});
    auto labels = torch::tensor({0.f, 1.f}).view({1, 2, 1});
    auto scores = torch::full({1, na, 2}, 0.5);
    hr::TaskAlignedAssigner assigner(10, 2);
    auto r = assigner.assign(scores, pred, points, labels, gt, torch::ones({1, 2, 1}));
    QCOMPARE(trueIndices(r.foregroundMask[0]),
             (std::vector<int64_t>{0, 1, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15}));
    for (int64_t a : {0, 1, 4, 5})
        QCOMPARE(r.targetGtIndex[0][a].item<int64_t>(), int64_t(0));
    for (int64_t a : {6, 7, 9, 10, 11, 13, 14, 15}) {
        QCOMPARE(r.targetGtIndex[0][a].item<int64_t>(), int64_t(1));
        QCOMPARE(r.targetLabels[0][a].item<int64_t>(), int64_t(1));
    }
    QCOMPARE(r.targetLabels[0][5].item<int64_t>(), int64_t(0));
}

void TestLoss::assignerBoxBetweenLevels() {
    // Levels of stride 8 (4x4) and 16 (2x2) on a 32 px image. The box (2,2,22,22) holds nine
    // stride-8 centres and the stride-16 centre (8,8) (anchor 16): with topk 10 all ten are
    // positives, from both levels.
    auto [points, stride] = pixelAnchors(32, {8, 16});
    const int64_t na = points.size(0);
    QCOMPARE(na, int64_t(20));
    auto gt = boxes({2, 2, 22, 22}).view({1, 1, 4});
    auto pred = gt.expand({1, na, 4}).clone();
    hr::TaskAlignedAssigner assigner(10, 1);
    auto r = assigner.assign(torch::full({1, na, 1}, 0.5), pred, points, torch::zeros({1, 1, 1}),
                             gt, torch::ones({1, 1, 1}));
    QCOMPARE(trueIndices(r.foregroundMask[0]),
             (std::vector<int64_t>{0, 1, 2, 4, 5, 6, 8, 9, 10, 16}));
    // With topk 5 only five of them remain, and never an anchor outside the box.
    hr::TaskAlignedAssigner five(5, 1);
    auto r5 = five.assign(torch::full({1, na, 1}, 0.5), pred, points, torch::zeros({1, 1, 1}), gt,
                          torch::ones({1, 1, 1}));
    QCOMPARE(r5.foregroundMask.sum().item<int64_t>(), int64_t(5));
    QVERIFY(r5.foregroundMask.logical_and(r.foregroundMask.logical_not()).sum().item<int64_t>() ==
            0);
}

void TestLoss::assignerIgnoresPaddingAndEmptyImages() {
    auto [points, stride] = pixelAnchors(32, {8});
    const int64_t na = points.size(0);
    // Image 0 has one real box and one padding row; image 1 has only padding.
    auto gt = torch::zeros({2, 2, 4});
    gt[0][0] = boxes({0, 0, 16, 16})[0];
    auto mask = torch::zeros({2, 2, 1});
    mask[0][0][0] = 1;
    auto pred = torch::cat({points - 4, points + 4}, 1).unsqueeze(0).expand({2, na, 4}).clone();
    hr::TaskAlignedAssigner assigner(10, 3);
    auto r = assigner.assign(torch::full({2, na, 3}, 0.5), pred, points, torch::zeros({2, 2, 1}),
                             gt, mask);
    QCOMPARE(trueIndices(r.foregroundMask[0]), (std::vector<int64_t>{0, 1, 4, 5}));
    QCOMPARE(r.foregroundMask[1].sum().item<int64_t>(), int64_t(0));
    QCOMPARE(value(r.targetScores[1].sum()), 0.0);

    // No boxes at all: background everywhere, labels set to nc.
    auto none = assigner.assign(torch::full({2, na, 3}, 0.5), pred, points, torch::zeros({2, 0, 1}),
                                torch::zeros({2, 0, 4}), torch::zeros({2, 0, 1}));
    QCOMPARE(none.foregroundMask.sum().item<int64_t>(), int64_t(0));
    QCOMPARE(none.targetLabels.min().item<int64_t>(), int64_t(3));
}

void TestLoss::assignerChunkingKeepsResult() {
    // Many overlapping random boxes (so anchors are contested): slicing the box dimension
    // must give exactly the unsliced assignment.
    const int64_t bs = 2, m = 40, nc = 4;
    const CrowdedAssignment c = crowdedAssignment(bs, m, nc, 30, 0.2, 10);
    const int64_t na = c.points.size(0);

    hr::TaskAlignedAssigner whole(10, nc);
    hr::TaskAlignedAssigner sliced(10, nc, 0.5, 6.0, 1e-9, /*chunkElements=*/bs * na * 3);
    auto a = whole.assign(c.scores, c.pred, c.points, c.labels, c.gt, c.mask);
    auto b = sliced.assign(c.scores, c.pred, c.points, c.labels, c.gt, c.mask);
    QCOMPARE(a.chunks, 1);
    QCOMPARE(b.chunks, 14); // 40 boxes, 3 per slice
    QVERIFY(a.foregroundMask.sum().item<int64_t>() > 20);
    QVERIFY(torch::equal(a.foregroundMask, b.foregroundMask));
    QVERIFY(torch::equal(a.targetGtIndex, b.targetGtIndex));
    QVERIFY(torch::equal(a.targetLabels, b.targetLabels));
    QVERIFY(torch::allclose(a.targetBoxes, b.targetBoxes));
    QVERIFY(torch::allclose(a.targetScores, b.targetScores));
}

void TestLoss::assignerChunkSizing() {
    hr::TaskAlignedAssigner assigner(10, 80);
    // 500 boxes on 16 images at 1280 px (33600 anchors): slices of 7 boxes keep every
    // intermediate under the default 4 Mi values instead of 269 M.
    QCOMPARE(assigner.boxesPerChunk(16, 500, 33600), int64_t(7));
    QVERIFY(7 * 16 * 33600 <= hr::TaskAlignedAssigner::kDefaultChunkElements);
    // Small problems are not sliced; a single huge image still gets one box per slice.
    QCOMPARE(assigner.boxesPerChunk(4, 20, 8400), int64_t(20));
    QCOMPARE(assigner.boxesPerChunk(1, 10, int64_t(1) << 24), int64_t(1));
}

void TestLoss::assignerBoxCapKeepsTargets() {
    // assign_chunk: a cap of boxes per slice below what the element limit allows. The slices
    // follow the cap and the targets are exactly those of one pass over all boxes.
    const int64_t bs = 3, m = 25, nc = 5;
    const CrowdedAssignment c = crowdedAssignment(bs, m, nc, 28, 0.1, 9);
    const int64_t na = c.points.size(0);

    hr::TaskAlignedAssigner whole(10, nc);
    hr::TaskAlignedAssigner capped(10, nc, 0.5, 6.0, 1e-9, 0, /*maxBoxesPerChunk=*/4);
    QCOMPARE(capped.boxesPerChunk(bs, m, na), int64_t(4));
    QCOMPARE(whole.boxesPerChunk(bs, m, na), m);
    // The element limit still wins when it is the smaller one.
    hr::TaskAlignedAssigner both(10, nc, 0.5, 6.0, 1e-9, bs * na * 2, 4);
    QCOMPARE(both.boxesPerChunk(bs, m, na), int64_t(2));
    auto a = whole.assign(c.scores, c.pred, c.points, c.labels, c.gt, c.mask);
    auto b = capped.assign(c.scores, c.pred, c.points, c.labels, c.gt, c.mask);
    QCOMPARE(a.chunks, 1);
    QCOMPARE(b.chunks, 7); // 25 boxes, 4 per slice
    QVERIFY(a.foregroundMask.sum().item<int64_t>() > 20);
    QVERIFY(torch::equal(a.foregroundMask, b.foregroundMask));
    QVERIFY(torch::equal(a.targetGtIndex, b.targetGtIndex));
    QVERIFY(torch::equal(a.targetLabels, b.targetLabels));
    QVERIFY(torch::equal(a.targetBoxes, b.targetBoxes));
    QVERIFY(torch::allclose(a.targetScores, b.targetScores, 1e-6, 1e-7));
    QVERIFY_THROWS_EXCEPTION(c10::Error, hr::TaskAlignedAssigner(10, nc, 0.5, 6.0, 1e-9, 0, -1));
}

namespace {

/// What the assigner must produce for one anchor, computed box by box with plain loops.
struct LoopAssignment {
    bool fg = false;
    int64_t box = 0;
    double score = 0; ///< target score of the assigned box's class
};

/// Task-aligned assignment written as the algorithm reads, one image, box and anchor at a time:
/// inside test, alignment score^alpha * CIoU^beta, top-k per box, an anchor claimed twice goes
/// to the box it overlaps most, target score = alignment x box's best IoU / box's best alignment
/// (over the anchors finally assigned to the box). Returns [image][anchor].
std::vector<std::vector<LoopAssignment>>
loopAssign(const torch::Tensor& scores, const torch::Tensor& pred, const torch::Tensor& points,
           const torch::Tensor& labels, const torch::Tensor& gt, const torch::Tensor& mask,
           int64_t topk, double alpha, double beta, double eps) {
    const int64_t bs = scores.size(0), na = scores.size(1), m = gt.size(1);
    std::vector<std::vector<LoopAssignment>> out(bs, std::vector<LoopAssignment>(na));
    for (int64_t b = 0; b < bs; ++b) {
        std::vector<std::vector<double>> align(m, std::vector<double>(na, 0.0));
        std::vector<std::vector<double>> overlap(m, std::vector<double>(na, 0.0));
        std::vector<std::vector<bool>> picked(m, std::vector<bool>(na, false));
        for (int64_t g = 0; g < m; ++g) {
            if (mask[b][g][0].item<double>() == 0)
                continue;
            const auto box = gt[b][g];
            const int64_t cls = labels[b][g][0].item<int64_t>();
            std::vector<std::pair<double, int64_t>> ranked;
            for (int64_t a = 0; a < na; ++a) {
                const double x = points[a][0].item<double>(), y = points[a][1].item<double>();
                const double d = std::min({x - box[0].item<double>(), y - box[1].item<double>(),
                                           box[2].item<double>() - x, box[3].item<double>() - y});
                if (d <= eps)
                    continue;
                const double ciou =
                    std::max(0.0, hr::bboxIou(box, pred[b][a], hr::IouKind::Ciou).item<double>());
                overlap[g][a] = ciou;
                align[g][a] =
                    std::pow(scores[b][a][cls].item<double>(), alpha) * std::pow(ciou, beta);
                ranked.push_back({align[g][a], a});
            }
            std::sort(ranked.begin(), ranked.end(),
                      [](const auto& p, const auto& q) { return p.first > q.first; });
            for (size_t i = 0; i < ranked.size() && int64_t(i) < topk; ++i)
                picked[g][ranked[i].second] = true;
        }
        std::vector<int64_t> owner(na, -1);
        for (int64_t a = 0; a < na; ++a) {
            int claims = 0;
            for (int64_t g = 0; g < m; ++g)
                if (picked[g][a]) {
                    ++claims;
                    owner[a] = g;
                }
            if (claims > 1) {
                int64_t best = 0;
                for (int64_t g = 1; g < m; ++g)
                    if (overlap[g][a] > overlap[best][a])
                        best = g;
                owner[a] = best;
            }
        }
        std::vector<double> bestAlign(m, 0.0), bestOverlap(m, 0.0);
        for (int64_t a = 0; a < na; ++a)
            if (owner[a] >= 0) {
                bestAlign[owner[a]] = std::max(bestAlign[owner[a]], align[owner[a]][a]);
                bestOverlap[owner[a]] = std::max(bestOverlap[owner[a]], overlap[owner[a]][a]);
            }
        for (int64_t a = 0; a < na; ++a)
            if (owner[a] >= 0) {
                const int64_t g = owner[a];
                out[b][a] = {true, g, align[g][a] * bestOverlap[g] / (bestAlign[g] + eps)};
            }
    }
    return out;
}

} // namespace

void TestLoss::assignerMatchesLoopReferenceOnBatch() {
    // Three images with 4, 0 and 2 boxes (padded to 4 rows), overlapping boxes so that anchors
    // are contested, all three levels of a 64 px image. Every anchor's assignment and target
    // score must equal the plain-loop computation, image by image.
    // A generator of its own leaves the global random sequence of later tests unchanged.
    auto gen = at::detail::createCPUGenerator(7);
    auto [points, stride] = pixelAnchors(64, {8, 16, 32});
    const int64_t na = points.size(0), bs = 3, m = 4, nc = 3;
    auto gt = torch::zeros({bs, m, 4});
    auto mask = torch::zeros({bs, m, 1});
    auto labels = torch::zeros({bs, m, 1});
    const std::vector<std::pair<int64_t, std::vector<float>>> real{
        {0, {4, 4, 30, 28}},  {0, {14, 10, 44, 40}}, {0, {36, 30, 62, 60}},
        {0, {2, 40, 20, 62}}, {2, {8, 8, 56, 56}},   {2, {20, 20, 40, 44}}};
    std::vector<int64_t> fill(bs, 0);
    for (size_t i = 0; i < real.size(); ++i) {
        const int64_t b = real[i].first, g = fill[b]++;
        gt[b][g] = torch::tensor(real[i].second);
        mask[b][g][0] = 1;
        labels[b][g][0] = float(i % nc);
    }
    // Predictions around each anchor overlap every box holding that anchor, so no anchor
    // inside a box has a zero alignment (top-k then has no ties to break).
    auto half = torch::rand({bs, na, 4}, gen) * 8 + 6;
    auto pred = torch::cat(
        {points.unsqueeze(0) - half.narrow(2, 0, 2), points.unsqueeze(0) + half.narrow(2, 2, 2)},
        2);
    auto scores = torch::rand({bs, na, nc}, gen) * 0.9 + 0.05;

    hr::TaskAlignedAssigner assigner(10, nc);
    auto r = assigner.assign(scores, pred, points, labels, gt, mask);
    const auto expected = loopAssign(scores, pred, points, labels, gt, mask, 10, 0.5, 6.0, 1e-9);
    int contested = 0, positives = 0;
    for (int64_t b = 0; b < bs; ++b)
        for (int64_t a = 0; a < na; ++a) {
            const auto& e = expected[b][a];
            QCOMPARE(r.foregroundMask[b][a].item<bool>(), e.fg);
            if (!e.fg) {
                QCOMPARE(value(r.targetScores[b][a].sum()), 0.0);
                continue;
            }
            ++positives;
            QCOMPARE(r.targetGtIndex[b][a].item<int64_t>(), e.box);
            const int64_t cls = labels[b][e.box][0].item<int64_t>();
            QCOMPARE(r.targetLabels[b][a].item<int64_t>(), cls);
            QVERIFY(torch::allclose(r.targetBoxes[b][a], gt[b][e.box]));
            QVERIFY2(std::abs(value(r.targetScores[b][a][cls]) - e.score) < 1e-5,
                     qPrintable(QString("image %1 anchor %2: %3 vs %4")
                                    .arg(b)
                                    .arg(a)
                                    .arg(value(r.targetScores[b][a][cls]))
                                    .arg(e.score)));
            QVERIFY(std::abs(value(r.targetScores[b][a].sum()) - e.score) < 1e-5);
            int claims = 0;
            for (int64_t g = 0; g < m; ++g) {
                const auto box = gt[b][g];
                const double x = points[a][0].item<double>(), y = points[a][1].item<double>();
                claims += mask[b][g][0].item<double>() > 0 && x > box[0].item<double>() &&
                          x < box[2].item<double>() && y > box[1].item<double>() &&
                          y < box[3].item<double>();
            }
            contested += claims > 1;
        }
    QCOMPARE(r.foregroundMask[1].sum().item<int64_t>(), int64_t(0)); // the empty image
    QVERIFY(positives >= 40);
    QVERIFY(contested > 0);
    // Each box's best anchor carries that box's best IoU as its target score.
    for (int64_t b : {0, 2})
        for (int64_t g = 0; g < fill[b]; ++g) {
            const auto mine = r.foregroundMask[b].logical_and(r.targetGtIndex[b] == g);
            QVERIFY(mine.any().item<bool>());
            const auto ciou = hr::bboxIou(gt[b][g].expand({na, 4}), pred[b], hr::IouKind::Ciou)
                                  .view(-1)
                                  .clamp_min(0);
            const double bestIou = (ciou * mine).max().item<double>();
            QVERIFY(std::abs(value((r.targetScores[b].sum(-1) * mine).max()) - bestIou) < 1e-5);
        }
}

void TestLoss::assignerTinyAlignmentGivesNoTarget() {
    // As in the reference, the alignment is normalised with eps 1e-9 added to the box's best
    // alignment. A small box (12 px) against the untrained head's wide boxes (7.5 strides each
    // side = 120 px at stride 8) and a class score of 1e-4 aligns below 1e-14, so its anchors are
    // positives with target scores ~0: no box loss weight and a class target of ~0. A trained
    // head that predicts the box gives the full IoU (1). This is why small objects start to learn
    // late.
    auto [points, stride] = pixelAnchors(64, {8});
    const int64_t na = points.size(0);
    auto gt = boxes({18, 18, 30, 30}).view({1, 1, 4});
    auto wide = torch::cat({points - 60, points + 60}, 1).unsqueeze(0);
    auto scores = torch::full({1, na, 1}, 1e-4);
    hr::TaskAlignedAssigner assigner(10, 1);
    auto r =
        assigner.assign(scores, wide, points, torch::zeros({1, 1, 1}), gt, torch::ones({1, 1, 1}));
    QCOMPARE(r.foregroundMask.sum().item<int64_t>(), int64_t(4)); // centres 20 and 28
    QVERIFY(value(r.targetScores.max()) < 1e-3);
    auto tight = gt.expand({1, na, 4}).clone();
    auto t =
        assigner.assign(scores, tight, points, torch::zeros({1, 1, 1}), gt, torch::ones({1, 1, 1}));
    QVERIFY(value(t.targetScores.max()) > 0.5);
}

namespace {

/// Random raw head output for a `size` px image: levels [B, 4*16 + nc, size/s, size/s].
std::vector<torch::Tensor> randomRaw(int64_t batch, int64_t nc, int64_t size, bool grad) {
    std::vector<torch::Tensor> raw;
    for (int64_t s : {8, 16, 32})
        raw.push_back(
            (torch::randn({batch, 64 + nc, size / s, size / s}) * 0.5).requires_grad_(grad));
    return raw;
}

} // namespace

void TestLoss::lossEmptyTargetsIsFinite() {
    hr::LossConfig cfg;
    cfg.nc = 3;
    hr::DetectionLoss loss(cfg);
    auto raw = randomRaw(2, 3, 64, true);
    auto out = loss.compute(raw, torch::zeros({0, 6}), 64, 64);
    QVERIFY(torch::isfinite(out.total).item<bool>());
    QCOMPARE(out.items.sizes(), torch::IntArrayRef({3}));
    QCOMPARE(value(out.items[0]), 0.0); // no box loss
    QCOMPARE(value(out.items[2]), 0.0); // no DFL
    QVERIFY(value(out.items[1]) > 0);   // every anchor is pushed towards background
    // Reference normalisation: with no targets the class loss is the summed BCE towards 0,
    // divided by max(sum of target scores, 1) = 1, times the gain 0.5; total x batch size.
    torch::Tensor logits;
    {
        std::vector<torch::Tensor> flat;
        for (auto& r : raw)
            flat.push_back(r.narrow(1, 64, 3).flatten(2));
        logits = torch::cat(flat, 2);
    }
    const double bce = torch::nn::functional::softplus(logits).sum().item<double>();
    QVERIFY(std::abs(value(out.items[1]) - 0.5 * bce) < 1e-3 * bce);
    QVERIFY(std::abs(value(out.total) - 2 * 0.5 * bce) < 2e-3 * bce);
    out.total.backward();
    QVERIFY(torch::isfinite(raw[0].grad()).all().item<bool>());
}

void TestLoss::lossWithManyObjectsIsChunkedAndFinite() {
    // 500 small objects in one image at 640 px (8400 anchors) plus an image with two: the
    // assigner must slice the boxes (limit 1 Mi values) and still give a finite loss.
    const int64_t size = 640, nc = 5;
    auto xy = torch::rand({500, 2}) * 0.9 + 0.05;
    auto wh = torch::rand({500, 2}) * 0.04 + 0.01;
    auto many = torch::cat(
        {torch::zeros({500, 1}), torch::randint(0, nc, {500, 1}).to(torch::kFloat), xy, wh}, 1);
    auto few = torch::tensor({1.f, 0.f, 0.5f, 0.5f, 0.2f, 0.2f, 1.f, 1.f, 0.3f, 0.3f, 0.1f, 0.1f})
                   .view({2, 6});
    auto targets = torch::cat({many, few});

    hr::LossConfig cfg;
    cfg.nc = nc;
    cfg.assignerChunkElements = int64_t(1) << 20;
    hr::TaskAlignedAssigner probe(cfg.topk, nc, 0.5, 6.0, 1e-9, cfg.assignerChunkElements);
    const int64_t perSlice = probe.boxesPerChunk(2, 500, 8400);
    QCOMPARE(perSlice, int64_t(62));
    QVERIFY(perSlice * 2 * 8400 <= cfg.assignerChunkElements);

    auto raw = randomRaw(2, nc, size, true);
    auto out = hr::DetectionLoss(cfg).compute(raw, targets, size, size);
    QVERIFY(torch::isfinite(out.items).all().item<bool>());
    QVERIFY(value(out.items[0]) > 0);
    QVERIFY(value(out.items[2]) > 0);
    // The unsliced loss is the same.
    hr::LossConfig whole = cfg;
    whole.assignerChunkElements = int64_t(1) << 30;
    auto ref = hr::DetectionLoss(whole).compute(raw, targets, size, size);
    QVERIFY(torch::allclose(out.items, ref.items, 1e-5, 1e-6));
    out.total.backward();
    QVERIFY(torch::isfinite(raw[1].grad()).all().item<bool>());
}

void TestLoss::lossAssignChunkKeepsLoss() {
    // The loss with the assigner taking one box at a time (assign_chunk: 1) equals the loss
    // with every box at once, and so do its gradients: same targets.
    const int64_t size = 128, nc = 4, n = 30;
    auto xy = torch::rand({n, 2}) * 0.8 + 0.1;
    auto wh = torch::rand({n, 2}) * 0.3 + 0.05;
    auto image = (torch::arange(n) % 2).to(torch::kFloat).unsqueeze(1);
    auto targets = torch::cat({image, torch::randint(0, nc, {n, 1}).to(torch::kFloat), xy, wh}, 1);
    auto raw = randomRaw(2, nc, size, true);
    std::vector<torch::Tensor> raw2;
    for (const auto& r : raw)
        raw2.push_back(r.detach().clone().requires_grad_(true));

    hr::LossConfig whole;
    whole.nc = nc;
    hr::LossConfig oneByOne = whole;
    oneByOne.assignerBoxesPerChunk = 1;
    auto a = hr::DetectionLoss(whole).compute(raw, targets, size, size);
    auto b = hr::DetectionLoss(oneByOne).compute(raw2, targets, size, size);
    QVERIFY(value(a.items[0]) > 0);
    QVERIFY(torch::allclose(a.items, b.items, 1e-6, 1e-7));
    a.total.backward();
    b.total.backward();
    for (size_t i = 0; i < raw.size(); ++i)
        QVERIFY(torch::allclose(raw[i].grad(), raw2[i].grad(), 1e-5, 1e-7));
}

void TestLoss::lossFallsWithGradientSteps() {
    const int64_t size = 64, nc = 3;
    auto raw = randomRaw(2, nc, size, true);
    auto targets = torch::tensor({0.f, 0.f, 0.3f, 0.3f, 0.3f, 0.4f, //
                                  0.f, 2.f, 0.7f, 0.6f, 0.2f, 0.3f, //
                                  1.f, 1.f, 0.5f, 0.5f, 0.6f, 0.5f})
                       .view({3, 6});
    hr::LossConfig cfg;
    cfg.nc = nc;
    hr::DetectionLoss loss(cfg);
    torch::optim::Adam opt(raw, torch::optim::AdamOptions(0.05));
    auto first = loss.compute(raw, targets, size, size);
    const auto firstItems = first.items.clone();
    double last = 0;
    for (int step = 0; step < 30; ++step) {
        opt.zero_grad();
        auto out = loss.compute(raw, targets, size, size);
        out.total.backward();
        opt.step();
        last = value(out.total);
    }
    auto after = loss.compute(raw, targets, size, size);
    QVERIFY2(value(after.total) < 0.5 * value(first.total),
             qPrintable(QString("start %1, end %2").arg(value(first.total)).arg(last)));
    for (int i = 0; i < 3; ++i)
        QVERIFY(value(after.items[i]) < value(firstItems[i]));
}

void TestLoss::lossRejectsBadShapes() {
    hr::LossConfig cfg;
    cfg.nc = 3;
    hr::DetectionLoss loss(cfg);
    auto raw = randomRaw(1, 4, 64, false); // one class too many
    QVERIFY_THROWS_EXCEPTION(c10::Error, loss.compute(raw, torch::zeros({0, 6}), 64, 64));
    auto ok = randomRaw(1, 3, 64, false);
    QVERIFY_THROWS_EXCEPTION(c10::Error, loss.compute(ok, torch::zeros({2, 5}), 64, 64));
    auto badIndex = torch::tensor({3.f, 0.f, 0.5f, 0.5f, 0.1f, 0.1f}).view({1, 6});
    QVERIFY_THROWS_EXCEPTION(c10::Error, loss.compute(ok, badIndex, 64, 64));
}

void TestLoss::lossIgnoresTargetRowOrder() {
    // Targets of a multi-image batch in any row order (images interleaved) give the same loss.
    const int64_t size = 64, nc = 3;
    auto raw = randomRaw(3, nc, size, false);
    auto sorted = torch::tensor({0.f, 0.f, 0.3f, 0.3f, 0.3f, 0.4f, //
                                 0.f, 2.f, 0.7f, 0.6f, 0.2f, 0.3f, //
                                 2.f, 1.f, 0.5f, 0.5f, 0.6f, 0.5f, //
                                 2.f, 0.f, 0.2f, 0.8f, 0.3f, 0.2f})
                      .view({4, 6});
    auto shuffled = sorted.index({torch::tensor({3, 0, 2, 1})});
    hr::LossConfig cfg;
    cfg.nc = nc;
    hr::DetectionLoss loss(cfg);
    auto a = loss.compute(raw, sorted, size, size);
    auto b = loss.compute(raw, shuffled, size, size);
    QVERIFY(value(a.items[0]) > 0);
    QVERIFY(torch::allclose(a.items, b.items, 1e-5, 1e-7));
}

QTEST_APPLESS_MAIN(TestLoss)
void TestLoss::expectedBinMatchesSoftmax_data() {
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("threads");
    QTest::newRow("16 bins, 1 thread") << 16 << 1;
    QTest::newRow("16 bins, 2 threads") << 16 << 2;
    QTest::newRow("7 bins") << 7 << 2; // no vector width divides it
}

void TestLoss::expectedBinMatchesSoftmax() {
    // The fused decode of the box sides against softmax . arange, values and gradients, with
    // logits far from zero in some rows (the shift by the largest keeps them finite).
    QFETCH(int, bins);
    QFETCH(int, threads);
    const hr::testing::TorchThreadsGuard threadCount(threads);
    torch::Tensor logits = 4 * torch::randn({2, 2100, 4, bins});
    logits[0][5] += 300.0;
    logits[1][7] -= 300.0;
    const torch::Tensor dExpected = torch::randn({2, 2100, 4});

    const torch::Tensor mine = logits.clone().requires_grad_(true);
    const torch::Tensor expected = hr::expectedBin(mine);
    (expected * dExpected).sum().backward();
    const torch::Tensor reference = logits.clone().requires_grad_(true);
    const torch::Tensor expectedRef =
        reference.softmax(-1).matmul(torch::arange(bins).to(torch::kFloat));
    (expectedRef * dExpected).sum().backward();

    QCOMPARE(expected.sizes(), expectedRef.sizes());
    QVERIFY(torch::isfinite(expected).all().item<bool>());
    const double valueError = (expected - expectedRef).abs().max().item<double>();
    QVERIFY2(valueError < 1e-5 * bins, qPrintable(QString::number(valueError)));
    const double gradError = (mine.grad() - reference.grad()).abs().max().item<double>();
    const double gradScale = reference.grad().abs().max().item<double>();
    QVERIFY2(gradError < 1e-5 * gradScale,
             qPrintable(QString("%1 of %2").arg(gradError).arg(gradScale)));
}

#include "test_loss.moc"
