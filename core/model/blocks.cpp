// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/blocks.h"

#include "model/anchors.h"
#include "model/bn_silu.h"
#include "model/onednn_isa.h"
#include "model/parallel_rows.h"
#include "model/resample_kernels.h"
#include "util/torch_compat.h"

#include <torch/csrc/jit/frontend/tracer.h>

#include <cmath>

namespace hr {

namespace F = torch::nn::functional;

// Every program that runs a Headroom model links this file, so the cap is in place before its
// first convolution, whichever command or test it is.
[[maybe_unused]] const bool kOneDnnCapped = capOneDnnWhereItFaults();

namespace {

thread_local FlopCounter* t_counter = nullptr;

int64_t autoPadding(int64_t k, int64_t padding, int64_t dilation) {
    if (padding >= 0)
        return padding;
    return (dilation * (k - 1) + 1) / 2;
}

std::shared_ptr<torch::nn::Conv2dImpl> makeConv2d(int64_t c1, int64_t c2, int64_t k, int64_t s,
                                                  int64_t padding, int64_t groups, int64_t dilation,
                                                  bool bias) {
    return std::make_shared<torch::nn::Conv2dImpl>(torch::nn::Conv2dOptions(c1, c2, k)
                                                       .stride(s)
                                                       .padding(padding)
                                                       .groups(groups)
                                                       .dilation(dilation)
                                                       .bias(bias));
}

// Registers `modules` under "<name>.0", "<name>.1" ... through a ModuleList, as nn.Sequential
// and nn.ModuleList name them in Ultralytics.
template <typename T>
void registerList(torch::nn::Module& owner, const std::string& name,
                  const std::vector<std::shared_ptr<T>>& modules) {
    torch::nn::ModuleList list;
    for (const auto& m : modules)
        list->push_back(m);
    owner.register_module(name, list);
}

/// The hidden width of a bottleneck or CSP block: its output channels times the expansion `e`
/// (Ultralytics' int(c2 * e)).
int64_t hiddenChannels(int64_t c2, double e) {
    return static_cast<int64_t>(static_cast<double>(c2) * e);
}

torch::Tensor maxPool(const torch::Tensor& x, int64_t k, int64_t s, int64_t padding) {
    return torch::max_pool2d(x, {k, k}, {s, s}, {padding, padding});
}

#if !HEADROOM_TORCH_AT_LEAST(2, 0)
/// SiLU of a bf16 tensor composed of bf16 operations that LibTorch 1.13 vectorises (sigmoid,
/// multiply, add): its own silu and silu_backward kernels for bf16 are scalar and took a third
/// of an AMP training step's CPU time (docs/decisions.md, "bf16 on the CPU"). Saves the sigmoid
/// in place of the input (the same bytes) and the output, which the next convolution keeps
/// anyway; the backward is then four passes, d silu / dx = s + y (1 - s), with no sigmoid.
class Bf16Silu : public torch::autograd::Function<Bf16Silu> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
        const torch::Tensor s = torch::sigmoid(x);
        torch::Tensor y = s * x;
        ctx->save_for_backward({s, y});
        return y;
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        if (!grads[0].defined())
            return {torch::Tensor()};
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor& s = saved[0];
        return {torch::rsub(s, 1).mul_(saved[1]).add_(s).mul_(grads[0])};
    }
};
#endif

} // namespace

torch::Tensor siluActivation(const torch::Tensor& x) {
#if !HEADROOM_TORCH_AT_LEAST(2, 0)
    if (x.scalar_type() == torch::kBFloat16 && x.device().is_cpu()) {
        RECORD_FUNCTION("hr::silu_bf16", std::vector<c10::IValue>()); // named in profiles
        return Bf16Silu::apply(x);
    }
#endif
    return torch::silu(x);
}

namespace {

torch::Tensor avgPool2x2Stride1(const torch::Tensor& x) {
    // avg_pool2d(x, 2, 1, 0, ceil_mode=False, count_include_pad=True)
    return torch::avg_pool2d(x, {2, 2}, {1, 1}, {0, 0}, false, true);
}

} // namespace

void FlopCounter::add(double ops) {
    if (layer < 0)
        return;
    if (static_cast<size_t>(layer) >= opsPerLayer.size())
        opsPerLayer.resize(layer + 1, 0.0);
    opsPerLayer[layer] += ops;
}

