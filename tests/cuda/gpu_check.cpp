// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-gpu-check: the checks of Headroom's core that need a real GPU (issue 20), run by
// tests/cuda/run-on-gpu.sh on the device machine. Each section is one process:
//
//   probe     the CUDA probe's allocator statistics against NVML and nvidia-smi
//   smoke     fp16 autocast + loss scaler steps, checkpointing's lower peak, a caught OOM
//   oom       a real OOM in forward, backward and validation under a ~4 GiB memory fraction,
//             each fixed by on_oom=auto; every epoch once in results.csv
//   estimate  predicted vs measured peaks, yolov8n/s/m, 640 px, batch 8/16/32, fp32 and AMP
//   fit       auto-fit to 4 GiB, then a run under that budget: no OOM
//   speed     training step time and throughput (yolov8n/s, 640 px, fp32 and AMP), against the
//             PyTorch eager reference's times (tests/cuda/eager_reference.py) when given
//
// With --device cpu every section runs at toy sizes on the CPU budget instead: a dry run of the
// harness on a machine without a GPU (the numbers mean nothing there). Prints "PASS:"/"FAIL:"
// per check, "RECORD: " lines for docs/gpu.md, and "N passed, M failed" last.
#include "../text_file.h"

#include "advisor/oom_policy.h"
#include "data/batch.h"
#include "data/synthetic_dataset.h"
#include "estimate/auto_fit.h"
#include "estimate/memory_estimator.h"
#include "loss/detection_loss.h"
#include "memory/cpu_memory_tracker.h"
#include "memory/memory_probe.h"
#include "memory/phase.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "train/loss_scaler.h"
#include "train/train_step.h"
#include "train/trainer.h"
#include "util/bytes.h"
#include "util/text.h"
#include "util/torch_compat.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using hr::testing::fileText;
using hr::testing::nonEmptyLines;

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kGiB = 1LL << 30;
constexpr std::int64_t kMiB = 1LL << 20;

int g_passed = 0, g_failed = 0;

void check(bool ok, const std::string& what) {
    std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
    std::fflush(stdout);
    (ok ? g_passed : g_failed)++;
}

void record(const std::string& line) {
    std::printf("RECORD: %s\n", line.c_str());
    std::fflush(stdout);
}

std::string format(const char* pattern, double a) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, a);
    return text;
}

/// What differs between a GPU run and the CPU dry run.
struct Setup {
    std::string device = "cuda";
    bool cuda = true;
    std::string work;      ///< folder for the data set and the runs
    std::string reference; ///< eager_reference.py's output, for `speed`
    int imgsz = 640;
    std::int64_t oomBudget = 4 * kGiB; ///< the budget the oom and fit sections aim at
    std::vector<std::string> models{"yolov8n.yaml", "yolov8s.yaml", "yolov8m.yaml"};
    std::vector<int> batches{8, 16, 32};
    std::vector<std::string> speedModels{"yolov8n.yaml", "yolov8s.yaml"};
    int speedBatch = 16;
    int speedSteps = 10;

    void makeCpu() {
        device = "cpu";
        cuda = false;
        imgsz = 96;
        oomBudget = 256 * kMiB;
        models = {"yolov8n.yaml"};
        batches = {2, 4};
        speedModels = {"yolov8n.yaml"};
        speedBatch = 2;
        speedSteps = 2;
    }
    torch::Device torchDevice() const {
        return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    }
};

void synchronize(const Setup& s) {
    if (s.cuda)
        torch::cuda::synchronize();
}

/// Gives the CUDA allocator's cached blocks back (nothing to do on the CPU).
void emptyCache(const Setup& s) {
#ifdef HEADROOM_WITH_CUDA
    if (s.cuda)
        hr::compat::emptyCudaCache();
#else
    (void)s;
#endif
}

/// The built-in shapes at the setup's image size (nc = 7): `train` and `val` images (defaults:
/// 64 and 32 on the GPU, 8 and 16 on the CPU), made once per size in the work folder.
std::string dataset(const Setup& s, int train = 0, int val = 0) {
    hr::SyntheticOptions options;
    options.train = train > 0 ? train : (s.cuda ? 64 : 8);
    options.val = val > 0 ? val : (s.cuda ? 32 : 16);
    options.imgsz = s.imgsz;
    options.seed = 20;
    const std::string dir = s.work + "/data-" + std::to_string(s.imgsz) + "-" +
                            std::to_string(options.train) + "-" + std::to_string(options.val);
    if (std::filesystem::exists(dir + "/data.yaml"))
        return dir + "/data.yaml";
    std::string error;
    if (!hr::makeSyntheticDataset(dir, options, &error)) {
        check(false, "make the synthetic data set: " + error);
        return {};
    }
    return dir + "/data.yaml";
}

