// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "data/augment.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace hr {

/// One collated batch, owned by the caller of DataLoader::next().
struct Batch {
    torch::Tensor images;  ///< [B, 3, H, W] uint8 RGB, channels-last (TrainStep scales it)
    torch::Tensor targets; ///< [N, 6] float32: batch_idx cls cx cy w h, normalised to H and W
    std::vector<std::string> paths;       ///< image file per batch row
    std::vector<LetterboxInfo> letterbox; ///< original -> batch pixels; exact without augment
                                          ///< (after mosaic/affine it is the plain letterbox)
    std::int64_t bytes() const {
        return (images.defined() ? images.nbytes() : 0) +
               (targets.defined() ? targets.nbytes() : 0);
    }
};

} // namespace hr
