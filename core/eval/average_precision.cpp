// SPDX-License-Identifier: GPL-3.0-or-later
#include "eval/average_precision.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hr {

namespace {

constexpr double kEps = 1e-16;
constexpr int kCurvePoints = 1000; // confidence grid of the precision/recall/F1 curves

/// n evenly spaced values from a to b inclusive (numpy.linspace).
std::vector<double> linspace(double a, double b, int n) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i)
        v[i] = a + (b - a) * i / (n - 1);
    v.back() = b;
    return v;
}

} // namespace

std::vector<double> smoothCurve(const std::vector<double>& y, double fraction) {
    const int n = static_cast<int>(y.size());
    const int width = static_cast<int>(std::lround(n * fraction * 2)) / 2 + 1;
    const int pad = width / 2;
    std::vector<double> padded;
    padded.reserve(n + 2 * pad);
    padded.insert(padded.end(), pad, y.front());
    padded.insert(padded.end(), y.begin(), y.end());
    padded.insert(padded.end(), pad, y.back());
    std::vector<double> out(n);
    for (int i = 0; i < n; ++i)
        out[i] = std::accumulate(padded.begin() + i, padded.begin() + i + width, 0.0) / width;
    return out;
}

std::array<double, kIouThresholdCount> iouThresholds() {
    std::array<double, kIouThresholdCount> t{};
    for (int i = 0; i < kIouThresholdCount; ++i)
        t[i] = 0.5 + 0.05 * i;
    return t;
}

