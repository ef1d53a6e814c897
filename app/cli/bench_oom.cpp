// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom-cli bench oom`: how long a run takes to get going again after an out-of-memory
// failure: from the OOM event to the next completed training step, on the built-in data set.
#include "command.h"
#include "common.h"
#include "oom_prompt.h"

#include "advisor/oom_diagnosis.h"
#include "data/batch.h"
#include "data/synthetic_dataset.h"
#include "estimate/memory_estimator.h"
#include "memory/cpu_memory_tracker.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "train/compute_threads.h"
#include "train/train_step.h"
#include "train/trainer.h"
#include "util/bytes.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>

namespace hr::cli {
namespace {

using Clock = std::chrono::steady_clock;

/// Peak tensor bytes of two unbudgeted training steps of `config` on random images (the
/// tracker counts every CPU tensor).
std::int64_t measureStepPeak(const TrainConfig& config, int nc) {
    auto& tracker = CpuMemoryTracker::instance();
    tracker.install();
    tracker.setBudget(0);
    ModelBuild build = buildModel(config.model, nc, config.model_scale);
    TORCH_CHECK(build.model, formatDiagnostics(build.diagnostics));
    TrainStep step(config, build.model, nc, torch::kCPU);
    Batch batch;
    batch.images =
        torch::randint(256, {config.batch, 3, config.imgsz, config.imgsz}, torch::kUInt8);
    batch.targets = torch::tensor({0.f, 0.f, 0.5f, 0.5f, 0.2f, 0.2f}).reshape({1, 6});
    batch.paths.assign(static_cast<std::size_t>(config.batch), "random");
    tracker.resetPeak();
    step.step(batch);
    step.step(batch);
    return tracker.peak();
}

int runBenchOom(const ParsedArgs& args) {
    TrainConfig config;
    config.model = "yolov8n.yaml";
    config.imgsz = 320;
    config.batch = 16;
    config.epochs = 1;
    config.val = false;
    config.device = "cpu";
    config.workers = 2;
    config.fraction = 0.25; // 64 of the built-in set's 256 images: a few steps after the fix
    config.on_oom = OomPolicy::Auto;
    config.name = "bench_oom";
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    config.on_oom = OomPolicy::Auto;
    if (config.data.empty()) {
        std::string error;
        config.data = ensureBuiltinDataset(&error);
        if (config.data.empty()) {
            std::cerr << "error: " << error << '\n';
            return ExitFailure;
        }
    }
    useComputeThreads(config.threads);

    const bool json = args.has("--json");
    if (config.memory_budget <= 0) {
        const std::int64_t peak =
            measureStepPeak(config, static_cast<int>(syntheticClassNames().size()));
        // The probe's peak must not show up as the run's.
        CpuMemoryTracker::instance().resetPeak();
        // 80% of the measured peak: the default settings go OOM, a smaller batch fits.
        config.memory_budget = peak * 8 / 10;
        if (!json)
            std::cout << "measured peak " << formatBytes(peak) << " at batch " << config.batch
                      << ", " << config.imgsz << " px; budget " << formatBytes(config.memory_budget)
                      << '\n';
    }

    std::mutex mutex;
    Clock::time_point oomAt{};
    bool waiting = false;
    std::vector<double> recoveries;
    std::string fixTitles;
    double normalStep = 0.0;
    int stepsAfter = 0;
    Clock::time_point lastBatch = Clock::now();
    Trainer trainer(config, [&](const TrainEvent& event) {
        std::lock_guard<std::mutex> lock(mutex);
        const Clock::time_point now = Clock::now();
        if (std::holds_alternative<OomOccurred>(event)) {
            oomAt = now;
            waiting = true;
        } else if (const auto* fix = std::get_if<FixApplied>(&event)) {
            fixTitles += (fixTitles.empty() ? "" : "; ") + fix->description;
        } else if (std::holds_alternative<BatchEnd>(event)) {
            if (waiting) {
                recoveries.push_back(std::chrono::duration<double>(now - oomAt).count());
                waiting = false;
            } else if (!recoveries.empty()) {
                normalStep += std::chrono::duration<double>(now - lastBatch).count();
                ++stepsAfter;
            }
            lastBatch = now;
        }
    });
    // The same handler as `train`: the estimator predicts each fix (its calibration steps are
    // part of the recovery time measured here).
    trainer.setOomHandler(makeOomHandler(config, predictPeak));
    const int rc = trainer.run();

    double worst = 0.0;
    for (double r : recoveries)
        worst = std::max(worst, r);
    const double meanStep = stepsAfter > 0 ? normalStep / stepsAfter : 0.0;
    if (json) {
        std::printf("{\"model\":\"%s\",\"imgsz\":%d,\"batch\":%d,\"budget_bytes\":%lld,"
                    "\"ooms\":%d,\"recovery_s_max\":%.3f,\"step_s_after\":%.3f,\"rc\":%d}\n",
                    config.model.c_str(), config.imgsz, config.batch,
                    static_cast<long long>(config.memory_budget),
                    static_cast<int>(recoveries.size()), worst, meanStep, rc);
    } else {
        std::printf("\nOOMs recovered: %d (fixes: %s)\n", static_cast<int>(recoveries.size()),
                    fixTitles.empty() ? "none" : fixTitles.c_str());
        for (std::size_t i = 0; i < recoveries.size(); ++i)
            std::printf("  OOM %d -> next completed step: %.2f s\n", static_cast<int>(i + 1),
                        recoveries[i]);
        std::printf("  a normal step after the fix: %.2f s\n", meanStep);
        std::printf("  worst recovery %.2f s (target < 5 s)\n", worst);
    }
    return rc == 0 && !recoveries.empty() ? ExitOk : ExitFailure;
}

Command benchOomCommand() {
    Command c(
        "bench oom", runBenchOom,
        "Measure recovery from an out-of-memory failure to the next completed step",
        "headroom-cli bench oom [--model M] [--budget SIZE] [--json] [key=value ...]",
        "Trains on the built-in data set (yolov8n, 320 px, batch 16 unless overridden) under a "
        "memory budget that the settings exceed (default: 80% of the peak measured in two "
        "unbudgeted steps), with on_oom=auto. Prints the time from each OOM to the next "
        "completed step: the advisor's diagnosis and ranking, the fix being applied and the "
        "first step at the new settings. Exits non-zero when no OOM happened or the run failed.");
    c.options = trainConfigOptions({jsonOption()});
    c.acceptsOverrides = true;
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(benchOomCommand);

} // namespace hr::cli
