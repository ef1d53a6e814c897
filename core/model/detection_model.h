// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "model/batch_norm_forward.h"
#include "util/diagnostic.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hr {

class BlockImpl;
class DetectImpl;

/// One row of a model YAML after scaling: what the builder made of it.
struct LayerSpec {
    int index = 0;
    std::vector<int> from;   ///< as written in the YAML (-1 = previous layer)
    std::vector<int> inputs; ///< absolute layer indices; -1 = the input image
    int repeats = 1;         ///< repeats after depth scaling
    std::string module;      ///< module name as written ("C2f", "nn.Upsample")
    std::string args;        ///< constructor arguments after scaling, e.g. "[16, 32, 1, True]"
    int outChannels = 0;     ///< output channels (sum of the split for CBLinear)
    double stride = 1.0;     ///< output stride relative to the input image
    int line = 0;            ///< 1-based line of the row in the YAML
};

/// A YOLOv8/YOLOv9 detector built from an Ultralytics-format model YAML (see buildModel()).
/// Submodules are registered as "model.<row>.<part>", like Ultralytics' state dict names.
class DetectionModelImpl : public torch::nn::Module {
public:
    /// Use buildModel()/buildModelFromText(); this constructor is the builder's.
    DetectionModelImpl(std::vector<LayerSpec> specs,
                       std::vector<std::shared_ptr<torch::nn::Module>> layers, int backboneLength,
                       std::string yamlText, std::string sourceName, std::string scale);

    /// Training output: one raw map per level, [B, 4*regMax + nc, H/s, W/s] (box distribution
    /// channels first, then class logits), levels at strides 8, 16, 32.
    std::vector<torch::Tensor> forward(const torch::Tensor& images);
    /// Decodes raw maps: [B, 4 + nc, A] = xyxy boxes in input pixels + sigmoid class scores.
    torch::Tensor decode(const std::vector<torch::Tensor>& raw) const;
    /// forward + decode (use in eval mode).
    torch::Tensor predict(const torch::Tensor& images);

    int nc() const;
    int regMax() const;
    const std::vector<int64_t>& strides() const;
    /// Rows of the YAML (backbone + head).
    int layerCount() const { return static_cast<int>(m_layers.size()); }
    /// Rows in `backbone:`.
    int backboneLength() const { return m_backboneLength; }
    /// The module of row `index` (owned by the model).
    std::shared_ptr<torch::nn::Module> layer(int index) const;
    const LayerSpec& layerSpec(int index) const;

    /// Recompute the chosen layers' activations in backward instead of storing them.
    /// Backbone = backbone rows from index 2 on (the two stem convs are cheap to keep);
    /// All = every row except Detect. Takes effect on the next forward in grad mode.
    void setCheckpointing(Checkpointing mode);
    /// Checkpoint exactly these rows (Detect and out-of-range indices are ignored).
    void setCheckpointLayers(const std::vector<int>& layers);
    const std::vector<int>& checkpointLayers() const { return m_checkpointLayers; }

    /// Freezes exactly these rows (requires_grad false), unfreezing all others; freeze({})
    /// unfreezes everything. The DFL projection is never trainable. BatchNorm of frozen rows
    /// still runs in train mode (as Ultralytics does).
    void freeze(const std::vector<int>& layers);
    const std::vector<int>& frozenLayers() const { return m_frozenLayers; }

    /// Runs every BatchNorm through `forward` while training (synchronised BatchNorm); an
    /// empty function restores their own forward. Returns the widest BatchNorm's channels.
    std::int64_t setBatchNormForward(const BatchNormForward& forward);

    /// Folds every BatchNorm into its convolution and RepConv branches into one 3x3 conv, for
    /// inference; outputs stay identical. Irreversible; parameter names change accordingly.
    void fuse();
    bool isFused() const { return m_fused; }

    /// The YAML text the model was built from, the source name (file name) and the scale.
    const std::string& yamlText() const { return m_yamlText; }
    const std::string& sourceName() const { return m_sourceName; }
    const std::string& scale() const { return m_scale; }
    /// "yolov8.yaml scale n, nc 80": how error messages name the architecture.
    std::string architectureName() const;
    /// A text that is equal for two models exactly when they have the same architecture
    /// (resolved rows, channels, repeats, nc); used to refuse mismatched weight files.
    std::string architectureKey() const;

    std::int64_t parameterCount() const;
    std::int64_t trainableParameterCount() const;

private:
    std::vector<LayerSpec> m_specs;
    std::vector<std::shared_ptr<torch::nn::Module>> m_layers;
    std::vector<BlockImpl*> m_blocks; ///< rows 0..n-2 (non-owning views of m_layers)
    std::shared_ptr<DetectImpl> m_detect;
    std::vector<int> m_lastUse; ///< last row that reads each row's output
    int m_backboneLength = 0;
    std::string m_yamlText, m_sourceName, m_scale;
    std::vector<int> m_checkpointLayers;
    std::vector<bool> m_checkpointed;
    std::vector<int> m_frozenLayers;
    bool m_fused = false;
};
TORCH_MODULE(DetectionModel);

} // namespace hr
