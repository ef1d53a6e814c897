// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/sync_batch_norm.h"

#include "dist/data_parallel_group.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <string>

namespace hr {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Shape (1, C, 1, 1) for broadcasting per-channel values over NCHW.
torch::Tensor perChannel(const torch::Tensor& values) {
    return values.view({1, -1, 1, 1});
}

/// BatchNorm statistics are accumulated in float even when the activations are bf16/fp16.
torch::Tensor inFloat(const torch::Tensor& t) {
    return t.scalar_type() == torch::kDouble || t.scalar_type() == torch::kFloat
               ? t
               : t.to(torch::kFloat);
}

/// y = (x - mean) * invstd * weight + bias with the global statistics as constants; backward
/// all-reduces sum(dy) and sum(dy * (x - mean)) per channel so that the input gradient is the
/// one of the batch of all ranks (the weight and bias gradients stay local).
struct SyncBatchNormFunction : public torch::autograd::Function<SyncBatchNormFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input,
                                 const torch::Tensor& weight, const torch::Tensor& bias,
                                 const torch::Tensor& mean, const torch::Tensor& invstd,
                                 double totalCount, SyncBatchNorm* sync) {
        ctx->saved_data["sync"] = static_cast<int64_t>(reinterpret_cast<std::intptr_t>(sync));
        ctx->saved_data["count"] = totalCount;
        ctx->saved_data["affine"] = weight.defined();
        ctx->save_for_backward({input, weight.defined() ? weight : torch::Tensor(), mean, invstd});
        torch::Tensor y = (inFloat(input) - perChannel(mean)) * perChannel(invstd);
        if (weight.defined())
            y = y * perChannel(inFloat(weight)) + perChannel(inFloat(bias));
        return y.to(input.scalar_type());
    }

    static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
        auto* sync = reinterpret_cast<SyncBatchNorm*>(
            static_cast<std::intptr_t>(ctx->saved_data["sync"].toInt()));
        const double totalCount = ctx->saved_data["count"].toDouble();
        const bool affine = ctx->saved_data["affine"].toBool();
        const variable_list saved = ctx->get_saved_variables();
        const torch::Tensor& input = saved[0];
        const torch::Tensor& weight = saved[1];
        const torch::Tensor& mean = saved[2];
        const torch::Tensor& invstd = saved[3];

        variable_list grads(7); // input, weight, bias, mean, invstd, count, sync
        const torch::Tensor& gradOut = gradOutputs.at(0);
        if (!gradOut.defined())
            return grads;
        const torch::Tensor dy = inFloat(gradOut);
        const torch::Tensor xmu = inFloat(input) - perChannel(mean);
        const std::vector<int64_t> dims{0, 2, 3};
        const torch::Tensor sumDy = dy.sum(dims);
        const torch::Tensor sumDyXmu = (dy * xmu).sum(dims);
        if (affine && ctx->needs_input_grad(1))
            grads[1] = (sumDyXmu * invstd).to(weight.scalar_type());
        if (affine && ctx->needs_input_grad(2))
            grads[2] = sumDy.to(weight.scalar_type());
        if (ctx->needs_input_grad(0)) {
            const int64_t channels = sumDy.size(0);
            torch::Tensor totals =
                sync->exchange(torch::cat({sumDy, sumDyXmu}).to(torch::kDouble), "backward");
            const torch::Tensor meanDy = (totals.slice(0, 0, channels) / totalCount).to(dy.dtype());
            const torch::Tensor meanDyXmu =
                (totals.slice(0, channels, 2 * channels) / totalCount).to(dy.dtype());
            torch::Tensor scale = invstd;
            if (affine)
                scale = scale * inFloat(weight);
            torch::Tensor dx =
                dy - perChannel(meanDy) - xmu * perChannel(invstd * invstd * meanDyXmu);
            grads[0] = (dx * perChannel(scale)).to(input.scalar_type());
        }
        return grads;
    }
};

} // namespace

SyncBatchNorm::SyncBatchNorm(DataParallelGroup& channel, std::int64_t maxChannels)
    : m_channel(channel), m_maxChannels(std::max<std::int64_t>(1, maxChannels)) {}

torch::Tensor SyncBatchNorm::message(std::int64_t payloadSize) const {
    TORCH_CHECK(payloadSize <= 2 * m_maxChannels + 1, "SyncBatchNorm: a BatchNorm of ",
                (payloadSize - 1) / 2, " channels is wider than the ", m_maxChannels,
                " it was set up for");
    return torch::zeros({m_channel.size() + 2 * m_maxChannels + 1}, torch::kDouble);
}

