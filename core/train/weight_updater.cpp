// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/weight_updater.h"

#include "config/train_config.h"
#include "config/train_rules.h"

#include <algorithm>
#include <cmath>

namespace hr {

namespace {
constexpr double kMaxGradNorm = 10.0;
} // namespace

double scaledWeightDecay(const TrainConfig& config) {
    const int batch = std::max(config.batch, 1);
    return config.weight_decay * batch * accumulateSteps(config) / std::max(config.nbs, 1);
}

WeightUpdater::WeightUpdater(const TrainConfig& config, std::shared_ptr<torch::nn::Module> model,
                             OptimizerChoice choice, std::shared_ptr<torch::nn::Module> ema,
                             torch::Device device)
    : m_model(std::move(model)), m_choice(std::move(choice)),
      m_scaler(config.amp && device.is_cuda()), m_device(device),
      m_offload(config.optimizer_offload && !device.is_cpu()),
      m_weightDecay(scaledWeightDecay(config)), m_momentum(m_choice.momentum),
      m_accumulate(accumulateSteps(config)) {
    TORCH_CHECK(m_model, "WeightUpdater needs a model");
    m_params = m_model->parameters(true);
    if (ema) {
        m_ema = std::make_unique<ModelEma>(std::move(ema));
        m_ema->copyFrom(*m_model);
    }
    rebuildOptimizer();
}

void WeightUpdater::rebuildOptimizer() {
    ParamGroups groups = splitParameters(*m_model);
    if (m_owns)
        for (auto& group : groups.groups)
            group.erase(std::remove_if(group.begin(), group.end(),
                                       [this](const torch::Tensor& p) { return !m_owns(p); }),
                        group.end());
    m_optimizer = makeOptimizer(m_choice, groups, m_weightDecay);
}

void WeightUpdater::setParameterFilter(std::function<bool(const torch::Tensor&)> owns) {
    const std::array<double, 3> lr = learningRates();
    m_owns = std::move(owns);
    rebuildOptimizer();
    if (m_offload)
        moveOptimizerState(*m_optimizer, torch::kCPU);
    setLearningRates(lr);
    if (m_choice.name == "SGD")
        hr::setMomentum(*m_optimizer, m_momentum);
}

void WeightUpdater::backward(const torch::Tensor& loss) {
    m_scaler.scaleLoss(loss).backward();
    ++m_pending;
}

bool WeightUpdater::step() {
    if (m_phase)
        m_phase(Phase::Optimizer);
    const bool finite = m_scaler.unscale(m_params);
    bool stepped = false;
    if (finite) {
        std::vector<torch::Tensor> withGrad;
        for (const auto& p : m_params)
            if (p.grad().defined())
                withGrad.push_back(p);
        if (!withGrad.empty())
            torch::nn::utils::clip_grad_norm_(withGrad, kMaxGradNorm);
        if (m_offload)
            moveOptimizerState(*m_optimizer, m_device);
        takeSnapshot();
        try {
            m_optimizer->step();
        } catch (...) {
            restoreSnapshot();
            if (m_offload)
                moveOptimizerState(*m_optimizer, torch::kCPU);
            if (m_hooks.agree) {
                // Tell the other ranks; this rank's own error is the one to report.
                try {
                    m_hooks.agree(false);
                } catch (...) {
                }
            }
            throw;
        }
        if (m_hooks.agree) {
            try {
                m_hooks.agree(true);
            } catch (...) {
                restoreSnapshot();
                if (m_offload)
                    moveOptimizerState(*m_optimizer, torch::kCPU);
                throw;
            }
        }
        if (m_offload)
            moveOptimizerState(*m_optimizer, torch::kCPU);
        if (m_hooks.afterStep)
            m_hooks.afterStep();
        stepped = true;
    }
    m_scaler.update(finite);
    resetAccumulation();
    if (stepped) {
        ++m_steps;
        if (m_ema) {
            if (m_phase)
                m_phase(Phase::Ema);
            m_ema->update(*m_model);
        }
    }
    return stepped;
}

namespace {
/// Every state tensor of the entry, in a fixed order, and Adam's step count (-1 for SGD).
std::vector<torch::Tensor> stateTensors(torch::optim::OptimizerParamState* state,
                                        std::int64_t& step) {
    step = -1;
    if (auto* s = dynamic_cast<torch::optim::SGDParamState*>(state))
        return {s->momentum_buffer()};
    if (auto* a = dynamic_cast<torch::optim::AdamParamState*>(state)) {
        step = a->step();
        return {a->exp_avg(), a->exp_avg_sq(), a->max_exp_avg_sq()};
    }
    if (auto* w = dynamic_cast<torch::optim::AdamWParamState*>(state)) {
        step = w->step();
        return {w->exp_avg(), w->exp_avg_sq(), w->max_exp_avg_sq()};
    }
    return {};
}
} // namespace

void WeightUpdater::takeSnapshot() {
    Snapshot& s = m_snapshot;
    s.tensors.clear();
    s.offsets.clear();
    s.stateKeys.clear();
    s.adamSteps.clear();
    for (const auto& p : m_params)
        if (p.grad().defined())
            s.tensors.push_back(p);
    for (auto& entry : m_optimizer->state()) {
        s.stateKeys.push_back(entry.first);
        std::int64_t step = -1;
        for (auto& t : stateTensors(entry.second.get(), step))
            if (t.defined())
                s.tensors.push_back(t);
        s.adamSteps.push_back(step);
    }
    size_t total = 0;
    for (const auto& t : s.tensors) {
        s.offsets.push_back(total);
        total += (static_cast<size_t>(t.nbytes()) + 63) / 64 * 64;
    }
    if (s.bytes.size() < total)
        s.bytes.resize(total);
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < s.tensors.size(); ++i) {
        const torch::Tensor& t = s.tensors[i];
        torch::from_blob(s.bytes.data() + s.offsets[i], t.sizes(), t.options().device(torch::kCPU))
            .copy_(t);
    }
}

