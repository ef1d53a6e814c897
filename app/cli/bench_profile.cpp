// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench_profile.h"

#include "util/process_time.h"

#include <torch/torch.h>

#include <algorithm>
#include <iomanip>
#include <iostream>

namespace hr::cli {

namespace {

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

/// The kind of layer work an operator of the profile is, for its per-type summary.
std::string layerType(const std::string& phase, const std::string& n) {
    if (phase == "loss")
        return "loss + assigner";
    if (phase == "optimizer" || phase == "ema")
        return "optimizer + EMA";
    if (phase == "data")
        return "data";
    const bool backward = contains(n, "ackward");
    if (contains(n, "onvolution") || contains(n, "conv2d"))
        return backward ? "conv backward" : "conv forward";
    if (contains(n, "batch_norm_silu") || contains(n, "BatchNormSilu"))
        return backward ? "BatchNorm + SiLU backward" : "BatchNorm + SiLU forward";
    if (contains(n, "atch_norm") || contains(n, "atchNorm"))
        return backward ? "BatchNorm backward" : "BatchNorm forward";
    if (contains(n, "silu") || contains(n, "Silu"))
        return "SiLU";
    if (contains(n, "cat") || contains(n, "Cat") || contains(n, "split") || contains(n, "Split") ||
        contains(n, "chunk") || contains(n, "narrow") || contains(n, "slice") ||
        contains(n, "Slice"))
        return "concat / split";
    if (contains(n, "copy") || contains(n, "Copy") || contains(n, "contiguous") ||
        contains(n, "clone") || n == "aten::to")
        return "dtype / layout copies";
    if (contains(n, "pool") || contains(n, "Pool") || contains(n, "upsample") ||
        contains(n, "Upsample"))
        return "pooling / upsampling";
    if (contains(n, "AccumulateGrad"))
        return "gradient accumulation";
    return "other";
}

} // namespace

OperatorProfile::OperatorProfile() {
    t_active = this;
    m_handle = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&OperatorProfile::enter, &OperatorProfile::leave)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

void OperatorProfile::stop() {
    if (!m_handle)
        return;
    at::removeCallback(m_handle);
    m_handle = 0;
    t_active = nullptr;
}

std::vector<OperatorProfile::Row> OperatorProfile::rows() const {
    std::vector<Row> out;
    for (const auto& [name, row] : m_rows)
        out.push_back(row);
    std::sort(out.begin(), out.end(),
              [](const Row& a, const Row& b) { return a.selfSeconds > b.selfSeconds; });
    return out;
}

std::unique_ptr<at::ObserverContext> OperatorProfile::enter(const at::RecordFunction& fn) {
    if (OperatorProfile* p = t_active) {
        std::string type = layerType(p->m_phase, fn.name());
        if (type == "other" && !p->m_open.empty())
            type = p->m_open.back().type; // sigmoid inside a SiLU counts as SiLU
        p->m_open.push_back({threadCpuSeconds(), p->m_phase, std::move(type), 0.0});
    }
    return nullptr;
}

void OperatorProfile::leave(const at::RecordFunction& fn, at::ObserverContext*) {
    OperatorProfile* p = t_active;
    if (!p || p->m_open.empty())
        return;
    const Open open = std::move(p->m_open.back());
    p->m_open.pop_back();
    const double total = threadCpuSeconds() - open.start;
    if (!p->m_open.empty())
        p->m_open.back().children += total;
    Row& row = p->m_rows[std::string(open.phase) + '\n' + open.type + '\n' + fn.name()];
    if (row.name.empty()) {
        row.phase = open.phase;
        row.name = fn.name();
        row.type = open.type;
    }
    row.selfSeconds += std::max(0.0, total - open.children);
    ++row.calls;
}

thread_local OperatorProfile* OperatorProfile::t_active = nullptr;

void printProfile(const std::vector<OperatorProfile::Row>& rows, long long steps,
                  double stepCpuSeconds) {
    double total = 0;
    std::map<std::string, double> byType;
    for (const auto& row : rows) {
        total += row.selfSeconds;
        byType[row.type] += row.selfSeconds;
    }
    std::vector<std::pair<std::string, double>> types(byType.begin(), byType.end());
    std::sort(types.begin(), types.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    const double perStep = 1000.0 / static_cast<double>(steps);
    std::cout << std::fixed << std::setprecision(1)
              << "  profile (self CPU time of the calling thread per timed step; "
              << total * perStep << " of its " << stepCpuSeconds * 1000 << " ms in operators)\n";
    for (const auto& [type, seconds] : types)
        std::cout << "    " << std::left << std::setw(24) << type << std::right << std::setw(8)
                  << seconds * perStep << " ms  " << std::setw(5) << 100.0 * seconds / total
                  << "%\n";
    std::cout << "  top 10 operators\n    ms/step  share calls/step phase      operator\n";
    for (size_t i = 0; i < rows.size() && i < 10; ++i)
        std::cout << "    " << std::setw(7) << rows[i].selfSeconds * perStep << std::setw(6)
                  << 100.0 * rows[i].selfSeconds / total << "%" << std::setw(11)
                  << static_cast<double>(rows[i].calls) / static_cast<double>(steps) << "  "
                  << std::left << std::setw(10) << rows[i].phase << " " << rows[i].name
                  << std::right << "\n";
}

ConvolutionPeak measureConvolutionPeak(const std::vector<ConvolutionCall>& calls, int batch,
                                       at::ScalarType dtype) {
    ConvolutionPeak peak;
    const auto options = torch::TensorOptions().dtype(dtype);
    const auto layout = at::MemoryFormat::ChannelsLast;
    for (const ConvolutionCall& c : calls) {
        const torch::Tensor x = torch::randn({batch, c.inChannels, c.height, c.width}, options)
                                    .contiguous(layout)
                                    .requires_grad_(c.inputGradient);
        const torch::Tensor w =
            torch::randn({c.outChannels, c.inChannels / c.groups, c.kernel, c.kernel}, options)
                .contiguous(layout)
                .requires_grad_(true);
        const torch::Tensor bias =
            c.bias ? torch::randn({c.outChannels}, options).requires_grad_(true) : torch::Tensor();
        const torch::Tensor gradient =
            torch::randn({batch, c.outChannels, c.outHeight(), c.outWidth()}, options)
                .contiguous(layout);
        std::vector<torch::Tensor> inputs{w};
        if (c.inputGradient)
            inputs.push_back(x);
        if (bias.defined())
            inputs.push_back(bias);
        double best = 1e30;
        for (int i = 0; i < 4; ++i) {
            const double t = threadCpuSeconds();
            const torch::Tensor y =
                torch::conv2d(x, w, bias, c.stride, c.padding, c.dilation, c.groups);
            torch::autograd::grad({y}, inputs, {gradient});
            if (i > 0)
                best = std::min(best, threadCpuSeconds() - t);
        }
        const double flops = c.forwardFlops() * batch * (c.inputGradient ? 3 : 2);
        peak.gflop += c.count * flops / 1e9;
        peak.seconds += c.count * best;
    }
    return peak;
}

} // namespace hr::cli
