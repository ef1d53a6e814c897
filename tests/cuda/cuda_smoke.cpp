// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA smoke test: see CMakeLists.txt. Prints one line per check and "N passed, M failed".
#include "loss/detection_loss.h"
#include "memory/memory_probe.h"
#include "model/detection_model.h"
#include "train/loss_scaler.h"
#include "util/bytes.h"

#include <ATen/autocast_mode.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <iostream>

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
    std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
    (ok ? passed : failed)++;
}

void setCudaAutocast(bool on) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, on);
#else
    at::autocast::set_enabled(on);
#endif
    if (!on)
        at::autocast::clear_cache();
}

torch::Tensor randomTargets(int batch, int perImage, int nc) {
    auto idx = torch::arange(batch).repeat_interleave(perImage).to(torch::kFloat);
    auto cls = torch::randint(nc, {batch * perImage}).to(torch::kFloat);
    auto cxcy = torch::rand({batch * perImage, 2}) * 0.6 + 0.2;
    auto wh = torch::rand({batch * perImage, 2}) * 0.2 + 0.05;
    return torch::cat({idx.unsqueeze(1), cls.unsqueeze(1), cxcy, wh}, 1);
}

struct StepResult {
    double ms = 0;
    std::int64_t peak = 0;
    double loss = 0;
};

StepResult trainStep(hr::DetectionModel& model, hr::DetectionLoss& loss,
                     torch::optim::Optimizer& opt, hr::LossScaler& scaler, hr::MemoryProbe& probe,
                     int batch, int imgsz, bool amp) {
    const torch::Device cuda(torch::kCUDA, 0);
    torch::cuda::synchronize();
    probe.resetPeak();
    const auto t0 = std::chrono::steady_clock::now();
    auto images = torch::rand({batch, 3, imgsz, imgsz}, cuda);
    auto targets = randomTargets(batch, 4, model->nc()).to(cuda);
    setCudaAutocast(amp);
    auto raw = model->forward(images);
    setCudaAutocast(false);
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
    torch::cuda::synchronize();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return {ms, probe.peak(), out.total.item<double>()};
}

} // namespace

