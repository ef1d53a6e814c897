// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli bench train: end-to-end training speed (data loading included), the step split
// into its parts, peak resident memory, and achieved GFLOP/s against the model's own
// convolutions run alone.
#include "bench_profile.h"
#include "command.h"
#include "common.h"

#include "config/data_config.h"
#include "data/data_loader.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "dist/data_parallel_group.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"
#include "memory/cpu_memory_tracker.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "model/model_summary.h"
#include "train/compute_threads.h"
#include "train/train_step.h"
#include "util/bytes.h"
#include "util/process_time.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <thread>
#include <unistd.h>

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

const IntegerOptionReader readInteger{"bench train"};

/// What one timed training run measured.
struct BenchResult {
    double imagesPerSecond = 0; ///< over all ranks
    double stepMs = 0, waitMs = 0, forwardMs = 0, backwardMs = 0, optimizerMs = 0;
    double stepCpuMs = 0; ///< the calling thread's CPU time per step
    long long steps = 0;
    int accumulate = 1;
    double forwardGflops = 0;                  ///< per image
    std::vector<OperatorProfile::Row> profile; ///< with --profile: the timed steps' operators
    std::vector<ConvolutionCall> convolutions; ///< one forward pass's, per image
    // The peak resident memory taken apart (CPU).
    std::int64_t rssBeforeModel = 0; ///< VmRSS before the model: code, libraries, the scan
    std::int64_t rssPeak = 0;        ///< VmHWM after the timed steps
    std::int64_t tensorPeak = 0;     ///< the tracker's peak of live tensors
    std::int64_t residentState = 0;  ///< live tensors between steps: weights, gradients, state
};

