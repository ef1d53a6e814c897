// SPDX-License-Identifier: GPL-3.0-or-later
// The building blocks of YOLOv8/YOLOv9 detectors (internal to core/model; the public entry
// point is detection_model.h). Names and submodule layout follow Ultralytics' modules, so a
// state dict reads "cv1.conv.weight", "m.0.cv2.bn.running_mean" ... as there. They live in
// one file pair on purpose: each is a few lines, and every LibTorch translation unit costs
// seconds of build time.
#pragma once

#include "model/batch_norm_forward.h"

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace hr {

/// Counts the operations of a forward pass the way thop-based tools do (convolution MACs plus
/// two operations per BatchNorm element); active on the current thread while a
/// FlopCounterScope lives. DetectionModel sets `layer` before each row runs.
struct FlopCounter {
    std::vector<double> opsPerLayer; ///< MAC-equivalent operations per row (x2 for FLOPs)
    int layer = 0;
    /// Called with every convolution and its input, when set (the shapes a pass runs).
    std::function<void(const torch::nn::Conv2dImpl& conv, const torch::Tensor& input)>
        onConvolution;
    void add(double ops);
};

/// Installs `counter` as the current thread's counter for the scope's lifetime.
class FlopCounterScope {
public:
    explicit FlopCounterScope(FlopCounter& counter);
    ~FlopCounterScope();
    FlopCounterScope(const FlopCounterScope&) = delete;
    FlopCounterScope& operator=(const FlopCounterScope&) = delete;

private:
    FlopCounter* m_previous;
};

/// The current thread's counter, or null.
FlopCounter* activeFlopCounter();

/// Runs a convolution and counts its MACs when a FlopCounter is active.
torch::Tensor countedConv(torch::nn::Conv2dImpl& conv, const torch::Tensor& x);

/// SiLU; on a CPU bf16 tensor under LibTorch 1.x composed of operations that are faster there
/// than its own bf16 kernels (same values within bf16 rounding, forward and backward).
torch::Tensor siluActivation(const torch::Tensor& x);

/// A convolution's padding (the same on both sides; every conv here has an explicit number).
int64_t paddingOf(const torch::nn::detail::ConvNdOptions<2>& options);

/// A module that can be one row of a model YAML: takes the row's inputs, returns one tensor.
class BlockImpl : public torch::nn::Module {
public:
    virtual torch::Tensor forwardRow(const std::vector<torch::Tensor>& inputs) = 0;
};

/// A block with one input.
class SingleInputBlock : public BlockImpl {
public:
    virtual torch::Tensor forward(const torch::Tensor& x) = 0;
    torch::Tensor forwardRow(const std::vector<torch::Tensor>& inputs) override;
};

/// Conv2d (no bias) + BatchNorm2d (eps 1e-3, momentum 0.03) + optional SiLU. fuseBatchNorm()
/// folds the BatchNorm into a biased convolution.
class ConvImpl : public SingleInputBlock {
public:
    /// `padding` < 0 = "same" padding for odd kernels.
    ConvImpl(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1, int64_t padding = -1,
             int64_t groups = 1, int64_t dilation = 1, bool act = true);
    torch::Tensor forward(const torch::Tensor& x) override;
    void fuseBatchNorm();
    torch::nn::Conv2dImpl& conv() { return *m_conv; }
    /// Runs the BatchNorm through `forward` while in training mode (empty: its own forward).
    void setBatchNormForward(BatchNormForward forward) { m_bnForward = std::move(forward); }

private:
    std::shared_ptr<torch::nn::Conv2dImpl> m_conv;
    std::shared_ptr<torch::nn::BatchNorm2dImpl> m_bn; ///< null once fused
    BatchNormForward m_bnForward;
    bool m_act;
};

/// Two convs with an optional residual (when shortcut and c1 == c2). With `repConv` the first
/// is a 3x3 RepConv: YOLOv9's RepNBottleneck.
class BottleneckImpl : public SingleInputBlock {
public:
    BottleneckImpl(int64_t c1, int64_t c2, bool shortcut = true, int64_t groups = 1, int64_t k1 = 3,
                   int64_t k2 = 3, double e = 0.5, bool repConv = false);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    std::shared_ptr<SingleInputBlock> m_cv1; ///< a Conv, or a RepConv
    std::shared_ptr<ConvImpl> m_cv2;
    bool m_add;
};

/// What the CSP blocks C2f (YOLOv8) and RepCSP (YOLOv9) share: a chain of bottlenecks on
/// their hidden channels, named "m" as in Ultralytics' weights.
class CspBlockImpl : public SingleInputBlock {
protected:
    /// `n` 3x3 bottlenecks of `hidden` channels (RepNBottlenecks with `repConv`). Called after
    /// the block's own convs are registered, so that parameters keep Ultralytics' order.
    void addBottlenecks(int64_t n, int64_t hidden, bool shortcut, int64_t groups, bool repConv);

    std::vector<std::shared_ptr<BottleneckImpl>> m_blocks;
};

/// CSP bottleneck with two convolutions (YOLOv8): the bottlenecks' outputs are all kept.
class C2fImpl : public CspBlockImpl {
public:
    C2fImpl(int64_t c1, int64_t c2, int64_t n = 1, bool shortcut = false, int64_t groups = 1,
            double e = 0.5);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    int64_t m_hidden;
    std::shared_ptr<ConvImpl> m_cv1, m_cv2;
};

/// Spatial pyramid pooling: a 1x1 conv to `hidden` channels, three chained k x k max-pools,
/// the four maps concatenated, a 1x1 conv. SPPF and SPPELAN differ only in the hidden width
/// and in the last conv's name.
class PoolPyramidImpl : public SingleInputBlock {
public:
    torch::Tensor forward(const torch::Tensor& x) override;

protected:
    PoolPyramidImpl(int64_t c1, int64_t c2, int64_t hidden, int64_t k, const char* lastName);

private:
    std::shared_ptr<ConvImpl> m_first, m_last;
    int64_t m_k;
};

/// SPPF (YOLOv8): the pyramid on half the input channels.
class SPPFImpl : public PoolPyramidImpl {
public:
    SPPFImpl(int64_t c1, int64_t c2, int64_t k = 5) : PoolPyramidImpl(c1, c2, c1 / 2, k, "cv2") {}
};

/// Concatenation of the inputs along channels.
class ConcatImpl : public BlockImpl {
public:
    torch::Tensor forwardRow(const std::vector<torch::Tensor>& inputs) override;
};

/// Nearest-neighbour upsampling of `x` by `factor`. In training, for a channels-last CPU tensor
/// and a whole factor, its backward reads the incoming gradient through its strides.
torch::Tensor nearestUpsample(const torch::Tensor& x, double factor);

/// Nearest-neighbour upsampling by an integer factor.
class UpsampleImpl : public SingleInputBlock {
public:
    explicit UpsampleImpl(double factor) : m_factor(factor) {}
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    double m_factor;
};

/// Passes its input through (Silence, nn.Identity).
class IdentityImpl : public SingleInputBlock {
public:
    torch::Tensor forward(const torch::Tensor& x) override { return x; }
};

/// Several copies of a block run in sequence (a YAML row with repeats > 1 for a module that
/// does not take a repeat count itself).
class RepeatImpl : public SingleInputBlock {
public:
    explicit RepeatImpl(std::vector<std::shared_ptr<SingleInputBlock>> blocks);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    std::vector<std::shared_ptr<SingleInputBlock>> m_blocks;
};

/// RepVGG-style conv: 3x3 conv+BN plus 1x1 conv+BN, summed, SiLU. fuseBranches() merges
/// both into one biased 3x3 conv (call after the Conv children were fused).
class RepConvImpl : public SingleInputBlock {
public:
    RepConvImpl(int64_t c1, int64_t c2, int64_t k = 3, int64_t s = 1, int64_t padding = 1,
                int64_t groups = 1, bool act = true);
    torch::Tensor forward(const torch::Tensor& x) override;
    void fuseBranches();

private:
    std::shared_ptr<ConvImpl> m_conv1, m_conv2;
    std::shared_ptr<torch::nn::Conv2dImpl> m_fused;
    bool m_act;
};

/// CSP block (C3 layout) of `n` RepNBottlenecks with shortcuts on half of `c2`: the chain's end
/// beside a 1x1 branch. Only GELAN blocks make it, always with these Ultralytics defaults.
class RepCSPImpl : public CspBlockImpl {
public:
    RepCSPImpl(int64_t c1, int64_t c2, int64_t n);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    std::shared_ptr<ConvImpl> m_cv1, m_cv2, m_cv3;
};

/// GELAN block (YOLOv9): split, two branches (RepCSP + conv or, for ELAN1, plain convs),
/// concat of all parts, 1x1 conv.
class RepNCSPELAN4Impl : public SingleInputBlock {
public:
    /// `elan1` builds the lighter ELAN1 variant (branches are single 3x3 convs).
    RepNCSPELAN4Impl(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t n, bool elan1);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    int64_t m_half;
    std::shared_ptr<ConvImpl> m_cv1, m_cv4;
    std::vector<std::shared_ptr<SingleInputBlock>> m_branch2, m_branch3;
};

/// Average-pool (2x2, stride 1) then a 3x3 stride-2 conv.
class AConvImpl : public SingleInputBlock {
public:
    AConvImpl(int64_t c1, int64_t c2);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    std::shared_ptr<ConvImpl> m_cv1;
};

/// Downsampling: average-pool, split channels, 3x3 s2 conv on one half, max-pool + 1x1 conv on
/// the other.
class ADownImpl : public SingleInputBlock {
public:
    ADownImpl(int64_t c1, int64_t c2);
    torch::Tensor forward(const torch::Tensor& x) override;

private:
    std::shared_ptr<ConvImpl> m_cv1, m_cv2;
};

/// SPPELAN (YOLOv9): the pyramid on `c3` channels.
class SPPELANImpl : public PoolPyramidImpl {
public:
    SPPELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t k = 5)
        : PoolPyramidImpl(c1, c2, c3, k, "cv5") {}
};

