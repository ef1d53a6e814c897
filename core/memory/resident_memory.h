// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/memory_breakdown.h"

#include <cstdint>

namespace torch::nn {
class Module;
}
namespace torch::optim {
class Optimizer;
}

namespace hr {

/// The resident part of a training run's memory, measured by walking tensors: weights
/// (parameters and buffers of `model`), gradients (defined `.grad()`s), optimizer state
/// (momentum / Adam moments / ... of SGD, Adam, AdamW, RMSprop and Adagrad) and the EMA copy.
/// Storage shared between tensors is counted once. `optimizer` and `ema` may be null.
/// activations, batchData, other are left 0 and total = resident().
MemoryBreakdown measureResident(const torch::nn::Module& model,
                                const torch::optim::Optimizer* optimizer = nullptr,
                                const torch::nn::Module* ema = nullptr);

/// Completes a resident breakdown with a measured peak: activations = peak - resident -
/// batchData - other (never negative), total = max(peak, resident + batchData + other).
void attributePeak(MemoryBreakdown& breakdown, std::int64_t peakBytes);

} // namespace hr
