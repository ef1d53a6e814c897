// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "deploy/weights_export.h"
#include "model/detection_model.h"

#include <string>
#include <vector>

namespace hr {

struct OnnxExportOptions {
    int imgsz = 640; ///< square input side, a multiple of the largest stride
    int opset = 12;  ///< ONNX operator set, 11 to 17
};

/// Writes the inference graph of `model` as an ONNX file shaped like Ultralytics' export:
/// input "images" [1, 3, imgsz, imgsz] (RGB, 0..1), output "output0" [1, 4 + nc, anchors] with
/// boxes as centre x, y, width, height in input pixels followed by the class scores. The model
/// is traced on a copy with Conv+BatchNorm folded, so `model` itself is left as it was.
/// Returns false and fills `error` (naming the file or the unsupported operation) on failure.
bool exportOnnx(const DetectionModel& model, const std::vector<std::string>& classNames,
                const std::string& path, const OnnxExportOptions& options, std::string* error);

} // namespace hr
