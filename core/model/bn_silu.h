// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

namespace hr {

/// True when batchNormSilu() can run `bn` on `x`: a CPU tensor of 4 dimensions in channels-last
/// layout, float or bf16, more than one value per channel, and a BatchNorm in training mode with
/// float weights and running statistics.
bool batchNormSiluApplies(const torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x);

/// silu(bn(x)) in training mode in one pass forward and two backward, the same values as the
/// two modules (within float rounding) and the same update of the running statistics. Saves
/// only x for backward, where the modules keep x and bn(x): one activation less per Conv block,
/// and two passes over memory less each way (docs/decisions.md, "Fused BatchNorm and SiLU").
/// Requires batchNormSiluApplies(bn, x).
torch::Tensor batchNormSilu(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x);

} // namespace hr
