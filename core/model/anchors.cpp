// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/anchors.h"

#include <torch/torch.h>

namespace hr {

std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& maps,
                                                    const std::vector<int64_t>& strides,
                                                    double offset) {
    TORCH_CHECK(!maps.empty() && maps.size() == strides.size(), "makeAnchors: ", maps.size(),
                " maps but ", strides.size(), " strides");
    std::vector<torch::Tensor> points, strideTensors;
    const auto options = maps.front().options();
    for (size_t i = 0; i < maps.size(); ++i) {
        const int64_t h = maps[i].size(2), w = maps[i].size(3);
        auto sx = torch::arange(w, options) + offset;
        auto sy = torch::arange(h, options) + offset;
        auto grid = torch::meshgrid({sy, sx}, "ij");
        points.push_back(torch::stack({grid[1], grid[0]}, -1).view({-1, 2}));
        strideTensors.push_back(torch::full({h * w, 1}, static_cast<double>(strides[i]), options));
    }
    return {torch::cat(points), torch::cat(strideTensors)};
}

torch::Tensor distanceToBox(const torch::Tensor& distance, const torch::Tensor& points, bool xywh) {
    auto lt = distance.narrow(-1, 0, 2);
    auto rb = distance.narrow(-1, 2, 2);
    auto x1y1 = points - lt;
    auto x2y2 = points + rb;
    if (xywh)
        return torch::cat({(x1y1 + x2y2) / 2, x2y2 - x1y1}, -1);
    return torch::cat({x1y1, x2y2}, -1);
}

torch::Tensor boxToDistance(const torch::Tensor& points, const torch::Tensor& boxes,
                            double maxDistance) {
    auto x1y1 = boxes.narrow(-1, 0, 2);
    auto x2y2 = boxes.narrow(-1, 2, 2);
    return torch::cat({points - x1y1, x2y2 - points}, -1).clamp(0, maxDistance - 0.01);
}

torch::Tensor xywhToXyxy(const torch::Tensor& boxes) {
    auto c = boxes.narrow(-1, 0, 2);
    auto half = boxes.narrow(-1, 2, 2) / 2;
    return torch::cat({c - half, c + half}, -1);
}

torch::Tensor xyxyToXywh(const torch::Tensor& boxes) {
    auto a = boxes.narrow(-1, 0, 2);
    auto b = boxes.narrow(-1, 2, 2);
    return torch::cat({(a + b) / 2, b - a}, -1);
}

} // namespace hr