int main() {
    if (!torch::cuda::is_available()) {
        std::printf("no CUDA device\n0 passed, 1 failed\n");
        return 1;
    }
    std::string error;
    auto probe = hr::makeProbe("cuda:0", &error);
    check(probe != nullptr, "makeProbe(cuda:0) " + error);
    if (!probe)
        return 1;
    std::printf("device %s capacity %s device-wide used %s\n", probe->deviceName().c_str(),
                hr::formatBytes(probe->capacity()).c_str(),
                probe->deviceUsed() < 0 ? "unknown (no NVML)"
                                        : hr::formatBytes(probe->deviceUsed()).c_str());
    check(probe->capacity() > (1LL << 30), "capacity reported");

    {
        auto t = torch::empty({256, 1024, 1024}, torch::TensorOptions(torch::kCUDA).dtype(torch::kFloat));
        check(probe->allocated() >= (1LL << 30), "allocated counts a 1 GiB tensor: " +
                                                     hr::formatBytes(probe->allocated()));
    }
    check(probe->allocated() < (64LL << 20), "allocated drops after free");
    check(probe->reserved() >= probe->allocated(), "reserved >= allocated");

    torch::manual_seed(0);
    auto build = hr::buildModel("yolov8n.yaml", 6);
    check(bool(build.model), "build yolov8n");
    if (!build.model)
        return 1;
    auto model = build.model;
    const torch::Device cuda(torch::kCUDA, 0);
    model->to(cuda);
    model->train();
    hr::LossConfig lc;
    lc.nc = 6;
    hr::DetectionLoss loss(lc);
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3));
    hr::LossScaler scaler(true);

    for (bool amp : {false, true}) {
        trainStep(model, loss, opt, scaler, *probe, 16, 640, amp); // warm-up
        StepResult r{};
        const int steps = 5;
        double ms = 0;
        for (int i = 0; i < steps; ++i) {
            r = trainStep(model, loss, opt, scaler, *probe, 16, 640, amp);
            ms += r.ms;
        }
        std::printf("yolov8n 640 batch 16 %s: %.1f ms/step, %.0f images/s, peak %s, loss %.3f\n",
                    amp ? "fp16 AMP" : "fp32", ms / steps, 16 * steps * 1000.0 / ms,
                    hr::formatBytes(r.peak).c_str(), r.loss);
        check(std::isfinite(r.loss), std::string("finite loss ") + (amp ? "amp" : "fp32"));
    }
    check(scaler.scale() > 1.0, "loss scaler active: scale " + std::to_string(scaler.scale()));

    // Checkpointing: lower peak on CUDA, same gradients.
    {
        auto images = torch::rand({8, 3, 320, 320}, cuda);
        auto targets = randomTargets(8, 4, 6).to(cuda);
        std::vector<torch::Tensor> grads[2];
        std::int64_t peaks[2];
        for (int c = 0; c < 2; ++c) {
            model->setCheckpointing(c ? hr::Checkpointing::All : hr::Checkpointing::None);
            opt.zero_grad();
            torch::cuda::synchronize();
            probe->resetPeak();
            loss.compute(model->forward(images), targets, 320, 320).total.backward();
            torch::cuda::synchronize();
            peaks[c] = probe->peak();
            for (auto& p : model->parameters())
                grads[c].push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
        }
        model->setCheckpointing(hr::Checkpointing::None);
        double maxDiff = 0;
        for (size_t i = 0; i < grads[0].size(); ++i)
            if (grads[0][i].defined() && grads[1][i].defined())
                maxDiff = std::max(maxDiff, (grads[0][i] - grads[1][i]).abs().max().item<double>());
        std::printf("checkpointing: peak %s -> %s, max grad diff %.2e\n",
                    hr::formatBytes(peaks[0]).c_str(), hr::formatBytes(peaks[1]).c_str(), maxDiff);
        check(peaks[1] < peaks[0], "checkpointing lowers the CUDA peak");
        check(maxDiff < 1e-3, "checkpointing keeps gradients (cuDNN is not bit-exact)");
        opt.zero_grad();
    }

    // Budget: a 3 GiB device. batch 64 at 640 px fp32 cannot fit; catch, release, continue smaller.
    probe->setBudget(3LL << 30);
    bool caught = false;
    std::string message;
    try {
        trainStep(model, loss, opt, scaler, *probe, 64, 640, false);
    } catch (const c10::OutOfMemoryError& e) {
        caught = true;
        message = e.what();
    }
    check(caught, "batch 64 under a 3 GiB budget raises c10::OutOfMemoryError");
    std::printf("OOM message (first line): %s\n", message.substr(0, message.find('\n')).c_str());
    std::printf("requested per probe %s, parsed from message %s\n",
                hr::formatBytes(probe->lastFailedRequest()).c_str(),
                hr::formatBytes(hr::parseRequestedBytes(message)).c_str());
    check(hr::parseRequestedBytes(message) > 0, "requested size parsed from the CUDA message");
    opt.zero_grad();
    c10::cuda::CUDACachingAllocator::emptyCache();
    const auto before = model->parameters()[0].clone();
    StepResult after{};
    bool recovered = true;
    try {
        after = trainStep(model, loss, opt, scaler, *probe, 8, 640, true);
    } catch (const std::exception& e) {
        recovered = false;
        std::printf("recovery step failed: %s\n", e.what());
    }
    check(recovered && std::isfinite(after.loss), "same model continues at batch 8 + AMP after the OOM");
    check(after.peak < (3LL << 30), "recovered step peak " + hr::formatBytes(after.peak) + " < budget");
    check(!torch::equal(before, model->parameters()[0]), "weights updated after recovery");
    std::printf("retries %lld, fragmentation %s\n", static_cast<long long>(probe->retries()),
                hr::formatBytes(probe->fragmentation()).c_str());

    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