/// Random 8-bit images, as the loader's, and four boxes per image (the same shape of batch as
/// eager_reference.py).
hr::Batch randomBatch(int images, int imgsz, int nc, int seed) {
    torch::manual_seed(seed);
    hr::Batch b;
    b.images = torch::randint(256, {images, 3, imgsz, imgsz}, torch::kUInt8);
    const int boxes = images * 4;
    auto index = torch::arange(images).repeat_interleave(4).to(torch::kFloat);
    auto cls = torch::randint(nc, {boxes}).to(torch::kFloat);
    auto centre = torch::rand({boxes, 2}) * 0.6 + 0.2;
    auto size = torch::rand({boxes, 2}) * 0.2 + 0.05;
    b.targets = torch::cat({index.unsqueeze(1), cls.unsqueeze(1), centre, size}, 1);
    b.paths.assign(static_cast<std::size_t>(images), "random");
    return b;
}

hr::TrainConfig baseConfig(const Setup& s, const std::string& data) {
    hr::TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = data;
    c.device = s.device;
    c.imgsz = s.imgsz;
    c.epochs = 2;
    c.workers = 2;
    c.warmup_epochs = 0;
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.project = s.work + "/runs";
    c.memory_sample_hz = 20;
    if (!s.cuda)
        c.threads = 2;
    return c;
}

/// nvidia-smi's used memory of GPU 0 in bytes, -1 when it cannot be run.
std::int64_t nvidiaSmiUsed() {
    FILE* pipe =
        popen("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0", "r");
    if (pipe == nullptr)
        return -1;
    char text[64] = {};
    const bool read = std::fgets(text, sizeof text, pipe) != nullptr;
    const int status = pclose(pipe);
    if (!read || status != 0)
        return -1;
    return std::atoll(text) * kMiB; // MiB
}

// ---------------------------------------------------------------------------------------------

void sectionProbe(const Setup& s) {
    std::string error;
    auto probe = hr::makeProbe(s.device, &error);
    check(probe != nullptr, "makeProbe(" + s.device + ") " + error);
    if (!probe)
        return;
    record("probe: " + probe->deviceName() + ", capacity " + hr::formatBytes(probe->capacity()));
    const std::int64_t size = s.cuda ? 2 * kGiB : 64 * kMiB;
    synchronize(s);
    const std::int64_t allocated0 = probe->allocated(), reserved0 = probe->reserved();
    const std::int64_t nvml0 = probe->deviceUsed(), smi0 = s.cuda ? nvidiaSmiUsed() : -1;
    torch::Tensor block = torch::ones({size / 4}, torch::TensorOptions(s.torchDevice()));
    synchronize(s);
    const std::int64_t allocated1 = probe->allocated(), reserved1 = probe->reserved();
    const std::int64_t nvml1 = probe->deviceUsed(), smi1 = s.cuda ? nvidiaSmiUsed() : -1;
    check(allocated1 - allocated0 >= size, "allocated grows by the " + hr::formatBytes(size) +
                                               " tensor: +" +
                                               hr::formatBytes(allocated1 - allocated0));
    check(reserved1 >= allocated1, "reserved >= allocated");
    if (s.cuda) {
        // The allocator's new reservation is what the driver sees the process take.
        const std::int64_t reservedGrowth = reserved1 - reserved0, nvmlGrowth = nvml1 - nvml0;
        check(nvml0 >= 0, "NVML answers (device used " + hr::formatBytes(nvml0) + ")");
        check(std::llabs(nvmlGrowth - reservedGrowth) <= 64 * kMiB,
              "NVML's growth " + hr::formatBytes(nvmlGrowth) + " matches reserved's " +
                  hr::formatBytes(reservedGrowth) + " within 64 MiB");
        check(smi0 >= 0 && std::llabs((smi1 - smi0) - reservedGrowth) <= 64 * kMiB,
              "nvidia-smi's growth " + hr::formatBytes(smi1 - smi0) + " matches within 64 MiB");
        check(std::llabs(smi1 - nvml1) <= 64 * kMiB,
              "nvidia-smi " + hr::formatBytes(smi1) + " vs NVML " + hr::formatBytes(nvml1));
        record("probe: +" + hr::formatBytes(size) + " tensor: allocated +" +
               hr::formatBytes(allocated1 - allocated0) + ", reserved +" +
               hr::formatBytes(reservedGrowth) + ", NVML +" + hr::formatBytes(nvmlGrowth) +
               ", nvidia-smi +" + hr::formatBytes(smi1 - smi0));
    }
    block = torch::Tensor();
    emptyCache(s);
    synchronize(s);
    check(probe->allocated() - allocated0 < 16 * kMiB, "allocated drops back after the free");
    if (s.cuda)
        check(nvml1 - probe->deviceUsed() >= size - 64 * kMiB,
              "NVML sees the memory returned after emptyCache");
    probe->resetPeak();
    {
        torch::Tensor t = torch::ones({size / 8}, torch::TensorOptions(s.torchDevice()));
        synchronize(s);
    }
    check(probe->peak() - probe->allocated() >= size / 2 - 16 * kMiB,
          "peak keeps a freed tensor: " + hr::formatBytes(probe->peak()));
}

