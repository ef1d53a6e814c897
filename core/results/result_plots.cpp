// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/result_plots.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hr {

namespace {

constexpr int kWidth = 1350, kHeight = 900;        // 9 x 6 in at 150 dpi, Ultralytics' shape
constexpr int kLeft = 110, kTop = 70, kPlot = 760; // square axes, legend at the right
constexpr int kLegendClasses = 21;                 // a legend per class below this many
const cv::Scalar kBlack(0, 0, 0), kGrey(160, 160, 160), kWhite(255, 255, 255);
const cv::Scalar kAllBlue(255, 0, 0); // BGR: the bold "all classes" line

/// matplotlib's tab10 cycle (BGR), the colours of the per-class lines.
cv::Scalar classColour(size_t i) {
    static const cv::Scalar tab10[] = {
        {180, 119, 31}, {14, 127, 255},  {44, 160, 44},   {40, 39, 214},  {189, 103, 148},
        {75, 86, 140},  {194, 119, 227}, {127, 127, 127}, {34, 189, 188}, {207, 190, 23}};
    return tab10[i % 10];
}

std::string fixed(double v, int decimals) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
    return buffer;
}

void text(cv::Mat& image, const std::string& s, cv::Point at, double scale,
          const cv::Scalar& colour = kBlack, bool centred = false) {
    int baseline = 0;
    const cv::Size size = cv::getTextSize(s, cv::FONT_HERSHEY_SIMPLEX, scale, 1, &baseline);
    if (centred)
        at -= cv::Point(size.width / 2, -size.height / 2);
    cv::putText(image, s, at, cv::FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv::LINE_AA);
}

cv::Point toPixel(double x, double y) {
    const double cx = std::clamp(x, 0.0, 1.0), cy = std::clamp(y, 0.0, 1.0);
    return {kLeft + static_cast<int>(std::lround(cx * kPlot)),
            kTop + kPlot - static_cast<int>(std::lround(cy * kPlot))};
}

/// Empty axes from 0 to 1 with ticks every 0.2, labels and title.
cv::Mat axes(const std::string& title, const std::string& xLabel, const std::string& yLabel) {
    cv::Mat image(kHeight, kWidth, CV_8UC3, kWhite);
    cv::rectangle(image, toPixel(0, 1), toPixel(1, 0), kBlack, 1);
    for (int i = 0; i <= 5; ++i) {
        const double v = i / 5.0;
        cv::line(image, toPixel(v, 0), toPixel(v, 0) + cv::Point(0, 6), kBlack, 1);
        cv::line(image, toPixel(0, v), toPixel(0, v) - cv::Point(6, 0), kBlack, 1);
        text(image, fixed(v, 1), toPixel(v, 0) + cv::Point(0, 24), 0.5, kBlack, true);
        text(image, fixed(v, 1), toPixel(0, v) - cv::Point(45, -5), 0.5);
    }
    text(image, title, {kLeft + kPlot / 2, kTop - 30}, 0.8, kBlack, true);
    text(image, xLabel, {kLeft + kPlot / 2, kTop + kPlot + 55}, 0.65, kBlack, true);
    // A rotated y label: drawn on its own strip and turned a quarter.
    cv::Mat strip(40, kPlot, CV_8UC3, kWhite);
    text(strip, yLabel, {kPlot / 2, 20}, 0.65, kBlack, true);
    cv::rotate(strip, strip, cv::ROTATE_90_COUNTERCLOCKWISE);
    strip.copyTo(image(cv::Rect(10, kTop, strip.cols, strip.rows)));
    return image;
}

void polyline(cv::Mat& image, const std::vector<double>& x, const std::vector<double>& y,
              const cv::Scalar& colour, int thickness) {
    std::vector<cv::Point> points;
    for (size_t k = 0; k < x.size() && k < y.size(); ++k)
        points.push_back(toPixel(x[k], y[k]));
    if (points.size() > 1)
        cv::polylines(image, points, false, colour, thickness, cv::LINE_AA);
}

