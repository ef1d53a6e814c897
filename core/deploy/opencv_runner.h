// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <memory>
#include <string>

namespace hr {

/// Runs an exported ONNX detector with OpenCV's DNN module (cv::dnn::readNetFromONNX), the
/// way a deployment without LibTorch would.
class OpenCvRunner {
public:
    OpenCvRunner();
    ~OpenCvRunner();
    OpenCvRunner(const OpenCvRunner&) = delete;
    OpenCvRunner& operator=(const OpenCvRunner&) = delete;

    /// Reads the file; false and `error` (OpenCV's reason, without its source location) when
    /// OpenCV cannot load it.
    bool load(const std::string& onnxPath, std::string* error);
    /// images [1, 3, H, W] float RGB in 0..1, at the exported size. Returns what
    /// DetectionModel::predict returns: [1, 4 + nc, A], corners x1 y1 x2 y2 then class scores.
    /// Throws std::runtime_error with OpenCV's reason when the network cannot run.
    torch::Tensor predict(const torch::Tensor& images);

private:
    struct Net;
    std::unique_ptr<Net> m_net;
};

} // namespace hr