// ---------------------------------------------------------------------------------------------

void sectionSmoke(const Setup& s) {
    const torch::Device device = s.torchDevice();
    auto probe = hr::makeProbe(s.device);
    torch::manual_seed(0);
    hr::ModelBuild build = hr::buildModel("yolov8n.yaml", 6);
    check(bool(build.model), "build yolov8n");
    if (!build.model || !probe)
        return;
    auto model = build.model;
    model->to(device);
    model->train();
    hr::LossConfig lc;
    lc.nc = 6;
    hr::DetectionLoss loss(lc);
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3));
    hr::LossScaler scaler(s.cuda);
    const int imgsz = s.cuda ? 640 : 128;
    const int batch = s.cuda ? 16 : 2;

    auto trainStep = [&](int images, bool amp) {
        hr::Batch b = randomBatch(images, imgsz, 6, 1);
        auto x = hr::modelInput(b.images.to(device));
        auto targets = b.targets.to(device);
        const c10::DeviceType type = s.cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
        hr::compat::setAutocastEnabled(type, amp);
        auto raw = model->forward(x);
        hr::compat::setAutocastEnabled(type, false);
        at::autocast::clear_cache();
        for (auto& r : raw)
            r = r.to(torch::kFloat);
        auto out = loss.compute(raw, targets, imgsz, imgsz);
        scaler.scaleLoss(out.total).backward();
        std::vector<torch::Tensor> params;
        for (auto& p : model->parameters())
            if (p.grad().defined())
                params.push_back(p);
        const bool finite = scaler.unscale(params);
        if (finite)
            opt.step();
        scaler.update(finite);
        opt.zero_grad();
        synchronize(s);
        return out.total.item<double>();
    };
    for (bool amp : {false, true}) {
        if (amp && !s.cuda)
            continue; // fp16 + loss scaling is the CUDA recipe
        double last = 0;
        for (int i = 0; i < 3; ++i)
            last = trainStep(batch, amp);
        check(std::isfinite(last), std::string("finite loss, ") + (amp ? "fp16 AMP" : "fp32"));
    }
    if (s.cuda)
        check(scaler.scale() > 1.0, "loss scaler active: scale " + std::to_string(scaler.scale()));

    // Checkpointing: a lower peak, the same gradients (cuDNN is not bit-exact).
    {
        // Large enough that activations, not the weights and AdamW state, make the peak.
        const int size = s.cuda ? 320 : 160, images = s.cuda ? 8 : 4;
        hr::Batch b = randomBatch(images, size, 6, 2);
        auto x = hr::modelInput(b.images.to(device));
        auto targets = b.targets.to(device);
        std::vector<torch::Tensor> grads[2];
        std::int64_t peaks[2] = {0, 0};
        for (int c = 0; c < 2; ++c) {
            model->setCheckpointing(c ? hr::Checkpointing::All : hr::Checkpointing::None);
            opt.zero_grad();
            synchronize(s);
            probe->resetPeak();
            loss.compute(model->forward(x), targets, size, size).total.backward();
            synchronize(s);
            peaks[c] = probe->peak();
            for (auto& p : model->parameters())
                grads[c].push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
        }
        model->setCheckpointing(hr::Checkpointing::None);
        double maxDiff = 0;
        for (std::size_t i = 0; i < grads[0].size(); ++i)
            if (grads[0][i].defined() && grads[1][i].defined())
                maxDiff = std::max(maxDiff, (grads[0][i] - grads[1][i]).abs().max().item<double>());
        check(peaks[1] < peaks[0], "checkpointing lowers the peak: " + hr::formatBytes(peaks[0]) +
                                       " -> " + hr::formatBytes(peaks[1]));
        check(maxDiff < 1e-3,
              "checkpointing keeps the gradients: max diff " + format("%.2e", maxDiff));
        opt.zero_grad();
    }

    // A budget that batch 64 cannot fit: caught, released, the same model goes on smaller.
    const std::int64_t budget = s.cuda ? 3 * kGiB : 96 * kMiB;
    probe->setBudget(budget);
    std::string message;
    try {
        trainStep(64, false);
    } catch (const hr::compat::OutOfMemoryError& e) {
        message = e.what();
    }
    check(!message.empty(),
          "batch 64 under " + hr::formatBytes(budget) + " raises c10::OutOfMemoryError");
    check(hr::parseRequestedBytes(message) > 0,
          "the requested size is parsed from the message: " +
              hr::formatBytes(hr::parseRequestedBytes(message)));
    opt.zero_grad();
    emptyCache(s);
    const auto before = model->parameters()[0].detach().clone();
    probe->resetPeak();
    double after = NAN;
    try {
        after = trainStep(s.cuda ? 8 : 1, s.cuda);
    } catch (const std::exception& e) {
        std::printf("recovery step failed: %s\n", hr::trim(e.what()).substr(0, 200).c_str());
    }
    probe->setBudget(0);
    check(std::isfinite(after), "the same model continues at a smaller batch after the OOM");
    check(probe->peak() < budget, "the recovered step's peak " + hr::formatBytes(probe->peak()) +
                                      " stays under the budget");
    check(!torch::equal(before, model->parameters()[0].detach()), "weights updated after it");
}

