// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/activation_checkpointing.h"

#include "model/blocks.h"
#include "util/torch_compat.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <cstdint>

namespace hr {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The autocast settings of one thread, captured in forward and re-applied in backward (which
// may run on another thread, e.g. a CUDA device thread of the autograd engine).
struct AutocastState {
    bool gpu = false, cpu = false;
    at::ScalarType gpuType = at::kHalf, cpuType = at::kBFloat16;

    static AutocastState current() {
        return {compat::autocastEnabled(c10::DeviceType::CUDA),
                compat::autocastEnabled(c10::DeviceType::CPU),
                compat::autocastDtype(c10::DeviceType::CUDA),
                compat::autocastDtype(c10::DeviceType::CPU)};
    }
    void apply() const {
        compat::setAutocastEnabled(c10::DeviceType::CUDA, gpu);
        compat::setAutocastEnabled(c10::DeviceType::CPU, cpu);
        compat::setAutocastDtype(c10::DeviceType::CUDA, gpuType);
        compat::setAutocastDtype(c10::DeviceType::CPU, cpuType);
    }
};

// Saves the running statistics of every BatchNorm in a block and puts them back on
// destruction, so a recompute in backward does not update them a second time.
class BatchNormStatsGuard {
public:
    explicit BatchNormStatsGuard(torch::nn::Module& block) {
        for (const auto& module : block.modules()) {
            if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(module.get())) {
                if (bn->options.track_running_stats() && bn->is_training())
                    m_saved.push_back({bn, bn->running_mean.clone(), bn->running_var.clone(),
                                       bn->num_batches_tracked.clone()});
            }
        }
    }
    ~BatchNormStatsGuard() {
        torch::NoGradGuard noGrad;
        for (auto& s : m_saved) {
            s.bn->running_mean.copy_(s.mean);
            s.bn->running_var.copy_(s.var);
            s.bn->num_batches_tracked.copy_(s.count);
        }
    }
    BatchNormStatsGuard(const BatchNormStatsGuard&) = delete;
    BatchNormStatsGuard& operator=(const BatchNormStatsGuard&) = delete;

private:
    struct Saved {
        torch::nn::BatchNorm2dImpl* bn;
        torch::Tensor mean, var, count;
    };
    std::vector<Saved> m_saved;
};

struct CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
    // `tensors` = the block's inputs followed by its parameters. The parameters are passed only
    // so the output requires grad (and backward runs) even when no input does, e.g. for the
    // first layer, whose input is the image.
    static variable_list forward(AutogradContext* ctx, BlockImpl* block, int64_t inputCount,
                                 at::TensorList tensors) {
        const AutocastState autocast = AutocastState::current();
        ctx->saved_data["block"] = static_cast<int64_t>(reinterpret_cast<std::intptr_t>(block));
        ctx->saved_data["inputs"] = inputCount;
        ctx->saved_data["tensors"] = static_cast<int64_t>(tensors.size());
        ctx->saved_data["autocast_gpu"] = autocast.gpu;
        ctx->saved_data["autocast_cpu"] = autocast.cpu;
        ctx->saved_data["autocast_gpu_type"] = static_cast<int64_t>(autocast.gpuType);
        ctx->saved_data["autocast_cpu_type"] = static_cast<int64_t>(autocast.cpuType);
        std::vector<torch::Tensor> inputs(tensors.begin(), tensors.begin() + inputCount);
        ctx->save_for_backward(inputs);
        return {block->forwardRow(inputs)};
    }

    static variable_list backward(AutogradContext* ctx, variable_list gradOutputs) {
        auto* block = reinterpret_cast<BlockImpl*>(
            static_cast<std::intptr_t>(ctx->saved_data["block"].toInt()));
        const int64_t tensorCount = ctx->saved_data["tensors"].toInt();
        AutocastState recorded;
        recorded.gpu = ctx->saved_data["autocast_gpu"].toBool();
        recorded.cpu = ctx->saved_data["autocast_cpu"].toBool();
        recorded.gpuType =
            static_cast<at::ScalarType>(ctx->saved_data["autocast_gpu_type"].toInt());
        recorded.cpuType =
            static_cast<at::ScalarType>(ctx->saved_data["autocast_cpu_type"].toInt());

        std::vector<torch::Tensor> inputs;
        for (const auto& saved : ctx->get_saved_variables()) {
            torch::Tensor detached = saved.detach();
            detached.set_requires_grad(saved.requires_grad());
            inputs.push_back(detached);
        }

        // The saved statistics are put back only after the inner backward: BatchNorm's backward
        // checks that the tensors it saved were not modified in place.
        BatchNormStatsGuard keepStats(*block);
        torch::Tensor output;
        {
            const AutocastState outer = AutocastState::current();
            recorded.apply();
            at::autocast::increment_nesting();
            {
                torch::AutoGradMode enableGrad(true);
                output = block->forwardRow(inputs);
            }
            if (at::autocast::decrement_nesting() == 0)
                at::autocast::clear_cache();
            outer.apply();
        }
        if (output.requires_grad() && gradOutputs.at(0).defined())
            torch::autograd::backward({output}, {gradOutputs[0]});
        output = torch::Tensor(); // frees the recomputed graph before the statistics go back

        variable_list grads(2 + tensorCount); // block, inputCount, then one per tensor
        for (size_t i = 0; i < inputs.size(); ++i)
            if (inputs[i].requires_grad())
                grads[2 + i] = inputs[i].grad();
        return grads;
    }
};

} // namespace

torch::Tensor checkpointedForward(BlockImpl& block, const std::vector<torch::Tensor>& inputs) {
    std::vector<torch::Tensor> tensors = inputs;
    for (const auto& p : block.parameters())
        if (p.requires_grad())
            tensors.push_back(p);
    return CheckpointFunction::apply(&block, static_cast<int64_t>(inputs.size()),
                                     at::TensorList(tensors))[0];
}

} // namespace hr
