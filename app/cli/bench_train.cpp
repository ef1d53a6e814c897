// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli bench train: end-to-end training speed (data loading included), the step split
// into its parts, peak resident memory, and achieved GFLOP/s against the measured matmul peak.
#include "command.h"

#include "config/data_config.h"
#include "data/data_loader.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "model/detection_model.h"
#include "model/model_summary.h"
#include "train/train_step.h"
#include "util/bytes.h"

#include <torch/torch.h>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <thread>

namespace hr::cli {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A field of /proc/self/status in bytes (VmHWM = peak resident set), 0 when unavailable.
std::int64_t procStatusBytes(const std::string& field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0)
            return std::atoll(line.c_str() + field.size() + 1) * 1024;
    return 0;
}

/// GFLOP/s of a float32 1024 x 1024 matrix product with the current threads (best of 5).
double matmulPeakGflops() {
    torch::NoGradGuard noGrad;
    const torch::Tensor a = torch::randn({1024, 1024});
    const torch::Tensor b = torch::randn({1024, 1024});
    torch::mm(a, b); // warm up
    double best = 1e9;
    for (int i = 0; i < 5; ++i) {
        const auto t = Clock::now();
        torch::Tensor c = torch::mm(a, b);
        best = std::min(best, since(t));
    }
    return 2.0 * 1024 * 1024 * 1024 / best / 1e9;
}

bool readInteger(const ParsedArgs& args, const char* name, long long minimum, long long& value) {
    if (!args.has(name))
        return true;
    std::string error;
    const auto parsed = args.integer(name, &error);
    if (!parsed || *parsed < minimum) {
        std::cerr << "bench train: " << name << " must be an integer >= " << minimum << "\n";
        return false;
    }
    value = *parsed;
    return true;
}

