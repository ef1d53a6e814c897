// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli bench fixes: for every lever the advisor knows, its first step applied to the
// base settings, predicted by the estimator (peak from its calibration, time factor from probe
// steps timed in turns with the base's) and then measured with real steps at the configured
// batch: how far the advisor's figures are off.
#include "command.h"
#include "common.h"

#include "advisor/fix_advisor.h"
#include "estimate/calibration.h"
#include "estimate/memory_estimator.h"
#include "memory/cpu_memory_tracker.h"
#include "train/compute_threads.h"
#include "util/bytes.h"
#include "util/text.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

namespace hr::cli {
namespace {

// Rounds of timed steps per lever: each round a pair of base steps and then a pair of the
// lever's (one without, one with the optimizer step), so that both see the same load; the
// measured factor is the median of the rounds' ratios. The measurement is what the prediction
// (kTimeFactorRounds rounds) is checked against, so it takes more rounds than the prediction.
constexpr int kTimedRounds = 9;

std::string number(double value, const char* format) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

struct LeverRow {
    std::string name;
    std::string changes; ///< "batch=4 nbs=64"
    std::int64_t predictedPeak = 0, measuredPeak = 0;
    double predictedSeconds = 0; ///< per image, from the config's own calibration
    /// The advisor's factor (predictTimeFactor: probe steps in turns with the base's) and the
    /// range of its rounds.
    double predictedFactor = 1.0, predictedLowest = 1.0, predictedHighest = 1.0;
    int predictedRounds = 0;
    /// Per image over the base's, timed in turns with the base: median, lowest and highest of
    /// the rounds.
    double measuredFactor = 1.0, lowestFactor = 1.0, highestFactor = 1.0;
    std::vector<double> baseSeconds; ///< the base's seconds per image in each round
    double modelFactor = 1.0;        ///< the cost model's figure
    std::string error;               ///< why it has no figures
};

using estimate::median;

/// Predicts (estimator) and measures (real steps) one config's peak and time per image; with
/// `base`, predicts its time factor as the advisor does and times its steps in turns with the
/// base's.
LeverRow benchOne(const std::string& name, const std::string& changes, const TrainConfig& config,
                  const TrainConfig* base) {
    LeverRow row;
    row.name = name;
    row.changes = changes;
    std::string error;
    const MemoryEstimate estimate = estimateMemory(config, &error);
    const std::optional<StepTimeEstimate> time =
        estimate.trainPeak > 0 ? predictStepTime(config, &error) : std::nullopt;
    const std::optional<TimeFactor> factor =
        time && base ? predictTimeFactor(*base, config, true, &error) : std::nullopt;
    const std::optional<MeasuredPeaks> measured =
        time && (factor || !base) ? measurePeaks(config, &error) : std::nullopt;
    const auto rounds =
        measured && base ? timeStepsInTurns(*base, config, kTimedRounds, &error) : std::nullopt;
    if (!measured || (base && !rounds)) {
        row.error = error.empty() ? "no figures" : error;
        return row;
    }
    row.predictedPeak = estimate.trainPeak;
    row.measuredPeak = measured->stepPeak;
    row.predictedSeconds = time->secondsPerImage;
    if (factor) {
        row.predictedFactor = factor->factor;
        row.predictedLowest = factor->lowest;
        row.predictedHighest = factor->highest;
        row.predictedRounds = factor->rounds;
    }
    if (rounds) {
        std::vector<double> ratios;
        for (const auto& [baseSeconds, seconds] : *rounds) {
            ratios.push_back(seconds / baseSeconds);
            row.baseSeconds.push_back(baseSeconds);
        }
        row.measuredFactor = median(ratios);
        row.lowestFactor = *std::min_element(ratios.begin(), ratios.end());
        row.highestFactor = *std::max_element(ratios.begin(), ratios.end());
    }
    return row;
}

/// The base's measured seconds per image: the median of every round it was timed in.
double baseSecondsMeasured(const std::vector<LeverRow>& rows) {
    std::vector<double> all;
    for (const LeverRow& r : rows)
        all.insert(all.end(), r.baseSeconds.begin(), r.baseSeconds.end());
    return median(all);
}

/// "load 3.2" from the system's one-minute load average, or "" where there is none.
std::string loadText() {
    double load[1] = {0.0};
    return getloadavg(load, 1) == 1 ? number(load[0], "load %.1f") : std::string();
}

std::string changesText(const std::vector<std::pair<std::string, std::string>>& changes) {
    std::string out;
    for (const auto& [key, value] : changes)
        out += (out.empty() ? "" : " ") + key + "=" + value;
    return out;
}

std::string json(const std::vector<LeverRow>& rows, const LeverRow& base) {
    std::ostringstream out;
    out << "{\"base\":{\"predicted_peak_bytes\":" << base.predictedPeak
        << ",\"measured_peak_bytes\":" << base.measuredPeak
        << ",\"predicted_seconds_per_image\":" << number(base.predictedSeconds, "%.6f")
        << ",\"measured_seconds_per_image\":" << number(baseSecondsMeasured(rows), "%.6f")
        << "},\"levers\":[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const LeverRow& r = rows[i];
        const bool ok = r.error.empty();
        out << (i ? "," : "") << "{\"name\":\"" << jsonEscape(r.name) << "\",\"changes\":\""
            << jsonEscape(r.changes) << "\",\"predicted_peak_bytes\":" << r.predictedPeak
            << ",\"measured_peak_bytes\":" << r.measuredPeak
            << ",\"predicted_time_factor\":" << (ok ? number(r.predictedFactor, "%.4f") : "null")
            << ",\"calibration_time_factor\":"
            << (ok ? number(r.predictedSeconds / base.predictedSeconds, "%.4f") : "null")
            << ",\"measured_time_factor\":" << (ok ? number(r.measuredFactor, "%.4f") : "null")
            << ",\"model_time_factor\":" << number(r.modelFactor, "%.4f");
        if (!ok)
            out << ",\"error\":\"" << jsonEscape(r.error) << '"';
        out << '}';
    }
    out << "]}";
    return out.str();
}

void printTable(const std::vector<LeverRow>& rows, const LeverRow& base, const TrainConfig& config,
                const std::string& loadBefore) {
    std::printf("%s, imgsz %d, batch %d (nbs %d), %d threads; base: peak predicted %s, measured "
                "%s; %.1f ms CPU time per image predicted, %.1f ms measured; %s before, %s "
                "after\n",
                config.model.c_str(), config.imgsz, config.batch, config.nbs, at::get_num_threads(),
                formatBytes(base.predictedPeak).c_str(), formatBytes(base.measuredPeak).c_str(),
                base.predictedSeconds * 1e3, baseSecondsMeasured(rows) * 1e3, loadBefore.c_str(),
                loadText().c_str());
    std::printf("%-14s %-26s | %9s %9s %7s | %6s %13s %6s %11s %7s | %6s %7s | %5s\n", "lever",
                "changes", "peak pred", "measured", "error", "time x", "rounds", "meas x", "rounds",
                "error", "calib", "error", "model");
    int memoryWithin = 0, timeWithin = 0, calibrationWithin = 0, counted = 0;
    for (const LeverRow& r : rows) {
        if (!r.error.empty()) {
            std::printf("%-14s %-26s | failed: %s\n", r.name.c_str(), r.changes.c_str(),
                        r.error.c_str());
            continue;
        }
        const double memoryError = double(r.predictedPeak) / double(r.measuredPeak) - 1.0;
        const double calibration = r.predictedSeconds / base.predictedSeconds;
        const double timeError = r.predictedFactor / r.measuredFactor - 1.0;
        const double calibrationError = calibration / r.measuredFactor - 1.0;
        ++counted;
        memoryWithin += std::fabs(memoryError) <= 0.10;
        timeWithin += std::fabs(timeError) <= 0.15;
        calibrationWithin += std::fabs(calibrationError) <= 0.15;
        std::printf("%-14s %-26s | %9s %9s %+6.1f%% | %6.2f %5.2f-%5.2f/%d %6.2f %5.2f-%5.2f "
                    "%+6.1f%% | %6.2f %+6.1f%% | %5.2f\n",
                    r.name.c_str(), r.changes.c_str(), formatBytes(r.predictedPeak).c_str(),
                    formatBytes(r.measuredPeak).c_str(), memoryError * 100.0, r.predictedFactor,
                    r.predictedLowest, r.predictedHighest, r.predictedRounds, r.measuredFactor,
                    r.lowestFactor, r.highestFactor, timeError * 100.0, calibration,
                    calibrationError * 100.0, r.modelFactor);
    }
    std::printf(
        "%d of %d levers within +-10%% memory, %d of %d within +-15%% time (%d of %d from "
        "separate calibrations)\n"
        "Time: CPU time per image relative to the base. \"time x\": the advisor's prediction, "
        "probe steps timed in turns with the base's (median of %d rounds, up to %d while they "
        "spread by over %.0f%%; a batch above the probe steps' by each config's calibration "
        "line); \"meas x\": real steps at the "
        "configured batch, the median of %d rounds timed in turns with the base; \"rounds\": "
        "their ranges (/N: the prediction's rounds); \"calib\": the ratio of the two configs' own "
        "calibrations, made minutes "
        "apart (the advisor's figure before); \"model\": the cost model's factor before timing. "
        "Peaks are the training step's, without the loader's queued batches.\n",
        memoryWithin, counted, timeWithin, counted, calibrationWithin, counted, kTimeFactorRounds,
        kTimeFactorMaxRounds, kTimeFactorSpread * 100, kTimedRounds);
}

/// The levers named in --levers ("amp,checkpointing=all": a lever's name or its changes), or
/// every lever without it. False, with the names that exist, when a name matches none.
bool selectLevers(std::vector<LeverChange>& levers, const std::string& names) {
    if (names.empty())
        return true;
    std::vector<std::string> wanted;
    std::stringstream list(names);
    for (std::string name; std::getline(list, name, ',');)
        if (!name.empty())
            wanted.push_back(name);
    auto matches = [](const LeverChange& lever, const std::string& name) {
        return lever.lever == name || changesText(lever.changes) == name;
    };
    for (const std::string& name : wanted)
        if (std::none_of(levers.begin(), levers.end(),
                         [&](const LeverChange& l) { return matches(l, name); })) {
            std::cerr << "bench fixes: --levers: no lever \"" << name << "\" for these settings; "
                      << "they are:";
            for (const LeverChange& l : levers)
                std::cerr << ' ' << l.lever << " (" << changesText(l.changes) << ")";
            std::cerr << "\n";
            return false;
        }
    levers.erase(std::remove_if(levers.begin(), levers.end(),
                                [&](const LeverChange& l) {
                                    return std::none_of(
                                        wanted.begin(), wanted.end(),
                                        [&](const std::string& n) { return matches(l, n); });
                                }),
                 levers.end());
    return true;
}

int runBenchFixes(const ParsedArgs& args) {
    for (const char* required : {"--model", "--imgsz", "--batch"})
        if (!args.has(required)) {
            std::cerr << "bench fixes: " << required << " is required\nusage: headroom-cli bench "
                      << "fixes --model M --imgsz S --batch B [--data D] [--levers L,...] "
                         "[key=value ...] "
                         "[--json]\n";
            return ExitUsage;
        }
    TrainConfig config;
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    for (const auto& [option, key] :
         {std::pair<const char*, const char*>{"--imgsz", "imgsz"}, {"--batch", "batch"}}) {
        const Diagnostics problems = applyOverride(config, key, args.value(option));
        if (!problems.empty()) {
            std::cerr << "bench fixes: " << option << ": " << formatDiagnostics(problems);
            return ExitUsage;
        }
    }
    if (config.batch < 1) {
        std::cerr << "bench fixes: --batch must be 1 or more (auto-fit's -1 has no lever to "
                     "measure)\n";
        return ExitUsage;
    }
    if (const Diagnostics problems = validate(config, "bench fixes"); hasErrors(problems)) {
        std::cerr << formatDiagnostics(problems);
        return ExitUsage;
    }
    useComputeThreads(config.threads);
    CpuMemoryTracker::instance().install();
    torch::manual_seed(0);

    const bool asJson = args.has("--json");
    const std::string device = config.device == "auto" ? "cpu" : config.device;
    const int objects = assignerObjectsPerImage(config);
    const std::string loadBefore = loadText();
    std::vector<LeverChange> levers = leverFirstSteps(config, device, objects);
    if (!selectLevers(levers, args.value("--levers")))
        return ExitUsage;
    const LeverRow base = benchOne("base", "", config, nullptr);
    if (!base.error.empty()) {
        std::cerr << "bench fixes: the base settings cannot be measured: " << base.error << "\n";
        return ExitFailure;
    }
    std::vector<LeverRow> rows;
    for (const LeverChange& lever : levers) {
        if (!asJson)
            std::fprintf(stderr, "bench fixes: %s (%s)...\n", lever.lever.c_str(),
                         changesText(lever.changes).c_str());
        LeverRow row = benchOne(lever.lever, changesText(lever.changes), lever.config, &config);
        row.modelFactor = lever.speedFactor;
        rows.push_back(std::move(row));
    }
    if (asJson)
        std::cout << json(rows, base) << "\n";
    else
        printTable(rows, base, config, loadBefore);
    const bool allRan =
        std::all_of(rows.begin(), rows.end(), [](const LeverRow& r) { return r.error.empty(); });
    return allRan ? ExitOk : ExitFailure;
}

Command makeBenchFixesCommand() {
    Command command;
    command.name = "bench fixes";
    command.summary = "predicted vs measured peak and speed of each fix the advisor knows";
    command.usage =
        "headroom-cli bench fixes --model M --imgsz S --batch B [--data D] [--levers L,...] "
        "[key=value ...] [--json]";
    command.description =
        "For every lever the advisor knows (smaller batch with accumulation, AMP, gradient "
        "checkpointing of the backbone and of all blocks, image size, model scale, freezing "
        "the backbone, SGD, optimizer offload on CUDA, chunked assignment for crowded images) "
        "applies its first step to the base settings, predicts the training step's peak with "
        "the estimator's calibration and its time factor as the advisor does (probe steps "
        "timed in turns with the base's), then measures both with real steps at the configured "
        "batch. Time factors are per image, relative to the base settings, in the process's CPU "
        "time (every thread), which other processes' load stretches less than wall time; the "
        "measured one times the lever's steps in turns with the base's (9 rounds of a pair of "
        "steps each, the median of the rounds' ratios), so that a change of load during the "
        "bench reaches both sides. The table also shows the ratio of the two configs' own "
        "calibrations. The host-memory fixes (image cache, workers, mosaic) change the loader, "
        "which these steps on ready batches do not run: they are not measured here.\n\n"
        "--json prints {\"base\": {...}, \"levers\": [{\"name\", \"changes\", "
        "\"predicted_peak_bytes\", \"measured_peak_bytes\", \"predicted_time_factor\", "
        "\"measured_time_factor\", \"calibration_time_factor\", \"model_time_factor\"}, "
        "...]}.";
    command.options = trainConfigOptions();
    command.options.push_back({"--imgsz", "S", "image size of the base settings"});
    command.options.push_back({"--batch", "B", "batch of the base settings"});
    command.options.push_back({"--levers", "L,...",
                               "only these levers: names (amp, checkpointing) or changes "
                               "(checkpointing=all), comma-separated"});
    command.options.push_back({"--json", "", "print one JSON object"});
    command.acceptsOverrides = true;
    command.run = runBenchFixes;
    return command;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeBenchFixesCommand);

} // namespace hr::cli
