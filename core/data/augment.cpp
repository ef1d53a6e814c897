// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/augment.h"

#include "config/train_config.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace hr {

namespace {
constexpr double kDegToRad = 3.14159265358979323846 / 180.0;
const cv::Scalar kPad(kPadValue, kPadValue, kPadValue);
} // namespace

AugmentParams::AugmentParams() : AugmentParams(TrainConfig{}) {}

AugmentParams::AugmentParams(const TrainConfig& c)
    : hsv_h(c.hsv_h), hsv_s(c.hsv_s), hsv_v(c.hsv_v), degrees(c.degrees), translate(c.translate),
      scale(c.scale), shear(c.shear), perspective(c.perspective), flipud(c.flipud),
      fliplr(c.fliplr), mosaic(c.mosaic), mixup(c.mixup) {}

double AugmentRandom::uniform(double lo, double hi) {
    // 53 random bits: the mt19937_64 output is specified by the standard, so this is portable.
    return lo + (hi - lo) * static_cast<double>(m_engine() >> 11) * (1.0 / 9007199254740992.0);
}

int AugmentRandom::index(int n) {
    return n <= 1 ? 0 : static_cast<int>(m_engine() % static_cast<std::uint64_t>(n));
}

double AugmentRandom::beta(double a, double b) {
    std::gamma_distribution<double> ga(a, 1.0), gb(b, 1.0);
    const double x = ga(m_engine), y = gb(m_engine);
    return x + y > 0.0 ? x / (x + y) : 0.5;
}

PixelBoxes toPixelBoxes(const std::vector<LabelBox>& labels, int width, int height) {
    PixelBoxes boxes;
    boxes.reserve(labels.size());
    for (const auto& l : labels)
        boxes.push_back({l.cls, (l.cx - l.w / 2) * width, (l.cy - l.h / 2) * height,
                         (l.cx + l.w / 2) * width, (l.cy + l.h / 2) * height});
    return boxes;
}

std::vector<LabelBox> toLabelBoxes(const PixelBoxes& boxes, int width, int height) {
    std::vector<LabelBox> labels;
    labels.reserve(boxes.size());
    for (const auto& b : boxes)
        labels.push_back({b.cls, (b.x1 + b.x2) / 2 / width, (b.y1 + b.y2) / 2 / height,
                          b.width() / width, b.height() / height});
    return labels;
}

LetterboxInfo letterbox(const cv::Mat& src, cv::Mat& dst, cv::Size shape, bool scaleUp,
                        PixelBoxes* boxes) {
    LetterboxInfo info;
    info.originalW = src.cols;
    info.originalH = src.rows;
    double r = std::min(static_cast<double>(shape.height) / src.rows,
                        static_cast<double>(shape.width) / src.cols);
    if (!scaleUp)
        r = std::min(r, 1.0);
    const int newW = static_cast<int>(std::lround(src.cols * r));
    const int newH = static_cast<int>(std::lround(src.rows * r));
    const double dw = (shape.width - newW) / 2.0, dh = (shape.height - newH) / 2.0;
    // Ultralytics' rounding: an odd padding puts the extra pixel at the bottom/right.
    const int top = static_cast<int>(std::lround(dh - 0.1)), bottom = shape.height - newH - top;
    const int left = static_cast<int>(std::lround(dw - 0.1)), right = shape.width - newW - left;
    cv::Mat resized = src;
    if (newW != src.cols || newH != src.rows)
        cv::resize(src, resized, cv::Size(newW, newH), 0, 0, cv::INTER_LINEAR);
    if (top == 0 && bottom == 0 && left == 0 && right == 0)
        dst = resized.data == src.data ? resized.clone() : resized;
    else
        cv::copyMakeBorder(resized, dst, top, bottom, left, right, cv::BORDER_CONSTANT, kPad);
    info.scale = static_cast<float>(r);
    info.padX = static_cast<float>(left);
    info.padY = static_cast<float>(top);
    if (boxes) {
        const float sx = static_cast<float>(newW) / src.cols,
                    sy = static_cast<float>(newH) / src.rows;
        for (auto& b : *boxes) {
            b.x1 = b.x1 * sx + left, b.x2 = b.x2 * sx + left;
            b.y1 = b.y1 * sy + top, b.y2 = b.y2 * sy + top;
        }
    }
    return info;
}

