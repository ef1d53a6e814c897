// SPDX-License-Identifier: GPL-3.0-or-later
// Compares Headroom's model, loss, gradients, optimizer steps and EMA with what Ultralytics'
// own code computed on one fixed batch (fixed_batch_dump.py writes the file). Built only with
// -DHEADROOM_REFERENCE_TOOLS=ON; CI never runs it. Prints the numbers docs/learning.md quotes
// and exits 1 when a tolerance is missed.
#include "config/train_config.h"
#include "loss/detection_loss.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "train/model_ema.h"
#include "train/optimizer_factory.h"
#include "train/weight_updater.h"

#include <torch/serialize.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace {

using TensorMap = std::map<std::string, torch::Tensor>;

TensorMap readFixture(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TensorMap out;
    for (const auto& entry : torch::pickle_load(bytes).toGenericDict())
        out[entry.key().toStringRef()] = entry.value().toTensor();
    return out;
}

/// Every parameter and buffer of the model by its name, which is Ultralytics' state_dict name.
TensorMap stateOf(torch::nn::Module& model) {
    TensorMap out;
    for (const auto& p : model.named_parameters(true))
        out[p.key()] = p.value();
    for (const auto& b : model.named_buffers(true))
        if (b.value().is_floating_point())
            out[b.key()] = b.value();
    return out;
}

double relative(const torch::Tensor& mine, const torch::Tensor& theirs) {
    const double scale = theirs.norm().item<double>();
    const double diff = (mine - theirs).norm().item<double>();
    return scale > 0 ? diff / scale : diff;
}