/// Trains `steps` timed steps after `warmup` on `report`. With a group, every rank reads its
/// shard at batch / ranks and gradients are averaged; images/s counts all ranks' images.
bool measureTraining(const TrainConfig& config, const std::shared_ptr<DatasetReport>& report,
                     torch::Device device, long long warmup, long long steps,
                     DataParallelGroup* group, bool profile, BenchResult& result) {
    const int nc = static_cast<int>(report->names.size());
    result.rssBeforeModel = procStatusBytes("VmRSS");
    ModelBuild build = buildModel(config.model, nc);
    if (!build.model) {
        std::cerr << formatDiagnostics(build.diagnostics);
        return false;
    }
    result.forwardGflops = summarize(build.model, config.imgsz).gflops;
    result.convolutions = convolutionCalls(build.model, config.imgsz);
    TrainStep step(config, build.model, nc, device);
    step.setDataParallel(group);
    step.setSchedule({{0.01, 0.01, 0.01}, 0.937, std::max(1, int(64.0 / config.batch + 0.5))});
    LoaderOptions options = LoaderOptions::fromConfig(config, true, device);
    if (group) {
        options.batch = std::max(1, config.batch / group->size());
        options.shardRank = group->rank();
        options.shardCount = group->size();
    }
    DataLoader loader(report, options);

    double wait = 0, forward = 0, backward = 0, optimizer = 0;
    std::int64_t images = 0;
    long long done = 0;
    int epoch = 0;
    loader.startEpoch(epoch);
    Clock::time_point timedStart;
    double timedCpuStart = 0;
    std::unique_ptr<OperatorProfile> operators;
    for (long long i = 0; i < warmup + steps; ++i) {
        if (i == warmup) {
            if (group)
                group->barrier(); // all ranks start the clock together
            if (profile) {
                operators = std::make_unique<OperatorProfile>();
                step.setPhaseCallback([p = operators.get()](Phase phase) { p->setPhase(phase); });
            }
            timedStart = Clock::now();
            timedCpuStart = threadCpuSeconds();
        }
        const auto t = Clock::now();
        Batch b;
        while (!loader.next(b)) {
            if (!loader.error().empty()) {
                std::cerr << "bench train: " << loader.error() << "\n";
                return false;
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
    if (group)
        group->barrier();
    const double total = since(timedStart);
    result.rssPeak = procStatusBytes("VmHWM"); // before the convolution benchmark runs
    result.tensorPeak = CpuMemoryTracker::instance().peak();
    result.residentState = CpuMemoryTracker::instance().allocated();
    result.stepCpuMs = 1000.0 * (threadCpuSeconds() - timedCpuStart) / static_cast<double>(steps);
    if (operators) {
        operators->stop();
        step.setPhaseCallback({});
        result.profile = operators->rows();
    }
    loader.stop();
    if (group) {
        torch::Tensor count = torch::full({1}, static_cast<double>(images), torch::kDouble);
        group->allReduceSum(count);
        images = static_cast<std::int64_t>(count.item<double>());
    }
    result.imagesPerSecond = images / total;
    result.steps = done;
    result.stepMs = 1000.0 * total / done;
    result.waitMs = 1000 * wait / done;
    result.forwardMs = 1000 * forward / done;
    result.backwardMs = 1000 * backward / done;
    result.optimizerMs = 1000 * optimizer / done;
    result.accumulate = step.schedule().accumulate;
    return true;
}

/// `--nproc N`: N worker processes of this command (one per core share) against one process
/// on one share of the cores with the per-process batch; efficiency = N-process images/s /
/// (N x one-process images/s).
int benchScaling(const TrainConfig& config, const std::shared_ptr<DatasetReport>& report, int nproc,
                 long long warmup, long long steps, bool json) {
    const int threadsPerProcess = computeThreadsFor(0, nproc);
    char path[] = "/tmp/headroom-bench-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) {
        std::cerr << "bench train: cannot create a temporary file for the workers' result\n";
        return ExitFailure;
    }
    ::close(fd);
    ::setenv("HEADROOM_BENCH_RESULT", path, 1);
    WorkerPlan plan;
    plan.nproc = nproc;
    plan.arguments = ownArguments();
    const WorkerOutcome outcome = runWorkers(plan, kWorkerGrace);
    ::unsetenv("HEADROOM_BENCH_RESULT");
    double parallel = 0;
    {
        std::ifstream in(path);
        in >> parallel;
    }
    std::remove(path);
    if (outcome.exitCode != 0 || !(parallel > 0)) {
        std::cerr << "bench train: the workers failed\n" << outcome.summary;
        return ExitFailure;
    }
    // The reference: one process, one process's share of the cores, one process's batch.
    setComputeThreads(threadsPerProcess);
    TrainConfig single = config;
    single.batch = std::max(1, config.batch / nproc);
    CpuMemoryTracker::instance().install(); // as the workers and the trainer do
    BenchResult one;
    if (!measureTraining(single, report, torch::kCPU, warmup, steps, nullptr, false, one))
        return ExitFailure;
    const double efficiency = parallel / (nproc * one.imagesPerSecond);
    if (json) {
        std::cout << std::fixed << std::setprecision(3) << "{\"model\": \"" << config.model
                  << "\", \"imgsz\": " << config.imgsz << ", \"batch\": " << config.batch
                  << ", \"nproc\": " << nproc << ", \"threads_per_process\": " << threadsPerProcess
                  << ", \"images_per_s\": " << parallel
                  << ", \"single_process_images_per_s\": " << one.imagesPerSecond
                  << ", \"scaling_efficiency\": " << efficiency << "}\n";
        return ExitOk;
    }
    std::cout << std::fixed << std::setprecision(1) << "bench train --nproc " << nproc << ": "
              << config.model << " " << config.imgsz << " px, total batch " << config.batch << ", "
              << threadsPerProcess << " thread(s) per process, c10d/Gloo on loopback\n"
              << "  " << nproc << " processes     " << parallel << " images/s\n"
              << "  1 process       " << one.imagesPerSecond << " images/s (batch " << single.batch
              << ", " << threadsPerProcess << " thread(s))\n"
              << "  scaling efficiency " << std::setprecision(2) << efficiency
              << " (ideal 1.00 = " << nproc << " x the single process)\n";
    return ExitOk;
}

int runBenchTrain(const ParsedArgs& args) {
    long long imgsz = 320, batch = 16, steps = 10, warmup = 2, workers = 2, threads = 0, nproc = 1;
    if (!readInteger(args, "--imgsz", 32, imgsz) || !readInteger(args, "--batch", 1, batch) ||
        !readInteger(args, "--steps", 1, steps) || !readInteger(args, "--warmup", 0, warmup) ||
        !readInteger(args, "--workers", 0, workers) ||
        !readInteger(args, "--threads", 0, threads) || !readInteger(args, "--nproc", 1, nproc))
        return ExitUsage;
    std::string launchError;
    const std::optional<LaunchEnv> launch = readLaunchEnv(&launchError);
    if (!launch) {
        std::cerr << "bench train: " << launchError << "\n";
        return ExitUsage;
    }
    // LibTorch's threads and OpenBLAS's pool alike: OpenBLAS would otherwise keep every core
    // for fp32 matrix products while oneDNN's bf16 convolutions honour the count.
    useComputeThreads(static_cast<int>(threads), launch->localWorldSize);
    const bool json = args.has("--json");

    TrainConfig config;
    config.model = args.value("--model", "yolov8n.yaml");
    config.imgsz = static_cast<int>(imgsz);
    config.batch = static_cast<int>(batch);
    config.workers = static_cast<int>(workers);
    config.amp = args.has("--amp");
    config.checkpointing = args.has("--ckpt") ? Checkpointing::All : Checkpointing::None;
    config.optimizer = args.value("--optimizer", "SGD");

    const auto report = scanTrainSplit(args.value("--data"), "bench train", args.has("--yes"));
    if (!report)
        return ExitFailure;
    if (nproc > 1 && !launch->distributed())
        return benchScaling(config, report, static_cast<int>(nproc), warmup, steps, json);
    std::unique_ptr<DataParallelGroup> group;
    if (launch->distributed()) {
        std::string error;
        group = DataParallelGroup::connect(*launch, std::chrono::seconds(120), &error);
        if (!group) {
            std::cerr << "bench train: " << error << "\n";
            return ExitFailure;
        }
    }
    const torch::Device device =
        torch::cuda::is_available() && args.value("--device", "cpu") != "cpu"
            ? torch::Device(torch::kCUDA, launch->localRank)
            : torch::Device(torch::kCPU);
    // The allocator training runs with: the trainer's CPU memory probe installs the tracker.
    if (device.is_cpu())
        CpuMemoryTracker::instance().install();
    BenchResult r;
    if (!measureTraining(config, report, device, warmup, steps, group.get(), args.has("--profile"),
                         r))
        return ExitFailure;
    if (group) {
        // A worker of benchScaling(): rank 0 hands the number to the launcher.
        if (const char* out = std::getenv("HEADROOM_BENCH_RESULT"); out && launch->rank == 0) {
            std::ofstream file(out);
            file << std::setprecision(10) << r.imagesPerSecond << "\n";
        }
        return ExitOk;
    }
    const double imagesPerSecond = r.imagesPerSecond;
    const double stepMs = r.stepMs;
    const long long done = r.steps;
    // A training step costs about three forward passes (forward, input and weight gradients);
    // checkpointing adds one more forward of the recomputed blocks.
    const double forwardGflops = r.forwardGflops;
    const double stepGflop =
        forwardGflops * batch * (config.checkpointing == Checkpointing::All ? 4 : 3);
    const double achieved = stepGflop / (stepMs / 1000.0);
    // The reference: the step's own convolutions alone, at its batch, in both precisions, with
    // the same threads (a CUDA step has no CPU reference).
    ConvolutionPeak fp32, bf16;
    if (device.is_cpu()) {
        fp32 = measureConvolutionPeak(r.convolutions, config.batch, torch::kFloat);
        bf16 = measureConvolutionPeak(r.convolutions, config.batch, torch::kBFloat16);
    }
    const ConvolutionPeak& own = config.amp ? bf16 : fp32;
    // Share of the peak = the convolutions' best time alone / the whole step's time, both in
    // the calling thread's CPU time (equal to wall time on an idle machine).
    const double convAchieved = own.gflop / (r.stepCpuMs / 1000.0);
    const double share = own.seconds / (r.stepCpuMs / 1000.0);
    const std::int64_t rss = r.rssPeak;
    // What is neither code nor tensors: freed heap memory kept for reuse, the loader's images
    // and batches, OpenCV's buffers, thread stacks.
    const std::int64_t rssOther =
        std::max<std::int64_t>(0, rss - r.rssBeforeModel - (device.is_cpu() ? r.tensorPeak : 0));

    if (json) {
        std::cout << std::fixed << std::setprecision(3) << "{\"model\": \"" << config.model
                  << "\", \"imgsz\": " << imgsz << ", \"batch\": " << batch
                  << ", \"amp\": " << (config.amp ? "true" : "false")
                  << ", \"checkpointing\": " << (args.has("--ckpt") ? "true" : "false")
                  << ", \"threads\": " << at::get_num_threads() << ", \"workers\": " << workers
                  << ", \"steps\": " << done << ", \"images_per_s\": " << imagesPerSecond
                  << ", \"peak_rss_bytes\": " << rss
                  << ", \"rss_before_model_bytes\": " << r.rssBeforeModel
                  << ", \"tensor_peak_bytes\": " << r.tensorPeak
                  << ", \"resident_state_bytes\": " << r.residentState
                  << ", \"rss_other_bytes\": " << rssOther << ", \"step_ms\": " << stepMs
                  << ", \"step_cpu_ms\": " << r.stepCpuMs
                  << ", \"step_ms_parts\": {\"data_wait\": " << r.waitMs
                  << ", \"forward\": " << r.forwardMs << ", \"backward\": " << r.backwardMs
                  << ", \"optimizer\": " << r.optimizerMs << "}"
                  << ", \"data_wait_ms\": " << r.waitMs << ", \"forward_ms\": " << r.forwardMs
                  << ", \"backward_ms\": " << r.backwardMs
                  << ", \"optimizer_ms\": " << r.optimizerMs
                  << ", \"forward_gflop_per_image\": " << forwardGflops
                  << ", \"achieved_gflops\": " << achieved
                  << ", \"conv_shapes\": " << r.convolutions.size()
                  << ", \"conv_gflop_per_step\": " << own.gflop
                  << ", \"conv_peak_gflops_fp32\": " << fp32.gflops()
                  << ", \"conv_peak_gflops_bf16\": " << bf16.gflops()
                  << ", \"conv_achieved_gflops\": " << convAchieved
                  << ", \"conv_peak_share\": " << share << "}\n";
        return ExitOk;
    }
    std::cout << std::fixed << std::setprecision(1) << "bench train: " << config.model << " "
              << imgsz << " px, batch " << batch << (config.amp ? ", AMP (bf16 on CPU)" : ", fp32")
              << (args.has("--ckpt") ? ", checkpointing" : "") << ", " << at::get_num_threads()
              << " threads, " << workers << " loader workers, " << done << " timed steps\n"
              << "  images/s          " << imagesPerSecond << "\n"
              << "  step              " << stepMs << " ms (" << r.stepCpuMs
              << " ms CPU time of the calling thread)\n"
              << "    data wait       " << r.waitMs << " ms\n"
              << "    forward + loss  " << r.forwardMs << " ms\n"
              << "    backward        " << r.backwardMs << " ms\n"
              << "    optimizer + EMA " << r.optimizerMs << " ms (every accumulate " << r.accumulate
              << " steps)\n"
              << "  peak RSS          " << formatBytes(rss) << "\n";
    if (device.is_cpu())
        std::cout << "    before the model  " << formatBytes(r.rssBeforeModel)
                  << " (code, libraries, the data set's labels)\n"
                  << "    tensors at peak   " << formatBytes(r.tensorPeak) << " (of which "
                  << formatBytes(r.residentState)
                  << " live between steps: weights, gradients, optimizer state)\n"
                  << "    the rest          " << formatBytes(rssOther)
                  << " (freed memory kept for reuse, loader images and batches, threads)\n";
    std::cout << "  achieved          " << achieved << " GFLOP/s (" << stepGflop
              << " GFLOP per step, thop count x 3)\n";
    if (device.is_cpu())
        std::cout << "  conv peak         fp32 " << fp32.gflops() << " GFLOP/s, bf16 "
                  << bf16.gflops() << " GFLOP/s (the model's " << r.convolutions.size()
                  << " convolution shapes alone, forward + backward, batch " << batch << ")\n"
                  << "  conv share        " << convAchieved << " GFLOP/s of convolution ("
                  << own.gflop << " GFLOP per step) = " << 100.0 * share << "% of the "
                  << (config.amp ? "bf16" : "fp32") << " peak; the convolutions alone take "
                  << own.seconds * 1000 << " of the step's " << r.stepCpuMs << " ms (CPU time)\n";
    if (!r.profile.empty())
        printProfile(r.profile, done, r.stepCpuMs / 1000.0);
    return ExitOk;
}

Command makeBenchTrainCommand() {
    Command c("bench train", runBenchTrain,
              "training speed end to end: images/s, step parts, peak RSS, GFLOP/s",
              "headroom-cli bench train --model M --imgsz S --batch B [--amp] [--ckpt] "
              "[--steps N] [--profile] [--json]",
              "Trains on the built-in data set (or --data) with augmentation and the "
              "threaded loader, times --steps steps after --warmup steps, and reports "
              "images/s, the step split into data wait / forward / backward / optimizer, "
              "peak resident memory (VmHWM), achieved GFLOP/s, and the step's share of "
              "a reference peak: the model's own convolution shapes at this batch run "
              "alone (forward and backward, fp32 and bf16, channels-last, same threads), "
              "timed like the step in the calling thread's CPU time so that a busy "
              "machine stretches neither. "
              "--profile adds the timed steps' self CPU time per layer type and the ten "
              "largest operators. --nproc N runs N worker processes (c10d/Gloo, the "
              "cores split between them, batch = the total) and then one process on one "
              "share of the cores at the per-process batch, and reports the scaling "
              "efficiency N-process images/s / (N x one-process images/s).");
    c.options = {{"--model", "M", "model YAML (default yolov8n.yaml)"},
                 {"--data", "FILE", "data.yaml (default: the built-in set)"},
                 largeScanOption(),
                 {"--imgsz", "S", "image size (default 320)"},
                 {"--batch", "B", "batch size (default 16)"},
                 {"--amp", "", "mixed precision (bf16 autocast on CPU, fp16 on CUDA)"},
                 {"--ckpt", "", "gradient checkpointing of all blocks"},
                 {"--steps", "N", "timed steps (default 10)"},
                 {"--warmup", "N", "untimed steps first (default 2)"},
                 {"--workers", "N", "loader threads (default 2)"},
                 {"--threads", "N", "LibTorch and OpenBLAS threads (default: all cores)"},
                 {"--optimizer", "NAME", "SGD (default), Adam or AdamW"},
                 {"--device", "D", "cpu (default) or cuda"},
                 {"--nproc", "N", "N data-parallel processes vs one: scaling efficiency"},
                 {"--profile", "", "time per layer type and the ten largest operators"},
                 jsonOption()};
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeBenchTrainCommand);

} // namespace hr::cli