void legendEntry(cv::Mat& image, int row, const std::string& label, const cv::Scalar& colour,
                 int thickness) {
    const int x = kLeft + kPlot + 30, y = kTop + 20 + row * 26;
    cv::line(image, {x, y - 5}, {x + 30, y - 5}, colour, thickness, cv::LINE_AA);
    text(image, label, {x + 40, y}, 0.5);
}

/// One curve plot: each class's row of `kind`, then "all" bold with `allLabel`.
cv::Mat curvePlot(const CurveTable& curves, const std::string& kind, const std::string& title,
                  const std::string& xLabel, const std::string& yLabel,
                  const std::vector<std::string>& classLabels, const std::string& allLabel) {
    cv::Mat image = axes(title, xLabel, yLabel);
    std::vector<const CurveRow*> rows;
    for (const auto& row : curves.rows)
        if (row.kind == kind && row.name != "all")
            rows.push_back(&row);
    const bool legend = !rows.empty() && rows.size() < kLegendClasses;
    for (size_t i = 0; i < rows.size(); ++i) {
        polyline(image, curves.grid, rows[i]->values, legend ? classColour(i) : kGrey, 1);
        if (legend)
            legendEntry(image, int(i), i < classLabels.size() ? classLabels[i] : rows[i]->name,
                        classColour(i), 2);
    }
    if (const CurveRow* all = curves.find(kind, "all")) {
        polyline(image, curves.grid, all->values, kAllBlue, 3);
        legendEntry(image, legend ? int(rows.size()) : 0, allLabel, kAllBlue, 3);
    }
    return image;
}

/// "all classes 0.83 at 0.412": the best of the bold curve and its confidence.
std::string bestOf(const CurveTable& curves, const std::string& kind, size_t* at = nullptr) {
    const CurveRow* all = curves.find(kind, "all");
    if (!all || all->values.empty())
        return "all classes";
    const size_t k =
        size_t(std::max_element(all->values.begin(), all->values.end()) - all->values.begin());
    if (at)
        *at = k;
    return "all classes " + fixed(all->values[k], 2) + " at " + fixed(curves.grid[k], 3);
}

cv::Mat f1Plot(const CurveTable& curves, const std::vector<std::string>& names) {
    size_t best = 0;
    const std::string label = bestOf(curves, "f1", &best);
    cv::Mat image =
        curvePlot(curves, "f1", "F1-Confidence Curve", "Confidence", "F1", names, label);
    const CurveRow* all = curves.find("f1", "all");
    if (all && best < all->values.size()) {
        // The best-F1 confidence: a dashed vertical line and a dot on the bold curve.
        const double x = curves.grid[best];
        for (int y = 0; y < kPlot; y += 16)
            cv::line(image, toPixel(x, y / double(kPlot)),
                     toPixel(x, std::min(y + 8, kPlot) / double(kPlot)), kBlack, 1);
        cv::circle(image, toPixel(x, all->values[best]), 7, kBlack, cv::FILLED, cv::LINE_AA);
        text(image, "best F1 at conf " + fixed(x, 3), toPixel(x, 0) + cv::Point(8, -12), 0.5);
    }
    return image;
}

/// The Blues colour map (BGR) at t in [0, 1].
cv::Scalar blues(double t) {
    const cv::Vec3d light(255, 251, 247), dark(107, 48, 8);
    const cv::Vec3d c = light + (dark - light) * std::clamp(t, 0.0, 1.0);
    return {c[0], c[1], c[2]};
}

