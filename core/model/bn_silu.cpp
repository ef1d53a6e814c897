// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/bn_silu.h"

#include "model/bn_silu_kernels.h"
#include "model/parallel_rows.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace hr {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Rows per chunk at least; below it a second thread costs more than it saves.
constexpr std::int64_t kMinChunkRows = 2048;

kernels::Storage storageOf(const torch::Tensor& x) {
    return x.scalar_type() == torch::kBFloat16 ? kernels::Storage::BFloat16
                                               : kernels::Storage::Float;
}

// Runs `body(chunk, firstRow, endRow)` over `rows` split into as many chunks as there are
// threads. The split depends on the thread count only, so the sums are the same every run.
template <typename Body>
std::int64_t forChunks(std::int64_t rows, const Body& body) {
    const std::int64_t chunks = std::max<std::int64_t>(
        1, std::min<std::int64_t>(at::get_num_threads(), rows / kMinChunkRows));
    parallelRows(chunks, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i)
            body(i, rows * i / chunks, rows * (i + 1) / chunks);
    });
    return chunks;
}

/// Two per-channel sums over every row: `kernel(firstRow, endRow, first, second)` adds one
/// chunk's rows into that chunk's arrays, which are then added up in chunk order.
template <typename Kernel>
std::pair<std::vector<double>, std::vector<double>>
channelSums(std::int64_t rows, std::int64_t channels, const Kernel& kernel) {
    std::vector<double> first(static_cast<size_t>(channels) * at::get_num_threads(), 0.0);
    std::vector<double> second(first.size(), 0.0);
    const std::int64_t chunks =
        forChunks(rows, [&](std::int64_t i, std::int64_t begin, std::int64_t end) {
            kernel(begin, end, &first[i * channels], &second[i * channels]);
        });
    for (std::int64_t i = 1; i < chunks; ++i)
        for (std::int64_t c = 0; c < channels; ++c) {
            first[c] += first[i * channels + c];
            second[c] += second[i * channels + c];
        }
    first.resize(static_cast<size_t>(channels));
    second.resize(static_cast<size_t>(channels));
    return {std::move(first), std::move(second)};
}

torch::Tensor floatTensor(const std::vector<float>& values) {
    return torch::tensor(values, torch::kFloat);
}