/// One biased conv whose output channels are several parts (CBFuse picks them apart). The
/// output is the concatenation of the parts.
class CBLinearImpl : public SingleInputBlock {
public:
    CBLinearImpl(int64_t c1, std::vector<int64_t> parts, int64_t k = 1, int64_t s = 1,
                 int64_t padding = -1, int64_t groups = 1);
    torch::Tensor forward(const torch::Tensor& x) override;
    const std::vector<int64_t>& parts() const { return m_parts; }

private:
    std::vector<int64_t> m_parts;
    std::shared_ptr<torch::nn::Conv2dImpl> m_conv;
};

/// Sums the last input with chosen parts of CBLinear outputs, resized (nearest) to its size.
class CBFuseImpl : public BlockImpl {
public:
    /// `slices[i]` = {first channel, channel count} to take from input i (all but the last).
    explicit CBFuseImpl(std::vector<std::pair<int64_t, int64_t>> slices);
    torch::Tensor forwardRow(const std::vector<torch::Tensor>& inputs) override;

private:
    std::vector<std::pair<int64_t, int64_t>> m_slices;
};

/// Distribution focal loss integral: softmax over regMax bins, expectation with a fixed
/// arange-weighted 1x1 conv (not trainable).
class DFLImpl : public torch::nn::Module {
public:
    explicit DFLImpl(int64_t regMax = 16);
    /// [B, 4*regMax, A] -> [B, 4, A] expected distances in grid units.
    torch::Tensor forward(const torch::Tensor& x);

private:
    int64_t m_regMax;
    std::shared_ptr<torch::nn::Conv2dImpl> m_conv;
};