// ---------------------------------------------------------------------------------------------

struct Segment {
    hr::Phase phase;
    std::int64_t peak;
};

/// Two training steps and one validation batch without a budget: the peak of every phase
/// segment, in order (as tests/test_oom_recovery.cpp measures on the CPU).
std::vector<Segment> measurePhases(const Setup& s, const hr::TrainConfig& config, int nc) {
    auto probe = hr::makeProbe(s.device);
    probe->setBudget(0);
    std::vector<Segment> segments;
    {
        torch::manual_seed(0);
        hr::ModelBuild build = hr::buildModel(config.model, nc);
        hr::TrainStep step(config, build.model, nc, s.torchDevice());
        const hr::Batch batch = randomBatch(config.batch, config.imgsz, nc, 1);
        hr::Phase current = hr::Phase::Idle;
        synchronize(s);
        probe->resetPeak();
        step.setPhaseCallback([&](hr::Phase next) {
            synchronize(s);
            segments.push_back({current, s.cuda ? probe->peakReserved() : probe->peak()});
            probe->resetPeak();
            current = next;
        });
        for (int i = 0; i < 2; ++i)
            step.step(batch);
        step.validateBatch(randomBatch(hr::validationBatch(config), config.imgsz, nc, 2), nullptr);
        synchronize(s);
        segments.push_back({current, s.cuda ? probe->peakReserved() : probe->peak()});
    }
    emptyCache(s);
    return segments;
}

/// Halfway between the highest peak before a rising segment of `phase` and its peak: the last
/// such segment, or with `steadyOnly` the last one after the first optimizer step (a CPU budget
/// under the steady state of weights, gradients and optimizer state leaves no fix that fits;
/// a GPU's 4 GiB holds that state many times over). 0 when no segment rises by `minGap`.
std::int64_t budgetFor(const std::vector<Segment>& segments, hr::Phase phase, std::int64_t minGap,
                       bool steadyOnly) {
    std::int64_t budget = 0, before = 0;
    bool steady = !steadyOnly;
    for (const Segment& seg : segments) {
        if (steady && seg.phase == phase && seg.peak - before > minGap)
            budget = before + (seg.peak - before) / 2;
        before = std::max(before, seg.peak);
        steady = steady || seg.phase == hr::Phase::Optimizer;
    }
    return budget;
}

