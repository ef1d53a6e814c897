// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Torch-free on purpose: the studio's ExportService includes it next to Qt headers.

#include <string>

namespace hr {

/// What exportWeightsFile() did, in words for the user.
struct ExportResult {
    bool ok = false;
    std::string message; ///< what was written and checked, or why nothing was
    std::string path;    ///< the ONNX file
};

/// The whole export as a user asks for it: loads `weights` (Headroom or Ultralytics .pt),
/// exports at `imgsz` (0 = the size the weights were trained at, else 640), then reads the file
/// back with OpenCV's DNN module and compares its output with LibTorch's on a random image.
/// `out` empty = the weights path with ".onnx".
ExportResult exportWeightsFile(const std::string& weights, const std::string& out, int imgsz,
                               int opset);

} // namespace hr
