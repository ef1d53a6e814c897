// SPDX-License-Identifier: GPL-3.0-or-later
#include "loss/box_iou.h"

#include <torch/torch.h>

#include <cmath>

namespace hr {

torch::Tensor boxIou(const torch::Tensor& a, const torch::Tensor& b) {
    TORCH_CHECK(a.dim() == 2 && a.size(1) == 4 && b.dim() == 2 && b.size(1) == 4,
                "boxIou expects [N,4] and [M,4] boxes, got ", a.sizes(), " and ", b.sizes());
    auto a1 = a.narrow(1, 0, 2).unsqueeze(1);
    auto a2 = a.narrow(1, 2, 2).unsqueeze(1);
    auto b1 = b.narrow(1, 0, 2).unsqueeze(0);
    auto b2 = b.narrow(1, 2, 2).unsqueeze(0);
    auto inter = (torch::min(a2, b2) - torch::max(a1, b1)).clamp_min(0).prod(2);
    auto areaA = (a2 - a1).clamp_min(0).prod(2);
    auto areaB = (b2 - b1).clamp_min(0).prod(2);
    // eps as the reference: two empty boxes give 0, not NaN.
    return inter / (areaA + areaB - inter + 1e-7);
}

torch::Tensor bboxIou(const torch::Tensor& box1, const torch::Tensor& box2, IouKind kind, bool xywh,
                      double eps) {
    TORCH_CHECK(box1.size(-1) == 4 && box2.size(-1) == 4,
                "bboxIou expects boxes with a last dimension of 4, got ", box1.sizes(), " and ",
                box2.sizes());
    torch::Tensor ax1, ay1, ax2, ay2, bx1, by1, bx2, by2, w1, h1, w2, h2;
    if (xywh) {
        auto p = box1.chunk(4, -1);
        auto q = box2.chunk(4, -1);
        ax1 = p[0] - p[2] / 2, ax2 = p[0] + p[2] / 2, ay1 = p[1] - p[3] / 2, ay2 = p[1] + p[3] / 2;
        bx1 = q[0] - q[2] / 2, bx2 = q[0] + q[2] / 2, by1 = q[1] - q[3] / 2, by2 = q[1] + q[3] / 2;
        w1 = p[2], h1 = p[3] + eps, w2 = q[2], h2 = q[3] + eps;
    } else {
        auto p = box1.chunk(4, -1);
        auto q = box2.chunk(4, -1);
        ax1 = p[0], ay1 = p[1], ax2 = p[2], ay2 = p[3];
        bx1 = q[0], by1 = q[1], bx2 = q[2], by2 = q[3];
        w1 = ax2 - ax1, h1 = ay2 - ay1 + eps, w2 = bx2 - bx1, h2 = by2 - by1 + eps;
    }
    auto inter = (torch::min(ax2, bx2) - torch::max(ax1, bx1)).clamp_min(0) *
                 (torch::min(ay2, by2) - torch::max(ay1, by1)).clamp_min(0);
    auto uni = w1 * h1 + w2 * h2 - inter + eps;
    auto iou = inter / uni;
    if (kind == IouKind::Iou)
        return iou;

    // Width and height of the smallest box enclosing both.
    auto cw = torch::max(ax2, bx2) - torch::min(ax1, bx1);
    auto ch = torch::max(ay2, by2) - torch::min(ay1, by1);
    if (kind == IouKind::Giou) {
        auto cArea = cw * ch + eps;
        return iou - (cArea - uni) / cArea;
    }
    auto c2 = cw.pow(2) + ch.pow(2) + eps; // squared diagonal of the enclosing box
    auto rho2 = ((bx1 + bx2 - ax1 - ax2).pow(2) + (by1 + by2 - ay1 - ay2).pow(2)) / 4;
    if (kind == IouKind::Diou)
        return iou - rho2 / c2;
    auto v = (4.0 / (M_PI * M_PI)) * (torch::atan(w2 / h2) - torch::atan(w1 / h1)).pow(2);
    torch::Tensor alpha;
    {
        torch::NoGradGuard noGrad;
        alpha = v / (v - iou + (1 + eps));
    }
    return iou - (rho2 / c2 + v * alpha);
}

} // namespace hr
