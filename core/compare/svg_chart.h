// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hr {

/// One set of points on an SvgChart.
struct ChartSeries {
    std::string name;
    std::vector<std::pair<double, double>> points; ///< (x, y), drawn in this order
    std::string colour;                            ///< CSS colour; empty = from the palette
    bool line = true;                              ///< join the points
    bool markers = false;                          ///< a dot per point
    bool dashed = false;
    std::vector<std::string> labels; ///< optional text beside each point (same size as points)
};

/// A self-contained SVG chart (axes, ticks, legend; no scripts, nothing fetched), for the HTML
/// comparison report.
struct SvgChart {
    std::string title;
    std::string xLabel, yLabel;
    int width = 640, height = 340;
    std::vector<ChartSeries> series;

    /// The `<svg>` element. Series without points are listed in the legend only; a chart with
    /// no points at all says so in its plot area.
    std::string render() const;
};

/// The colour of series `index` in the report's palette (readable on white).
std::string chartColour(size_t index);

/// Escapes text for HTML/SVG content and attribute values.
std::string htmlEscape(const std::string& text);

} // namespace hr