FlopCounterScope::FlopCounterScope(FlopCounter& counter) : m_previous(t_counter) {
    t_counter = &counter;
}

FlopCounterScope::~FlopCounterScope() {
    t_counter = m_previous;
}

FlopCounter* activeFlopCounter() {
    return t_counter;
}

torch::Tensor countedConv(torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
    torch::Tensor y = conv.forward(x);
    if (t_counter) {
        if (t_counter->onConvolution)
            t_counter->onConvolution(conv, x);
        const auto& o = conv.options;
        const auto& k = o.kernel_size();
        t_counter->add(static_cast<double>(y.numel()) *
                       static_cast<double>(o.in_channels() / o.groups()) *
                       static_cast<double>(k->at(0) * k->at(1)));
    }
    return y;
}

torch::Tensor SingleInputBlock::forwardRow(const std::vector<torch::Tensor>& inputs) {
    TORCH_CHECK(!inputs.empty(), "a single-input block received no input");
    return forward(inputs.front());
}

// --- Conv -------------------------------------------------------------------------------------

ConvImpl::ConvImpl(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t padding, int64_t groups,
                   int64_t dilation, bool act)
    : m_act(act) {
    m_conv = register_module("conv", makeConv2d(c1, c2, k, s, autoPadding(k, padding, dilation),
                                                groups, dilation, false));
    m_bn = register_module("bn", std::make_shared<torch::nn::BatchNorm2dImpl>(
                                     torch::nn::BatchNorm2dOptions(c2).eps(1e-3).momentum(0.03)));
}

torch::Tensor ConvImpl::forward(const torch::Tensor& x) {
    torch::Tensor y = countedConv(*m_conv, x);
    if (m_bn) {
        if (t_counter)
            t_counter->add(2.0 * static_cast<double>(y.numel()));
        if (m_act && !m_bnForward && batchNormSiluApplies(*m_bn, y))
            return batchNormSilu(*m_bn, y);
        y = m_bnForward && m_bn->is_training() ? m_bnForward(*m_bn, y) : m_bn->forward(y);
    }
    if (!m_act)
        return y;
    // Without autograd nothing else holds y: SiLU in place saves an allocation and a pass. Not
    // while the ONNX export traces: a mutation stops its constant folding of the anchors.
    if (!torch::GradMode::is_enabled() && !torch::jit::tracer::isTracing() &&
        y.scalar_type() == torch::kFloat)
        return torch::silu_(y);
    return siluActivation(y);
}

int64_t paddingOf(const torch::nn::detail::ConvNdOptions<2>& options) {
    return compat::alternative<torch::ExpandingArray<2>>(options.padding())->at(0);
}

void ConvImpl::fuseBatchNorm() {
    if (!m_bn)
        return;
    torch::NoGradGuard noGrad;
    const auto& o = m_conv->options;
    auto fused = makeConv2d(o.in_channels(), o.out_channels(), o.kernel_size()->at(0),
                            o.stride()->at(0), paddingOf(o), o.groups(), o.dilation()->at(0), true);
    fused->to(m_conv->weight.device(), m_conv->weight.scalar_type());
    const torch::Tensor scale = m_bn->weight / torch::sqrt(m_bn->running_var + m_bn->options.eps());
    fused->weight.copy_(m_conv->weight * scale.view({-1, 1, 1, 1}));
    fused->bias.copy_(m_bn->bias - m_bn->running_mean * scale);
    fused->weight.set_requires_grad(false);
    fused->bias.set_requires_grad(false);
    m_conv = replace_module("conv", fused);
    unregister_module("bn");
    m_bn.reset();
}

// --- Bottleneck, C2f, SPPF, SPPELAN ------------------------------------------------------------

BottleneckImpl::BottleneckImpl(int64_t c1, int64_t c2, bool shortcut, int64_t groups, int64_t k1,
                               int64_t k2, double e, bool repConv)
    : m_add(shortcut && c1 == c2) {
    const int64_t hidden = hiddenChannels(c2, e);
    if (repConv)
        m_cv1 = register_module<SingleInputBlock>("cv1",
                                                  std::make_shared<RepConvImpl>(c1, hidden, k1, 1));
    else
        m_cv1 =
            register_module<SingleInputBlock>("cv1", std::make_shared<ConvImpl>(c1, hidden, k1, 1));
    m_cv2 = register_module("cv2", std::make_shared<ConvImpl>(hidden, c2, k2, 1, -1, groups));
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& x) {
    torch::Tensor y = m_cv2->forward(m_cv1->forward(x));
    return m_add ? x + y : y;
}