std::string describe(const std::vector<Segment>& segments) {
    std::string text;
    for (const Segment& seg : segments)
        text += std::string(hr::toString(seg.phase)) + " " + hr::formatBytes(seg.peak) + " | ";
    return text;
}

void sectionOom(const Setup& s) {
    const int nc = static_cast<int>(hr::syntheticClassNames().size());
    hr::TrainConfig config = baseConfig(s, "");
    config.model = s.cuda ? "yolov8s.yaml" : "yolov8n.yaml";
    // On the CPU dry run activations must outweigh the weights and their state, as on the GPU,
    // and budgets stay above the 64 MiB the config accepts.
    config.imgsz = s.cuda ? s.imgsz : 256;
    config.optimizer = "SGD";
    // CUDA's fraction limits the allocator's reserved blocks, so on the GPU the phases are told
    // apart by where reserved memory grows (probe peakReserved); the CPU budget is exact.
    const std::int64_t minGap = s.cuda ? 4 * kMiB : kMiB / 2;
    config.on_oom = hr::OomPolicy::Auto;
    config.batch = s.cuda ? 8 : 4;
    config.nbs = config.batch;

    // Scale the batch so that the backward budget lands near the target (~4 GiB on the GPU):
    // the peaks are nearly linear in the batch.
    std::vector<Segment> segments = measurePhases(s, config, nc);
    const std::int64_t first = budgetFor(segments, hr::Phase::Backward, minGap, !s.cuda);
    if (s.cuda && first > 0) {
        const double scale = double(s.oomBudget) / double(first);
        config.batch = std::clamp(static_cast<int>(std::lround(config.batch * scale)), 4, 128);
        config.nbs = config.batch;
        segments = measurePhases(s, config, nc);
    }
    std::printf("oom: %s batch %d, phase peaks: %s\n", config.model.c_str(), config.batch,
                describe(segments).c_str());

    std::set<std::string> firstPhases;
    for (const hr::Phase target :
         {hr::Phase::Forward, hr::Phase::Backward, hr::Phase::Validation}) {
        hr::TrainConfig c = config;
        if (target == hr::Phase::Validation) {
            // Validation must peak above training: the smallest of 4, 8 or 16 x batch that does.
            for (const int times : {4, 8, 16}) {
                c.val_batch = times * c.batch;
                segments = measurePhases(s, c, nc);
                if (budgetFor(segments, target, minGap, !s.cuda) > 0)
                    break;
            }
            std::printf("oom: val_batch %d, phase peaks: %s\n", c.val_batch,
                        describe(segments).c_str());
        }
        // Two steps an epoch, and a validation set that fills the validation batch.
        c.data = dataset(s, 2 * c.batch, std::max(hr::validationBatch(c), 16));
        if (c.data.empty())
            return;
        const std::int64_t budget = budgetFor(segments, target, minGap, !s.cuda);
        const std::string name = hr::toString(target);
        if (budget <= 0) {
            check(false, "oom " + name + ": no budget separates it from the phases before it (" +
                             describe(segments) + ")");
            continue;
        }
        c.memory_budget = budget;
        c.name = "oom_" + name;
        std::mutex mutex;
        std::vector<hr::OomReport> ooms;
        std::vector<hr::FixApplied> fixes;
        std::string runDir, failure;
        bool finished = false;
        hr::Trainer trainer(c, [&](const hr::TrainEvent& event) {
            std::lock_guard<std::mutex> lock(mutex);
            if (const auto* e = std::get_if<hr::RunStarted>(&event))
                runDir = e->runDir;
            else if (const auto* e = std::get_if<hr::OomOccurred>(&event))
                ooms.push_back(e->report);
            else if (const auto* e = std::get_if<hr::FixApplied>(&event))
                fixes.push_back(*e);
            else if (const auto* e = std::get_if<hr::RunFailed>(&event))
                failure = e->message;
            else if (std::holds_alternative<hr::RunFinished>(event))
                finished = true;
        });
        trainer.setOomHandler(hr::makeAdvisorHandler(hr::OomPolicy::Auto, {}, {}));
        const auto t0 = Clock::now();
        const int rc = trainer.run();
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        const std::string phase = ooms.empty() ? "none" : hr::toString(ooms.front().phase);
        firstPhases.insert(phase);
        std::string fixText;
        for (const hr::FixApplied& f : fixes)
            fixText += (fixText.empty() ? "" : "; ") + f.description;
        const std::string label = "oom " + name + " (budget " + hr::formatBytes(budget) + ")";
        check(rc == 0 && finished, label + ": the run finishes" +
                                       (failure.empty() ? "" : ": " + failure.substr(0, 200)));
        check(!ooms.empty(),
              label + ": " + std::to_string(ooms.size()) + " real OOM(s), the first in " + phase);
        check(fixes.size() == ooms.size(),
              label + ": every OOM answered by a fix (" + fixText + ")");
        const std::vector<std::string> rows = nonEmptyLines(fileText(runDir + "/results.csv"));
        std::set<std::string> epochs;
        for (std::size_t i = 1; i < rows.size(); ++i)
            epochs.insert(hr::trim(rows[i].substr(0, rows[i].find(','))));
        check(static_cast<int>(rows.size()) == c.epochs + 1 &&
                  static_cast<int>(epochs.size()) == c.epochs,
              label + ": results.csv has every epoch once");
        record("OOM aimed at " + name + ": " + config.model + " " + std::to_string(c.imgsz) +
               " px batch " + std::to_string(c.batch) + " val_batch " +
               std::to_string(hr::validationBatch(c)) + ", budget " + hr::formatBytes(budget) +
               ": " + std::to_string(ooms.size()) + " OOM(s), first in " + phase +
               "; fixes: " + fixText + "; finished in " + format("%.0f s", seconds));
    }
    std::string seen;
    for (const std::string& phase : firstPhases)
        seen += (seen.empty() ? "" : ", ") + phase;
    // On the CPU the trainer's loader batches count against the budget too, so the phase that
    // fails first may come earlier than aimed (tests/test_oom_recovery.cpp); on the GPU they
    // stay in host memory and each run must fail where it was aimed.
    if (!s.cuda)
        std::printf("oom: first OOMs in: %s\n", seen.c_str());
    else
        for (const hr::Phase phase :
             {hr::Phase::Forward, hr::Phase::Backward, hr::Phase::Validation})
            check(firstPhases.count(hr::toString(phase)) == 1,
                  std::string("a run's first OOM was in ") + hr::toString(phase) +
                      " (first OOMs: " + seen + ")");
}

