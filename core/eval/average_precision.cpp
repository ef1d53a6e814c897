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

/// Box filter of width 2 * round(n * f) / 2 + 1, edges padded with the end values
/// (Ultralytics' smooth()).
std::vector<double> smooth(const std::vector<double>& y, double fraction) {
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

} // namespace

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

double averagePrecision(std::vector<double> recall, std::vector<double> precision) {
    if (recall.empty())
        return 0.0;
    std::vector<double> mrec{0.0}, mpre{1.0};
    mrec.insert(mrec.end(), recall.begin(), recall.end());
    mrec.push_back(1.0);
    mpre.insert(mpre.end(), precision.begin(), precision.end());
    mpre.push_back(0.0);
    // Precision envelope: the best precision at this recall or any higher one.
    for (size_t i = mpre.size() - 1; i-- > 0;)
        mpre[i] = std::max(mpre[i], mpre[i + 1]);

    const auto x = linspace(0.0, 1.0, 101);
    double area = 0, previous = interpolate(x[0], mrec, mpre, mpre.front(), mpre.back());
    for (size_t i = 1; i < x.size(); ++i) {
        const double current = interpolate(x[i], mrec, mpre, mpre.front(), mpre.back());
        area += (x[i] - x[i - 1]) * (current + previous) / 2; // trapezoid rule
        previous = current;
    }
    return area;
}

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

    const auto grid = linspace(0.0, 1.0, kCurvePoints);
    const size_t nClasses = classes.size();
    std::vector<std::vector<double>> pCurve(nClasses, std::vector<double>(kCurvePoints, 0.0));
    std::vector<std::vector<double>> rCurve(nClasses, std::vector<double>(kCurvePoints, 0.0));
    std::vector<std::array<double, kIouThresholdCount>> ap(nClasses);

    for (size_t ci = 0; ci < nClasses; ++ci) {
        ap[ci].fill(0.0);
        const int c = classes[ci];
        std::vector<const ScoredDetection*> mine;
        for (const auto& d : detections)
            if (d.cls == c)
                mine.push_back(&d);
        if (mine.empty())
            continue;
        const double nLabels = instances[c];
        // -confidence rises along the sorted detections: the x axis of the curves.
        std::vector<double> negConf;
        for (const auto* d : mine)
            negConf.push_back(-d->confidence);
        for (int t = 0; t < kIouThresholdCount; ++t) {
            std::vector<double> recall, precision;
            double tp = 0, fp = 0;
            for (const auto* d : mine) {
                (d->correct[t] ? tp : fp) += 1;
                recall.push_back(tp / (nLabels + kEps));
                precision.push_back(tp / (tp + fp));
            }
            if (t == 0) {
                for (int k = 0; k < kCurvePoints; ++k) {
                    rCurve[ci][k] = interpolate(-grid[k], negConf, recall, 0.0, recall.back());
                    pCurve[ci][k] =
                        interpolate(-grid[k], negConf, precision, 1.0, precision.back());
                }
            }
            ap[ci][t] = averagePrecision(std::move(recall), std::move(precision));
        }
    }

    // Precision and recall at the confidence with the best (smoothed) mean F1.
    std::vector<double> meanF1(kCurvePoints, 0.0);
    for (size_t ci = 0; ci < nClasses; ++ci)
        for (int k = 0; k < kCurvePoints; ++k) {
            const double p = pCurve[ci][k], r = rCurve[ci][k];
            meanF1[k] += 2 * p * r / (p + r + kEps) / nClasses;
        }
    const auto smoothed = smooth(meanF1, 0.1);
    const int best = int(std::max_element(smoothed.begin(), smoothed.end()) - smoothed.begin());

    for (size_t ci = 0; ci < nClasses; ++ci) {
        ClassMetrics m;
        m.cls = classes[ci];
        m.instances = instances[m.cls];
        m.images = m.cls < int(imagesPerClass.size()) ? imagesPerClass[m.cls] : 0;
        m.precision = pCurve[ci][best];
        m.recall = rCurve[ci][best];
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
