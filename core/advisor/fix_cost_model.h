// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"

#include <cstdint>
#include <string>

namespace hr {

/// The predicted speed and accuracy effect of one config change. Every number comes from a
/// stated source (a measurement on this project's CPU, a FLOP count, or a published figure);
/// fix_cost_model.cpp names the source next to each constant.
struct FixEffect {
    double speedFactor = 1.0;   ///< time per epoch relative to before the change
    int accuracyCost = 0;       ///< 0 none, 1 small, 2 moderate, 3 large
    std::string accuracyEffect; ///< in words, with the reason
    std::string speedBasis;     ///< where the speed figure comes from
};

/// The model behind the advisor's speed and accuracy figures. Pure functions of the configs;
/// `cuda` selects GPU figures, otherwise CPU figures.
namespace fixcost {

/// Smaller batch with accumulation to the same nominal batch.
FixEffect smallerBatch(int fromBatch, int toBatch, bool cuda);
/// Mixed precision: bf16 autocast on CPU, fp16 with loss scaling on CUDA.
FixEffect amp(bool cuda);
/// Recomputing activations in backward.
FixEffect checkpointing(Checkpointing from, Checkpointing to);
/// Smaller training/validation image size.
FixEffect smallerImage(int fromImgsz, int toImgsz);
/// Another scale of the same family ('n','s','m','l','x' for YOLOv8; 't','s','m','c','e' v9).
/// `family` is 8 or 9. Unknown scales give speed 1 and a "large" cost without figures.
FixEffect smallerScale(int family, char fromScale, char toScale);
/// Freezing the backbone; `pretrained` when the run started from weights.
FixEffect freezeBackbone(bool pretrained);
/// SGD (one state tensor per weight) instead of Adam/AdamW (two).
FixEffect sgdInsteadOfAdam();
/// Optimizer state kept in host memory.
FixEffect optimizerOffload(bool cuda);
/// Smaller validation batch (training untouched).
FixEffect smallerValidationBatch();
/// The assigner taking `toBoxes` ground-truth boxes per slice instead of `fromBoxes`, with
/// `objects` boxes per image (more, smaller passes over the anchors), for `images` images per
/// step and `anchors` anchors per image, on a model of scale `scale` of YOLO `family` (8 or 9;
/// 0 = unknown). CPU figures measured with `headroom-cli bench loss`.
FixEffect chunkedAssignment(int fromBoxes, int toBoxes, int objects, std::int64_t images,
                            std::int64_t anchors, int family = 0, char scale = 0);
/// Releasing the CUDA allocator's cached blocks before retrying.
FixEffect releaseCachedBlocks();
/// Data parallel training on `devices` devices with sharded optimizer state.
FixEffect distributed(int devices);
/// Host fixes.
FixEffect noImageCache();
FixEffect fewerWorkers(int fromWorkers, int toWorkers);
FixEffect mosaicOff();

} // namespace fixcost
} // namespace hr
