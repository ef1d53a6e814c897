// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/detection_model.h"

#include "model/activation_checkpointing.h"
#include "model/blocks.h"

#include <torch/torch.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace hr {

DetectionModelImpl::DetectionModelImpl(std::vector<LayerSpec> specs,
                                       std::vector<std::shared_ptr<torch::nn::Module>> layers,
                                       int backboneLength, std::string yamlText,
                                       std::string sourceName, std::string scale)
    : m_specs(std::move(specs)), m_layers(std::move(layers)), m_backboneLength(backboneLength),
      m_yamlText(std::move(yamlText)), m_sourceName(std::move(sourceName)),
      m_scale(std::move(scale)) {
    TORCH_CHECK(!m_layers.empty() && m_layers.size() == m_specs.size(),
                "DetectionModel: ", m_layers.size(), " layers for ", m_specs.size(), " rows");
    auto container = std::make_shared<torch::nn::Module>("Sequential");
    for (size_t i = 0; i + 1 < m_layers.size(); ++i) {
        auto* block = dynamic_cast<BlockImpl*>(m_layers[i].get());
        TORCH_CHECK(block, "DetectionModel: row ", i, " is not a block");
        m_blocks.push_back(block);
    }
    m_detect = std::dynamic_pointer_cast<DetectImpl>(m_layers.back());
    TORCH_CHECK(m_detect, "DetectionModel: the last row must be Detect");
    for (size_t i = 0; i < m_layers.size(); ++i)
        container->register_module(std::to_string(i), m_layers[i]);
    register_module("model", container);

    m_lastUse.assign(m_layers.size(), -1);
    for (size_t i = 0; i < m_specs.size(); ++i)
        for (int from : m_specs[i].inputs)
            if (from >= 0)
                m_lastUse[from] = std::max(m_lastUse[from], static_cast<int>(i));
    m_checkpointed.assign(m_layers.size(), false);
    freeze({});
}

std::vector<torch::Tensor> DetectionModelImpl::forward(const torch::Tensor& images) {
    TORCH_CHECK(images.dim() == 4, "DetectionModel::forward expects [B, C, H, W], got ",
                images.sizes());
    const bool recompute = torch::GradMode::is_enabled() && is_training();
    std::vector<torch::Tensor> outputs(m_blocks.size());
    std::vector<torch::Tensor> inputs;
    auto gather = [&](const LayerSpec& spec) {
        inputs.clear();
        for (int from : spec.inputs)
            inputs.push_back(from < 0 ? images : outputs[from]);
    };
    for (size_t i = 0; i < m_blocks.size(); ++i) {
        if (FlopCounter* counter = activeFlopCounter())
            counter->layer = static_cast<int>(i);
        gather(m_specs[i]);
        outputs[i] = recompute && m_checkpointed[i] ? checkpointedForward(*m_blocks[i], inputs)
                                                    : m_blocks[i]->forwardRow(inputs);
        // Drop outputs nobody reads any more, so inference keeps only what later rows need.
        for (int from : m_specs[i].inputs)
            if (from >= 0 && m_lastUse[from] <= static_cast<int>(i))
                outputs[from] = torch::Tensor();
        if (m_lastUse[i] < 0)
            outputs[i] = torch::Tensor();
    }
    if (FlopCounter* counter = activeFlopCounter())
        counter->layer = static_cast<int>(m_blocks.size());
    gather(m_specs.back());
    return m_detect->forward(inputs);
}

torch::Tensor DetectionModelImpl::decode(const std::vector<torch::Tensor>& raw) const {
    return m_detect->decode(raw);
}

torch::Tensor DetectionModelImpl::predict(const torch::Tensor& images) {
    return decode(forward(images));
}

int DetectionModelImpl::nc() const {
    return static_cast<int>(m_detect->nc());
}

int DetectionModelImpl::regMax() const {
    return static_cast<int>(m_detect->regMax());
}

const std::vector<int64_t>& DetectionModelImpl::strides() const {
    return m_detect->strides();
}

