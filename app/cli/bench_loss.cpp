// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli bench loss: CPU time of the detection loss (the task-aligned assigner in slices of
// the ground-truth boxes) on a many-object batch, at several assign_chunk settings, against the
// CPU time of a whole training step: what one more slice of the assigner costs.
#include "command.h"
#include "common.h"

#include "data/batch.h"
#include "estimate/probe_batch.h"
#include "loss/detection_loss.h"
#include "memory/cpu_memory_tracker.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "train/compute_threads.h"
#include "train/train_step.h"
#include "util/text.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <vector>

namespace hr::cli {
namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n == 0 ? 0.0 : (n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]));
}

/// A positive integer option; false (with a message) when it is not one.
bool positive(const ParsedArgs& args, const char* name, int fallback, int& value) {
    value = fallback;
    if (!args.has(name))
        return true;
    std::string error;
    const auto parsed = args.integer(name, &error);
    if (!parsed || *parsed < 1 || *parsed > 1000000) {
        std::cerr << "bench loss: " << name << " must be a positive integer\n";
        return false;
    }
    value = static_cast<int>(*parsed);
    return true;
}

/// "0,40,10,1" -> {0, 40, 10, 1}; 0 = automatic slices. Empty on a malformed list.
std::vector<int> chunkList(const std::string& text) {
    std::vector<int> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        char* end = nullptr;
        const long value = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || value < 0 || value > 100000)
            return {};
        out.push_back(static_cast<int>(value));
    }
    return out;
}

struct ChunkRow {
    int assignChunk = 0;
    std::int64_t boxesPerSlice = 0;
    std::int64_t slices = 0;
    std::vector<double> seconds; ///< CPU seconds of each timed loss computation
};