// ---------------------------------------------------------------------------------------------

void sectionEstimate(const Setup& s) {
    const std::string data = dataset(s);
    if (data.empty())
        return;
    int rows = 0, within = 0;
    double worst = 0;
    for (const std::string& model : s.models)
        for (const int batch : s.batches)
            for (const bool amp : {false, true}) {
                if (amp && !s.cuda)
                    continue;
                hr::TrainConfig c = baseConfig(s, data);
                c.model = model;
                c.batch = batch;
                c.amp = amp;
                std::string error;
                const auto t0 = Clock::now();
                const hr::MemoryEstimate e = hr::estimateMemory(c, &error);
                hr::MeasuredPeaks peaks;
                bool measured = false;
                if (e.trainPeak > 0)
                    if (const auto m = hr::measurePeaks(c, &error)) {
                        peaks = *m;
                        measured = true;
                    }
                const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
                const std::string what = model + " " + std::to_string(c.imgsz) + " px batch " +
                                         std::to_string(batch) + (amp ? " AMP" : " fp32");
                if (!measured) {
                    check(false, "estimate " + what + ": " + error);
                    continue;
                }
                const double trainError = double(e.trainPeak) / double(peaks.stepPeak) - 1.0;
                const double valError = double(e.valPeak) / double(peaks.valPeak) - 1.0;
                const double rowWorst = std::max(std::fabs(trainError), std::fabs(valError));
                ++rows;
                within += rowWorst <= 0.10;
                worst = std::max(worst, rowWorst);
                check(rowWorst <= 0.10,
                      "estimate " + what + ": training " + hr::formatBytes(e.trainPeak) + " vs " +
                          hr::formatBytes(peaks.stepPeak) + " (" +
                          format("%+.1f%%", trainError * 100) + "), validation " +
                          hr::formatBytes(e.valPeak) + " vs " + hr::formatBytes(peaks.valPeak) +
                          " (" + format("%+.1f%%", valError * 100) + ")");
                record("| " + model.substr(0, model.find('.')) + " | " + std::to_string(batch) +
                       " | " + (amp ? "AMP" : "fp32") + " | " + hr::formatBytes(e.trainPeak) +
                       " | " + hr::formatBytes(peaks.stepPeak) + " | " +
                       format("%+.1f%%", trainError * 100) + " | " + hr::formatBytes(e.valPeak) +
                       " | " + hr::formatBytes(peaks.valPeak) + " | " +
                       format("%+.1f%%", valError * 100) + " | " + format("%.0f s", seconds) +
                       " |");
            }
    record("estimator: " + std::to_string(within) + " of " + std::to_string(rows) +
           " configurations within +-10% (largest error " + format("%.1f%%", worst * 100) + ")");
}