cv::Mat confusionPlot(const ConfusionTable& table, bool normalise) {
    const size_t n = table.counts.size();
    cv::Mat image(kHeight, kWidth, CV_8UC3, kWhite);
    std::vector<std::vector<double>> cell(n, std::vector<double>(n, 0.0));
    std::vector<double> columnSum(n, 0.0);
    double most = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n && j < table.counts[i].size(); ++j)
            columnSum[j] += table.counts[i][j];
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n && j < table.counts[i].size(); ++j) {
            cell[i][j] = table.counts[i][j] / (normalise ? columnSum[j] + 1e-9 : 1.0);
            most = std::max(most, cell[i][j]);
        }
    const std::string title = normalise ? "Confusion Matrix Normalized" : "Confusion Matrix";
    text(image, title, {kWidth / 2, 40}, 0.8, kBlack, true);
    if (n == 0)
        return image;
    const int left = 220, top = 70, side = 640, size = std::max(side / int(n), 1);
    const double scaleMax = normalise ? 1.0 : std::max(most, 1.0);
    const double label = std::clamp(0.6 - 0.01 * double(n), 0.3, 0.6);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            const cv::Rect r(left + int(j) * size, top + int(i) * size, size, size);
            const double v = cell[i][j];
            // Below 0.005 a cell stays blank, as in Ultralytics' plot (it would read 0.00).
            cv::rectangle(image, r, v < 0.005 ? kWhite : blues(v / scaleMax), cv::FILLED);
            if (v >= 0.005 && n < 30)
                text(image, normalise ? fixed(v, 2) : std::to_string(int(std::lround(v))),
                     {r.x + size / 2, r.y + size / 2}, label, v / scaleMax > 0.45 ? kWhite : kBlack,
                     true);
        }
        const std::string name = i < table.names.size() ? table.names[i] : std::to_string(i);
        if (n < 99) {
            text(image, name,
                 {left - 10 - int(name.size()) * 9, top + int(i) * size + size / 2 + 5}, label);
            cv::Mat strip(24, 150, CV_8UC3, kWhite);
            text(strip, name, {2, 17}, label);
            cv::rotate(strip, strip, cv::ROTATE_90_CLOCKWISE);
            strip.copyTo(image(cv::Rect(left + int(i) * size + size / 2 - 12,
                                        top + int(n) * size + 8, strip.cols, strip.rows)));
        }
    }
    text(image, "True", {left + int(n) * size / 2, top + int(n) * size + 175}, 0.65, kBlack, true);
    text(image, "Predicted", {20, top - 15}, 0.65);
    // The colour bar, 0 at the bottom.
    for (int y = 0; y < side; ++y)
        cv::line(image, {left + side + 40, top + side - y}, {left + side + 70, top + side - y},
                 blues(y / double(side)), 1);
    text(image, "0", {left + side + 80, top + side}, 0.5);
    text(image, normalise ? "1" : std::to_string(int(scaleMax)), {left + side + 80, top + 10}, 0.5);
    return image;
}

std::string png(const cv::Mat& image) {
    std::vector<uchar> bytes;
    cv::imencode(".png", image, bytes);
    return std::string(bytes.begin(), bytes.end());
}

} // namespace

const std::vector<std::string>& resultPlotFiles() {
    static const std::vector<std::string> files = {
        "confusion_matrix.png", "confusion_matrix_normalized.png",
        "PR_curve.png",         "F1_curve.png",
        "P_curve.png",          "R_curve.png"};
    return files;
}

std::vector<std::string> drawResultPlots(const std::vector<PerClassRow>& perClass,
                                         const ConfusionTable& confusion,
                                         const CurveTable& curves) {
    // Legend labels: the PR curve adds each class's AP50, as Ultralytics' does.
    std::vector<std::string> names, withAp;
    std::string allAp = "all classes";
    for (const auto& row : perClass) {
        if (row.name == "all" && &row == &perClass.front()) {
            allAp = "all classes " + fixed(row.ap50, 3) + " mAP@0.5";
            continue;
        }
        names.push_back(row.name);
        withAp.push_back(row.name + " " + fixed(row.ap50, 3));
    }
    // No matrix (above kDenseConfusionClasses classes): no confusion plots, "" in their place.
    const bool matrix = !confusion.counts.empty();
    return {matrix ? png(confusionPlot(confusion, false)) : std::string(),
            matrix ? png(confusionPlot(confusion, true)) : std::string(),
            png(curvePlot(curves, "pr", "Precision-Recall Curve", "Recall", "Precision", withAp,
                          allAp)),
            png(f1Plot(curves, names)),
            png(curvePlot(curves, "precision", "Precision-Confidence Curve", "Confidence",
                          "Precision", names, bestOf(curves, "precision"))),
            png(curvePlot(curves, "recall", "Recall-Confidence Curve", "Confidence", "Recall",
                          names, bestOf(curves, "recall")))};
}

} // namespace hr
