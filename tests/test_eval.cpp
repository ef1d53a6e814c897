// SPDX-License-Identifier: GPL-3.0-or-later
#include "eval/average_precision.h"
#include "eval/metrics_accumulator.h"
#include "eval/nms.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <map>

namespace {

struct Candidate {
    float x1, y1, x2, y2;
    std::vector<float> scores; // one per class
};

/// Decoded head output [1, 4 + nc, A] from a list of candidates.
torch::Tensor decodedOf(const std::vector<Candidate>& cands) {
    const int64_t nc = int64_t(cands.front().scores.size());
    auto t = torch::zeros({1, 4 + nc, int64_t(cands.size())});
    for (size_t a = 0; a < cands.size(); ++a) {
        const auto& c = cands[a];
        const float box[4] = {c.x1, c.y1, c.x2, c.y2};
        for (int i = 0; i < 4; ++i)
            t[0][i][int64_t(a)] = box[i];
        for (int64_t k = 0; k < nc; ++k)
            t[0][4 + k][int64_t(a)] = c.scores[k];
    }
    return t;
}

torch::Tensor rows(std::initializer_list<float> values, int64_t width) {
    return torch::tensor(std::vector<float>(values)).view({-1, width});
}

torch::Tensor noDetections() {
    return torch::zeros({0, 6});
}

bool near(double a, double b, double tol = 1e-6) {
    return std::abs(a - b) < tol;
}

} // namespace

class TestEval : public QObject {
    Q_OBJECT
private slots:
    void averagePrecision_data();
    void averagePrecision();
    void interpolateMatchesNumpy();
    void noPredictions();
    void noGroundTruth();
    void allPerfect();
    void falsePositiveAboveTruePositive();
    void iouThresholdsCount();
    void duplicateAndWrongClassDetections();
    void confusionMatrixCounts();
    void manyClassesKeepOnlyTheSparseMatrix();
    void nmsSuppressesOverlaps();
    void nmsPerClassAndAgnostic();
    void nmsMaxDetAndConfidence();
    void nmsMultiLabelAndBatch();
};

void TestEval::averagePrecision_data() {
    QTest::addColumn<QVector<double>>("recall");
    QTest::addColumn<QVector<double>>("precision");
    QTest::addColumn<double>("ap");
    // Empty curve: nothing predicted.
    QTest::newRow("empty") << QVector<double>{} << QVector<double>{} << 0.0;
    // One TP for one box: precision 1 up to recall 1; the closing point (1, 0) takes half of
    // the last 0.01 step: 0.99 + 0.005.
    QTest::newRow("perfect") << QVector<double>{1.0} << QVector<double>{1.0} << 0.995;
    // FP then TP: envelope precision 0.5 over all recall: 0.99 * 0.5 + 0.005 * 0.5.
    QTest::newRow("fp first") << QVector<double>{0.0, 1.0} << QVector<double>{0.0, 0.5} << 0.4975;
    // TP, FP, TP for two boxes: precision 1 to recall 0.5, then 2/3:
    // 0.49 + (1 + 2/3)/2 * 0.01 + 0.49 * 2/3 + (2/3)/2 * 0.01.
    QTest::newRow("tp fp tp") << QVector<double>{0.5, 0.5, 1.0}
                              << QVector<double>{1.0, 0.5, 2.0 / 3.0}
                              << 0.49 + 0.01 * (5.0 / 6.0) + 0.49 * 2.0 / 3.0 + 0.01 / 3.0;
    // One TP for two boxes: 1 up to recall 0.5, then falling linearly to 0 at recall 1.
    QTest::newRow("half recall") << QVector<double>{0.5} << QVector<double>{1.0} << 0.75;
}

void TestEval::averagePrecision() {
    QFETCH(QVector<double>, recall);
    QFETCH(QVector<double>, precision);
    QFETCH(double, ap);
    const double got =
        hr::averagePrecision(std::vector<double>(recall.begin(), recall.end()),
                             std::vector<double>(precision.begin(), precision.end()));
    QVERIFY2(near(got, ap, 1e-9), qPrintable(QString("got %1, want %2").arg(got).arg(ap)));
}

void TestEval::interpolateMatchesNumpy() {
    const std::vector<double> xp{0.0, 0.5, 0.5, 1.0}, fp{1.0, 0.8, 0.4, 0.0};
    QCOMPARE(hr::interpolate(-0.1, xp, fp, 7.0, 9.0), 7.0);
    QCOMPARE(hr::interpolate(1.1, xp, fp, 7.0, 9.0), 9.0);
    QVERIFY(near(hr::interpolate(0.25, xp, fp, 7.0, 9.0), 0.9));
    QCOMPARE(hr::interpolate(0.5, xp, fp, 7.0, 9.0), 0.4); // last of equal xp, as numpy
    QVERIFY(near(hr::interpolate(0.75, xp, fp, 7.0, 9.0), 0.2));
    QCOMPARE(hr::interpolate(1.0, xp, fp, 7.0, 9.0), 0.0);
}

