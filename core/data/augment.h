// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "data/label.h"

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace hr {

struct TrainConfig;

/// How an original image maps into a letterboxed one: x' = x * scale + padX (same for y).
struct LetterboxInfo {
    float scale = 1.f;
    float padX = 0.f;
    float padY = 0.f;
    int originalW = 0;
    int originalH = 0;
};

/// A box in pixels of the image it belongs to (corners).
struct PixelBox {
    int cls = 0;
    float x1 = 0.f, y1 = 0.f, x2 = 0.f, y2 = 0.f;
    float width() const { return x2 - x1; }
    float height() const { return y2 - y1; }
};
using PixelBoxes = std::vector<PixelBox>;

/// Augmentation strengths and probabilities: the augmentation settings of a TrainConfig, named
/// as there (Ultralytics' hyperparameters). Their defaults are TrainConfig's.
struct AugmentParams {
    AugmentParams(); ///< a default TrainConfig's
    explicit AugmentParams(const TrainConfig& config);

    double hsv_h, hsv_s, hsv_v;
    double degrees, translate, scale, shear, perspective;
    double flipud, fliplr;
    double mosaic, mixup;
};

/// Deterministic random numbers for augmentation (mt19937_64; one per sample and epoch).
class AugmentRandom {
public:
    explicit AugmentRandom(std::uint64_t seed) : m_engine(seed) {}
    double uniform(double lo, double hi);
    int index(int n); ///< uniform in [0, n)
    bool chance(double p) { return p > 0.0 && uniform(0.0, 1.0) < p; }
    double beta(double a, double b);

private:
    std::mt19937_64 m_engine;
};

/// The colour every augmentation pads with (Ultralytics' grey 114).
constexpr int kPadValue = 114;

PixelBoxes toPixelBoxes(const std::vector<LabelBox>& labels, int width, int height);
std::vector<LabelBox> toLabelBoxes(const PixelBoxes& boxes, int width, int height);

/// Resizes `src` to fit `shape` (aspect kept; never enlarged unless `scaleUp`), centres it and
/// pads with grey. Boxes (when given) follow. Ultralytics' rounding of the padding is kept.
LetterboxInfo letterbox(const cv::Mat& src, cv::Mat& dst, cv::Size shape, bool scaleUp,
                        PixelBoxes* boxes);

void flipHorizontal(cv::Mat& image, PixelBoxes& boxes);
void flipVertical(cv::Mat& image, PixelBoxes& boxes);

/// Ultralytics' random perspective matrix M = T * S * R * P * C for an input of `input` size
/// warped to `output` size: C centres the input, P perspective, R rotation (degrees) and scale
/// (1 +- scale), S shear (degrees), T translation (0.5 +- translate of the output).
/// `scaleOut` receives the scale factor drawn (box_candidates compares against it).
cv::Matx33d randomAffineMatrix(const AugmentParams& params, cv::Size input, cv::Size output,
                               AugmentRandom& random, double* scaleOut);

/// Warps `src` with M into an image of `output` size (grey border) and moves the boxes: each
/// box's four corners are transformed, the box becomes their bounding box clipped to the
/// image, and boxes failing boxCandidates() are dropped.
void warpWithBoxes(const cv::Mat& src, cv::Mat& dst, const cv::Matx33d& M, cv::Size output,
                   PixelBoxes& boxes, double scale);

/// Ultralytics' rule for keeping a transformed box: width and height > 2 px, area > 10 % of
/// the original box after scaling by `scale`, aspect ratio < 100.
bool boxCandidate(const PixelBox& before, const PixelBox& after, double scale);

/// Places four images (each at most s x s) on a grey 2s x 2s canvas around `centre`: 0 top
/// left of it, 1 top right, 2 bottom left, 3 bottom right, as Ultralytics' mosaic does. Boxes
/// move with their image and are clipped to the canvas; boxes left with no area are dropped.
void mosaic4(const std::array<cv::Mat, 4>& images, const std::array<PixelBoxes, 4>& boxes, int s,
             cv::Point centre, cv::Mat& canvas, PixelBoxes& out);

/// Random HSV gains: hue, saturation, value each multiplied by 1 + uniform(-g, g), through
/// lookup tables (hue wraps at 180).
void augmentHsv(cv::Mat& image, double hgain, double sgain, double vgain, AugmentRandom& random);

/// image = image * r + other * (1 - r) and the boxes of both, r ~ Beta(32, 32).
void mixup(cv::Mat& image, PixelBoxes& boxes, const cv::Mat& other, const PixelBoxes& otherBoxes,
           AugmentRandom& random);

} // namespace hr
