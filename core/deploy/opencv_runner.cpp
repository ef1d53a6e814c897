// SPDX-License-Identifier: GPL-3.0-or-later
#include "deploy/opencv_runner.h"

#include <opencv2/dnn.hpp>
#include <torch/torch.h>

#include <stdexcept>

namespace hr {

struct OpenCvRunner::Net {
    cv::dnn::Net net;
};

OpenCvRunner::OpenCvRunner() = default;
OpenCvRunner::~OpenCvRunner() = default;

bool OpenCvRunner::load(const std::string& onnxPath, std::string* error) {
    try {
        auto net = std::make_unique<Net>();
        net->net = cv::dnn::readNetFromONNX(onnxPath);
        if (net->net.empty())
            throw std::runtime_error("OpenCV read an empty network");
        net->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        m_net = std::move(net);
    } catch (const cv::Exception& e) {
        if (error)
            *error = "OpenCV cannot read " + onnxPath + ": " + e.err;
        return false;
    } catch (const std::exception& e) {
        if (error)
            *error = "OpenCV cannot read " + onnxPath + ": " + e.what();
        return false;
    }
    return true;
}

torch::Tensor OpenCvRunner::predict(const torch::Tensor& images) {
    if (!m_net)
        throw std::runtime_error("no ONNX model loaded");
    torch::Tensor input = images.to(torch::kCPU, torch::kFloat).contiguous();
    const int sizes[] = {static_cast<int>(input.size(0)), static_cast<int>(input.size(1)),
                         static_cast<int>(input.size(2)), static_cast<int>(input.size(3))};
    const cv::Mat blob(4, sizes, CV_32F, input.data_ptr<float>());
    cv::Mat output;
    try {
        m_net->net.setInput(blob, "images");
        output = m_net->net.forward().clone();
    } catch (const cv::Exception& e) {
        throw std::runtime_error("OpenCV cannot run the network: " + e.err);
    }
    std::vector<int64_t> dims(output.size.p, output.size.p + output.dims);
    torch::Tensor y =
        torch::from_blob(output.ptr<float>(), dims, torch::kFloat).clone(); // [1, 4+nc, A]
    // The file carries centre, size (as Ultralytics' export does); predict() gives corners.
    const torch::Tensor centre = y.slice(1, 0, 2), size = y.slice(1, 2, 4);
    return torch::cat({centre - size / 2, centre + size / 2, y.slice(1, 4)}, 1);
}

} // namespace hr
