// SPDX-License-Identifier: GPL-3.0-or-later
// Activation (gradient) checkpointing: a block recomputed in backward instead of kept. Not the
// checkpoint file of a run (train/trainer_checkpoint.cpp).
#pragma once

#include <torch/types.h>

#include <vector>

namespace hr {

class BlockImpl;

/// Runs `block` on `inputs` without keeping its intermediate activations: only the inputs are
/// saved, and backward re-runs the block with grad enabled (under the autocast state forward
/// had) and back-propagates through it. Parameter gradients accumulate into `.grad` as usual.
/// BatchNorm running statistics are updated once: the recompute restores them afterwards.
/// `block` must outlive the backward pass.
torch::Tensor checkpointedForward(BlockImpl& block, const std::vector<torch::Tensor>& inputs);

} // namespace hr
