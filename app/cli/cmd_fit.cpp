// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli fit: the settings that fit a memory budget (largest batch, accumulation, AMP,
// checkpointing, image size), with the reasons.
#include "command.h"
#include "common.h"

#include "data/synthetic_dataset.h"
#include "estimate/auto_fit.h"
#include "estimate/memory_estimator.h"
#include "memory/cpu_memory_tracker.h"
#include "train/compute_threads.h"
#include "train/trainer.h"
#include "util/bytes.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace hr::cli {
namespace {

/// One budget of the fit check: a model and image size to fit into it.
struct CheckCase {
    const char* model;
    int imgsz;
    std::int64_t budget;
};

constexpr std::int64_t kMiB = std::int64_t(1) << 20;

// Budgets from "AMP and checkpointing needed" to "a large batch fits", for yolov8n and s.
const CheckCase kCheckCases[] = {
    {"yolov8n.yaml", 320, 160 * kMiB}, {"yolov8n.yaml", 320, 256 * kMiB},
    {"yolov8n.yaml", 320, 512 * kMiB}, {"yolov8n.yaml", 416, 384 * kMiB},
    {"yolov8s.yaml", 256, 512 * kMiB}, {"yolov8s.yaml", 320, 768 * kMiB},
};

/// What a real run under the budget did.
struct CheckRun {
    int rc = 0;
    int ooms = 0;
    std::int64_t peak = 0; ///< the epoch's peak (training and validation), process-wide
    std::string failure;
};

/// One epoch with validation at the fitted settings under the budget, on_oom=stop. The train
/// split is cut (fraction) to a few batches so the check takes minutes; validation runs over
/// the whole validation split.
CheckRun runUnderBudget(TrainConfig config, const std::string& project) {
    config.epochs = 1;
    config.val = true;
    config.on_oom = OomPolicy::Stop;
    config.project = project;
    config.name = "fit-check";
    config.exist_ok = true;
    // At least two batches, and 16 images.
    config.fraction = std::min(1.0, std::max(2.0 * config.batch, 16.0) / 256.0);
    CheckRun out;
    // The estimator's probes are gone; the run's peak starts from what the process holds.
    CpuMemoryTracker::instance().resetPeak();
    Trainer trainer(config, [&out](const TrainEvent& event) {
        if (std::holds_alternative<OomOccurred>(event))
            ++out.ooms;
        else if (const auto* end = std::get_if<EpochEnd>(&event))
            out.peak = std::max(out.peak, end->peakBytes());
        else if (const auto* failed = std::get_if<RunFailed>(&event))
            out.failure = failed->message;
    });
    out.rc = trainer.run();
    return out;
}

/// `fit --check`: for each case, auto-fit, then train an epoch and validate under the budget.
int runFitCheck(const TrainConfig& base) {
    std::string error;
    TrainConfig common = base;
    if (common.data.empty()) {
        common.data = ensureBuiltinDataset(&error);
        if (common.data.empty()) {
            std::cerr << "fit: " << error << "\n";
            return ExitFailure;
        }
    }
    const std::string project =
        (std::filesystem::temp_directory_path() / "headroom-fit-check").string();
    std::printf("%-13s %5s %9s | %-34s | %10s %10s %7s | %s\n", "model", "imgsz", "budget",
                "fitted settings", "predicted", "measured", "error", "OOM");
    int rows = 0, clean = 0;
    for (const CheckCase& k : kCheckCases) {
        TrainConfig c = common;
        c.model = k.model;
        c.imgsz = k.imgsz;
        c.batch = -1;
        c.memory_budget = k.budget;
        const FitResult fit = fitToBudget(c, k.budget, &error);
        if (fit.summary.empty() || !fit.fits) {
            std::printf("%-13s %5d %9s | %s\n", k.model, k.imgsz, formatBytes(k.budget).c_str(),
                        fit.summary.empty() ? error.c_str() : fit.summary.c_str());
            continue;
        }
        char settings[64];
        std::snprintf(settings, sizeof settings, "batch %d x%d, %d px, AMP %s, ckpt %s",
                      fit.config.batch, fit.accumulate, fit.config.imgsz,
                      fit.config.amp ? "on" : "off", toString(fit.config.checkpointing));
        const CheckRun run = runUnderBudget(fit.config, project);
        const std::int64_t predicted = std::max(fit.trainPeak, fit.valPeak);
        const bool ok = run.rc == 0 && run.ooms == 0;
        std::printf("%-13s %5d %9s | %-34s | %10s %10s %+6.1f%% | %s\n", k.model, k.imgsz,
                    formatBytes(k.budget).c_str(), settings, formatBytes(predicted).c_str(),
                    formatBytes(run.peak).c_str(),
                    run.peak > 0 ? (double(predicted) / double(run.peak) - 1.0) * 100.0 : 0.0,
                    run.ooms > 0 ? "OOM" : (ok ? "no" : ("failed: " + run.failure).c_str()));
        std::fflush(stdout);
        ++rows;
        clean += ok;
    }
    // A budget nothing fits: the message names the smallest budget, and that budget fits.
    TrainConfig tight = common;
    tight.model = "yolov8s.yaml";
    tight.imgsz = 640;
    tight.batch = -1;
    const std::int64_t tiny = 64 * kMiB;
    const FitResult none = fitToBudget(tight, tiny, &error);
    std::printf("\nyolov8s 640 px in %s: %s\n", formatBytes(tiny).c_str(),
                none.summary.empty() ? error.c_str() : none.summary.c_str());
    bool minimumWorks = false;
    if (!none.fits && none.minimumBudget > 0) {
        const FitResult at = fitToBudget(tight, none.minimumBudget, &error);
        minimumWorks = at.fits;
        std::printf("fit at that budget (%s): %s\n", formatBytes(none.minimumBudget).c_str(),
                    at.summary.c_str());
    }
    std::printf("%d of %d fitted runs finished an epoch and validation without an OOM; the "
                "smallest budget named for an impossible one %s\n",
                clean, rows, minimumWorks ? "fits" : "does NOT fit");
    return clean == rows && rows == int(std::size(kCheckCases)) && minimumWorks ? ExitOk
                                                                                : ExitFailure;
}

int runFit(const ParsedArgs& args) {
    TrainConfig config;
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    if (args.has("--check")) {
        useComputeThreads(config.threads);
        return runFitCheck(config);
    }
    if (config.memory_budget <= 0) {
        std::cerr << "fit: --budget SIZE is required (e.g. --budget 3GiB)\n";
        return ExitUsage;
    }
    useComputeThreads(config.threads);
    std::string error;
    const FitResult fit = fitToBudget(config, config.memory_budget, &error);
    if (fit.summary.empty()) {
        std::cerr << "fit: " << error << "\n";
        return ExitFailure;
    }
    for (const std::string& reason : fit.reasons)
        std::cout << "- " << reason << "\n";
    std::cout << (fit.fits ? "Chosen: " : "") << fit.summary << "\n";
    if (fit.fits)
        std::cout << "Use: batch=" << fit.config.batch
                  << " amp=" << (fit.config.amp ? "true" : "false")
                  << " checkpointing=" << toString(fit.config.checkpointing)
                  << " imgsz=" << fit.config.imgsz << "\n";
    return fit.fits ? ExitOk : ExitFailure;
}

Command makeFitCommand() {
    Command command(
        "fit", runFit, "choose batch, AMP, checkpointing and image size for a memory budget",
        "headroom-cli fit --data D --model M --budget B [key=value ...] | fit --check",
        "Predicts peaks with the estimator and picks the largest batch whose training and "
        "validation peaks stay under 90% of the budget, keeping the nominal batch (nbs) through "
        "accumulation. When even batch 1 does not fit it turns on AMP, then gradient "
        "checkpointing, then lowers the image size. A budget nothing fits is reported with the "
        "smallest budget that would work (exit code 1).\n\n"
        "--check fits six budgets (yolov8n/s, 256-416 px, 160-768 MiB), then trains one "
        "epoch on part of the data set and validates on all of it at the fitted settings under "
        "each budget (on_oom=stop), and prints predicted vs measured peak and whether it went "
        "out of memory; then a budget nothing fits and whether the smallest budget it names "
        "fits. Takes several minutes on a CPU.");
    command.options = trainConfigOptions({{"--check", "", "fit six budgets and train under each"}});
    command.acceptsOverrides = true;
    return command;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeFitCommand);

} // namespace hr::cli
