// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli compare: runs a strategy matrix (or reads existing run folders) and writes the
// comparison as a table, compare.csv and a self-contained compare.html.
#include "command.h"
#include "common.h"

#include "compare/class_comparison.h"
#include "compare/compare_report.h"
#include "compare/strategy_runner.h"
#include "config/train_rules.h"
#include "util/bytes.h"
#include "util/text.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

namespace hr::cli {
namespace {

std::atomic<StrategyRunner*> g_runner{nullptr};

void onInterrupt(int) {
    // First Ctrl-C: stop the running strategy after its step and skip the rest; the table of
    // what finished is still written. A second one uses the default handler.
    if (StrategyRunner* runner = g_runner.load())
        runner->requestStop();
    std::signal(SIGINT, SIG_DFL);
}

/// One line per epoch and per strategy change; the full stream is in each run folder.
class MatrixPrinter {
public:
    explicit MatrixPrinter(const std::vector<Strategy>& strategies) : m_strategies(strategies) {}

    void operator()(size_t index, const TrainEvent& event) {
        const std::string& name = m_strategies[index].name;
        char text[256];
        if (const auto* e = std::get_if<BatchEnd>(&event)) {
            m_peaks.training(e->peakBytes);
        } else if (const auto* e = std::get_if<RunStarted>(&event)) {
            m_peaks = RunPeaks();
            std::cout << "[" << index + 1 << "/" << m_strategies.size() << "] " << name
                      << ": batch " << e->config.batch << ", accumulate "
                      << accumulateSteps(e->config) << (e->config.amp ? ", AMP" : "")
                      << (e->config.checkpointing != Checkpointing::None
                              ? std::string(", checkpointing ") + toString(e->config.checkpointing)
                              : std::string())
                      << " -> " << e->runDir << "\n"
                      << std::flush;
        } else if (const auto* e = std::get_if<EpochEnd>(&event)) {
            m_peaks.training(e->trainPeakBytes);
            m_peaks.validation(e->valPeakBytes);
            std::snprintf(text, sizeof text,
                          "  %s epoch %d/%d  mAP50 %.3f  mAP50-95 %.3f  %.1f s  %.1f img/s  "
                          "train peak %s  val peak %s\n",
                          name.c_str(), e->epoch + 1, e->epochs, e->map50, e->map, e->epochSeconds,
                          e->imagesPerSecond, formatBytes(m_peaks.trainPeak()).c_str(),
                          m_peaks.valPeak() > 0 ? formatBytes(m_peaks.valPeak()).c_str() : "-");
            std::cout << text << std::flush;
        } else if (const auto* e = std::get_if<OomOccurred>(&event)) {
            m_peaks.oom(e->report.phase, e->report.peakBytes);
            std::cout << "  " << name << ": out of memory in the " << toString(e->report.phase)
                      << " phase (epoch " << e->report.epoch + 1 << ", batch "
                      << e->report.batchIndex + 1 << "); recorded as OOM\n"
                      << std::flush;
        } else if (const auto* e = std::get_if<LogMessage>(&event)) {
            if (e->level != LogMessage::Level::Info)
                std::cerr << "  " << name << ": " << e->text << "\n";
        }
    }

private:
    const std::vector<Strategy>& m_strategies;
    RunPeaks m_peaks; ///< of the running strategy
};

int finish(Comparison& comparison, const std::string& out) {
    std::cout << "\n" << comparisonText(comparison);
    const ClassComparison classes = compareByClass(comparison);
    if (!classes.classes.empty())
        std::cout << "\n" << classComparisonText(classes);
    std::string error;
    if (!writeComparison(comparison, out, &error)) {
        std::cerr << "compare: " << error << "\n";
        return ExitFailure;
    }
    std::cout << "Wrote " << out << "/compare.csv"
              << (classes.classes.empty() ? " and " : ", ") << out << "/compare.html";
    if (!classes.classes.empty())
        std::cout << " and " << out << "/" << kClassComparisonCsv;
    std::cout << "\n";
    for (const ComparisonRow& row : comparison.rows)
        if (row.status == "failed" || row.status == "invalid" || row.status == "not run")
            return ExitFailure;
    return ExitOk;
}

int runCompare(const ParsedArgs& args) {
    if (args.has("--runs")) {
        std::vector<std::string> dirs;
        for (const std::string& dir : split(args.value("--runs"), ','))
            if (!trim(dir).empty())
                dirs.push_back(trim(dir));
        if (dirs.empty()) {
            std::cerr << "compare: --runs needs run folders separated by commas, e.g. "
                         "--runs runs/a,runs/b\n";
            return ExitUsage;
        }
        Comparison comparison = compareRunFolders(dirs);
        comparison.title = "Run comparison";
        return finish(comparison, args.value("--out", "compare-report"));
    }
    TrainConfig base;
    if (!buildTrainConfig(args, base))
        return ExitUsage;
    bool named = false;
    for (const auto& [key, value] : args.overrides())
        named = named || key == "name";
    if (!named)
        base.name = "compare";
    if (base.batch < 1) {
        std::cerr << "compare: batch must be a fixed size (got " << base.batch
                  << "); the strategies are relative to it. Write e.g. batch=16\n";
        return ExitUsage;
    }
    std::vector<Strategy> strategies = defaultStrategies();
    if (args.has("--strategies")) {
        const StrategiesResult loaded = loadStrategies(args.value("--strategies"));
        std::cerr << formatDiagnostics(loaded.diagnostics);
        if (loaded.strategies.empty())
            return ExitUsage;
        strategies = loaded.strategies;
    }
    // Every strategy's settings are checked before the first one trains.
    bool valid = true;
    for (const Strategy& strategy : strategies) {
        Diagnostics problems;
        if (!applyStrategy(base, strategy, problems)) {
            std::cerr << formatDiagnostics(problems);
            valid = false;
        }
    }
    if (!valid)
        return ExitUsage;
    const std::string out = args.value("--out", base.project + "/" + base.name + "-report");
    std::cout << "comparing " << strategies.size() << " strategies on "
              << (base.data.empty() ? "the built-in data set" : base.data) << ", " << base.model
              << ", " << base.epochs << " epochs, base batch " << base.batch << ", imgsz "
              << base.imgsz << "\n";
    StrategyRunner runner(base, strategies);
    runner.setEventSink(MatrixPrinter(strategies));
    g_runner = &runner;
    std::signal(SIGINT, onInterrupt);
    Comparison comparison = runner.run();
    std::signal(SIGINT, SIG_DFL);
    g_runner = nullptr;
    comparison.title = "Strategy comparison: " + base.model + ", batch " +
                       std::to_string(base.batch) + ", imgsz " + std::to_string(base.imgsz) + ", " +
                       std::to_string(base.epochs) + " epochs";
    return finish(comparison, out);
}

Command makeCompareCommand() {
    Command c(
        "compare", runCompare,
        "run memory strategies side by side (or compare run folders): table, CSV, HTML",
        "headroom-cli compare --data D --model M --epochs K [--strategies FILE] [--out DIR] "
        "[--runs DIR1,DIR2,...] [key=value ...]",
        "Runs each strategy as a normal training run PROJECT/NAME-<strategy> (NAME defaults to "
        "'compare') on the same data, seed and epochs, one after another, then measures each "
        "from its run folder: training peak and validation peak memory (apart), mean epoch "
        "time, images/s, final mAP50 and mAP50-95, and marks the Pareto front of (training "
        "peak, mAP50-95).\n"
        "The default strategies are relative to batch=B: native B; B/4 + accumulate 4; B/4 + "
        "AMP; B/8 + AMP + accumulate 8; B/4 + AMP + checkpointing; each sets nbs = batch x "
        "accumulate. Published numbers for that table are shown as ratios beside the measured "
        "ones (memory: beside the training peak's ratio). --strategies FILE replaces them "
        "(YAML list of {name, overrides, claim}, as the studio's Compare page saves it; values "
        "may use B, B/4, B/4*4). Strategies run with on_oom=stop: an OOM is a row, not a fix.\n"
        "--runs DIR1,DIR2 compares existing run folders without training. DIR (default "
        "PROJECT/NAME-report) receives compare.csv and compare.html. Ctrl-C stops the running "
        "strategy and writes what finished.");
    c.options = trainConfigOptions(
        {{"--strategies", "FILE", "strategies YAML instead of the default matrix"},
         {"--out", "DIR", "folder for compare.csv, compare.html and (runs that validated) compare_classes.csv"},
         {"--runs", "DIRS", "compare these run folders (comma-separated)"}});
    c.acceptsOverrides = true;
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeCompareCommand);

} // namespace hr::cli