class BatchNormSiluFunction : public torch::autograd::Function<BatchNormSiluFunction> {
public:
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x,
                                 const torch::Tensor& weight, const torch::Tensor& bias,
                                 torch::Tensor runningMean, torch::Tensor runningVar,
                                 double momentum, double eps) {
        RECORD_FUNCTION("hr::batch_norm_silu", std::vector<c10::IValue>());
        const std::int64_t channels = x.size(1);
        const std::int64_t rows = x.numel() / channels;
        const auto storage = storageOf(x);

        // The first row as the shift of the moments: close to the mean, so no cancellation.
        const torch::Tensor firstRow = x.select(0, 0).select(1, 0).select(1, 0).to(torch::kFloat);
        const std::vector<float> shift(firstRow.data_ptr<float>(),
                                       firstRow.data_ptr<float>() + channels);
        const auto [sum, square] = channelSums(
            rows, channels, [&](std::int64_t begin, std::int64_t end, double* s, double* q) {
                kernels::channelMoments(x.data_ptr(), storage, channels, begin, end, shift.data(),
                                        s, q);
            });

        const auto n = static_cast<double>(rows);
        const torch::Tensor w = weight.contiguous(), b = bias.contiguous();
        std::vector<float> mean(channels), var(channels), invStd(channels), scale(channels),
            offset(channels);
        for (std::int64_t c = 0; c < channels; ++c) {
            const double m = sum[c] / n;
            const double v = std::max(0.0, square[c] / n - m * m);
            mean[c] = static_cast<float>(shift[c] + m);
            var[c] = static_cast<float>(v);
            invStd[c] = static_cast<float>(1.0 / std::sqrt(v + eps));
            scale[c] = w.data_ptr<float>()[c] * invStd[c];
            offset[c] = b.data_ptr<float>()[c] - mean[c] * scale[c];
        }
        {
            // Running variance is unbiased, as BatchNorm2d keeps it.
            torch::NoGradGuard noGrad;
            runningMean.mul_(1.0 - momentum).add_(floatTensor(mean), momentum);
            runningVar.mul_(1.0 - momentum).add_(floatTensor(var), momentum * n / (n - 1.0));
        }

        torch::Tensor y = torch::empty_like(x);
        forChunks(rows, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
            kernels::scaleOffsetSilu(x.data_ptr(), y.data_ptr(), storage, channels, begin, end,
                                     scale.data(), offset.data());
        });
        ctx->save_for_backward({x});
        ctx->saved_data["mean"] = floatTensor(mean);
        ctx->saved_data["invstd"] = floatTensor(invStd);
        ctx->saved_data["scale"] = floatTensor(scale);
        ctx->saved_data["offset"] = floatTensor(offset);
        return y;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        RECORD_FUNCTION("hr::batch_norm_silu_backward", std::vector<c10::IValue>());
        const variable_list none(7);
        if (!grads[0].defined())
            return none;
        const torch::Tensor x = ctx->get_saved_variables()[0];
        const torch::Tensor dy =
            grads[0].to(x.scalar_type()).contiguous(torch::MemoryFormat::ChannelsLast);
        const torch::Tensor meanT = ctx->saved_data["mean"].toTensor();
        const torch::Tensor invStdT = ctx->saved_data["invstd"].toTensor();
        const torch::Tensor scaleT = ctx->saved_data["scale"].toTensor();
        const torch::Tensor offsetT = ctx->saved_data["offset"].toTensor();
        const float* mean = meanT.data_ptr<float>();
        const float* invStd = invStdT.data_ptr<float>();
        const float* scale = scaleT.data_ptr<float>();
        const float* offset = offsetT.data_ptr<float>();
        const std::int64_t channels = x.size(1);
        const std::int64_t rows = x.numel() / channels;
        const auto storage = storageOf(x);

        // The first pass leaves dz in dx's memory, for the second to finish in place: dz is
        // computed once, and no more memory is needed.
        torch::Tensor dx;
        if (ctx->needs_input_grad(0))
            dx = torch::empty_like(x);
        void* const dz = dx.defined() ? dx.data_ptr() : nullptr;
        const auto [sumDz, sumDzCentred] = channelSums(
            rows, channels, [&](std::int64_t begin, std::int64_t end, double* s, double* q) {
                kernels::bnSiluGradSums(x.data_ptr(), dy.data_ptr(), dz, storage, channels, begin,
                                        end, scale, offset, mean, s, q);
            });

        // dx = gain (dz - mean(dz) - xhat mean(dz xhat)), xhat = (x - mean) invstd, as a linear
        // function of dz and x per channel.
        const auto n = static_cast<double>(rows);
        std::vector<float> dWeight(channels), dBias(channels), slope(channels), constant(channels);
        for (std::int64_t c = 0; c < channels; ++c) {
            const double dzXhat = sumDzCentred[c] * invStd[c];
            const double s = -static_cast<double>(scale[c]) * invStd[c] * dzXhat / n;
            dWeight[c] = static_cast<float>(dzXhat);
            dBias[c] = static_cast<float>(sumDz[c]);
            slope[c] = static_cast<float>(s);
            constant[c] = static_cast<float>(-scale[c] * sumDz[c] / n - s * mean[c]);
        }
        variable_list out = none;
        if (dx.defined()) {
            forChunks(rows, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
                kernels::bnSiluGradInput(x.data_ptr(), dz, dz, storage, channels, begin, end, scale,
                                         slope.data(), constant.data());
            });
            out[0] = dx;
        }
        if (ctx->needs_input_grad(1))
            out[1] = floatTensor(dWeight);
        if (ctx->needs_input_grad(2))
            out[2] = floatTensor(dBias);
        return out;
    }
};

} // namespace

bool batchNormSiluApplies(const torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x) {
    const auto& o = bn.options;
    return bn.is_training() && o.affine() && o.track_running_stats() && o.momentum().has_value() &&
           x.device().is_cpu() && x.dim() == 4 && x.size(0) * x.size(2) * x.size(3) > 1 &&
           (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16) &&
           x.is_contiguous(torch::MemoryFormat::ChannelsLast) &&
           bn.weight.scalar_type() == torch::kFloat && bn.bias.scalar_type() == torch::kFloat &&
           bn.running_mean.scalar_type() == torch::kFloat &&
           bn.running_var.scalar_type() == torch::kFloat;
}

torch::Tensor batchNormSilu(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x) {
    const auto& o = bn.options;
    {
        torch::NoGradGuard noGrad;
        bn.num_batches_tracked.add_(1);
    }
    return BatchNormSiluFunction::apply(x, bn.weight, bn.bias, bn.running_mean, bn.running_var,
                                        *o.momentum(), o.eps());
}

} // namespace hr
