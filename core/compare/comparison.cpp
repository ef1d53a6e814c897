// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/comparison.h"

#include "config/train_rules.h"
#include "util/atomic_file.h"

#include <algorithm>
#include <filesystem>

namespace hr {

namespace {

/// The settings that tell strategies apart, read back from the run's config.yaml.
void readSettings(const RunRecord& run, ComparisonRow& row) {
    const TrainConfigResult parsed =
        parseTrainConfig(run.configYaml, run.summary.path + "/config.yaml");
    if (!parsed.config) {
        row.batch = run.summary.batch;
        row.imgsz = run.summary.imgsz;
        row.amp = run.summary.amp;
        row.checkpointing = run.summary.checkpointing;
        row.epochs = run.summary.epochsPlanned;
        return;
    }
    const TrainConfig& c = *parsed.config;
    row.batch = c.batch;
    row.accumulate = accumulateSteps(c);
    row.imgsz = c.imgsz;
    row.amp = c.amp;
    row.checkpointing = toString(c.checkpointing);
    row.epochs = c.epochs;
}

} // namespace

void RunPeaks::oom(Phase phase, std::int64_t bytes) {
    if (phase == Phase::Validation)
        validation(bytes);
    else
        training(bytes);
}

RunPeaks runPeaks(const RunRecord& run) {
    RunPeaks peaks;
    for (const EventRecord& e : run.events) {
        if (e.type == "batch_end") {
            peaks.training(static_cast<std::int64_t>(e.number("peak_bytes")));
        } else if (e.type == "epoch_end") {
            peaks.training(static_cast<std::int64_t>(e.number("train_peak_bytes")));
            peaks.validation(static_cast<std::int64_t>(e.number("val_peak_bytes")));
        } else if (e.type == "oom") {
            Phase phase = Phase::Idle;
            parsePhase(e.text("phase"), phase);
            peaks.oom(phase, static_cast<std::int64_t>(e.number("peak_bytes")));
        }
    }
    return peaks;
}

std::vector<std::pair<double, double>> ComparisonRow::mapOverWallTime() const {
    std::vector<std::pair<double, double>> points;
    double start = -1;
    std::vector<double> epochTimes;
    for (const EventRecord& e : run.events) {
        if (e.type == "run_started" && start < 0)
            start = e.time;
        else if (e.type == "epoch_end" && start >= 0)
            epochTimes.push_back(e.time - start);
    }
    if (epochTimes.size() == run.epochs.size()) {
        for (size_t i = 0; i < run.epochs.size(); ++i)
            points.emplace_back(epochTimes[i], run.epochs[i].map);
        return points;
    }
    double elapsed = 0;
    for (const EpochRecord& e : run.epochs) {
        elapsed += e.epochSeconds;
        points.emplace_back(elapsed, e.map);
    }
    return points;
}

ComparisonRow rowFromRun(const RunRecord& run, const Strategy* strategy) {
    ComparisonRow row;
    row.strategy = strategy ? strategy->name : run.summary.name;
    row.runDir = run.summary.path;
    row.run = run;
    if (strategy) {
        row.description =
            strategy->description.empty() ? describeOverrides(*strategy) : strategy->description;
        row.claim = strategy->claim;
    }
    readSettings(run, row);
    if (!strategy) {
        row.description = "batch " + std::to_string(row.batch);
        if (row.accumulate > 1)
            row.description += " + accumulate " + std::to_string(row.accumulate);
        if (row.amp)
            row.description += " + AMP";
        if (!row.checkpointing.empty() && row.checkpointing != "none")
            row.description += " + checkpointing " + row.checkpointing;
    }
    // A damaged or missing per_class.csv leaves the row without classes, as a run that never
    // validated.
    std::string text;
    if (!run.summary.path.empty() &&
        readFile((std::filesystem::path(run.summary.path) / kPerClassCsv).string(), text))
        if (!parsePerClassCsv(text, row.perClass, nullptr))
            row.perClass.clear();
    const RunPeaks peaks = runPeaks(run);
    row.trainPeakBytes = peaks.trainPeak();
    row.valPeakBytes = peaks.valPeak();
    if (!run.epochs.empty()) {
        double seconds = 0, speed = 0;
        for (const EpochRecord& e : run.epochs) {
            seconds += e.epochSeconds;
            speed += e.imagesPerSecond;
        }
        const double n = static_cast<double>(run.epochs.size());
        row.meanEpochSeconds = seconds / n;
        row.imagesPerSecond = speed / n;
        row.map50 = run.epochs.back().map50;
        row.map = run.epochs.back().map;
        row.hasMetrics = true;
    }
    bool stoppedEarly = false;
    for (const EventRecord& e : run.events) {
        if (e.type == "oom") {
            if (row.ooms++ == 0)
                row.oomPhase = e.text("phase");
        } else if (e.type == "run_finished") {
            stoppedEarly = e.text("stopped_early") == "true";
        } else if (e.type == "run_started") {
            stoppedEarly = false;
        }
    }
    // How the run ended is RunStore's reading of events.jsonl (run states, older runs too).
    const RunSummary& end = run.summary;
    if (end.failed) {
        row.status = row.ooms > 0 || end.state == "stopped_by_oom" ? "OOM" : "failed";
        row.message = end.reason;
        row.messageCode = end.reasonCode;
        row.messageArgs = end.reasonArgs;
    } else if (end.finished) {
        row.status = end.state == "stopped" || stoppedEarly ? "stopped" : "done";
    } else {
        row.status = "incomplete";
    }
    return row;
}

Comparison compareRunFolders(const std::vector<std::string>& dirs) {
    Comparison comparison;
    for (const std::string& dir : dirs) {
        std::string error;
        if (std::optional<RunRecord> run = RunStore::load(dir, &error)) {
            comparison.rows.push_back(rowFromRun(*run, nullptr));
        } else {
            ComparisonRow row;
            row.strategy = std::filesystem::path(dir).filename().string();
            row.runDir = dir;
            row.status = "not run";
            row.message = error;
            row.messageCode = "run_unreadable";
            row.messageArgs = {error};
            comparison.rows.push_back(row);
        }
    }
    markParetoFront(comparison);
    return comparison;
}

std::vector<size_t> paretoFront(const std::vector<std::pair<double, double>>& points) {
    std::vector<size_t> front;
    for (size_t i = 0; i < points.size(); ++i) {
        const auto& [memory, map] = points[i];
        bool dominated = false;
        for (size_t j = 0; j < points.size() && !dominated; ++j) {
            const auto& [m, a] = points[j];
            dominated = j != i && m <= memory && a >= map && (m < memory || a > map);
        }
        if (!dominated)
            front.push_back(i);
    }
    std::stable_sort(front.begin(), front.end(),
                     [&](size_t a, size_t b) { return points[a].first < points[b].first; });
    return front;
}

void markParetoFront(Comparison& comparison) {
    std::vector<std::pair<double, double>> points;
    std::vector<size_t> rowOf;
    for (size_t i = 0; i < comparison.rows.size(); ++i) {
        ComparisonRow& row = comparison.rows[i];
        row.pareto = false;
        if (!row.hasMetrics || row.status == "OOM" || row.status == "failed" ||
            row.trainPeakBytes <= 0)
            continue;
        points.emplace_back(static_cast<double>(row.trainPeakBytes), row.map);
        rowOf.push_back(i);
    }
    for (size_t index : paretoFront(points))
        comparison.rows[rowOf[index]].pareto = true;
}

std::optional<double> measuredRatio(const Comparison& c, size_t row, double ComparisonRow::*field) {
    if (c.rows.empty() || row >= c.rows.size())
        return std::nullopt;
    const double base = c.rows[0].*field, value = c.rows[row].*field;
    if (!c.rows[0].hasMetrics || !c.rows[row].hasMetrics || base <= 0 || value <= 0)
        return std::nullopt;
    return value / base;
}

std::optional<double> measuredMemoryRatio(const Comparison& c, size_t row) {
    if (c.rows.empty() || row >= c.rows.size())
        return std::nullopt;
    const auto base = c.rows[0].trainPeakBytes, value = c.rows[row].trainPeakBytes;
    if (base <= 0 || value <= 0 || c.rows[0].status != "done")
        return std::nullopt;
    return static_cast<double>(value) / static_cast<double>(base);
}

std::optional<double> claimedRatio(const Comparison& c, size_t row, double PublishedClaim::*field) {
    if (c.rows.empty() || row >= c.rows.size() || !c.rows[0].claim || !c.rows[row].claim)
        return std::nullopt;
    const double base = (*c.rows[0].claim).*field, value = (*c.rows[row].claim).*field;
    if (base <= 0 || value <= 0)
        return std::nullopt;
    return value / base;
}

} // namespace hr
