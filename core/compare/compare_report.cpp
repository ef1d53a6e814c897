// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/compare_report.h"

#include "compare/class_comparison.h"
#include "compare/svg_chart.h"
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace hr {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string fixed(double value, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string ratioText(const std::optional<double>& ratio) {
    return ratio ? "x" + fixed(*ratio, 2) : "";
}

double epochRatio(const Comparison& c, size_t i, bool* ok) {
    const auto r = measuredRatio(c, i, &ComparisonRow::meanEpochSeconds);
    *ok = r.has_value();
    return r.value_or(0);
}

std::string settingsText(const ComparisonRow& row) {
    if (row.batch <= 0)
        return "";
    std::string text = std::to_string(row.batch);
    if (row.accumulate > 1)
        text += "x" + std::to_string(row.accumulate);
    return text;
}

std::string statusText(const ComparisonRow& row) {
    return row.status == "OOM" && !row.oomPhase.empty() ? "OOM (" + row.oomPhase + ")" : row.status;
}

/// At most `limit` points, evenly thinned; the last point is always kept.
std::vector<std::pair<double, double>> thin(const std::vector<std::pair<double, double>>& points,
                                            size_t limit) {
    if (points.size() <= limit)
        return points;
    std::vector<std::pair<double, double>> out;
    const double step = static_cast<double>(points.size()) / static_cast<double>(limit);
    for (size_t k = 0; k < limit; ++k)
        out.push_back(points[static_cast<size_t>(static_cast<double>(k) * step)]);
    out.back() = points.back();
    return out;
}

SvgChart chart(const std::string& title, const std::string& xLabel, const std::string& yLabel) {
    SvgChart c;
    c.title = title;
    c.xLabel = xLabel;
    c.yLabel = yLabel;
    return c;
}

ChartSeries series(const std::string& name, std::vector<std::pair<double, double>> points,
                   const std::string& colour, bool line, bool markers) {
    ChartSeries s;
    s.name = name;
    s.points = std::move(points);
    s.colour = colour;
    s.line = line;
    s.markers = markers;
    return s;
}

} // namespace

std::string comparisonCsvHeader() {
    return "strategy,description,status,oom_phase,batch,accumulate,imgsz,amp,checkpointing,"
           "epochs,epochs_done,train_peak_bytes,val_peak_bytes,mean_epoch_s,images_per_s,map50,"
           "map50_95,pareto,train_peak_ratio,epoch_time_ratio,claim_memory_gb,claim_epoch_min,"
           "claim_map50,"
           "claim_memory_ratio,claim_epoch_time_ratio,run_dir,message";
}

std::string comparisonCsv(const Comparison& c) {
    std::ostringstream out;
    out << comparisonCsvHeader() << "\n";
    for (size_t i = 0; i < c.rows.size(); ++i) {
        const ComparisonRow& r = c.rows[i];
        const auto memoryRatio = measuredMemoryRatio(c, i);
        const auto timeRatio = measuredRatio(c, i, &ComparisonRow::meanEpochSeconds);
        const auto claimMemory = claimedRatio(c, i, &PublishedClaim::memoryGb);
        const auto claimTime = claimedRatio(c, i, &PublishedClaim::epochMinutes);
        const auto optional = [](const std::optional<double>& v) {
            return v ? fixed(*v, 4) : std::string();
        };
        const auto claimed = [&](double PublishedClaim::*field, int decimals) {
            return r.claim && (*r.claim).*field > 0 ? fixed((*r.claim).*field, decimals)
                                                    : std::string();
        };
        out << csvField(r.strategy) << "," << csvField(r.description) << "," << r.status << ","
            << r.oomPhase << "," << r.batch << "," << r.accumulate << "," << r.imgsz << ","
            << (r.amp ? "true" : "false") << "," << r.checkpointing << "," << r.epochs << ","
            << r.run.epochs.size() << "," << r.trainPeakBytes << "," << r.valPeakBytes << ","
            << (r.hasMetrics ? fixed(r.meanEpochSeconds, 3) : "") << ","
            << (r.hasMetrics ? fixed(r.imagesPerSecond, 2) : "") << ","
            << (r.hasMetrics ? fixed(r.map50, 5) : "") << ","
            << (r.hasMetrics ? fixed(r.map, 5) : "") << "," << (r.pareto ? "true" : "false") << ","
            << optional(memoryRatio) << "," << optional(timeRatio) << ","
            << claimed(&PublishedClaim::memoryGb, 2) << ","
            << claimed(&PublishedClaim::epochMinutes, 2) << ","
            << claimed(&PublishedClaim::map50, 3) << "," << optional(claimMemory) << ","
            << optional(claimTime) << "," << csvField(r.runDir) << "," << csvField(r.message)
            << "\n";
    }
    return out.str();
}

std::string comparisonText(const Comparison& c) {
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"strategy", "status", "batch", "AMP", "ckpt", "train peak", "vs base", "claim",
                     "val peak", "epoch s", "vs base", "claim", "img/s", "mAP50", "claim",
                     "mAP50-95", "front"});
    for (size_t i = 0; i < c.rows.size(); ++i) {
        const ComparisonRow& r = c.rows[i];
        bool ok = false;
        const double timeRatio = epochRatio(c, i, &ok);
        cells.push_back(
            {r.strategy, statusText(r), settingsText(r), r.batch > 0 ? (r.amp ? "yes" : "no") : "",
             r.checkpointing == "none" ? "no" : r.checkpointing,
             r.trainPeakBytes > 0 ? formatBytes(r.trainPeakBytes) : "",
             ratioText(measuredMemoryRatio(c, i)),
             ratioText(claimedRatio(c, i, &PublishedClaim::memoryGb)),
             r.valPeakBytes > 0 ? formatBytes(r.valPeakBytes) : "",
             r.hasMetrics ? fixed(r.meanEpochSeconds, 1) : "", ok ? "x" + fixed(timeRatio, 2) : "",
             ratioText(claimedRatio(c, i, &PublishedClaim::epochMinutes)),
             r.hasMetrics ? fixed(r.imagesPerSecond, 1) : "", r.hasMetrics ? fixed(r.map50, 3) : "",
             r.claim && r.claim->map50 > 0 ? fixed(r.claim->map50, 3) : "",
             r.hasMetrics ? fixed(r.map, 3) : "", r.pareto ? "*" : ""});
    }
    std::vector<size_t> widths(cells[0].size(), 0);
    for (const auto& line : cells)
        for (size_t k = 0; k < line.size(); ++k)
            widths[k] = std::max(widths[k], line[k].size());
    std::ostringstream out;
    for (const auto& line : cells) {
        std::string text;
        for (size_t k = 0; k < line.size(); ++k) {
            std::string cell = line[k];
            cell.resize(widths[k], ' ');
            text += (k ? "  " : "") + cell;
        }
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        out << text << "\n";
    }
    bool anyClaim = false;
    for (const ComparisonRow& r : c.rows)
        anyClaim = anyClaim || (r.claim && !r.claim->empty());
    if (anyClaim && !c.rows.empty())
        out << "vs base: measured ratio to the first row (memory: the training peak); claim: "
               "the published ratio ("
            << (c.rows[0].claim && !c.rows[0].claim->source.empty() ? c.rows[0].claim->source
                                                                    : "published numbers")
            << ")\n";
    for (const ComparisonRow& r : c.rows)
        if (!r.message.empty() && r.status != "done")
            out << r.strategy << ": " << r.message << "\n";
    return out.str();
}

