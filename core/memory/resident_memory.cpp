// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/resident_memory.h"

#include <torch/torch.h>

#include <algorithm>
#include <unordered_set>

namespace hr {

namespace {

// Counts each storage once, however many tensors view it.
class StorageCounter {
public:
    std::int64_t add(const torch::Tensor& tensor) {
        if (!tensor.defined() || !tensor.has_storage())
            return 0;
        const void* key = tensor.storage().unsafeGetStorageImpl();
        if (!m_seen.insert(key).second)
            return 0;
        return static_cast<std::int64_t>(tensor.storage().nbytes());
    }

private:
    std::unordered_set<const void*> m_seen;
};

std::int64_t moduleBytes(const torch::nn::Module& module, StorageCounter& counter) {
    std::int64_t bytes = 0;
    for (const auto& parameter : module.parameters())
        bytes += counter.add(parameter);
    for (const auto& buffer : module.buffers())
        bytes += counter.add(buffer);
    return bytes;
}

std::int64_t stateBytes(const torch::optim::OptimizerParamState& state, StorageCounter& counter) {
    if (const auto* s = dynamic_cast<const torch::optim::SGDParamState*>(&state))
        return counter.add(s->momentum_buffer());
    if (const auto* s = dynamic_cast<const torch::optim::AdamParamState*>(&state))
        return counter.add(s->exp_avg()) + counter.add(s->exp_avg_sq()) +
               counter.add(s->max_exp_avg_sq());
    if (const auto* s = dynamic_cast<const torch::optim::AdamWParamState*>(&state))
        return counter.add(s->exp_avg()) + counter.add(s->exp_avg_sq()) +
               counter.add(s->max_exp_avg_sq());
    if (const auto* s = dynamic_cast<const torch::optim::RMSpropParamState*>(&state))
        return counter.add(s->square_avg()) + counter.add(s->momentum_buffer()) +
               counter.add(s->grad_avg());
    if (const auto* s = dynamic_cast<const torch::optim::AdagradParamState*>(&state))
        return counter.add(s->sum());
    return 0;
}

} // namespace

MemoryBreakdown measureResident(const torch::nn::Module& model,
                                const torch::optim::Optimizer* optimizer,
                                const torch::nn::Module* ema) {
    MemoryBreakdown breakdown;
    StorageCounter counter;
    breakdown.weights = moduleBytes(model, counter);
    for (const auto& parameter : model.parameters())
        breakdown.gradients += counter.add(parameter.grad());
    if (optimizer != nullptr) {
        for (const auto& entry : optimizer->state())
            if (entry.second)
                breakdown.optimizerState += stateBytes(*entry.second, counter);
    }
    if (ema != nullptr)
        breakdown.ema = moduleBytes(*ema, counter);
    breakdown.total = breakdown.resident();
    return breakdown;
}

void attributePeak(MemoryBreakdown& breakdown, std::int64_t peakBytes) {
    const std::int64_t fixed = breakdown.resident() + breakdown.batchData + breakdown.other;
    breakdown.activations = std::max<std::int64_t>(0, peakBytes - fixed);
    breakdown.total = std::max(peakBytes, fixed);
}

} // namespace hr
