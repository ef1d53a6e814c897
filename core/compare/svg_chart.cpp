// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace hr {

namespace {

std::string num(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

/// A tick label: few digits, no trailing zeros, k/M/G for large values.
std::string tickText(double value, double step) {
    char text[32];
    const double a = std::abs(value);
    if (a >= 1e9)
        std::snprintf(text, sizeof text, "%gG", value / 1e9);
    else if (a >= 1e6)
        std::snprintf(text, sizeof text, "%gM", value / 1e6);
    else if (a >= 1e4)
        std::snprintf(text, sizeof text, "%gk", value / 1e3);
    else if (step >= 1)
        std::snprintf(text, sizeof text, "%.0f", value);
    else
        std::snprintf(text, sizeof text, "%.*f",
                      std::min(6, static_cast<int>(std::ceil(-std::log10(step)))), value);
    return text;
}

/// A "nice" tick step (1, 2 or 5 x 10^n) giving about `count` ticks over `span`.
double niceStep(double span, int count) {
    if (!(span > 0))
        return 1;
    const double raw = span / count;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / magnitude;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * magnitude;
}

} // namespace

std::string chartColour(size_t index) {
    static const char* const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                          "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    return palette[index % (sizeof palette / sizeof palette[0])];
}

std::string htmlEscape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string SvgChart::render() const {
    const double left = 70, right = 170, top = 30, bottom = 45;
    const double plotW = width - left - right, plotH = height - top - bottom;
    double x0 = std::numeric_limits<double>::max(), x1 = std::numeric_limits<double>::lowest();
    double y0 = x0, y1 = x1;
    size_t total = 0;
    for (const ChartSeries& s : series)
        for (const auto& [x, y] : s.points) {
            if (!std::isfinite(x) || !std::isfinite(y))
                continue;
            x0 = std::min(x0, x), x1 = std::max(x1, x);
            y0 = std::min(y0, y), y1 = std::max(y1, y);
            ++total;
        }
    if (total == 0)
        x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    if (y0 > 0 && y0 < 0.5 * y1)
        y0 = 0; // start at zero unless that squashes the data
    const bool nonNegative = y0 >= 0;
    if (x1 - x0 <= 0)
        x0 -= 0.5, x1 += 0.5;
    if (y1 - y0 <= 0) {
        const double pad = y1 == 0 ? 1 : std::abs(y1) * 0.1;
        y0 -= pad, y1 += pad;
        if (nonNegative && y0 < 0)
            y0 = 0; // mAP and memory are never negative: do not invent an axis below zero
    }
    const double xStep = niceStep(x1 - x0, 6), yStep = niceStep(y1 - y0, 5);
    x0 = std::floor(x0 / xStep) * xStep, x1 = std::ceil(x1 / xStep) * xStep;
    y0 = std::floor(y0 / yStep) * yStep, y1 = std::ceil(y1 / yStep) * yStep;
    const auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * plotW; };
    const auto py = [&](double y) { return top + plotH - (y - y0) / (y1 - y0) * plotH; };

    std::ostringstream svg;
    svg << "<svg width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width
        << " " << height << "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n"
        << "<title>" << htmlEscape(title) << "</title>\n"
        << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height
        << "\" fill=\"#ffffff\"/>\n"
        << "<text x=\"" << left << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">"
        << htmlEscape(title) << "</text>\n";
    for (double x = x0; x <= x1 + xStep * 0.5; x += xStep) {
        svg << "<line x1=\"" << num(px(x)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(px(x))
            << "\" y2=\"" << num(top + plotH) << "\" stroke=\"#e4e4e4\"/>"
            << "<text x=\"" << num(px(x)) << "\" y=\"" << num(top + plotH + 15)
            << "\" text-anchor=\"middle\">" << tickText(x, xStep) << "</text>\n";
    }
    for (double y = y0; y <= y1 + yStep * 0.5; y += yStep) {
        svg << "<line x1=\"" << num(left) << "\" y1=\"" << num(py(y)) << "\" x2=\""
            << num(left + plotW) << "\" y2=\"" << num(py(y)) << "\" stroke=\"#e4e4e4\"/>"
            << "<text x=\"" << num(left - 6) << "\" y=\"" << num(py(y) + 4)
            << "\" text-anchor=\"end\">" << tickText(y, yStep) << "</text>\n";
    }
    svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << num(plotW) << "\" height=\""
        << num(plotH) << "\" fill=\"none\" stroke=\"#888\"/>\n"
        << "<text x=\"" << num(left + plotW / 2) << "\" y=\"" << height - 8
        << "\" text-anchor=\"middle\">" << htmlEscape(xLabel) << "</text>\n"
        << "<text transform=\"translate(14," << num(top + plotH / 2)
        << ") rotate(-90)\" text-anchor=\"middle\">" << htmlEscape(yLabel) << "</text>\n";
    if (total == 0)
        svg << "<text x=\"" << num(left + plotW / 2) << "\" y=\"" << num(top + plotH / 2)
            << "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n";
    for (size_t i = 0; i < series.size(); ++i) {
        const ChartSeries& s = series[i];
        const std::string colour = s.colour.empty() ? chartColour(i) : s.colour;
        svg << "<g class=\"series\" data-name=\"" << htmlEscape(s.name) << "\" data-points=\""
            << s.points.size() << "\">";
        if (s.line && s.points.size() > 1) {
            svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.6\""
                << (s.dashed ? " stroke-dasharray=\"5,3\"" : "") << " points=\"";
            for (const auto& [x, y] : s.points)
                if (std::isfinite(x) && std::isfinite(y))
                    svg << num(px(x)) << "," << num(py(y)) << " ";
            svg << "\"/>";
        }
        if (s.markers || s.points.size() == 1)
            for (size_t k = 0; k < s.points.size(); ++k) {
                const auto& [x, y] = s.points[k];
                if (!std::isfinite(x) || !std::isfinite(y))
                    continue;
                svg << "<circle cx=\"" << num(px(x)) << "\" cy=\"" << num(py(y))
                    << "\" r=\"4\" fill=\"" << colour << "\"/>";
                if (k < s.labels.size() && !s.labels[k].empty())
                    svg << "<text x=\"" << num(px(x) + 6) << "\" y=\"" << num(py(y) - 6) << "\">"
                        << htmlEscape(s.labels[k]) << "</text>";
            }
        svg << "</g>\n";
        const double ly = top + 8 + 16 * static_cast<double>(i);
        svg << "<line x1=\"" << num(left + plotW + 12) << "\" y1=\"" << num(ly) << "\" x2=\""
            << num(left + plotW + 30) << "\" y2=\"" << num(ly) << "\" stroke=\"" << colour
            << "\" stroke-width=\"3\"" << (s.dashed ? " stroke-dasharray=\"5,3\"" : "") << "/>"
            << "<text x=\"" << num(left + plotW + 35) << "\" y=\"" << num(ly + 4) << "\">"
            << htmlEscape(s.name) << "</text>\n";
    }
    svg << "</svg>\n";
    return svg.str();
}

} // namespace hr
