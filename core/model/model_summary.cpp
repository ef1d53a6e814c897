// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/model_summary.h"

#include "model/blocks.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace hr {

namespace {

std::string fromText(const LayerSpec& spec) {
    if (spec.from.size() == 1)
        return std::to_string(spec.from.front());
    std::string out = "[";
    for (size_t i = 0; i < spec.from.size(); ++i)
        out += (i ? ", " : "") + std::to_string(spec.from[i]);
    return out + "]";
}

std::string withThousands(std::int64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace

ModelSummary summarize(DetectionModel& model, int imgsz) {
    ModelSummary summary;
    summary.imgsz = imgsz;
    summary.name = model->architectureName();
    summary.layers = model->layerCount();
    summary.modules = static_cast<int>(model->modules(/*include_self=*/true).size());
    summary.parameters = model->parameterCount();
    summary.gradients = model->trainableParameterCount();

    const auto& strides = model->strides();
    const int64_t probe = std::max<int64_t>(32, *std::max_element(strides.begin(), strides.end()));
    FlopCounter counter;
    {
        const bool wasTraining = model->is_training();
        model->eval();
        torch::NoGradGuard noGrad;
        const auto param = model->parameters().front();
        FlopCounterScope scope(counter);
        model->forward(torch::zeros({1, 3, probe, probe}, param.options()));
        model->train(wasTraining);
    }
    const double scale = std::pow(static_cast<double>(imgsz) / static_cast<double>(probe), 2);
    counter.opsPerLayer.resize(model->layerCount(), 0.0);

    for (int i = 0; i < model->layerCount(); ++i) {
        const LayerSpec& spec = model->layerSpec(i);
        LayerSummary row;
        row.index = i;
        row.from = fromText(spec);
        row.repeats = spec.repeats;
        row.module = spec.module;
        row.args = spec.args;
        for (const auto& p : model->layer(i)->parameters())
            row.params += p.numel();
        row.gflops = 2.0 * counter.opsPerLayer[i] * scale / 1e9;
        if (i + 1 == model->layerCount()) {
            row.outputShape = std::to_string(strides.size()) + " maps of " +
                              std::to_string(spec.outChannels) + " channels";
        } else {
            const auto side = static_cast<int64_t>(std::ceil(imgsz / spec.stride));
            row.outputShape = "[" + std::to_string(spec.outChannels) + ", " + std::to_string(side) +
                              ", " + std::to_string(side) + "]";
        }
        summary.gflops += row.gflops;
        summary.rows.push_back(row);
    }
    return summary;
}

std::int64_t ConvolutionCall::outHeight() const {
    return (height + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1;
}

std::int64_t ConvolutionCall::outWidth() const {
    return (width + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1;
}

double ConvolutionCall::forwardFlops() const {
    return 2.0 * static_cast<double>(outHeight() * outWidth() * outChannels) *
           static_cast<double>(inChannels / groups * kernel * kernel);
}

std::vector<ConvolutionCall> convolutionCalls(DetectionModel& model, int imgsz) {
    std::vector<ConvolutionCall> calls;
    FlopCounter counter;
    counter.onConvolution = [&calls](const torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
        const auto& o = conv.options;
        ConvolutionCall call;
        call.inChannels = o.in_channels();
        call.outChannels = o.out_channels();
        call.kernel = o.kernel_size()->at(0);
        call.stride = o.stride()->at(0);
        call.padding = paddingOf(o);
        call.dilation = o.dilation()->at(0);
        call.groups = o.groups();
        call.height = x.size(2);
        call.width = x.size(3);
        call.bias = o.bias();
        call.inputGradient = !calls.empty();
        for (ConvolutionCall& seen : calls) {
            if (seen.inChannels == call.inChannels && seen.outChannels == call.outChannels &&
                seen.kernel == call.kernel && seen.stride == call.stride &&
                seen.padding == call.padding && seen.dilation == call.dilation &&
                seen.groups == call.groups && seen.height == call.height &&
                seen.width == call.width && seen.bias == call.bias &&
                seen.inputGradient == call.inputGradient) {
                ++seen.count;
                return;
            }
        }
        calls.push_back(call);
    };
    const bool wasTraining = model->is_training();
    model->eval();
    {
        torch::NoGradGuard noGrad;
        const auto param = model->parameters().front();
        FlopCounterScope scope(counter);
        model->forward(torch::zeros({1, 3, imgsz, imgsz}, param.options()));
    }
    model->train(wasTraining);
    return calls;
}

std::string formatSummary(const ModelSummary& summary, bool verbose) {
    std::ostringstream out;
    if (verbose) {
        char line[512];
        std::snprintf(line, sizeof line, "%4s %18s %3s %12s %9s  %-14s %-22s %s\n", "", "from", "n",
                      "params", "GFLOPs", "module", "output", "arguments");
        out << line;
        for (const auto& row : summary.rows) {
            std::snprintf(line, sizeof line, "%4d %18s %3d %12s %9.2f  %-14s %-22s %s\n", row.index,
                          row.from.c_str(), row.repeats, withThousands(row.params).c_str(),
                          row.gflops, row.module.c_str(), row.outputShape.c_str(),
                          row.args.c_str());
            out << line;
        }
    }
    char totals[256];
    std::snprintf(totals, sizeof totals, "%.1f", summary.gflops);
    out << summary.name << " summary: " << summary.layers << " layers (" << summary.modules
        << " modules), " << withThousands(summary.parameters) << " parameters, "
        << withThousands(summary.gradients) << " gradients, " << totals << " GFLOPs at "
        << summary.imgsz << "x" << summary.imgsz << "\n";
    return out.str();
}

} // namespace hr