std::shared_ptr<torch::nn::Module> DetectionModelImpl::layer(int index) const {
    TORCH_CHECK(index >= 0 && index < layerCount(), "layer index ", index, " out of range [0, ",
                layerCount(), ")");
    return m_layers[index];
}

const LayerSpec& DetectionModelImpl::layerSpec(int index) const {
    TORCH_CHECK(index >= 0 && index < layerCount(), "layer index ", index, " out of range [0, ",
                layerCount(), ")");
    return m_specs[index];
}

void DetectionModelImpl::setCheckpointing(Checkpointing mode) {
    std::vector<int> layers;
    const int last = layerCount() - 1; // Detect
    if (mode == Checkpointing::Backbone) {
        for (int i = 2; i < std::min(m_backboneLength, last); ++i)
            layers.push_back(i);
    } else if (mode == Checkpointing::All) {
        for (int i = 0; i < last; ++i)
            layers.push_back(i);
    }
    setCheckpointLayers(layers);
}

void DetectionModelImpl::setCheckpointLayers(const std::vector<int>& layers) {
    m_checkpointed.assign(m_layers.size(), false);
    m_checkpointLayers.clear();
    for (int i : std::set<int>(layers.begin(), layers.end())) {
        if (i >= 0 && i < layerCount() - 1) {
            m_checkpointed[i] = true;
            m_checkpointLayers.push_back(i);
        }
    }
}

std::int64_t DetectionModelImpl::setBatchNormForward(const BatchNormForward& forward) {
    std::int64_t widest = 0;
    for (const auto& module : modules()) {
        if (auto* conv = dynamic_cast<ConvImpl*>(module.get()))
            conv->setBatchNormForward(forward);
        if (const auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(module.get()))
            widest = std::max(widest, bn->options.num_features());
    }
    return widest;
}

void DetectionModelImpl::freeze(const std::vector<int>& layers) {
    std::set<int> frozen;
    for (int i : layers)
        if (i >= 0 && i < layerCount())
            frozen.insert(i);
    m_frozenLayers.assign(frozen.begin(), frozen.end());
    for (int i = 0; i < layerCount(); ++i)
        for (auto& p : m_layers[i]->parameters())
            p.set_requires_grad(!m_fused && frozen.count(i) == 0);
    for (auto& p : m_detect->dfl().parameters())
        p.set_requires_grad(false);
}

void DetectionModelImpl::fuse() {
    if (m_fused)
        return;
    // RepConv first: it fuses its own Conv children and merges the branches.
    for (const auto& module : modules())
        if (auto* rep = dynamic_cast<RepConvImpl*>(module.get()))
            rep->fuseBranches();
    for (const auto& module : modules())
        if (auto* conv = dynamic_cast<ConvImpl*>(module.get()))
            conv->fuseBatchNorm();
    m_fused = true;
    freeze(m_frozenLayers);
}

std::string DetectionModelImpl::architectureName() const {
    std::ostringstream out;
    out << (m_sourceName.empty() ? "model" : m_sourceName);
    if (!m_scale.empty())
        out << " scale " << m_scale;
    out << ", nc " << nc();
    if (m_fused)
        out << ", fused";
    return out.str();
}

std::string DetectionModelImpl::architectureKey() const {
    std::ostringstream out;
    out << "nc=" << nc() << ";reg_max=" << regMax() << ";fused=" << m_fused << '\n';
    for (const auto& spec : m_specs) {
        out << spec.index << ':';
        for (int from : spec.inputs)
            out << from << ',';
        out << ':' << spec.repeats << ':' << spec.module << ':' << spec.args << ':'
            << spec.outChannels << '\n';
    }
    return out.str();
}

std::int64_t DetectionModelImpl::parameterCount() const {
    std::int64_t n = 0;
    for (const auto& p : parameters())
        n += p.numel();
    return n;
}

std::int64_t DetectionModelImpl::trainableParameterCount() const {
    std::int64_t n = 0;
    for (const auto& p : parameters())
        if (p.requires_grad())
            n += p.numel();
    return n;
}

} // namespace hr