void CspBlockImpl::addBottlenecks(int64_t n, int64_t hidden, bool shortcut, int64_t groups,
                                  bool repConv) {
    for (int64_t i = 0; i < n; ++i)
        m_blocks.push_back(
            std::make_shared<BottleneckImpl>(hidden, hidden, shortcut, groups, 3, 3, 1.0, repConv));
    registerList(*this, "m", m_blocks);
}

C2fImpl::C2fImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t groups, double e)
    : m_hidden(hiddenChannels(c2, e)) {
    m_cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, 2 * m_hidden, 1, 1));
    m_cv2 = register_module("cv2", std::make_shared<ConvImpl>((2 + n) * m_hidden, c2, 1));
    addBottlenecks(n, m_hidden, shortcut, groups, /*repConv=*/false);
}

torch::Tensor C2fImpl::forward(const torch::Tensor& x) {
    std::vector<torch::Tensor> parts = m_cv1->forward(x).chunk(2, 1);
    for (auto& block : m_blocks)
        parts.push_back(block->forward(parts.back()));
    return m_cv2->forward(torch::cat(parts, 1));
}

PoolPyramidImpl::PoolPyramidImpl(int64_t c1, int64_t c2, int64_t hidden, int64_t k,
                                 const char* lastName)
    : m_k(k) {
    m_first = register_module("cv1", std::make_shared<ConvImpl>(c1, hidden, 1, 1));
    m_last = register_module(lastName, std::make_shared<ConvImpl>(hidden * 4, c2, 1, 1));
}

torch::Tensor PoolPyramidImpl::forward(const torch::Tensor& x) {
    std::vector<torch::Tensor> parts{m_first->forward(x)};
    for (int i = 0; i < 3; ++i)
        parts.push_back(maxPool(parts.back(), m_k, 1, m_k / 2));
    return m_last->forward(torch::cat(parts, 1));
}

// --- Concat, Upsample, Repeat ------------------------------------------------------------------

torch::Tensor ConcatImpl::forwardRow(const std::vector<torch::Tensor>& inputs) {
    return torch::cat(inputs, 1);
}

namespace {

/// Nearest upsampling by an integer factor whose backward reads a strided gradient in place.
/// In the neck the upsampled tensor is concatenated, so its gradient arrives as a channel slice
/// of the concatenation's; LibTorch 1.13's backward took 3-5 ms per call on such a slice
/// against 0.3-0.6 ms on a dense one (docs/decisions.md, "Layout work in the step").
class NearestUpsampleFunction : public torch::autograd::Function<NearestUpsampleFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                 int64_t factor) {
        ctx->saved_data["factor"] = factor;
        ctx->saved_data["sizes"] = x.sizes();
        return torch::upsample_nearest2d(x, {x.size(2) * factor, x.size(3) * factor})
            .contiguous(torch::MemoryFormat::ChannelsLast);
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        RECORD_FUNCTION("hr::upsample_nearest_backward", std::vector<c10::IValue>());
        const int64_t factor = ctx->saved_data["factor"].toInt();
        const std::vector<int64_t> sizes = ctx->saved_data["sizes"].toIntVector();
        torch::Tensor dy = grads[0];
        if (dy.stride(1) != 1)
            dy = dy.contiguous(torch::MemoryFormat::ChannelsLast);
        torch::Tensor dx =
            torch::empty(sizes, dy.options().memory_format(torch::MemoryFormat::ChannelsLast));
        const kernels::PixelStrides strides{dy.stride(0), dy.stride(2), dy.stride(3)};
        const auto storage = dy.scalar_type() == torch::kBFloat16 ? kernels::Storage::BFloat16
                                                                  : kernels::Storage::Float;
        const int64_t channels = sizes[1], height = sizes[2], width = sizes[3];
        const int64_t rowElements = width * channels * factor * factor;
        parallelRows(sizes[0] * height, std::max<int64_t>(1, 32768 / rowElements),
                     [&](int64_t begin, int64_t end) {
                         kernels::nearestUpsampleGrad(dy.data_ptr(), strides, dx.data_ptr(),
                                                      storage, channels, height, width, factor,
                                                      begin, end);
                     });
        return {dx, torch::Tensor()};
    }
};

} // namespace