std::string comparisonHtml(const Comparison& c) {
    SvgChart memory = chart("Memory over time", "seconds since the run started", "allocated (MiB)");
    SvgChart mapEpochs = chart("mAP@0.5:0.95 over epochs", "epoch", "mAP@0.5:0.95");
    SvgChart mapTime =
        chart("mAP@0.5:0.95 over wall time", "seconds since the run started", "mAP@0.5:0.95");
    SvgChart loss = chart("Training loss over epochs", "epoch", "box + cls + dfl");
    SvgChart scatter =
        chart("Training peak vs mAP@0.5:0.95", "training peak memory (MiB)", "mAP@0.5:0.95");
    ChartSeries front = series("Pareto front", {}, "#333333", true, false);
    front.dashed = true;
    for (size_t i = 0; i < c.rows.size(); ++i) {
        const ComparisonRow& r = c.rows[i];
        const std::string colour = chartColour(i);
        ChartSeries m = series(r.strategy, {}, colour, true, false);
        std::vector<std::pair<double, double>> samples;
        for (const MemorySample& s : r.run.memory)
            samples.emplace_back(s.seconds, static_cast<double>(s.allocated) / kMiB);
        m.points = thin(samples, 800);
        memory.series.push_back(m);
        ChartSeries e = series(r.strategy, {}, colour, true, true);
        ChartSeries l = series(r.strategy, {}, colour, true, true);
        for (const EpochRecord& rec : r.run.epochs) {
            e.points.emplace_back(rec.epoch, rec.map);
            l.points.emplace_back(rec.epoch, rec.boxLoss + rec.clsLoss + rec.dflLoss);
        }
        mapEpochs.series.push_back(e);
        loss.series.push_back(l);
        mapTime.series.push_back(series(r.strategy, r.mapOverWallTime(), colour, true, true));
        ChartSeries p = series(r.strategy, {}, colour, false, true);
        if (r.hasMetrics && r.trainPeakBytes > 0 && r.status != "OOM") {
            p.points.emplace_back(static_cast<double>(r.trainPeakBytes) / kMiB, r.map);
            p.labels.push_back(r.pareto ? r.strategy + " *" : r.strategy);
        }
        scatter.series.push_back(p);
        if (r.pareto)
            front.points.emplace_back(static_cast<double>(r.trainPeakBytes) / kMiB, r.map);
    }
    std::sort(front.points.begin(), front.points.end());
    scatter.series.push_back(front);

    std::ostringstream html;
    html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
         << htmlEscape(c.title.empty() ? "Headroom strategy comparison" : c.title)
         << "</title>\n<style>\nbody{font-family:sans-serif;margin:24px;color:#222}\n"
            "table{border-collapse:collapse;margin:12px 0}\n"
            "th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}\n"
            "th:first-child,td:first-child,td.text{text-align:left}\n"
            "tr.oom td{background:#fde8e8}\ntr.front td:first-child{font-weight:bold}\n"
            ".claim{color:#777;font-size:90%}\n.charts svg{margin:8px 8px 0 0}\n</style>\n"
            "</head>\n<body>\n<h1>"
         << htmlEscape(c.title.empty() ? "Headroom strategy comparison" : c.title) << "</h1>\n";
    html << "<table>\n<tr><th>strategy</th><th>settings</th><th>status</th><th>batch</th>"
            "<th>AMP</th><th>checkpointing</th><th>training peak</th><th>validation peak</th>"
            "<th>mean epoch (s)</th>"
            "<th>images/s</th><th>mAP@0.5</th><th>mAP@0.5:0.95</th><th>Pareto</th></tr>\n";
    for (size_t i = 0; i < c.rows.size(); ++i) {
        const ComparisonRow& r = c.rows[i];
        const auto claimSpan = [](const std::optional<double>& ratio) {
            return ratio ? " <span class=\"claim\">(claim " + ratioText(ratio) + ")</span>"
                         : std::string();
        };
        const auto measured = [](const std::optional<double>& ratio) {
            return ratio ? " " + ratioText(ratio) : std::string();
        };
        bool ok = false;
        const double timeRatio = epochRatio(c, i, &ok);
        html << "<tr class=\""
             << (r.status == "OOM" ? "oom"
                 : r.pareto        ? "front"
                                   : "row")
             << "\"><td>" << htmlEscape(r.strategy) << "</td><td class=\"text\">"
             << htmlEscape(r.description) << "</td><td class=\"text\">" << htmlEscape(statusText(r))
             << "</td><td>" << settingsText(r) << "</td><td>" << (r.amp ? "yes" : "no")
             << "</td><td>" << htmlEscape(r.checkpointing) << "</td><td>"
             << (r.trainPeakBytes > 0 ? formatBytes(r.trainPeakBytes) : "")
             << measured(measuredMemoryRatio(c, i))
             << claimSpan(claimedRatio(c, i, &PublishedClaim::memoryGb)) << "</td><td>"
             << (r.valPeakBytes > 0 ? formatBytes(r.valPeakBytes) : "") << "</td><td>"
             << (r.hasMetrics ? fixed(r.meanEpochSeconds, 1) : "")
             << (ok ? " x" + fixed(timeRatio, 2) : "")
             << claimSpan(claimedRatio(c, i, &PublishedClaim::epochMinutes)) << "</td><td>"
             << (r.hasMetrics ? fixed(r.imagesPerSecond, 1) : "") << "</td><td>"
             << (r.hasMetrics ? fixed(r.map50, 3) : "")
             << (r.claim && r.claim->map50 > 0
                     ? " <span class=\"claim\">(claim " + fixed(r.claim->map50, 3) + ")</span>"
                     : "")
             << "</td><td>" << (r.hasMetrics ? fixed(r.map, 3) : "") << "</td><td>"
             << (r.pareto ? "*" : "") << "</td></tr>\n";
    }
    html << "</table>\n<p>Ratios (x) are to the first row; memory ratios compare training "
            "peaks (validation is measured apart, from the samples taken while it ran); claims "
            "are the published ratios";
    if (!c.rows.empty() && c.rows[0].claim && !c.rows[0].claim->source.empty())
        html << " (" << htmlEscape(c.rows[0].claim->source) << ")";
    html << ". Published numbers come from other hardware and data: treat them as hypotheses."
            "</p>\n";
    for (const ComparisonRow& r : c.rows)
        if (!r.message.empty() && r.status != "done")
            html << "<p><b>" << htmlEscape(r.strategy) << "</b>: " << htmlEscape(r.message)
                 << "</p>\n";
    html << "<div class=\"charts\">\n"
         << memory.render() << mapEpochs.render() << mapTime.render() << loss.render()
         << scatter.render() << "</div>\n</body>\n</html>\n";
    return html.str();
}

bool writeComparison(const Comparison& comparison, const std::string& dir, std::string* error) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error)
            *error = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    if (!writeFileAtomically(dir + "/compare.csv", comparisonCsv(comparison), error) ||
        !writeFileAtomically(dir + "/compare.html", comparisonHtml(comparison), error))
        return false;
    const ClassComparison classes = compareByClass(comparison);
    if (classes.classes.empty())
        return true; // no run has validated: no class to compare
    return writeFileAtomically(dir + "/" + kClassComparisonCsv, classComparisonCsv(classes), error);
}

} // namespace hr