int runBenchTrain(const ParsedArgs& args) {
    long long imgsz = 320, batch = 16, steps = 10, warmup = 2, workers = 2, threads = 0;
    if (!readInteger(args, "--imgsz", 32, imgsz) || !readInteger(args, "--batch", 1, batch) ||
        !readInteger(args, "--steps", 1, steps) || !readInteger(args, "--warmup", 0, warmup) ||
        !readInteger(args, "--workers", 0, workers) || !readInteger(args, "--threads", 0, threads))
        return ExitUsage;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads > 0 ? static_cast<int>(threads) : cores);
    const bool json = args.has("--json");

    TrainConfig config;
    config.model = args.value("--model", "yolov8n.yaml");
    config.imgsz = static_cast<int>(imgsz);
    config.batch = static_cast<int>(batch);
    config.workers = static_cast<int>(workers);
    config.amp = args.has("--amp");
    config.checkpointing = args.has("--ckpt") ? Checkpointing::All : Checkpointing::None;
    config.optimizer = args.value("--optimizer", "SGD");

    std::string yaml = args.value("--data");
    if (yaml.empty()) {
        std::string error;
        yaml = ensureBuiltinDataset(&error);
        if (yaml.empty()) {
            std::cerr << "bench train: " << error << "\n";
            return ExitFailure;
        }
    }
    const DataConfigResult data = loadDataConfig(yaml);
    std::cerr << formatDiagnostics(data.diagnostics);
    if (!data.config)
        return ExitFailure;
    auto report = std::make_shared<DatasetReport>(scanDataset(*data.config, Split::Train));
    if (!report->usable()) {
        std::cerr << formatReport(*report);
        return ExitFailure;
    }
    const int nc = static_cast<int>(report->names.size());
    ModelBuild build = buildModel(config.model, nc);
    if (!build.model) {
        std::cerr << formatDiagnostics(build.diagnostics);
        return ExitFailure;
    }
    const double forwardGflops = summarize(build.model, config.imgsz).gflops;
    const torch::Device device =
        torch::cuda::is_available() && args.value("--device", "cpu") != "cpu"
            ? torch::Device(torch::kCUDA, 0)
            : torch::Device(torch::kCPU);
    TrainStep step(config, build.model, nc, device);
    step.setSchedule({{0.01, 0.01, 0.01}, 0.937, std::max(1, int(64 / batch + 0.5))});
    DataLoader loader(report, LoaderOptions::fromConfig(config, true));

    double wait = 0, forward = 0, backward = 0, optimizer = 0, total = 0;
    std::int64_t images = 0;
    long long done = 0;
    int epoch = 0;
    loader.startEpoch(epoch);
    Clock::time_point timedStart;
    for (long long i = 0; i < warmup + steps; ++i) {
        if (i == warmup)
            timedStart = Clock::now();
        const auto t = Clock::now();
        Batch b;
        while (!loader.next(b)) {
            if (!loader.error().empty()) {
                std::cerr << "bench train: " << loader.error() << "\n";
                return ExitFailure;
            }
            loader.startEpoch(++epoch);
        }
        const double waited = since(t);
        const StepOutput out = step.step(b);
        if (i < warmup)
            continue;
        wait += waited;
        forward += out.forwardSeconds + out.dataSeconds;
        backward += out.backwardSeconds;
        optimizer += out.optimizerSeconds;
        images += out.images;
        ++done;
    }
    total = since(timedStart);
    loader.stop();
    const double imagesPerSecond = images / total;
    const double stepMs = 1000.0 * total / done;
    // A training step costs about three forward passes (forward, input and weight gradients);
    // checkpointing adds one more forward of the recomputed blocks.
    const double stepGflop =
        forwardGflops * batch * (config.checkpointing == Checkpointing::All ? 4 : 3);
    const double achieved = stepGflop / (total / done);
    const double peak = matmulPeakGflops();
    const std::int64_t rss = procStatusBytes("VmHWM");

    if (json) {
        std::cout << std::fixed << std::setprecision(3) << "{\"model\": \"" << config.model
                  << "\", \"imgsz\": " << imgsz << ", \"batch\": " << batch
                  << ", \"amp\": " << (config.amp ? "true" : "false")
                  << ", \"checkpointing\": " << (args.has("--ckpt") ? "true" : "false")
                  << ", \"threads\": " << at::get_num_threads() << ", \"workers\": " << workers
                  << ", \"steps\": " << done << ", \"images_per_s\": " << imagesPerSecond
                  << ", \"peak_rss_bytes\": " << rss << ", \"step_ms\": " << stepMs
                  << ", \"step_ms_parts\": {\"data_wait\": " << 1000 * wait / done
                  << ", \"forward\": " << 1000 * forward / done
                  << ", \"backward\": " << 1000 * backward / done
                  << ", \"optimizer\": " << 1000 * optimizer / done << "}"
                  << ", \"data_wait_ms\": " << 1000 * wait / done
                  << ", \"forward_ms\": " << 1000 * forward / done
                  << ", \"backward_ms\": " << 1000 * backward / done
                  << ", \"optimizer_ms\": " << 1000 * optimizer / done
                  << ", \"forward_gflop_per_image\": " << forwardGflops
                  << ", \"achieved_gflops\": " << achieved << ", \"matmul_peak_gflops\": " << peak
                  << "}\n";
        return ExitOk;
    }
    std::cout << std::fixed << std::setprecision(1) << "bench train: " << config.model << " "
              << imgsz << " px, batch " << batch << (config.amp ? ", AMP (bf16 on CPU)" : ", fp32")
              << (args.has("--ckpt") ? ", checkpointing" : "") << ", " << at::get_num_threads()
              << " threads, " << workers << " loader workers, " << done << " timed steps\n"
              << "  images/s          " << imagesPerSecond << "\n"
              << "  step              " << stepMs << " ms\n"
              << "    data wait       " << 1000 * wait / done << " ms\n"
              << "    forward + loss  " << 1000 * forward / done << " ms\n"
              << "    backward        " << 1000 * backward / done << " ms\n"
              << "    optimizer + EMA " << 1000 * optimizer / done << " ms (every accumulate "
              << step.schedule().accumulate << " steps)\n"
              << "  peak RSS          " << formatBytes(rss) << "\n"
              << "  achieved          " << achieved << " GFLOP/s (" << stepGflop
              << " GFLOP per step) vs matmul peak " << peak << " GFLOP/s ("
              << 100.0 * achieved / peak << "%)\n";
    return ExitOk;
}

Command makeBenchTrainCommand() {
    Command c;
    c.name = "bench train";
    c.summary = "training speed end to end: images/s, step parts, peak RSS, GFLOP/s";
    c.usage = "headroom-cli bench train --model M --imgsz S --batch B [--amp] [--ckpt] "
              "[--steps N] [--json]";
    c.description = "Trains on the built-in data set (or --data) with augmentation and the "
                    "threaded loader, times --steps steps after --warmup steps, and reports "
                    "images/s, the step split into data wait / forward / backward / optimizer, "
                    "peak resident memory (VmHWM) and achieved GFLOP/s against a measured "
                    "1024x1024 matmul.";
    c.options = {{"--model", "M", "model YAML (default yolov8n.yaml)"},
                 {"--data", "FILE", "data.yaml (default: the built-in set)"},
                 {"--imgsz", "S", "image size (default 320)"},
                 {"--batch", "B", "batch size (default 16)"},
                 {"--amp", "", "mixed precision (bf16 autocast on CPU, fp16 on CUDA)"},
                 {"--ckpt", "", "gradient checkpointing of all blocks"},
                 {"--steps", "N", "timed steps (default 10)"},
                 {"--warmup", "N", "untimed steps first (default 2)"},
                 {"--workers", "N", "loader threads (default 2)"},
                 {"--threads", "N", "LibTorch threads (default: all cores)"},
                 {"--optimizer", "NAME", "SGD (default), Adam or AdamW"},
                 {"--device", "D", "cpu (default) or cuda"},
                 {"--json", "", "print one JSON object"}};
    c.run = runBenchTrain;
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeBenchTrainCommand);

} // namespace hr::cli