struct Worst {
    double value = 0;
    std::string name;
    void see(double v, const std::string& n) {
        if (v > value)
            value = v, name = n;
    }
};

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: reference_check FIXTURE.pt [MODEL.yaml]\n");
        return 2;
    }
    torch::set_num_threads(2);
    const TensorMap ref = readFixture(argv[1]);
    const std::string modelName = argc > 2 ? argv[2] : "yolov8n.yaml";
    const auto cfg = ref.at("config");
    const int nc = static_cast<int>(cfg[0].item<double>());
    const int imgsz = static_cast<int>(cfg[1].item<double>());
    const int steps = static_cast<int>(cfg[3].item<double>());
    const double lr = cfg[4].item<double>(), momentum = cfg[5].item<double>();
    const double weightDecay = cfg[6].item<double>();
    const bool adamw = cfg[7].item<double>() > 0.5;

    hr::ModelBuild build = hr::buildModel(modelName, nc);
    if (!build.model) {
        std::fprintf(stderr, "cannot build %s\n", modelName.c_str());
        return 2;
    }
    hr::DetectionModel model = build.model;
    bool ok = true;

    // 0. Headroom's own initialisation against the reference's: the Detect biases exactly, the
    // BatchNorm settings, and the spread of every randomly initialised weight.
    {
        int biases = 0, biasMismatches = 0, spreads = 0;
        Worst spread;
        for (const auto& [name, tensor] : stateOf(*model)) {
            auto it = ref.find("init/" + name);
            if (it == ref.end())
                continue;
            const bool headOutputBias =
                name.rfind("model.22.cv", 0) == 0 && name.find(".2.bias") != std::string::npos;
            if (headOutputBias) {
                ++biases;
                biasMismatches += !torch::allclose(tensor, it->second, 0.0, 1e-6);
            } else if (name.find("bn.") == std::string::npos && tensor.numel() >= 256) {
                const double ratio =
                    tensor.std().item<double>() / it->second.std().item<double>() - 1.0;
                spread.see(std::abs(ratio), name);
                ++spreads;
            }
        }
        int norms = 0, normMismatches = 0;
        for (const auto& m : model->modules(false))
            if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
                ++norms;
                normMismatches += bn->options.eps() != 1e-3 || bn->options.momentum() != 0.03;
            }
        std::printf("init: %d Detect output biases, %d differ from the reference's; %d BatchNorm "
                    "layers, %d not at eps 1e-3 / momentum 0.03; %d weight tensors, largest "
                    "spread (std) difference %.1f%% (%s)\n",
                    biases, biasMismatches, norms, normMismatches, spreads, 100 * spread.value,
                    spread.name.c_str());
        ok = ok && biases > 0 && biasMismatches == 0 && norms > 0 && normMismatches == 0;
    }

    // 1. Same initial weights: every Headroom tensor gets the reference's, and none is left over.
    {
        torch::NoGradGuard noGrad;
        const TensorMap mine = stateOf(*model);
        int copied = 0, missing = 0;
        for (const auto& [name, tensor] : mine) {
            auto it = ref.find("init/" + name);
            if (it == ref.end() || it->second.sizes() != tensor.sizes()) {
                std::printf("  no reference tensor for %s\n", name.c_str());
                ++missing;
                continue;
            }
            tensor.copy_(it->second);
            ++copied;
        }
        int unused = 0;
        for (const auto& [key, tensor] : ref)
            if (key.rfind("init/", 0) == 0 && !mine.count(key.substr(5))) {
                std::printf("  reference tensor %s has no Headroom counterpart\n", key.c_str());
                ++unused;
            }
        std::printf("weights: %d tensors copied, %d missing, %d reference tensors unused\n", copied,
                    missing, unused);
        ok = ok && missing == 0 && unused == 0;
    }

    hr::TrainConfig config;
    config.amp = false;
    config.optimizer = adamw ? "AdamW" : "SGD";
    config.weight_decay = weightDecay;
    config.batch = config.nbs; // decay scaling factor 1: the fixture's decay is used as is
    hr::OptimizerChoice choice = hr::resolveOptimizer(config, nc, 0);
    choice.lr = lr;
    choice.momentum = momentum;
    hr::ModelBuild shadow = hr::buildModel(modelName, nc);
    hr::WeightUpdater updater(config, model.ptr(), choice, shadow.model.ptr(), torch::kCPU);
    updater.setAccumulate(1);
    updater.setLearningRates({lr, lr, lr});

    hr::LossConfig lossConfig;
    lossConfig.nc = nc;
    lossConfig.regMax = model->regMax();
    lossConfig.strides = model->strides();
    hr::DetectionLoss loss(lossConfig);

    const torch::Tensor images = ref.at("images"), targets = ref.at("targets");
    model->train();
    for (int step = 0; step < steps; ++step) {
        const hr::LossOutput out = loss.compute(model->forward(images), targets, imgsz, imgsz);
        updater.backward(out.total);
        if (step == 0) {
            // 2. Loss components and gradients on the fixed batch.
            const auto items = ref.at("items");
            double worstItem = 0;
            for (int k = 0; k < 3; ++k) {
                const double a = out.items[k].item<double>(), b = items[k].item<double>();
                std::printf("loss %s: headroom %.6f reference %.6f diff %.2e\n",
                            k == 0   ? "box"
                            : k == 1 ? "cls"
                                     : "dfl",
                            a, b, std::abs(a - b));
                worstItem = std::max(worstItem, std::abs(a - b));
            }
            std::printf("loss total: headroom %.6f reference %.6f\n", out.total.item<double>(),
                        ref.at("total").item<double>());
            ok = ok && worstItem <= 1e-4;
            Worst grad;
            int compared = 0, over = 0;
            for (const auto& p : model->named_parameters(true)) {
                auto it = ref.find("grad/" + p.key());
                if (it == ref.end() || !p.value().grad().defined())
                    continue;
                const double r = relative(p.value().grad(), it->second);
                grad.see(r, p.key());
                ++compared;
                over += r > 1e-3;
            }
            std::vector<torch::Tensor> grads;
            for (const auto& p : model->parameters(true))
                if (p.grad().defined())
                    grads.push_back(p.grad().norm());
            std::printf("gradients: %d tensors, largest relative difference %.2e (%s), %d over "
                        "1e-3; total norm %.1f (clipped to 10)\n",
                        compared, grad.value, grad.name.c_str(), over,
                        torch::stack(grads).norm().item<double>());
            ok = ok && over == 0 && compared > 0;
        }
        updater.step();
    }

    // 3. After the optimizer steps: the weights' change and the EMA.
    // A change below 1e-5 of a tensor's size is float rounding of a constant (the DFL
    // projection weights), not an update: those tensors are compared as weights only.
    const auto moved = [](const torch::Tensor& change, const torch::Tensor& init) {
        return change.norm().item<double>() > 1e-5 * std::max(init.norm().item<double>(), 1.0);
    };
    Worst update, ema, weights, emaWeights;
    int constant = 0;
    const TensorMap mine = stateOf(*model), averaged = stateOf(updater.ema()->shadow());
    for (const auto& [name, tensor] : mine) {
        auto init = ref.find("init/" + name), fin = ref.find("final/" + name),
             avg = ref.find("ema/" + name);
        if (init == ref.end() || fin == ref.end() || avg == ref.end())
            continue;
        weights.see(relative(tensor, fin->second), name);
        emaWeights.see(relative(averaged.at(name), avg->second), name);
        const torch::Tensor theirs = fin->second - init->second;
        if (moved(theirs, init->second))
            update.see(relative(tensor - init->second, theirs), name);
        const torch::Tensor theirsEma = avg->second - init->second;
        if (moved(theirsEma, init->second))
            ema.see(relative(averaged.at(name) - init->second, theirsEma), name);
        else
            ++constant;
    }
    std::printf("after %d %s steps: weights differ by %.2e relative at most (%s); their change "
                "since the start by %.2e (%s)\n",
                steps, adamw ? "AdamW" : "SGD", weights.value, weights.name.c_str(), update.value,
                update.name.c_str());
    std::printf("EMA (updates %lld): weights differ by %.2e relative at most (%s); their change "
                "by %.2e (%s); %d constant tensors compared as weights only\n",
                static_cast<long long>(updater.ema()->updates()), emaWeights.value,
                emaWeights.name.c_str(), ema.value, ema.name.c_str(), constant);
    // The EMA's change is printed, not judged: after a few updates the average sits within a
    // few float ulps of the weights, so its change carries their rounding (fused multiply-add
    // here, two operations in Python) at up to 1e-3 of a small change.
    ok = ok && update.value <= 1e-3 && weights.value <= 1e-4 && emaWeights.value <= 1e-4;
    std::printf("%s\n", ok ? "MATCH" : "MISMATCH");
    return ok ? 0 : 1;
}