int runBenchLoss(const ParsedArgs& args) {
    int imgsz = 0, batch = 0, objects = 0, repeats = 0, steps = 0, threads = 0, nc = 0;
    if (!positive(args, "--imgsz", 320, imgsz) || !positive(args, "--batch", 8, batch) ||
        !positive(args, "--objects", 160, objects) || !positive(args, "--repeats", 7, repeats) ||
        !positive(args, "--steps", 3, steps) || !positive(args, "--threads", 1, threads) ||
        !positive(args, "--nc", 80, nc))
        return ExitUsage;
    const std::vector<int> chunks = chunkList(args.value("--assign-chunk", "0,40,10,1"));
    if (chunks.empty()) {
        std::cerr << "bench loss: --assign-chunk takes a comma-separated list of integers >= 0 "
                     "(0 = automatic slices), e.g. 0,40,10,1\n";
        return ExitUsage;
    }
    setComputeThreads(threads);
    CpuMemoryTracker::instance().install(); // the allocator training runs with
    torch::manual_seed(0);

    const std::string modelName = args.value("--model", "yolov8n.yaml");
    ModelBuild build = buildModel(modelName, nc);
    if (!build.model) {
        std::cerr << "bench loss: "
                  << (build.diagnostics.empty() ? "cannot build " + modelName
                                                : build.diagnostics.front().toString())
                  << "\n";
        return ExitFailure;
    }
    DetectionModel model = build.model;
    const Batch data = probeBatch(batch, imgsz, objects, nc);

    // The head's training output once; the loss runs on it as in a step (with a graph).
    std::vector<torch::Tensor> raw;
    {
        model->train();
        torch::NoGradGuard noGrad;
        for (const torch::Tensor& level : model->forward(data.images))
            raw.push_back(level.detach().requires_grad_(true));
    }
    std::int64_t anchors = 0;
    for (const torch::Tensor& level : raw)
        anchors += level.size(2) * level.size(3);

    std::vector<ChunkRow> rows;
    std::vector<DetectionLoss> losses;
    for (int chunk : chunks) {
        LossConfig config;
        config.nc = model->nc();
        config.regMax = model->regMax();
        config.strides = model->strides();
        config.assignerBoxesPerChunk = chunk;
        losses.emplace_back(config);
        ChunkRow row;
        row.assignChunk = chunk;
        row.boxesPerSlice = assignerBoxesPerSlice(chunk, batch, objects, anchors);
        row.slices = (objects + row.boxesPerSlice - 1) / row.boxesPerSlice;
        rows.push_back(row);
    }
    // One untimed pass of each setting, then the settings interleaved in every repeat, so that
    // a change of the machine's load falls on all of them alike.
    for (int r = -1; r < repeats; ++r)
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const double t0 = processCpuSeconds();
            const LossOutput out = losses[i].compute(raw, data.targets, imgsz, imgsz);
            const double t = processCpuSeconds() - t0;
            if (r >= 0)
                rows[i].seconds.push_back(t);
            if (!out.total.defined())
                return ExitFailure;
        }

    // A whole training step (automatic slices) for the share one more slice costs.
    TrainConfig stepConfig;
    stepConfig.model = modelName;
    stepConfig.imgsz = imgsz;
    stepConfig.batch = batch;
    stepConfig.optimizer = "SGD";
    std::vector<double> stepSeconds;
    {
        TrainStep step(stepConfig, model, nc, torch::Device(torch::kCPU));
        for (int s = -1; s < steps; ++s) {
            const double t0 = processCpuSeconds();
            step.step(data);
            if (s >= 0)
                stepSeconds.push_back(processCpuSeconds() - t0);
        }
    }
    const double stepMs = median(stepSeconds) * 1e3;

    // Least squares of loss time against the number of slices: the cost of one more slice.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const ChunkRow& row : rows) {
        const double x = double(row.slices), y = median(row.seconds) * 1e3;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double n = double(rows.size());
    const double denominator = n * sxx - sx * sx;
    const bool fitted = rows.size() >= 2 && denominator > 0;
    const double perSliceMs = fitted ? (n * sxy - sx * sy) / denominator : 0.0;
    const double elements = double(batch) * double(anchors); // one slice's values per box

    if (args.has("--json")) {
        std::printf("{\"model\":\"%s\",\"imgsz\":%d,\"batch\":%d,\"objects\":%d,\"anchors\":%lld,"
                    "\"threads\":%d,\"repeats\":%d,\"step_cpu_ms\":%.3f,\"rows\":[",
                    jsonEscape(modelName).c_str(), imgsz, batch, objects,
                    static_cast<long long>(anchors), threads, repeats, stepMs);
        for (std::size_t i = 0; i < rows.size(); ++i)
            std::printf("%s{\"assign_chunk\":%d,\"boxes_per_slice\":%lld,\"slices\":%lld,"
                        "\"loss_cpu_ms\":%.3f}",
                        i ? "," : "", rows[i].assignChunk,
                        static_cast<long long>(rows[i].boxesPerSlice),
                        static_cast<long long>(rows[i].slices), median(rows[i].seconds) * 1e3);
        std::printf("],\"ms_per_extra_slice\":%.4f,\"step_share_per_extra_slice\":%.6f}\n",
                    perSliceMs, stepMs > 0 ? perSliceMs / stepMs : 0.0);
        return fitted ? ExitOk : ExitFailure;
    }
    std::printf("bench loss: %s %d px, batch %d, %d boxes per image, %lld anchors, %d thread(s), "
                "CPU time, median of %d\n",
                modelName.c_str(), imgsz, batch, objects, static_cast<long long>(anchors), threads,
                repeats);
    std::printf("%12s %12s %8s %14s %10s\n", "assign_chunk", "boxes/slice", "slices", "loss CPU ms",
                "vs first");
    const double first = median(rows.front().seconds) * 1e3;
    for (const ChunkRow& row : rows) {
        const double ms = median(row.seconds) * 1e3;
        std::printf("%12s %12lld %8lld %14.2f %+9.1f%%\n",
                    row.assignChunk == 0 ? "auto" : std::to_string(row.assignChunk).c_str(),
                    static_cast<long long>(row.boxesPerSlice), static_cast<long long>(row.slices),
                    ms, first > 0 ? (ms / first - 1.0) * 100.0 : 0.0);
    }
    std::printf("training step (assign_chunk auto, SGD): %.1f ms CPU, median of %d\n", stepMs,
                steps);
    if (!fitted) {
        std::printf("one more slice: needs two settings with different slice counts\n");
        return ExitFailure;
    }
    std::printf("one more slice: %.3f ms CPU (least squares over the settings) = %.2e of a "
                "training step; per batch x anchors value of a slice: %.2f ns\n",
                perSliceMs, stepMs > 0 ? perSliceMs / stepMs : 0.0, perSliceMs * 1e6 / elements);
    return ExitOk;
}

Command makeBenchLossCommand() {
    Command c(
        "bench loss", runBenchLoss,
        "CPU time of the loss' assigner per slice (assign_chunk) vs a training step",
        "headroom-cli bench loss [--model M] [--imgsz S] [--batch B] [--objects N] "
        "[--assign-chunk K,K,...] [--repeats R] [--json]",
        "Runs the detection loss on one batch of crowded images (N random overlapping boxes per "
        "image, the model's real head output) with each assign_chunk setting in turn (0 = "
        "automatic slices), interleaved over --repeats rounds after one untimed round, and "
        "prints the median CPU time of each, then the CPU time of a whole training step "
        "(SGD, automatic slices). The least-squares slope of loss time against the number of "
        "slices is the cost of one more slice, also as a share of the step: the figure the OOM "
        "advisor's chunked-assignment fix uses. CPU time, not wall time, so a loaded machine "
        "changes it little; --threads 1 by default.");
    c.options = {{"--model", "M", "model YAML (default yolov8n.yaml)"},
                 {"--imgsz", "S", "image size (default 320)"},
                 {"--batch", "B", "images per batch (default 8)"},
                 {"--objects", "N", "boxes per image (default 160)"},
                 {"--nc", "N", "classes (default 80)"},
                 {"--assign-chunk", "K,...", "settings to compare (default 0,40,10,1)"},
                 {"--repeats", "R", "timed rounds (default 7)"},
                 {"--steps", "N", "timed training steps (default 3)"},
                 {"--threads", "N", "LibTorch threads (default 1)"},
                 jsonOption()};
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeBenchLossCommand);

} // namespace hr::cli