/// Anchor-free detection head (YOLOv8): per level a box branch (4*regMax channels) and a class
/// branch (nc channels).
class DetectImpl : public torch::nn::Module {
public:
    DetectImpl(int64_t nc, const std::vector<int64_t>& channels, int64_t regMax = 16);
    /// Raw maps [B, 4*regMax + nc, H, W] per level.
    std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& maps);
    /// [B, 4 + nc, A]: xyxy in input pixels and sigmoid class scores.
    torch::Tensor decode(const std::vector<torch::Tensor>& raw) const;
    /// Box bias 1.0, class bias log(5 / nc / (640 / s)^2) per level.
    void initBiases();
    void setStrides(std::vector<int64_t> strides) { m_strides = std::move(strides); }
    const std::vector<int64_t>& strides() const { return m_strides; }
    int64_t nc() const { return m_nc; }
    int64_t regMax() const { return m_regMax; }
    DFLImpl& dfl() { return *m_dfl; }

private:
    struct Branch {
        std::shared_ptr<ConvImpl> a, b;
        std::shared_ptr<torch::nn::Conv2dImpl> out;
    };
    int64_t m_nc, m_regMax;
    std::vector<int64_t> m_strides;
    std::vector<Branch> m_box, m_cls;
    std::shared_ptr<DFLImpl> m_dfl;
};

} // namespace hr