void TestEval::noPredictions() {
    hr::MetricsAccumulator acc(2);
    acc.add(noDetections(), rows({10, 10, 50, 50}, 4), torch::tensor({0.f}));
    const auto m = acc.compute();
    QCOMPARE(m.map50, 0.0);
    QCOMPARE(m.map, 0.0);
    QCOMPARE(m.precision, 0.0);
    QCOMPARE(m.recall, 0.0);
    QCOMPARE(int(m.perClass.size()), 1);
    QCOMPARE(m.perClass[0].cls, 0);
    QCOMPARE(m.perClass[0].instances, 1);
    QCOMPARE(m.perClass[0].images, 1);
    QCOMPARE(m.confusion[2][0], 1); // missed: background row
    QCOMPARE(acc.imageCount(), 1);
}

void TestEval::noGroundTruth() {
    hr::MetricsAccumulator acc(2);
    acc.add(rows({0, 0, 10, 10, 0.9f, 1, 20, 20, 30, 30, 0.1f, 0}, 6), torch::zeros({0, 4}),
            torch::zeros({0}));
    const auto m = acc.compute();
    QCOMPARE(m.map50, 0.0);
    QCOMPARE(m.map, 0.0);
    QVERIFY(m.perClass.empty());
    QCOMPARE(m.fitness(), 0.0);
    QCOMPARE(m.confusion[1][2], 1); // confident detection of background
    QCOMPARE(m.confusion[0][2], 0); // below the confusion confidence 0.25
}

void TestEval::allPerfect() {
    hr::MetricsAccumulator acc(3);
    acc.add(rows({10, 10, 50, 50, 0.9f, 0, 60, 60, 90, 100, 0.8f, 1}, 6),
            rows({10, 10, 50, 50, 60, 60, 90, 100}, 4), torch::tensor({0.f, 1.f}));
    acc.add(rows({5, 5, 25, 25, 0.7f, 0}, 6), rows({5, 5, 25, 25}, 4), torch::tensor({0.f}));
    const auto m = acc.compute();
    QVERIFY(near(m.map50, 0.995));
    QVERIFY(near(m.map, 0.995));
    QVERIFY(near(m.precision, 1.0));
    QVERIFY(near(m.recall, 1.0));
    QVERIFY(near(m.fitness(), 0.995));
    QCOMPARE(int(m.perClass.size()), 2); // class 2 has no ground truth
    QCOMPARE(m.perClass[0].instances, 2);
    QCOMPARE(m.perClass[0].images, 2);
    QCOMPARE(m.perClass[1].cls, 1);
    QCOMPARE(m.perClass[1].images, 1);
    QCOMPARE(m.confusion[0][0], 2);
    QCOMPARE(m.confusion[1][1], 1);
    QCOMPARE(m.confusion[3][0] + m.confusion[0][3] + m.confusion[3][1], 0);
}

void TestEval::falsePositiveAboveTruePositive() {
    hr::MetricsAccumulator acc(1);
    acc.add(rows({100, 100, 140, 140, 0.9f, 0, 10, 10, 50, 50, 0.8f, 0}, 6),
            rows({10, 10, 50, 50}, 4), torch::tensor({0.f}));
    const auto m = acc.compute();
    QVERIFY2(near(m.map50, 0.4975), qPrintable(QString::number(m.map50)));
    QVERIFY(near(m.map, 0.4975));
    // Best F1 is below confidence 0.8: precision 1/2, recall 1.
    QVERIFY(near(m.precision, 0.5));
    QVERIFY(near(m.recall, 1.0));
}

void TestEval::iouThresholdsCount() {
    // IoU 0.62 is a true positive at 0.50, 0.55 and 0.60 only: mAP50-95 = 0.995 * 3 / 10.
    hr::MetricsAccumulator acc(1);
    acc.add(rows({0, 0, 100, 62, 0.9f, 0}, 6), rows({0, 0, 100, 100}, 4), torch::tensor({0.f}));
    const auto m = acc.compute();
    QVERIFY(near(m.map50, 0.995));
    QVERIFY(near(m.map, 0.2985));
    QVERIFY(near(m.perClass[0].ap, 0.2985));
}