namespace {

/// Mirrors the image about one axis (cv::flip's code) and the boxes with it: `lo` and `hi` are
/// their coordinates along that axis, `extent` the image's size along it.
void mirror(cv::Mat& image, PixelBoxes& boxes, int flipCode, float extent, float PixelBox::*lo,
            float PixelBox::*hi) {
    cv::flip(image, image, flipCode);
    for (auto& b : boxes) {
        const float newLo = extent - b.*hi;
        b.*hi = extent - b.*lo;
        b.*lo = newLo;
    }
}

} // namespace

void flipHorizontal(cv::Mat& image, PixelBoxes& boxes) {
    mirror(image, boxes, 1, static_cast<float>(image.cols), &PixelBox::x1, &PixelBox::x2);
}

void flipVertical(cv::Mat& image, PixelBoxes& boxes) {
    mirror(image, boxes, 0, static_cast<float>(image.rows), &PixelBox::y1, &PixelBox::y2);
}

cv::Matx33d randomAffineMatrix(const AugmentParams& p, cv::Size input, cv::Size output,
                               AugmentRandom& random, double* scaleOut) {
    cv::Matx33d C = cv::Matx33d::eye();
    C(0, 2) = -input.width / 2.0;
    C(1, 2) = -input.height / 2.0;
    cv::Matx33d P = cv::Matx33d::eye();
    P(2, 0) = random.uniform(-p.perspective, p.perspective);
    P(2, 1) = random.uniform(-p.perspective, p.perspective);
    const double angle = random.uniform(-p.degrees, p.degrees) * kDegToRad;
    const double s = random.uniform(1.0 - p.scale, 1.0 + p.scale);
    // cv::getRotationMatrix2D(centre 0, angle, s): counter-clockwise for positive angles.
    cv::Matx33d R = cv::Matx33d::eye();
    R(0, 0) = s * std::cos(angle), R(0, 1) = s * std::sin(angle);
    R(1, 0) = -s * std::sin(angle), R(1, 1) = s * std::cos(angle);
    cv::Matx33d S = cv::Matx33d::eye();
    S(0, 1) = std::tan(random.uniform(-p.shear, p.shear) * kDegToRad);
    S(1, 0) = std::tan(random.uniform(-p.shear, p.shear) * kDegToRad);
    cv::Matx33d T = cv::Matx33d::eye();
    T(0, 2) = random.uniform(0.5 - p.translate, 0.5 + p.translate) * output.width;
    T(1, 2) = random.uniform(0.5 - p.translate, 0.5 + p.translate) * output.height;
    if (scaleOut)
        *scaleOut = s;
    return T * S * R * P * C;
}

bool boxCandidate(const PixelBox& before, const PixelBox& after, double scale) {
    constexpr double eps = 1e-16;
    const double w1 = before.width() * scale, h1 = before.height() * scale;
    const double w2 = after.width(), h2 = after.height();
    const double aspect = std::max(w2 / (h2 + eps), h2 / (w2 + eps));
    return w2 > 2.0 && h2 > 2.0 && w2 * h2 / (w1 * h1 + eps) > 0.1 && aspect < 100.0;
}

void warpWithBoxes(const cv::Mat& src, cv::Mat& dst, const cv::Matx33d& M, cv::Size output,
                   PixelBoxes& boxes, double scale) {
    const bool perspective = M(2, 0) != 0.0 || M(2, 1) != 0.0;
    if (perspective)
        cv::warpPerspective(src, dst, M, output, cv::INTER_LINEAR, cv::BORDER_CONSTANT, kPad);
    else if (M == cv::Matx33d::eye() && src.size() == output)
        dst = src.clone();
    else
        cv::warpAffine(src, dst, cv::Matx23d(M.val), output, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                       kPad);

    PixelBoxes kept;
    kept.reserve(boxes.size());
    const double W = output.width, H = output.height;
    for (const auto& b : boxes) {
        const double xs[4] = {b.x1, b.x2, b.x2, b.x1}, ys[4] = {b.y1, b.y1, b.y2, b.y2};
        double x1 = 1e30, y1 = 1e30, x2 = -1e30, y2 = -1e30;
        for (int i = 0; i < 4; ++i) {
            double x = M(0, 0) * xs[i] + M(0, 1) * ys[i] + M(0, 2);
            double y = M(1, 0) * xs[i] + M(1, 1) * ys[i] + M(1, 2);
            if (perspective) {
                const double z = M(2, 0) * xs[i] + M(2, 1) * ys[i] + M(2, 2);
                x /= z, y /= z;
            }
            x1 = std::min(x1, x), x2 = std::max(x2, x), y1 = std::min(y1, y), y2 = std::max(y2, y);
        }
        PixelBox moved{b.cls, static_cast<float>(std::clamp(x1, 0.0, W)),
                       static_cast<float>(std::clamp(y1, 0.0, H)),
                       static_cast<float>(std::clamp(x2, 0.0, W)),
                       static_cast<float>(std::clamp(y2, 0.0, H))};
        if (boxCandidate(b, moved, scale))
            kept.push_back(moved);
    }
    boxes = std::move(kept);
}

