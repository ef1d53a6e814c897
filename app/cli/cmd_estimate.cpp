// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli estimate: predicted training / validation peak memory and its breakdown, and the
// accuracy matrix (predicted vs measured with real steps).
#include "command.h"
#include "common.h"

#include "estimate/memory_estimator.h"
#include "train/compute_threads.h"
#include "util/bytes.h"
#include "util/text.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace hr::cli {
namespace {

std::string estimateJson(const TrainConfig& c, const MemoryEstimate& e) {
    const MemoryBreakdown& b = e.breakdown;
    std::ostringstream out;
    out << "{\"model\":\"" << jsonEscape(c.model) << "\",\"imgsz\":" << c.imgsz
        << ",\"batch\":" << e.batch << ",\"val_batch\":" << e.valBatch
        << ",\"amp\":" << (c.amp ? "true" : "false") << ",\"checkpointing\":\""
        << toString(c.checkpointing) << "\",\"device\":\"" << jsonEscape(e.device)
        << "\",\"train_peak_bytes\":" << e.trainPeak << ",\"val_peak_bytes\":" << e.valPeak
        << ",\"per_image_train_bytes\":" << e.perImageTrain
        << ",\"per_image_val_bytes\":" << e.perImageVal
        << ",\"objects_per_image\":" << e.objectsPerImage
        << ",\"breakdown\":{\"weights\":" << b.weights << ",\"gradients\":" << b.gradients
        << ",\"optimizer_state\":" << b.optimizerState << ",\"ema\":" << b.ema
        << ",\"activations\":" << b.activations << ",\"batch_data\":" << b.batchData
        << ",\"other\":" << b.other << ",\"total\":" << b.total << "},\"note\":\""
        << jsonEscape(e.note) << "\"}";
    return out.str();
}

void printEstimate(const TrainConfig& c, const MemoryEstimate& e) {
    const MemoryBreakdown& b = e.breakdown;
    std::printf("Memory estimate: %s, imgsz %d, batch %d, AMP %s, checkpointing %s, on %s\n",
                c.model.c_str(), c.imgsz, e.batch, c.amp ? "on" : "off", toString(c.checkpointing),
                e.device.c_str());
    const std::pair<const char*, std::int64_t> rows[] = {{"weights", b.weights},
                                                         {"gradients", b.gradients},
                                                         {"optimizer state", b.optimizerState},
                                                         {"EMA", b.ema},
                                                         {"activations", b.activations},
                                                         {"batch data", b.batchData},
                                                         {"other", b.other}};
    for (const auto& [name, bytes] : rows)
        std::printf("  %-18s %12s\n", name, formatBytes(bytes).c_str());
    std::printf("  %-18s %12s\n", "training peak", formatBytes(e.trainPeak).c_str());
    std::printf("  %-18s %12s  (batch %d)\n", "validation peak", formatBytes(e.valPeak).c_str(),
                e.valBatch);
    std::printf("  each image adds %s to a training step, %s to a validation batch\n",
                formatBytes(e.perImageTrain).c_str(), formatBytes(e.perImageVal).c_str());
    std::printf("  %s\n", e.note.c_str());
}

struct MatrixRow {
    const char* model;
    int imgsz;
    int batch;
    bool amp;
    bool checkpointing;
};

// yolov8n and s; imgsz 256/320/416; batch 2-32; AMP on/off; checkpointing on/off.
const MatrixRow kMatrix[] = {
    {"yolov8n.yaml", 256, 2, false, false},  {"yolov8n.yaml", 256, 8, true, true},
    {"yolov8n.yaml", 256, 16, false, false}, {"yolov8n.yaml", 256, 32, true, false},
    {"yolov8n.yaml", 320, 2, true, true},    {"yolov8n.yaml", 320, 8, false, false},
    {"yolov8n.yaml", 320, 16, true, true},   {"yolov8n.yaml", 320, 32, false, true},
    {"yolov8n.yaml", 416, 2, false, false},  {"yolov8n.yaml", 416, 4, true, false},
    {"yolov8n.yaml", 416, 8, false, true},   {"yolov8n.yaml", 416, 16, true, true},
    {"yolov8s.yaml", 256, 2, true, false},   {"yolov8s.yaml", 256, 8, false, false},
    {"yolov8s.yaml", 256, 16, true, true},   {"yolov8s.yaml", 256, 32, true, true},
    {"yolov8s.yaml", 320, 2, false, true},   {"yolov8s.yaml", 320, 4, true, false},
    {"yolov8s.yaml", 320, 8, false, true},   {"yolov8s.yaml", 320, 16, false, false},
    {"yolov8s.yaml", 416, 2, false, false},  {"yolov8s.yaml", 416, 2, true, true},
    {"yolov8s.yaml", 416, 4, true, true},    {"yolov8s.yaml", 416, 8, false, false},
};

int runMatrix(const TrainConfig& base) {
    std::printf("%-13s %5s %5s %4s %5s | %11s %11s %7s | %11s %11s %7s\n", "model", "imgsz",
                "batch", "amp", "ckpt", "train pred", "measured", "error", "val pred", "measured",
                "error");
    int rows = 0, within = 0;
    double worst = 0;
    for (const MatrixRow& row : kMatrix) {
        TrainConfig c = base;
        c.model = row.model;
        c.imgsz = row.imgsz;
        c.batch = row.batch;
        c.amp = row.amp;
        c.checkpointing = row.checkpointing ? Checkpointing::All : Checkpointing::None;
        std::string error;
        const MemoryEstimate e = estimateMemory(c, &error);
        const auto measured = e.trainPeak > 0 ? measurePeaks(c, &error) : std::nullopt;
        if (!measured) {
            std::printf("%-13s %5d %5d %4s %5s | failed: %s\n", row.model, row.imgsz, row.batch,
                        row.amp ? "on" : "off", row.checkpointing ? "all" : "none", error.c_str());
            continue;
        }
        const double valPredicted = double(e.valPeak);
        const double trainError = double(e.trainPeak) / double(measured->stepPeak) - 1.0;
        const double valError = valPredicted / double(measured->valPeak) - 1.0;
        std::printf("%-13s %5d %5d %4s %5s | %11s %11s %+6.1f%% | %11s %11s %+6.1f%%\n", row.model,
                    row.imgsz, row.batch, row.amp ? "on" : "off",
                    row.checkpointing ? "all" : "none", formatBytes(e.trainPeak).c_str(),
                    formatBytes(measured->stepPeak).c_str(), trainError * 100.0,
                    formatBytes(std::llround(valPredicted)).c_str(),
                    formatBytes(measured->valPeak).c_str(), valError * 100.0);
        std::fflush(stdout);
        ++rows;
        const double rowWorst = std::max(std::fabs(trainError), std::fabs(valError));
        worst = std::max(worst, rowWorst);
        within += rowWorst <= 0.10;
    }
    std::printf("%d of %d configurations within +-10%% (largest error %.1f%%); the loader's "
                "queued batches are host memory, counted in neither\n",
                within, rows, worst * 100.0);
    return rows == int(std::size(kMatrix)) && within == rows ? ExitOk : ExitFailure;
}

int runEstimate(const ParsedArgs& args) {
    TrainConfig config;
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    useComputeThreads(config.threads);
    if (args.has("--matrix"))
        return runMatrix(config);
    if (args.has("--measure")) {
        std::string error;
        const MemoryEstimate e = estimateMemory(config, &error);
        const auto measured = e.trainPeak > 0 ? measurePeaks(config, &error) : std::nullopt;
        if (!measured) {
            std::cerr << "estimate: " << error << "\n";
            return ExitFailure;
        }
        std::printf("training step, batch %d: predicted %s, measured %s (%+.1f%%)\n", e.batch,
                    formatBytes(e.trainPeak).c_str(), formatBytes(measured->stepPeak).c_str(),
                    (double(e.trainPeak) / double(measured->stepPeak) - 1.0) * 100.0);
        std::printf("validation, batch %d: predicted %s, measured %s (%+.1f%%)\n", e.valBatch,
                    formatBytes(e.valPeak).c_str(), formatBytes(measured->valPeak).c_str(),
                    (double(e.valPeak) / double(measured->valPeak) - 1.0) * 100.0);
        return ExitOk;
    }
    std::string error;
    const MemoryEstimate estimate = estimateMemory(config, &error);
    if (estimate.trainPeak <= 0) {
        std::cerr << "estimate: " << error << "\n";
        return ExitFailure;
    }
    if (args.has("--json"))
        std::cout << estimateJson(config, estimate) << "\n";
    else
        printEstimate(config, estimate);
    return ExitOk;
}

Command makeEstimateCommand() {
    Command command(
        "estimate", runEstimate, "predict training and validation peak memory before a run",
        "headroom-cli estimate --data D --model M [key=value ...] [--json] [--measure] [--matrix]",
        "Calibrates with a few short probe steps of the real training step (batch 2 and 4 at "
        "the configured image size, with the data set's objects per image) and prints the "
        "predicted peaks and their breakdown for the configured batch.\n\n"
        "--matrix runs 24 configurations (yolov8n/s, imgsz 256/320/416, batch 2-32, AMP and "
        "checkpointing on/off), measures each with real steps and prints predicted vs measured "
        "peak with the error. It takes several minutes on a CPU.");
    command.options = trainConfigOptions(
        {jsonOption(),
         {"--matrix", "", "predicted vs measured for 24 configurations"},
         {"--measure", "", "also measure this configuration with real steps and compare"}});
    command.acceptsOverrides = true;
    return command;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeEstimateCommand);

} // namespace hr::cli