void TestEval::duplicateAndWrongClassDetections() {
    // Two detections of one box: the second is a false positive (recall 1, precision 1 then
    // 1/2): AP is still 0.995. A detection with the wrong class finds nothing.
    hr::MetricsAccumulator acc(2);
    acc.add(rows({10, 10, 50, 50, 0.9f, 0, 11, 11, 50, 50, 0.8f, 0, 60, 60, 80, 80, 0.7f, 0}, 6),
            rows({10, 10, 50, 50, 60, 60, 80, 80}, 4), torch::tensor({0.f, 1.f}));
    const auto m = acc.compute();
    QCOMPARE(int(m.perClass.size()), 2);
    // Class 0: TP (0.9), FP (0.8), FP (0.7, wrong class at the class-1 box): AP 0.995.
    QVERIFY(near(m.perClass[0].ap50, 0.995));
    QVERIFY(near(m.perClass[1].ap50, 0.0));
    QVERIFY(near(m.map50, 0.995 / 2));
    QCOMPARE(m.confusion[0][1], 1); // class-1 box taken for class 0
}

void TestEval::confusionMatrixCounts() {
    hr::MetricsAccumulator acc(2, 0.25, 0.45);
    // Boxes: A class 0, B class 1, C class 1 (missed).
    // Detections: on A as class 0 (0.9), on B as class 0 (0.8), background as class 1 (0.7),
    // a weak duplicate on A (0.2, under the confidence), a second one on A (0.6: unmatched
    // because A is taken).
    acc.add(rows({0,  0,  10, 10, 0.9f, 0, //
                  20, 20, 30, 30, 0.8f, 0, //
                  50, 50, 60, 60, 0.7f, 1, //
                  0,  0,  10, 10, 0.2f, 1, //
                  0,  0,  10, 9,  0.6f, 0},
                 6),
            rows({0, 0, 10, 10, 20, 20, 30, 30, 80, 80, 90, 90}, 4),
            torch::tensor({0.f, 1.f, 1.f}), "first.jpg");
    // A second image: one more box of class 1, missed.
    acc.add(torch::zeros({0, 6}), rows({0, 0, 10, 10}, 4), torch::tensor({1.f}), "second.jpg");
    const hr::MetricsResult result = acc.compute();
    auto c = result.confusion;
    // Every cell's count is the sum of its images' hits; the missed class-1 cell has both.
    QCOMPARE(result.confusionImages, (std::vector<std::string>{"first.jpg", "second.jpg"}));
    std::map<std::pair<int, int>, int> summed;
    std::map<std::pair<int, int>, std::vector<int>> images;
    for (const hr::ConfusionHit& hit : result.confusionHits) {
        summed[{hit.predicted, hit.actual}] += hit.count;
        images[{hit.predicted, hit.actual}].push_back(hit.image);
    }
    for (int p = 0; p < 3; ++p)
        for (int a = 0; a < 3; ++a)
            QCOMPARE(summed[std::make_pair(p, a)], c[size_t(p)][size_t(a)]);
    QCOMPARE(images[std::make_pair(2, 1)], (std::vector<int>{0, 1}));
    QCOMPARE(c[2][1], 2);
    c[2][1] -= 1; // the first image's counts below
    QCOMPARE(int(c.size()), 3);
    QCOMPARE(c[0][0], 1); // A found
    QCOMPARE(c[0][1], 1); // B taken for class 0
    QCOMPARE(c[2][1], 1); // C missed
    QCOMPARE(c[1][2], 1); // background detected as class 1
    QCOMPARE(c[0][2], 1); // the duplicate on A
    int total = 0;
    for (const auto& row : c)
        for (int v : row)
            total += v;
    QCOMPARE(total, 5);
}

void TestEval::manyClassesKeepOnlyTheSparseMatrix() {
    // Above kDenseConfusionClasses the (nc + 1)^2 matrix is not made (40 GB at nc 100000);
    // the cells stay as hits.
    const int nc = hr::kDenseConfusionClasses + 1;
    hr::MetricsAccumulator acc(nc, 0.25, 0.45);
    acc.add(rows({0, 0, 10, 10, 0.9f, float(nc - 1)}, 6), rows({0, 0, 10, 10}, 4),
            torch::tensor({float(nc - 1)}), "only.jpg");
    const hr::MetricsResult result = acc.compute();
    QVERIFY(result.confusion.empty());
    QCOMPARE(int(result.confusionHits.size()), 1);
    QCOMPARE(result.confusionHits[0].predicted, nc - 1);
    QCOMPARE(result.confusionHits[0].actual, nc - 1);
}