torch::Tensor nearestUpsample(const torch::Tensor& x, double factor) {
    const auto whole = static_cast<int64_t>(factor);
    if (whole >= 1 && static_cast<double>(whole) == factor && x.device().is_cpu() && x.dim() == 4 &&
        (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16) &&
        x.is_contiguous(torch::MemoryFormat::ChannelsLast) && torch::GradMode::is_enabled() &&
        !torch::jit::tracer::isTracing())
        return NearestUpsampleFunction::apply(x, whole);
    return F::interpolate(x, F::InterpolateFuncOptions()
                                 .scale_factor(std::vector<double>{factor, factor})
                                 .mode(torch::kNearest));
}

torch::Tensor UpsampleImpl::forward(const torch::Tensor& x) {
    return nearestUpsample(x, m_factor);
}

RepeatImpl::RepeatImpl(std::vector<std::shared_ptr<SingleInputBlock>> blocks)
    : m_blocks(std::move(blocks)) {
    for (size_t i = 0; i < m_blocks.size(); ++i)
        register_module(std::to_string(i), m_blocks[i]);
}

torch::Tensor RepeatImpl::forward(const torch::Tensor& x) {
    torch::Tensor y = x;
    for (auto& block : m_blocks)
        y = block->forward(y);
    return y;
}

// --- RepConv and the GELAN blocks --------------------------------------------------------------

RepConvImpl::RepConvImpl(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t padding,
                         int64_t groups, bool act)
    : m_act(act) {
    TORCH_CHECK(k == 3 && padding == 1, "RepConv supports 3x3 kernels with padding 1, got k=", k,
                " p=", padding);
    m_conv1 = register_module("conv1",
                              std::make_shared<ConvImpl>(c1, c2, k, s, padding, groups, 1, false));
    m_conv2 = register_module(
        "conv2", std::make_shared<ConvImpl>(c1, c2, 1, s, padding - k / 2, groups, 1, false));
}

torch::Tensor RepConvImpl::forward(const torch::Tensor& x) {
    torch::Tensor y =
        m_fused ? countedConv(*m_fused, x) : m_conv1->forward(x) + m_conv2->forward(x);
    return m_act ? siluActivation(y) : y;
}

void RepConvImpl::fuseBranches() {
    if (m_fused)
        return;
    m_conv1->fuseBatchNorm();
    m_conv2->fuseBatchNorm();
    torch::NoGradGuard noGrad;
    auto& a = m_conv1->conv();
    auto& b = m_conv2->conv();
    const auto& o = a.options;
    m_fused =
        makeConv2d(o.in_channels(), o.out_channels(), 3, o.stride()->at(0), 1, o.groups(), 1, true);
    m_fused->to(a.weight.device(), a.weight.scalar_type());
    m_fused->weight.copy_(a.weight + F::pad(b.weight, F::PadFuncOptions({1, 1, 1, 1})));
    m_fused->bias.copy_(a.bias + b.bias);
    m_fused->weight.set_requires_grad(false);
    m_fused->bias.set_requires_grad(false);
    unregister_module("conv1");
    unregister_module("conv2");
    m_conv1.reset();
    m_conv2.reset();
    register_module("conv", m_fused);
}

RepCSPImpl::RepCSPImpl(int64_t c1, int64_t c2, int64_t n) {
    const int64_t hidden = hiddenChannels(c2, 0.5);
    m_cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, hidden, 1, 1));
    m_cv2 = register_module("cv2", std::make_shared<ConvImpl>(c1, hidden, 1, 1));
    m_cv3 = register_module("cv3", std::make_shared<ConvImpl>(2 * hidden, c2, 1));
    addBottlenecks(n, hidden, /*shortcut=*/true, /*groups=*/1, /*repConv=*/true);
}

torch::Tensor RepCSPImpl::forward(const torch::Tensor& x) {
    torch::Tensor y = m_cv1->forward(x);
    for (auto& block : m_blocks)
        y = block->forward(y);
    return m_cv3->forward(torch::cat({y, m_cv2->forward(x)}, 1));
}

