// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <functional>

namespace torch::nn {
class BatchNorm2dImpl;
} // namespace torch::nn

namespace hr {

/// Stands in for a BatchNorm2d's forward while the model trains (synchronised BatchNorm under
/// data parallelism); receives the module (its parameters and running statistics) and the input.
using BatchNormForward =
    std::function<torch::Tensor(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& input)>;

} // namespace hr