torch::Tensor SyncBatchNorm::exchange(const torch::Tensor& payload, const char* what) {
    const std::int64_t size = payload.numel();
    const std::int64_t world = m_channel.size();
    torch::Tensor buffer = message(size);
    buffer.slice(0, world, world + size).copy_(payload.to(torch::kCPU).reshape({-1}));
    m_channel.allReduceSum(buffer);
    ++m_messages;
    const double* flags = buffer.data_ptr<double>();
    for (int r = 0; r < world; ++r)
        if (flags[r] != 0.0) {
            m_failedRank = r;
            TORCH_CHECK_WITH(OutOfMemoryError, false, "rank ", r,
                             " ran out of memory; every rank drops this step (synchronised "
                             "BatchNorm ",
                             what, ")");
        }
    return buffer.slice(0, world, world + size).to(payload.device());
}

int SyncBatchNorm::closePhase(bool ok) {
    if (m_failedRank >= 0) {
        const int failed = m_failedRank;
        m_failedRank = -1;
        return failed;
    }
    torch::Tensor buffer = message(0);
    if (!ok)
        buffer[m_channel.rank()] = 1.0;
    m_channel.allReduceSum(buffer);
    ++m_messages;
    const double* flags = buffer.data_ptr<double>();
    for (int r = 0; r < m_channel.size(); ++r)
        if (flags[r] != 0.0)
            return r;
    return -1;
}

torch::Tensor SyncBatchNorm::forward(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& input) {
    if (!bn.is_training())
        return bn.forward(input);
    TORCH_CHECK(input.dim() == 4, "SyncBatchNorm expects NCHW input, got ", input.dim(),
                " dimensions");
    const auto& options = bn.options;
    const int64_t channels = input.size(1);
    torch::Tensor mean, invstd;
    double totalCount = 0;
    {
        torch::NoGradGuard noGrad;
        const torch::Tensor x = inFloat(input.detach());
        const std::vector<int64_t> dims{0, 2, 3};
        const double localCount =
            static_cast<double>(input.numel() / std::max<int64_t>(1, channels));
        // Sums around the local mean first (accurate in float), combined in double: the
        // global sum of squares = sum_r (M2_r + n_r * mean_r^2).
        const auto [localVar, localMean] = torch::var_mean(x, dims, /*unbiased=*/false);
        const torch::Tensor meanD = localMean.to(torch::kDouble);
        const torch::Tensor sum = meanD * localCount;
        const torch::Tensor squares = localVar.to(torch::kDouble) * localCount + meanD * sum;
        const torch::Tensor count = torch::full({1}, localCount, meanD.options());
        const torch::Tensor totals = exchange(torch::cat({sum, squares, count}), "forward");
        totalCount = totals[2 * channels].item<double>();
        TORCH_CHECK(totalCount > 1,
                    "synchronised BatchNorm needs more than 1 value per channel "
                    "over all ranks in training, got ",
                    totalCount);
        const torch::Tensor globalMean = totals.slice(0, 0, channels) / totalCount;
        const torch::Tensor globalVar =
            (totals.slice(0, channels, 2 * channels) / totalCount - globalMean * globalMean)
                .clamp_min(0.0);
        mean = globalMean.to(torch::kFloat);
        invstd = (globalVar + options.eps()).rsqrt().to(torch::kFloat);
        if (options.track_running_stats() && bn.running_mean.defined()) {
            double factor = options.momentum().value_or(0.0);
            if (bn.num_batches_tracked.defined()) {
                bn.num_batches_tracked += 1;
                if (!options.momentum())
                    factor = 1.0 / bn.num_batches_tracked.item<double>();
            }
            const torch::Tensor unbiased = globalVar * (totalCount / (totalCount - 1.0));
            bn.running_mean.mul_(1.0 - factor)
                .add_(globalMean.to(bn.running_mean.scalar_type()), factor);
            bn.running_var.mul_(1.0 - factor)
                .add_(unbiased.to(bn.running_var.scalar_type()), factor);
        }
    }
    return SyncBatchNormFunction::apply(input, options.affine() ? bn.weight : torch::Tensor(),
                                        options.affine() ? bn.bias : torch::Tensor(), mean, invstd,
                                        totalCount, this);
}

} // namespace hr