RepNCSPELAN4Impl::RepNCSPELAN4Impl(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t n,
                                   bool elan1)
    : m_half(c3 / 2) {
    m_cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, c3, 1, 1));
    if (elan1) {
        m_branch2 = {std::make_shared<ConvImpl>(m_half, c4, 3, 1)};
        m_branch3 = {std::make_shared<ConvImpl>(c4, c4, 3, 1)};
        register_module("cv2", m_branch2.front());
        register_module("cv3", m_branch3.front());
    } else {
        m_branch2 = {std::make_shared<RepCSPImpl>(m_half, c4, n),
                     std::make_shared<ConvImpl>(c4, c4, 3, 1)};
        m_branch3 = {std::make_shared<RepCSPImpl>(c4, c4, n),
                     std::make_shared<ConvImpl>(c4, c4, 3, 1)};
        registerList(*this, "cv2", m_branch2);
        registerList(*this, "cv3", m_branch3);
    }
    m_cv4 = register_module("cv4", std::make_shared<ConvImpl>(c3 + 2 * c4, c2, 1, 1));
}

torch::Tensor RepNCSPELAN4Impl::forward(const torch::Tensor& x) {
    std::vector<torch::Tensor> parts = m_cv1->forward(x).chunk(2, 1);
    for (const auto* branch : {&m_branch2, &m_branch3}) {
        torch::Tensor y = parts.back();
        for (const auto& block : *branch)
            y = block->forward(y);
        parts.push_back(y);
    }
    return m_cv4->forward(torch::cat(parts, 1));
}

AConvImpl::AConvImpl(int64_t c1, int64_t c2) {
    m_cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, c2, 3, 2, 1));
}

torch::Tensor AConvImpl::forward(const torch::Tensor& x) {
    return m_cv1->forward(avgPool2x2Stride1(x));
}

ADownImpl::ADownImpl(int64_t c1, int64_t c2) {
    const int64_t half = c2 / 2;
    m_cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1 / 2, half, 3, 2, 1));
    m_cv2 = register_module("cv2", std::make_shared<ConvImpl>(c1 / 2, half, 1, 1, 0));
}

torch::Tensor ADownImpl::forward(const torch::Tensor& x) {
    auto halves = avgPool2x2Stride1(x).chunk(2, 1);
    return torch::cat({m_cv1->forward(halves[0]), m_cv2->forward(maxPool(halves[1], 3, 2, 1))}, 1);
}

// --- CBLinear / CBFuse -------------------------------------------------------------------------

CBLinearImpl::CBLinearImpl(int64_t c1, std::vector<int64_t> parts, int64_t k, int64_t s,
                           int64_t padding, int64_t groups)
    : m_parts(std::move(parts)) {
    int64_t total = 0;
    for (int64_t p : m_parts)
        total += p;
    m_conv = register_module(
        "conv", makeConv2d(c1, total, k, s, autoPadding(k, padding, 1), groups, 1, true));
}

torch::Tensor CBLinearImpl::forward(const torch::Tensor& x) {
    return countedConv(*m_conv, x);
}

CBFuseImpl::CBFuseImpl(std::vector<std::pair<int64_t, int64_t>> slices)
    : m_slices(std::move(slices)) {}

torch::Tensor CBFuseImpl::forwardRow(const std::vector<torch::Tensor>& inputs) {
    TORCH_CHECK(inputs.size() == m_slices.size() + 1, "CBFuse expects ", m_slices.size() + 1,
                " inputs, got ", inputs.size());
    const torch::Tensor& target = inputs.back();
    const std::vector<int64_t> size{target.size(2), target.size(3)};
    torch::Tensor sum = target;
    for (size_t i = 0; i < m_slices.size(); ++i) {
        torch::Tensor part = inputs[i].narrow(1, m_slices[i].first, m_slices[i].second);
        sum = sum +
              F::interpolate(part, F::InterpolateFuncOptions().size(size).mode(torch::kNearest));
    }
    return sum;
}

// --- Detect ------------------------------------------------------------------------------------

DFLImpl::DFLImpl(int64_t regMax) : m_regMax(regMax) {
    m_conv = register_module("conv", makeConv2d(regMax, 1, 1, 1, 0, 1, 1, false));
    torch::NoGradGuard noGrad;
    m_conv->weight.copy_(torch::arange(regMax, torch::kFloat).view({1, regMax, 1, 1}));
    m_conv->weight.set_requires_grad(false);
}