void TestEval::nmsSuppressesOverlaps() {
    // A (0.9) and B (0.8) overlap with IoU 0.95; C is apart; D overlaps A with IoU 0.68.
    auto decoded = decodedOf({{0, 0, 10, 10, {0.9f}},
                              {0, 0, 10, 9.5f, {0.8f}},
                              {20, 20, 30, 30, {0.7f}},
                              {1, 1, 11, 11, {0.6f}}});
    auto out = hr::nonMaxSuppression(decoded, 0.001, 0.7);
    QCOMPARE(int(out.size()), 1);
    QCOMPARE(out[0].sizes(), torch::IntArrayRef({3, 6}));
    QVERIFY(torch::allclose(out[0].select(1, 4), torch::tensor({0.9f, 0.7f, 0.6f})));
    QVERIFY(torch::allclose(out[0][1], torch::tensor({20.f, 20.f, 30.f, 30.f, 0.7f, 0.f})));
    // At IoU 0.5, D goes too.
    auto strict = hr::nonMaxSuppression(decoded, 0.001, 0.5);
    QCOMPARE(strict[0].size(0), int64_t(2));
    // The plain index form.
    auto keep = hr::nms(decoded[0].narrow(0, 0, 4).t(), decoded[0][4], 0.7);
    QVERIFY(torch::equal(keep, torch::tensor({0, 2, 3}, torch::kLong)));
}

void TestEval::nmsPerClassAndAgnostic() {
    // Same box twice: class 0 (0.9) and class 1 (0.8).
    auto decoded = decodedOf({{0, 0, 10, 10, {0.9f, 0.1f}}, {0, 0, 10, 10, {0.1f, 0.8f}}});
    auto perClass = hr::nonMaxSuppression(decoded, 0.25, 0.7);
    QCOMPARE(perClass[0].size(0), int64_t(2));
    QCOMPARE(perClass[0][1][5].item<float>(), 1.0f);
    auto agnostic = hr::nonMaxSuppression(decoded, 0.25, 0.7, 300, true);
    QCOMPARE(agnostic[0].size(0), int64_t(1));
    QCOMPARE(agnostic[0][0][5].item<float>(), 0.0f);
}

void TestEval::nmsMaxDetAndConfidence() {
    std::vector<Candidate> cands;
    for (int i = 0; i < 5; ++i)
        cands.push_back({20.f * i, 0, 20.f * i + 10, 10, {0.1f * (i + 1)}});
    cands.push_back({200, 200, 210, 210, {0.0005f}}); // under conf 0.001
    auto all = hr::nonMaxSuppression(decodedOf(cands));
    QCOMPARE(all[0].size(0), int64_t(5));
    auto two = hr::nonMaxSuppression(decodedOf(cands), 0.001, 0.7, 2);
    QCOMPARE(two[0].size(0), int64_t(2));
    QVERIFY(torch::allclose(two[0].select(1, 4), torch::tensor({0.5f, 0.4f})));
    auto confident = hr::nonMaxSuppression(decodedOf(cands), 0.35);
    QCOMPARE(confident[0].size(0), int64_t(2));
    // max_det across classes: the best two of all classes, whichever class they have.
    auto mixed = decodedOf({{0, 0, 10, 10, {0.9f, 0}},
                            {20, 0, 30, 10, {0.8f, 0}},
                            {40, 0, 50, 10, {0.7f, 0}},
                            {60, 0, 70, 10, {0, 0.85f}}});
    auto best = hr::nonMaxSuppression(mixed, 0.001, 0.7, 2);
    QVERIFY(torch::allclose(best[0].select(1, 4), torch::tensor({0.9f, 0.85f})));
    QVERIFY(torch::equal(best[0].select(1, 5), torch::tensor({0.f, 1.f})));
}

void TestEval::nmsMultiLabelAndBatch() {
    auto one = decodedOf({{0, 0, 10, 10, {0.6f, 0.5f}}});
    QCOMPARE(hr::nonMaxSuppression(one, 0.25)[0].size(0), int64_t(1));
    auto multi = hr::nonMaxSuppression(one, 0.25, 0.7, 300, false, true);
    QCOMPARE(multi[0].size(0), int64_t(2));
    // Batch of two: the second image has nothing above the threshold.
    auto batch = torch::cat({one, torch::zeros_like(one)});
    auto out = hr::nonMaxSuppression(batch, 0.25);
    QCOMPARE(int(out.size()), 2);
    QCOMPARE(out[1].sizes(), torch::IntArrayRef({0, 6}));
    QVERIFY_THROWS_EXCEPTION(c10::Error, hr::nonMaxSuppression(torch::zeros({1, 4, 3})));
}

QTEST_APPLESS_MAIN(TestEval)
#include "test_eval.moc"
