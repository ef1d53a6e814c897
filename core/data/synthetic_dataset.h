// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "data/label.h"

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace hr {

/// Size and seed of the built-in synthetic detection data set.
struct SyntheticOptions {
    int train = 256; ///< training images
    int val = 64;    ///< validation images
    int imgsz = 320; ///< square image side in pixels
    std::uint64_t seed = 0;
    /// How many of the shape classes to draw: the first `classes` of syntheticClassNames()
    /// (1..7). Fewer classes make a smaller task; 7 is the built-in set.
    int classes = 7;
};

/// One rendered image and its labels (normalised boxes, class ids into syntheticClassNames()).
struct SyntheticImage {
    cv::Mat bgr; ///< imgsz x imgsz, CV_8UC3
    std::vector<LabelBox> labels;
};

/// The class names of the synthetic data set, index = class id.
const std::vector<std::string>& syntheticClassNames();

/// Renders one image: shapes of several classes with random size, colour, rotation and partial
/// overlap on a textured background (noise, gradients, stripes, checks) plus unlabelled
/// clutter. Deterministic: the same (seed, split, index) gives the same pixels on a given
/// build. Never fails.
SyntheticImage renderSyntheticImage(const SyntheticOptions& options, bool validation, int index);

/// Writes the data set in YOLO layout under `outDir`: images/{train,val}/NNNNNN.jpg (fixed
/// quality), labels/{train,val}/NNNNNN.txt and data.yaml (paths relative to its folder). The same
/// options give byte-identical files. Returns false and fills `error` on failure.
bool makeSyntheticDataset(const std::string& outDir, const SyntheticOptions& options,
                          std::string* error);

/// The folder of the built-in data set: $HEADROOM_BUILTIN_DATA when set, else
/// $XDG_CACHE_HOME/headroom/builtin-v1 (default ~/.cache/headroom/builtin-v1).
std::string builtinDatasetDir();

/// Generates the built-in data set (default SyntheticOptions) once into builtinDatasetDir() and
/// returns the path of its data.yaml. Safe when several processes race: each generates into a
/// temporary folder that is renamed into place; the loser discards its copy. Returns "" and
/// fills `error` on failure.
std::string ensureBuiltinDataset(std::string* error);

} // namespace hr