void mosaic4(const std::array<cv::Mat, 4>& images, const std::array<PixelBoxes, 4>& boxes, int s,
             cv::Point centre, cv::Mat& canvas, PixelBoxes& out) {
    canvas.create(2 * s, 2 * s, CV_8UC3);
    canvas.setTo(kPad);
    out.clear();
    const int xc = centre.x, yc = centre.y;
    for (int i = 0; i < 4; ++i) {
        const cv::Mat& img = images[i];
        const int w = img.cols, h = img.rows;
        int x1a, y1a, x2a, y2a, x1b, y1b, x2b, y2b;
        if (i == 0) { // top left
            x1a = std::max(xc - w, 0), y1a = std::max(yc - h, 0), x2a = xc, y2a = yc;
            x1b = w - (x2a - x1a), y1b = h - (y2a - y1a), x2b = w, y2b = h;
        } else if (i == 1) { // top right
            x1a = xc, y1a = std::max(yc - h, 0), x2a = std::min(xc + w, 2 * s), y2a = yc;
            x1b = 0, y1b = h - (y2a - y1a), x2b = std::min(w, x2a - x1a), y2b = h;
        } else if (i == 2) { // bottom left
            x1a = std::max(xc - w, 0), y1a = yc, x2a = xc, y2a = std::min(2 * s, yc + h);
            x1b = w - (x2a - x1a), y1b = 0, x2b = w, y2b = std::min(y2a - y1a, h);
        } else { // bottom right
            x1a = xc, y1a = yc, x2a = std::min(xc + w, 2 * s), y2a = std::min(2 * s, yc + h);
            x1b = 0, y1b = 0, x2b = std::min(w, x2a - x1a), y2b = std::min(y2a - y1a, h);
        }
        if (x2a > x1a && y2a > y1a && x2b > x1b && y2b > y1b)
            img(cv::Rect(x1b, y1b, x2b - x1b, y2b - y1b))
                .copyTo(canvas(cv::Rect(x1a, y1a, x2a - x1a, y2a - y1a)));
        const float padw = static_cast<float>(x1a - x1b), padh = static_cast<float>(y1a - y1b);
        const float limit = static_cast<float>(2 * s);
        for (const auto& b : boxes[i]) {
            PixelBox m{b.cls, std::clamp(b.x1 + padw, 0.f, limit),
                       std::clamp(b.y1 + padh, 0.f, limit), std::clamp(b.x2 + padw, 0.f, limit),
                       std::clamp(b.y2 + padh, 0.f, limit)};
            if (m.width() > 0.f && m.height() > 0.f)
                out.push_back(m);
        }
    }
}

void augmentHsv(cv::Mat& image, double hgain, double sgain, double vgain, AugmentRandom& random) {
    if (hgain == 0.0 && sgain == 0.0 && vgain == 0.0)
        return;
    const double rh = random.uniform(-1.0, 1.0) * hgain + 1.0;
    const double rs = random.uniform(-1.0, 1.0) * sgain + 1.0;
    const double rv = random.uniform(-1.0, 1.0) * vgain + 1.0;
    cv::Mat lut(1, 256, CV_8UC3);
    auto* entry = lut.ptr<cv::Vec3b>();
    for (int x = 0; x < 256; ++x) {
        entry[x][0] = static_cast<uchar>(static_cast<int>(x * rh) % 180);
        // Truncation, not rounding, as numpy's astype(uint8) does.
        entry[x][1] = static_cast<uchar>(std::clamp(x * rs, 0.0, 255.0));
        entry[x][2] = static_cast<uchar>(std::clamp(x * rv, 0.0, 255.0));
    }
    cv::Mat hsv;
    cv::cvtColor(image, hsv, cv::COLOR_BGR2HSV);
    cv::LUT(hsv, lut, hsv); // one 3-channel table: no split/merge
    cv::cvtColor(hsv, image, cv::COLOR_HSV2BGR);
}

void mixup(cv::Mat& image, PixelBoxes& boxes, const cv::Mat& other, const PixelBoxes& otherBoxes,
           AugmentRandom& random) {
    const double r = random.beta(32.0, 32.0);
    cv::addWeighted(image, r, other, 1.0 - r, 0.0, image);
    boxes.insert(boxes.end(), otherBoxes.begin(), otherBoxes.end());
}

} // namespace hr
