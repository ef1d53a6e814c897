// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/optimizer_factory.h"

#include "config/train_config.h"
#include "util/text.h"

#include <cmath>

namespace hr {

OptimizerChoice resolveOptimizer(const TrainConfig& config, int nc, std::int64_t iterations) {
    OptimizerChoice choice;
    const std::string name = toLower(config.optimizer);
    if (name == "auto") {
        choice.automatic = true;
        choice.momentum = 0.9;
        choice.warmupBiasLr = 0.0;
        if (iterations > 10000) {
            choice.name = "SGD";
            choice.lr = 0.01;
        } else {
            choice.name = "AdamW";
            choice.lr = std::round(0.002 * 5.0 / (4.0 + std::max(nc, 1)) * 1e6) / 1e6;
        }
        return choice;
    }
    choice.name = name == "adamw" ? "AdamW" : name == "adam" ? "Adam" : "SGD";
    choice.lr = config.lr0;
    choice.momentum = config.momentum;
    choice.warmupBiasLr = config.warmup_bias_lr;
    return choice;
}

std::int64_t plannedIterations(const TrainConfig& config, std::int64_t trainImages) {
    const std::int64_t perStep = std::max<std::int64_t>(std::max(config.batch, config.nbs), 1);
    return (trainImages + perStep - 1) / perStep * std::max(config.epochs, 0);
}

std::int64_t ParamGroups::count(int group) const {
    std::int64_t n = 0;
    for (const auto& p : groups.at(group))
        n += p.numel();
    return n;
}

ParamGroups splitParameters(const torch::nn::Module& model) {
    ParamGroups result;
    // named_modules() includes the root; each parameter belongs to exactly one module when
    // listed with recurse = false.
    for (const auto& item : model.named_modules("", true)) {
        const bool norm = item.value()->name().find("Norm") != std::string::npos;
        for (const auto& param : item.value()->named_parameters(false)) {
            const std::string full =
                item.key().empty() ? param.key() : item.key() + "." + param.key();
            if (full.find("bias") != std::string::npos)
                result.groups[2].push_back(param.value());
            else if (norm)
                result.groups[1].push_back(param.value());
            else
                result.groups[0].push_back(param.value());
        }
    }
    return result;
}

std::unique_ptr<torch::optim::Optimizer>
makeOptimizer(const OptimizerChoice& choice, const ParamGroups& groups, double weightDecay) {
    using namespace torch::optim;
    std::vector<OptimizerParamGroup> list;
    if (choice.name == "SGD") {
        for (int g = 0; g < 3; ++g) {
            auto options = std::make_unique<SGDOptions>(choice.lr);
            options->momentum(choice.momentum)
                .nesterov(true)
                .weight_decay(g == 0 ? weightDecay : 0.0);
            list.emplace_back(groups.groups[g], std::move(options));
        }
        SGDOptions defaults(choice.lr);
        defaults.momentum(choice.momentum).nesterov(true);
        return std::make_unique<SGD>(std::move(list), defaults);
    }
    const std::tuple<double, double> betas{choice.momentum, 0.999};
    if (choice.name == "AdamW") {
        for (int g = 0; g < 3; ++g) {
            auto options = std::make_unique<AdamWOptions>(choice.lr);
            options->betas(betas).weight_decay(g == 0 ? weightDecay : 0.0);
            list.emplace_back(groups.groups[g], std::move(options));
        }
        AdamWOptions defaults(choice.lr);
        defaults.betas(betas).weight_decay(0.0);
        return std::make_unique<AdamW>(std::move(list), defaults);
    }
    for (int g = 0; g < 3; ++g) {
        auto options = std::make_unique<AdamOptions>(choice.lr);
        options->betas(betas).weight_decay(g == 0 ? weightDecay : 0.0);
        list.emplace_back(groups.groups[g], std::move(options));
    }
    AdamOptions defaults(choice.lr);
    defaults.betas(betas);
    return std::make_unique<Adam>(std::move(list), defaults);
}

void setGroupLr(torch::optim::Optimizer& optimizer, size_t group, double lr) {
    optimizer.param_groups().at(group).options().set_lr(lr);
}

double groupLr(const torch::optim::Optimizer& optimizer, size_t group) {
    return optimizer.param_groups().at(group).options().get_lr();
}

void setMomentum(torch::optim::Optimizer& optimizer, double momentum) {
    for (auto& group : optimizer.param_groups())
        if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&group.options()))
            sgd->momentum(momentum);
}

namespace {
template <typename F>
void forEachStateTensor(torch::optim::Optimizer& optimizer, F&& f) {
    for (auto& entry : optimizer.state()) {
        torch::optim::OptimizerParamState* state = entry.second.get();
        if (auto* s = dynamic_cast<torch::optim::SGDParamState*>(state)) {
            torch::Tensor t = s->momentum_buffer();
            f(t);
            s->momentum_buffer(t);
        } else if (auto* a = dynamic_cast<torch::optim::AdamParamState*>(state)) {
            torch::Tensor t1 = a->exp_avg(), t2 = a->exp_avg_sq(), t3 = a->max_exp_avg_sq();
            f(t1);
            f(t2);
            f(t3);
            a->exp_avg(t1);
            a->exp_avg_sq(t2);
            a->max_exp_avg_sq(t3);
        } else if (auto* w = dynamic_cast<torch::optim::AdamWParamState*>(state)) {
            torch::Tensor t1 = w->exp_avg(), t2 = w->exp_avg_sq(), t3 = w->max_exp_avg_sq();
            f(t1);
            f(t2);
            f(t3);
            w->exp_avg(t1);
            w->exp_avg_sq(t2);
            w->max_exp_avg_sq(t3);
        }
    }
}
} // namespace

std::int64_t optimizerStateBytes(torch::optim::Optimizer& optimizer) {
    std::int64_t bytes = 0;
    forEachStateTensor(optimizer, [&](torch::Tensor& t) {
        if (t.defined())
            bytes += static_cast<std::int64_t>(t.numel() * t.element_size());
    });
    return bytes;
}

void moveOptimizerState(torch::optim::Optimizer& optimizer, torch::Device device) {
    forEachStateTensor(optimizer, [&](torch::Tensor& t) {
        if (t.defined())
            t = t.to(device);
    });
}

} // namespace hr