// ---------------------------------------------------------------------------------------------

void sectionFit(const Setup& s) {
    const std::string data = dataset(s);
    if (data.empty())
        return;
    for (const std::string& model : s.models) {
        hr::TrainConfig c = baseConfig(s, data);
        c.model = model;
        c.batch = -1;
        c.epochs = 1;
        std::string error;
        const hr::FitResult fit = hr::fitToBudget(c, s.oomBudget, &error);
        const std::string label = "fit " + model + " to " + hr::formatBytes(s.oomBudget);
        check(fit.fits, label + ": " + (error.empty() ? fit.summary : error));
        if (!fit.fits)
            continue;
        hr::TrainConfig run = fit.config;
        // Full batches: as many training images as the fitted batch, a full validation batch.
        run.data = dataset(s, std::max(run.batch, 16), std::max(hr::validationBatch(run), 16));
        if (run.data.empty())
            continue;
        run.memory_budget = s.oomBudget;
        run.on_oom = hr::OomPolicy::Stop; // an OOM must show, not be repaired
        run.name = "fit_" + model.substr(0, model.find('.'));
        int ooms = 0;
        bool finished = false;
        std::int64_t peak = 0;
        std::string failure;
        hr::Trainer trainer(run, [&](const hr::TrainEvent& event) {
            if (std::holds_alternative<hr::OomOccurred>(event))
                ++ooms;
            else if (const auto* e = std::get_if<hr::EpochEnd>(&event))
                peak = std::max(peak, e->peakBytes());
            else if (const auto* e = std::get_if<hr::RunFailed>(&event))
                failure = e->message;
            else if (std::holds_alternative<hr::RunFinished>(event))
                finished = true;
        });
        trainer.setOomHandler(hr::makeAdvisorHandler(hr::OomPolicy::Stop, {}, {}));
        const int rc = trainer.run();
        check(rc == 0 && finished && ooms == 0,
              label + ": an epoch with validation under the budget, " + std::to_string(ooms) +
                  " OOM(s), peak " + hr::formatBytes(peak) +
                  (failure.empty() ? "" : ": " + failure.substr(0, 200)));
        record("auto-fit " + model + " to " + hr::formatBytes(s.oomBudget) + ": " + fit.summary +
               "; trained one epoch: " + std::to_string(ooms) + " OOM, peak " +
               hr::formatBytes(peak) + " (predicted " + hr::formatBytes(fit.trainPeak) + " / " +
               hr::formatBytes(fit.valPeak) + ")");
    }
}

// ---------------------------------------------------------------------------------------------

/// eager_reference.py's lines: "model batch amp ms_per_step peak_bytes".
std::map<std::string, double> readReference(const std::string& path) {
    std::map<std::string, double> out;
    std::ifstream in(path);
    std::string model, amp;
    int batch = 0;
    double ms = 0, peak = 0;
    while (in >> model >> batch >> amp >> ms >> peak)
        out[model + "/" + std::to_string(batch) + "/" + amp] = ms;
    return out;
}