void WeightUpdater::restoreSnapshot() {
    Snapshot& s = m_snapshot;
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < s.tensors.size(); ++i) {
        torch::Tensor& t = s.tensors[i];
        t.copy_(torch::from_blob(s.bytes.data() + s.offsets[i], t.sizes(),
                                 t.options().device(torch::kCPU)));
    }
    // State created by the failed step did not exist before it: drop it.
    auto& state = m_optimizer->state();
    for (auto it = state.begin(); it != state.end();) {
        if (std::find(s.stateKeys.begin(), s.stateKeys.end(), it->first) == s.stateKeys.end())
            it = state.erase(it);
        else
            ++it;
    }
    for (size_t k = 0; k < s.stateKeys.size(); ++k) {
        auto it = state.find(s.stateKeys[k]);
        if (it == state.end() || s.adamSteps[k] < 0)
            continue;
        if (auto* a = dynamic_cast<torch::optim::AdamParamState*>(it->second.get()))
            a->step(s.adamSteps[k]);
        else if (auto* w = dynamic_cast<torch::optim::AdamWParamState*>(it->second.get()))
            w->step(s.adamSteps[k]);
    }
}

void WeightUpdater::resetAccumulation() {
    for (auto& p : m_params)
        if (p.grad().defined())
            p.mutable_grad().reset();
    m_pending = 0;
}

void WeightUpdater::setLearningRates(const std::array<double, 3>& lr) {
    for (size_t g = 0; g < 3 && g < m_optimizer->param_groups().size(); ++g)
        setGroupLr(*m_optimizer, g, lr[g]);
}

std::array<double, 3> WeightUpdater::learningRates() const {
    std::array<double, 3> lr{0, 0, 0};
    for (size_t g = 0; g < 3 && g < m_optimizer->param_groups().size(); ++g)
        lr[g] = groupLr(*m_optimizer, g);
    return lr;
}