torch::Tensor DFLImpl::forward(const torch::Tensor& x) {
    const int64_t b = x.size(0), a = x.size(2);
    torch::Tensor probs = x.view({b, 4, m_regMax, a}).transpose(2, 1).softmax(1);
    return countedConv(*m_conv, probs).view({b, 4, a});
}

DetectImpl::DetectImpl(int64_t nc, const std::vector<int64_t>& channels, int64_t regMax)
    : m_nc(nc), m_regMax(regMax) {
    TORCH_CHECK(!channels.empty(), "Detect needs at least one input level");
    const int64_t boxHidden = std::max<int64_t>({16, channels.front() / 4, regMax * 4});
    const int64_t clsHidden = std::max<int64_t>(channels.front(), std::min<int64_t>(nc, 100));
    torch::nn::ModuleList boxList, clsList;
    for (int64_t c : channels) {
        for (int kind = 0; kind < 2; ++kind) {
            const int64_t hidden = kind == 0 ? boxHidden : clsHidden;
            const int64_t out = kind == 0 ? 4 * regMax : nc;
            Branch branch{std::make_shared<ConvImpl>(c, hidden, 3),
                          std::make_shared<ConvImpl>(hidden, hidden, 3),
                          makeConv2d(hidden, out, 1, 1, 0, 1, 1, true)};
            torch::nn::ModuleList seq;
            seq->push_back(branch.a);
            seq->push_back(branch.b);
            seq->push_back(branch.out);
            (kind == 0 ? boxList : clsList)->push_back(seq.ptr());
            (kind == 0 ? m_box : m_cls).push_back(branch);
        }
    }
    register_module("cv2", boxList);
    register_module("cv3", clsList);
    m_dfl = register_module("dfl", std::make_shared<DFLImpl>(regMax));
}

std::vector<torch::Tensor> DetectImpl::forward(const std::vector<torch::Tensor>& maps) {
    TORCH_CHECK(maps.size() == m_box.size(), "Detect expects ", m_box.size(), " maps, got ",
                maps.size());
    std::vector<torch::Tensor> out;
    out.reserve(maps.size());
    for (size_t i = 0; i < maps.size(); ++i) {
        auto run = [&](Branch& br) {
            return countedConv(*br.out, br.b->forward(br.a->forward(maps[i])));
        };
        out.push_back(torch::cat({run(m_box[i]), run(m_cls[i])}, 1));
    }
    return out;
}

torch::Tensor DetectImpl::decode(const std::vector<torch::Tensor>& raw) const {
    TORCH_CHECK(raw.size() == m_strides.size(), "decode expects ", m_strides.size(), " maps, got ",
                raw.size());
    const int64_t b = raw.front().size(0);
    const int64_t channels = 4 * m_regMax + m_nc;
    std::vector<torch::Tensor> flat;
    for (const auto& map : raw) {
        TORCH_CHECK(map.dim() == 4 && map.size(1) == channels, "decode: a map of shape ",
                    map.sizes(), " does not have ", channels, " channels");
        flat.push_back(map.reshape({b, channels, -1}));
    }
    torch::Tensor all = torch::cat(flat, 2);
    auto [points, strideT] = makeAnchors(raw, m_strides, 0.5);
    torch::Tensor dist = m_dfl->forward(all.narrow(1, 0, 4 * m_regMax)); // [B, 4, A]
    torch::Tensor boxes =
        distanceToBox(dist.transpose(1, 2), points.unsqueeze(0)) * strideT.unsqueeze(0);
    torch::Tensor scores = all.narrow(1, 4 * m_regMax, m_nc).sigmoid();
    return torch::cat({boxes.transpose(1, 2), scores}, 1);
}

void DetectImpl::initBiases() {
    TORCH_CHECK(m_strides.size() == m_box.size(), "Detect biases need one stride per level");
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < m_box.size(); ++i) {
        m_box[i].out->bias.fill_(1.0);
        const double s = static_cast<double>(m_strides[i]);
        m_cls[i].out->bias.fill_(
            std::log(5.0 / static_cast<double>(m_nc) / std::pow(640.0 / s, 2)));
    }
}

} // namespace hr