void sectionSpeed(const Setup& s) {
    const std::map<std::string, double> reference =
        s.reference.empty() ? std::map<std::string, double>{} : readReference(s.reference);
    if (!s.reference.empty())
        check(!reference.empty(), "eager reference times read from " + s.reference);
    auto probe = hr::makeProbe(s.device);
    const int nc = 80;
    for (const std::string& model : s.speedModels)
        for (const bool amp : {false, true}) {
            if (amp && !s.cuda)
                continue;
            hr::TrainConfig c;
            c.model = model;
            c.imgsz = s.imgsz;
            c.batch = s.speedBatch;
            c.nbs = s.speedBatch; // an optimizer step after every batch, as the reference
            c.amp = amp;
            c.optimizer = "SGD";
            c.device = s.device;
            torch::manual_seed(0);
            hr::ModelBuild build = hr::buildModel(model, nc);
            hr::TrainStep step(c, build.model, nc, s.torchDevice());
            const hr::Batch batch = randomBatch(c.batch, c.imgsz, nc, 3);
            for (int i = 0; i < 3; ++i)
                step.step(batch);
            synchronize(s);
            probe->resetPeak();
            const auto t0 = Clock::now();
            for (int i = 0; i < s.speedSteps; ++i)
                step.step(batch);
            synchronize(s);
            const double ms =
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / s.speedSteps;
            const std::string name = model.substr(0, model.find('.'));
            const std::string mode = amp ? "amp" : "fp32";
            const double imagesPerSecond = c.batch * 1000.0 / ms;
            std::string versus;
            const auto it = reference.find(name + "/" + std::to_string(c.batch) + "/" + mode);
            if (it != reference.end()) {
                const double ratio = ms / it->second;
                versus = ", eager PyTorch " + format("%.1f ms", it->second) + ", ratio " +
                         format("%.2f", ratio);
                check(ratio <= 1.10, "speed " + name + " " + mode + ": " + format("%.1f ms", ms) +
                                         " per step vs eager " + format("%.1f ms", it->second) +
                                         " (ratio " + format("%.2f", ratio) + " <= 1.10)");
            } else if (!reference.empty()) {
                check(false, "speed " + name + " " + mode + ": no eager reference time");
            }
            record("| " + name + " | " + std::to_string(c.imgsz) + " | " + std::to_string(c.batch) +
                   " | " + (amp ? "AMP fp16" : "fp32") + " | " + format("%.1f", ms) + " | " +
                   format("%.0f", imagesPerSecond) + " | " + hr::formatBytes(probe->peak()) + " |" +
                   versus);
        }
}

int usage() {
    std::fprintf(stderr, "usage: headroom-gpu-check [--device cuda|cpu] [--work DIR] "
                         "[--reference FILE] SECTION...\n"
                         "sections: probe smoke oom estimate fit speed\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    Setup setup;
    std::vector<std::string> sections;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--device" || arg == "--work" || arg == "--reference") && i + 1 < argc) {
            const std::string value = argv[++i];
            if (arg == "--device" && value == "cpu")
                setup.makeCpu();
            else if (arg == "--device" && value != "cuda")
                return usage();
            else if (arg == "--work")
                setup.work = value;
            else if (arg == "--reference")
                setup.reference = value;
        } else if (arg.rfind("--", 0) == 0) {
            return usage();
        } else {
            sections.push_back(arg);
        }
    }
    if (sections.empty())
        return usage();
    if (setup.work.empty())
        setup.work = (std::filesystem::temp_directory_path() / "headroom-gpu-check").string();
    std::filesystem::create_directories(setup.work);
    if (setup.cuda && !torch::cuda::is_available()) {
        std::printf("FAIL: no CUDA device (or this LibTorch has no CUDA); --device cpu runs "
                    "the dry run\n");
        std::printf("0 passed, 1 failed\n");
        return 1;
    }
    if (!setup.cuda) {
        hr::CpuMemoryTracker::instance().install();
        at::set_num_threads(2);
    }
    for (const std::string& section : sections) {
        std::printf("== %s (%s)\n", section.c_str(), setup.device.c_str());
        std::fflush(stdout);
        const auto t0 = Clock::now();
        try {
            if (section == "probe")
                sectionProbe(setup);
            else if (section == "smoke")
                sectionSmoke(setup);
            else if (section == "oom")
                sectionOom(setup);
            else if (section == "estimate")
                sectionEstimate(setup);
            else if (section == "fit")
                sectionFit(setup);
            else if (section == "speed")
                sectionSpeed(setup);
            else
                return usage();
        } catch (const std::exception& e) {
            check(false, section + " stopped: " + hr::trim(e.what()).substr(0, 300));
        }
        std::printf("== %s took %.0f s\n", section.c_str(),
                    std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
