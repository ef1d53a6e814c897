// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "config/train_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hr {

/// The speed and accuracy effect of one config change as this model predicts it, before anything
/// is measured on the user's machine. Each figure carries its source: an assumption, a FLOP
/// count or a published figure (never "measured here": the advisor replaces the speed with the
/// estimator's timed probe steps when it has them).
struct FixEffect {
    double speedFactor = 1.0;   ///< time per epoch relative to before the change
    int accuracyCost = 0;       ///< 0 none, 1 small, 2 moderate, 3 large
    std::string accuracyEffect; ///< in words, with the reason
    FigureBasis speedBasis;     ///< where speedFactor comes from
    FigureBasis accuracyBasis;  ///< where accuracyCost / accuracyEffect come from
};

/// The model behind the advisor's speed and accuracy figures when nothing was measured. Pure
/// functions of the configs; `cuda` selects GPU figures, otherwise CPU figures.
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
/// 0 = unknown). Figures from `headroom-cli bench loss` on the developers' CPU: an assumption
/// on any other machine.
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

/// The basis of a figure made of several (a product of speed factors, a sum of accuracy
/// costs): the least certain source among them (not measured, then assumption, then FLOP
/// count or published, then measured here) and their details joined.
FigureBasis combined(const std::vector<FigureBasis>& parts);

} // namespace fixcost
} // namespace hr