double interpolate(double x, const std::vector<double>& xp, const std::vector<double>& fp,
                   double left, double right) {
    if (xp.empty())
        return left;
    if (x < xp.front())
        return left;
    if (x > xp.back())
        return right;
    // Last j with xp[j] <= x, as numpy's binary search picks it among equal values.
    const size_t j = size_t(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
    if (j == xp.size() - 1 || xp[j] == x)
        return fp[j];
    const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    return fp[j] + slope * (x - xp[j]);
}

PrecisionEnvelope precisionEnvelope(const std::vector<double>& recall,
                                    const std::vector<double>& precision) {
    PrecisionEnvelope e;
    e.recall = {0.0};
    e.recall.insert(e.recall.end(), recall.begin(), recall.end());
    e.recall.push_back(1.0);
    e.precision = {1.0};
    e.precision.insert(e.precision.end(), precision.begin(), precision.end());
    e.precision.push_back(0.0);
    // The best precision at this recall or any higher one.
    for (size_t i = e.precision.size() - 1; i-- > 0;)
        e.precision[i] = std::max(e.precision[i], e.precision[i + 1]);
    return e;
}

double averagePrecision(std::vector<double> recall, std::vector<double> precision) {
    if (recall.empty())
        return 0.0;
    const PrecisionEnvelope e = precisionEnvelope(recall, precision);
    const auto& mrec = e.recall;
    const auto& mpre = e.precision;
    const auto x = linspace(0.0, 1.0, 101);
    double area = 0, previous = interpolate(x[0], mrec, mpre, mpre.front(), mpre.back());
    for (size_t i = 1; i < x.size(); ++i) {
        const double current = interpolate(x[i], mrec, mpre, mpre.front(), mpre.back());
        area += (x[i] - x[i - 1]) * (current + previous) / 2; // trapezoid rule
        previous = current;
    }
    return area;
}

namespace {

/// AP at each IoU threshold and the curves of one class: `mine` are its detections by falling
/// confidence, `labels` its ground-truth boxes. A class without detections keeps zero curves,
/// as in Ultralytics.
std::array<double, kIouThresholdCount> classCurves(const std::vector<const ScoredDetection*>& mine,
                                                   double labels, const std::vector<double>& grid,
                                                   ClassCurves& curves) {
    std::array<double, kIouThresholdCount> ap{};
    const size_t points = grid.size();
    curves.precision.assign(points, 0.0);
    curves.recall.assign(points, 0.0);
    curves.f1.assign(points, 0.0);
    curves.prPrecision.assign(points, 0.0);
    if (mine.empty())
        return ap;
    // -confidence rises along the sorted detections: the x axis of the curves.
    std::vector<double> negConf;
    for (const auto* d : mine)
        negConf.push_back(-d->confidence);
    for (int t = 0; t < kIouThresholdCount; ++t) {
        std::vector<double> recall, precision;
        double tp = 0, fp = 0;
        for (const auto* d : mine) {
            (d->correct[t] ? tp : fp) += 1;
            recall.push_back(tp / (labels + kEps));
            precision.push_back(tp / (tp + fp));
        }
        if (t == 0) {
            for (size_t k = 0; k < points; ++k) {
                curves.recall[k] = interpolate(-grid[k], negConf, recall, 0.0, recall.back());
                curves.precision[k] =
                    interpolate(-grid[k], negConf, precision, 1.0, precision.back());
                const double p = curves.precision[k], r = curves.recall[k];
                curves.f1[k] = 2 * p * r / (p + r + kEps);
            }
            const PrecisionEnvelope e = precisionEnvelope(recall, precision);
            for (size_t k = 0; k < points; ++k)
                curves.prPrecision[k] = interpolate(grid[k], e.recall, e.precision,
                                                    e.precision.front(), e.precision.back());
        }
        ap[t] = averagePrecision(std::move(recall), std::move(precision));
    }
    return ap;
}

/// The mean over classes of one curve, box-smoothed when `smoothed`.
std::vector<double> meanCurve(const std::vector<ClassCurves>& curves,
                              std::vector<double> ClassCurves::*which, size_t points,
                              bool smoothed) {
    std::vector<double> mean(points, 0.0);
    for (const auto& c : curves)
        for (size_t k = 0; k < points; ++k)
            mean[k] += (c.*which)[k] / double(curves.size());
    return smoothed ? smoothCurve(mean, 0.1) : mean;
}

} // namespace

MetricsResult apPerClass(std::vector<ScoredDetection> detections,
                         const std::vector<int>& targetClasses,
                         const std::vector<int>& imagesPerClass, int nc) {
    MetricsResult result;
    std::vector<int> instances(std::max(nc, 0), 0);
    for (int c : targetClasses)
        if (c >= 0 && c < nc)
            ++instances[c];
    std::vector<int> classes;
    for (int c = 0; c < nc; ++c)
        if (instances[c] > 0)
            classes.push_back(c);
    if (classes.empty())
        return result;

    std::stable_sort(detections.begin(), detections.end(),
                     [](const ScoredDetection& a, const ScoredDetection& b) {
                         return a.confidence > b.confidence;
                     });

    result.curveGrid = linspace(0.0, 1.0, kCurvePoints);
    const size_t nClasses = classes.size();
    result.curves.resize(nClasses);
    std::vector<std::array<double, kIouThresholdCount>> ap(nClasses);
    for (size_t ci = 0; ci < nClasses; ++ci) {
        std::vector<const ScoredDetection*> mine;
        for (const auto& d : detections)
            if (d.cls == classes[ci])
                mine.push_back(&d);
        ap[ci] = classCurves(mine, instances[classes[ci]], result.curveGrid, result.curves[ci]);
    }

    // Precision and recall at the confidence with the best (smoothed) mean F1.
    auto& all = result.allClasses;
    all.precision = meanCurve(result.curves, &ClassCurves::precision, kCurvePoints, true);
    all.recall = meanCurve(result.curves, &ClassCurves::recall, kCurvePoints, true);
    all.f1 = meanCurve(result.curves, &ClassCurves::f1, kCurvePoints, true);
    all.prPrecision = meanCurve(result.curves, &ClassCurves::prPrecision, kCurvePoints, false);
    const int best = int(std::max_element(all.f1.begin(), all.f1.end()) - all.f1.begin());
    result.bestF1Confidence = result.curveGrid[best];

    for (size_t ci = 0; ci < nClasses; ++ci) {
        ClassMetrics m;
        m.cls = classes[ci];
        m.instances = instances[m.cls];
        m.images = m.cls < int(imagesPerClass.size()) ? imagesPerClass[m.cls] : 0;
        m.precision = result.curves[ci].precision[best];
        m.recall = result.curves[ci].recall[best];
        m.ap50 = ap[ci][0];
        m.ap = std::accumulate(ap[ci].begin(), ap[ci].end(), 0.0) / kIouThresholdCount;
        result.precision += m.precision / nClasses;
        result.recall += m.recall / nClasses;
        result.map50 += m.ap50 / nClasses;
        result.map += m.ap / nClasses;
        result.perClass.push_back(m);
    }
    return result;
}

} // namespace hr
