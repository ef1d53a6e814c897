// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/detection_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hr {

/// One row of a model, as `model-info --verbose` shows it.
struct LayerSummary {
    int index = 0;
    std::string from; ///< "-1", "[-1, 6]"
    int repeats = 1;
    std::string module;
    std::string args; ///< constructor arguments after scaling
    std::int64_t params = 0;
    double gflops = 0.0;     ///< at the summary's image size
    std::string outputShape; ///< "[64, 80, 80]" (channels, height, width) for one image
};

/// Size and cost of a model at one image size.
struct ModelSummary {
    int layers = 0;  ///< rows of the YAML
    int modules = 0; ///< every module in the tree (what Ultralytics calls layers)
    std::int64_t parameters = 0;
    std::int64_t gradients = 0; ///< parameters that require grad
    double gflops = 0.0;        ///< 2 x multiply-accumulates at imgsz x imgsz, one image
    int imgsz = 640;
    std::string name; ///< architectureName()
    std::vector<LayerSummary> rows;
};

/// Counts parameters and operations. Operations are counted like thop-based tools (convolution
/// multiply-accumulates plus two per BatchNorm element, times two) on a forward pass at the
/// model's largest stride, scaled to `imgsz` (as Ultralytics does). The pass runs in eval mode
/// without grad; the model's mode is restored. Throws c10::Error only on a broken model.
ModelSummary summarize(DetectionModel& model, int imgsz = 640);

/// One convolution a forward pass runs, with its input's size for one image.
struct ConvolutionCall {
    std::int64_t inChannels = 0, outChannels = 0, kernel = 1, stride = 1, padding = 0;
    std::int64_t dilation = 1, groups = 1, height = 0, width = 0;
    bool bias = false;
    bool inputGradient = true; ///< false for the first (its input is the image)
    int count = 1;             ///< identical calls in one pass
    std::int64_t outHeight() const;
    std::int64_t outWidth() const;
    /// Multiply-accumulates x 2 of the forward convolution, one image.
    double forwardFlops() const;
};

/// The convolutions of one forward pass at imgsz x imgsz, identical ones merged, in order of
/// first use. The pass runs like summarize()'s (eval mode, no grad, one image; the model's
/// mode is restored).
std::vector<ConvolutionCall> convolutionCalls(DetectionModel& model, int imgsz);

/// Text for a terminal: one summary line, plus a per-row table when `verbose`.
std::string formatSummary(const ModelSummary& summary, bool verbose);

} // namespace hr