void WeightUpdater::setMomentum(double momentum) {
    m_momentum = momentum;
    hr::setMomentum(*m_optimizer, momentum);
}

void WeightUpdater::applyConfig(const TrainConfig& config, const OptimizerChoice& choice) {
    const std::array<double, 3> lr = learningRates();
    const double decay = scaledWeightDecay(config);
    const bool kindChanged = choice.name != m_choice.name;
    m_scaler.setEnabled(config.amp && m_device.is_cuda());
    const bool offload = config.optimizer_offload && !m_device.is_cpu();
    if (kindChanged || decay != m_weightDecay) {
        m_weightDecay = decay;
        if (kindChanged) {
            m_choice = choice;
            rebuildOptimizer();
        } else {
            // Same optimizer: keep its state, only the decay of pg0 changes.
            auto& options = m_optimizer->param_groups().at(0).options();
            if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&options))
                sgd->weight_decay(decay);
            else if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&options))
                adam->weight_decay(decay);
            else if (auto* adamw = dynamic_cast<torch::optim::AdamWOptions*>(&options))
                adamw->weight_decay(decay);
        }
    }
    if (offload != m_offload)
        moveOptimizerState(*m_optimizer, offload ? torch::Device(torch::kCPU) : m_device);
    m_offload = offload;
    setLearningRates(lr);
    if (m_choice.name == "SGD")
        hr::setMomentum(*m_optimizer, m_momentum);
    m_accumulate = accumulateSteps(config);
    resetAccumulation();
}

void WeightUpdater::save(torch::serialize::OutputArchive& archive, bool withEmaWeights) const {
    torch::serialize::OutputArchive optimizerArchive;
    m_optimizer->save(optimizerArchive);
    archive.write("optimizer", optimizerArchive);
    archive.write("optimizer_name", c10::IValue(m_choice.name));
    archive.write("scaler_scale", c10::IValue(m_scaler.rawScale()));
    archive.write("scaler_good_steps",
                  c10::IValue(static_cast<std::int64_t>(m_scaler.goodSteps())));
    archive.write("updates", c10::IValue(m_steps));
    if (m_ema) {
        if (withEmaWeights) {
            torch::serialize::OutputArchive emaArchive;
            m_ema->shadow().save(emaArchive);
            archive.write("ema", emaArchive);
        }
        archive.write("ema_updates", c10::IValue(m_ema->updates()));
    }
}

void WeightUpdater::saveOptimizerState(torch::serialize::OutputArchive& archive) const {
    m_optimizer->save(archive);
}

void WeightUpdater::loadOptimizerState(torch::serialize::InputArchive& archive) {
    m_optimizer->load(archive);
    if (m_offload)
        moveOptimizerState(*m_optimizer, torch::kCPU);
}

void WeightUpdater::load(torch::serialize::InputArchive& archive, bool optimizerState) {
    c10::IValue value;
    archive.read("optimizer_name", value);
    if (value.toStringRef() != m_choice.name) {
        m_choice.name = value.toStringRef();
        rebuildOptimizer();
    }
    if (optimizerState) {
        torch::serialize::InputArchive optimizerArchive;
        archive.read("optimizer", optimizerArchive);
        loadOptimizerState(optimizerArchive);
    }
    archive.read("scaler_scale", value);
    const double scale = value.toDouble();
    archive.read("scaler_good_steps", value);
    m_scaler.restore(scale, static_cast<int>(value.toInt()));
    archive.read("updates", value);
    m_steps = value.toInt();
    if (m_ema) {
        torch::serialize::InputArchive emaArchive;
        if (archive.try_read("ema", emaArchive))
            m_ema->shadow().load(emaArchive);
        if (archive.try_read("ema_updates", value))
            m_ema->setUpdates(value.toInt());
    }
    resetAccumulation();
}

} // namespace hr
