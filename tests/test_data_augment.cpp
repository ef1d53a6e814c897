// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/augment.h"

#include <QtTest>

#include <opencv2/imgproc.hpp>

namespace {

const cv::Vec3b kWhite(255, 255, 255);
const cv::Vec3b kGrey(hr::kPadValue, hr::kPadValue, hr::kPadValue);

/// A black image with a white rectangle [x1, x2) x [y1, y2) and the matching box.
cv::Mat imageWithBox(int w, int h, const hr::PixelBox& box) {
    cv::Mat image(h, w, CV_8UC3, cv::Scalar::all(0));
    image(cv::Rect(cv::Point(int(box.x1), int(box.y1)), cv::Point(int(box.x2), int(box.y2))))
        .setTo(cv::Scalar::all(255));
    return image;
}

bool sameBox(const hr::PixelBox& a, const hr::PixelBox& b, float tolerance = 1e-4f) {
    return a.cls == b.cls && std::abs(a.x1 - b.x1) <= tolerance &&
           std::abs(a.y1 - b.y1) <= tolerance && std::abs(a.x2 - b.x2) <= tolerance &&
           std::abs(a.y2 - b.y2) <= tolerance;
}

QByteArray describe(const hr::PixelBox& b) {
    return QString("cls %1 (%2, %3)-(%4, %5)")
        .arg(b.cls)
        .arg(b.x1)
        .arg(b.y1)
        .arg(b.x2)
        .arg(b.y2)
        .toUtf8();
}

#define COMPARE_BOX(actual, expected)                                                              \
    QVERIFY2(sameBox(actual, expected), describe(actual) + " != " + describe(expected))

cv::Matx33d translation(double dx, double dy) {
    return {1, 0, dx, 0, 1, dy, 0, 0, 1};
}

} // namespace

class TestDataAugment : public QObject {
    Q_OBJECT
private slots:
    void labelPixelRoundTrip();
    void letterboxPlacesBoxesAndPixels();
    void letterboxPaddingRounding();
    void flipsMoveBoxesAndPixels();
    void pureTranslationAndScale();
    void boxesLeavingTheImageAreClippedOrDropped();
    void boxCandidateRule();
    void randomAffineWithoutStrengthIsACentreCrop();
    void mosaicPlacement();
    void hsvKeepsGreyAndZeroGainIsIdentity();
    void mixupBlendsAndKeepsBothBoxSets();
};

void TestDataAugment::labelPixelRoundTrip() {
    const std::vector<hr::LabelBox> labels{{2, 0.5f, 0.25f, 0.5f, 0.25f}};
    const hr::PixelBoxes boxes = hr::toPixelBoxes(labels, 200, 100);
    COMPARE_BOX(boxes[0], (hr::PixelBox{2, 50, 12.5f, 150, 37.5f}));
    const auto back = hr::toLabelBoxes(boxes, 200, 100);
    QCOMPARE(back[0].cx, 0.5f);
    QCOMPARE(back[0].h, 0.25f);
}

void TestDataAugment::letterboxPlacesBoxesAndPixels() {
    // 128 x 64 into 64 x 64: scale 0.5, 16 rows of grey above and below.
    const hr::PixelBox box{1, 20, 10, 60, 30};
    const cv::Mat src = imageWithBox(128, 64, box);
    cv::Mat dst;
    hr::PixelBoxes boxes{box};
    const hr::LetterboxInfo info = hr::letterbox(src, dst, cv::Size(64, 64), true, &boxes);
    QCOMPARE(dst.size(), cv::Size(64, 64));
    QCOMPARE(info.scale, 0.5f);
    QCOMPARE(info.padX, 0.f);
    QCOMPARE(info.padY, 16.f);
    QCOMPARE(info.originalW, 128);
    COMPARE_BOX(boxes[0], (hr::PixelBox{1, 10, 21, 30, 31}));
    QCOMPARE(dst.at<cv::Vec3b>(5, 20), kGrey);        // padding
    QCOMPARE(dst.at<cv::Vec3b>(26, 20), kWhite);      // inside the box
    QCOMPARE(dst.at<cv::Vec3b>(26, 40), cv::Vec3b()); // beside it

    // Not enlarged without scaleUp: a 32 x 16 image is centred unscaled.
    hr::PixelBoxes small{{0, 0, 0, 32, 16}};
    hr::letterbox(cv::Mat(16, 32, CV_8UC3, cv::Scalar::all(0)), dst, cv::Size(64, 64), false,
                  &small);
    COMPARE_BOX(small[0], (hr::PixelBox{0, 16, 24, 48, 40}));
}

void TestDataAugment::letterboxPaddingRounding() {
    // Odd padding (3 rows): one above, two below, as Ultralytics rounds it.
    cv::Mat dst;
    const auto info = hr::letterbox(cv::Mat(61, 64, CV_8UC3, cv::Scalar::all(0)), dst,
                                    cv::Size(64, 64), false, nullptr);
    QCOMPARE(info.padY, 1.f);
    QCOMPARE(dst.at<cv::Vec3b>(0, 10), kGrey);
    QCOMPARE(dst.at<cv::Vec3b>(1, 10), cv::Vec3b());
    QCOMPARE(dst.at<cv::Vec3b>(61, 10), cv::Vec3b());
    QCOMPARE(dst.at<cv::Vec3b>(62, 10), kGrey);
}

void TestDataAugment::flipsMoveBoxesAndPixels() {
    const hr::PixelBox box{3, 10, 20, 30, 40};
    cv::Mat image = imageWithBox(64, 64, box);
    hr::PixelBoxes boxes{box};
    hr::flipHorizontal(image, boxes);
    COMPARE_BOX(boxes[0], (hr::PixelBox{3, 34, 20, 54, 40}));
    QCOMPARE(image.at<cv::Vec3b>(30, 34), kWhite);
    QCOMPARE(image.at<cv::Vec3b>(30, 53), kWhite);
    QCOMPARE(image.at<cv::Vec3b>(30, 33), cv::Vec3b());
    QCOMPARE(image.at<cv::Vec3b>(30, 54), cv::Vec3b());
    hr::flipVertical(image, boxes);
    COMPARE_BOX(boxes[0], (hr::PixelBox{3, 34, 24, 54, 44}));
    QCOMPARE(image.at<cv::Vec3b>(24, 40), kWhite);
    QCOMPARE(image.at<cv::Vec3b>(43, 40), kWhite);
    QCOMPARE(image.at<cv::Vec3b>(23, 40), cv::Vec3b());
    QCOMPARE(image.at<cv::Vec3b>(44, 40), cv::Vec3b());
}

void TestDataAugment::pureTranslationAndScale() {
    const hr::PixelBox box{0, 10, 20, 30, 40};
    const cv::Mat src = imageWithBox(64, 64, box);
    cv::Mat dst;
    hr::PixelBoxes boxes{box};
    hr::warpWithBoxes(src, dst, translation(5, -3), cv::Size(64, 64), boxes, 1.0);
    QCOMPARE(int(boxes.size()), 1);
    COMPARE_BOX(boxes[0], (hr::PixelBox{0, 15, 17, 35, 37}));
    QCOMPARE(dst.at<cv::Vec3b>(17, 15), kWhite);
    QCOMPARE(dst.at<cv::Vec3b>(36, 34), kWhite);
    QCOMPARE(dst.at<cv::Vec3b>(16, 15), cv::Vec3b());
    QCOMPARE(dst.at<cv::Vec3b>(17, 14), cv::Vec3b());
    QCOMPARE(dst.at<cv::Vec3b>(63, 0), kGrey); // uncovered border is grey

    // Scale 2 about the origin into a 128 x 128 image.
    boxes = {box};
    const cv::Matx33d twice(2, 0, 0, 0, 2, 0, 0, 0, 1);
    hr::warpWithBoxes(src, dst, twice, cv::Size(128, 128), boxes, 2.0);
    COMPARE_BOX(boxes[0], (hr::PixelBox{0, 20, 40, 60, 80}));
    QCOMPARE(dst.at<cv::Vec3b>(41, 21), kWhite);
    QCOMPARE(dst.at<cv::Vec3b>(78, 58), kWhite);
    QCOMPARE(dst.at<cv::Vec3b>(38, 21), cv::Vec3b());
    QCOMPARE(dst.at<cv::Vec3b>(41, 62), cv::Vec3b());
}

void TestDataAugment::boxesLeavingTheImageAreClippedOrDropped() {
    const cv::Mat src(64, 64, CV_8UC3, cv::Scalar::all(0));
    cv::Mat dst;
    // Moved 40 px right: the first box (10..30) ends at 70 -> clipped to 50..64; the second
    // (40..60) moves to 80..100, outside -> dropped; the third (4..24) lands exactly on the
    // edge at 44..64 -> kept whole; the fourth keeps 1 px (63..64) -> dropped (w <= 2).
    hr::PixelBoxes boxes{
        {0, 10, 10, 30, 30}, {1, 40, 10, 60, 30}, {2, 4, 40, 24, 60}, {3, 23, 40, 25, 60}};
    hr::warpWithBoxes(src, dst, translation(40, 0), cv::Size(64, 64), boxes, 1.0);
    QCOMPARE(int(boxes.size()), 2);
    COMPARE_BOX(boxes[0], (hr::PixelBox{0, 50, 10, 64, 30}));
    COMPARE_BOX(boxes[1], (hr::PixelBox{2, 44, 40, 64, 60}));

    // Shifted left so that only 10 % or less of a box remains: dropped by the area rule.
    boxes = {{0, 0, 0, 40, 20}, {1, 0, 30, 40, 50}};
    hr::warpWithBoxes(src, dst, translation(-36, 0), cv::Size(64, 64), boxes, 1.0);
    QCOMPARE(int(boxes.size()), 0); // 4 px of 40 wide = 10 %: not more than 10 %
}

void TestDataAugment::boxCandidateRule() {
    const hr::PixelBox before{0, 0, 0, 20, 20};
    QVERIFY(hr::boxCandidate(before, {0, 0, 0, 20, 20}, 1.0));
    QVERIFY(!hr::boxCandidate(before, {0, 0, 0, 2, 20}, 1.0)); // 2 px wide
    QVERIFY(!hr::boxCandidate(before, {0, 0, 0, 20, 2}, 1.0)); // 2 px high
    QVERIFY(hr::boxCandidate(before, {0, 0, 0, 5, 20}, 1.0));  // 25 % of the area
    QVERIFY(!hr::boxCandidate(before, {0, 0, 0, 5, 20}, 2.0)); // 6 % of the scaled area
    QVERIFY(!hr::boxCandidate({0, 0, 0, 1000, 5}, {0, 0, 0, 1000, 5}, 1.0)); // aspect 200
}

void TestDataAugment::randomAffineWithoutStrengthIsACentreCrop() {
    hr::AugmentParams p;
    p.degrees = p.translate = p.scale = p.shear = p.perspective = 0.0;
    hr::AugmentRandom random(1);
    double scale = 0.0;
    const cv::Matx33d M =
        hr::randomAffineMatrix(p, cv::Size(128, 128), cv::Size(64, 64), random, &scale);
    QCOMPARE(scale, 1.0);
    QVERIFY(cv::norm(M - translation(-32, -32)) < 1e-12);

    // With strength: the drawn scale is the matrix's, within 1 +- scale.
    p.scale = 0.5;
    p.translate = 0.1;
    for (int i = 0; i < 20; ++i) {
        const cv::Matx33d R =
            hr::randomAffineMatrix(p, cv::Size(64, 64), cv::Size(64, 64), random, &scale);
        QVERIFY(scale >= 0.5 && scale <= 1.5);
        QVERIFY(std::abs(R(0, 0) - scale) < 1e-12);
        // The image centre lands within 0.5 +- 0.1 of the output.
        const double cx = R(0, 0) * 32 + R(0, 1) * 32 + R(0, 2);
        QVERIFY(cx >= 0.4 * 64 - 1e-9 && cx <= 0.6 * 64 + 1e-9);
    }
}

void TestDataAugment::mosaicPlacement() {
    const int s = 64;
    std::array<cv::Mat, 4> images{cv::Mat(48, 64, CV_8UC3, cv::Scalar(10, 0, 0)),
                                  cv::Mat(64, 40, CV_8UC3, cv::Scalar(20, 0, 0)),
                                  cv::Mat(64, 64, CV_8UC3, cv::Scalar(30, 0, 0)),
                                  cv::Mat(64, 64, CV_8UC3, cv::Scalar(40, 0, 0))};
    std::array<hr::PixelBoxes, 4> boxes{
        hr::PixelBoxes{{0, 0, 0, 10, 10}}, hr::PixelBoxes{{1, 0, 0, 10, 10}},
        hr::PixelBoxes{{2, 5, 5, 15, 15}}, hr::PixelBoxes{{3, 60, 10, 64, 20}, {4, 0, 0, 8, 8}}};
    cv::Mat canvas;
    hr::PixelBoxes out;
    hr::mosaic4(images, boxes, s, cv::Point(70, 60), canvas, out);
    QCOMPARE(canvas.size(), cv::Size(128, 128));
    QCOMPARE(int(out.size()), 4);
    COMPARE_BOX(out[0], (hr::PixelBox{0, 6, 12, 16, 22}));  // top left: offset (6, 12)
    COMPARE_BOX(out[1], (hr::PixelBox{1, 70, 0, 80, 6}));   // top right: (70, -4), clipped
    COMPARE_BOX(out[2], (hr::PixelBox{2, 11, 65, 21, 75})); // bottom left: (6, 60)
    COMPARE_BOX(out[3], (hr::PixelBox{4, 70, 60, 78, 68})); // bottom right: (70, 60); the
                                                            // other box fell off the canvas
    QCOMPARE(canvas.at<cv::Vec3b>(20, 30)[0], uchar(10));
    QCOMPARE(canvas.at<cv::Vec3b>(30, 100)[0], uchar(20));
    QCOMPARE(canvas.at<cv::Vec3b>(100, 30)[0], uchar(30));
    QCOMPARE(canvas.at<cv::Vec3b>(100, 100)[0], uchar(40));
    QCOMPARE(canvas.at<cv::Vec3b>(2, 2), kGrey);    // above image 0
    QCOMPARE(canvas.at<cv::Vec3b>(30, 115), kGrey); // right of the 40 px wide image 1
    QCOMPARE(canvas.at<cv::Vec3b>(11, 6), kGrey);   // image 0 starts at row 12
    QCOMPARE(canvas.at<cv::Vec3b>(12, 6)[0], uchar(10));
}

void TestDataAugment::hsvKeepsGreyAndZeroGainIsIdentity() {
    cv::Mat colour(8, 8, CV_8UC3, cv::Scalar(30, 90, 200));
    cv::Mat copy = colour.clone();
    hr::AugmentRandom random(3);
    hr::augmentHsv(copy, 0, 0, 0, random);
    QCOMPARE(cv::norm(copy, colour, cv::NORM_INF), 0.0);
    cv::Mat grey(8, 8, CV_8UC3, cv::Scalar::all(100));
    bool changed = false;
    for (int i = 0; i < 5; ++i) {
        cv::Mat g = grey.clone();
        hr::augmentHsv(g, 0.015, 0.7, 0.4, random);
        const cv::Vec3b p = g.at<cv::Vec3b>(4, 4);
        QVERIFY(p[0] == p[1] && p[1] == p[2]); // no saturation to scale: stays grey
        changed = changed || p[0] != 100;
    }
    QVERIFY(changed); // the value gain changed the brightness
}

void TestDataAugment::mixupBlendsAndKeepsBothBoxSets() {
    cv::Mat a(8, 8, CV_8UC3, cv::Scalar::all(0));
    const cv::Mat b(8, 8, CV_8UC3, cv::Scalar::all(200));
    hr::PixelBoxes boxes{{0, 1, 1, 4, 4}};
    hr::AugmentRandom random(5);
    hr::mixup(a, boxes, b, {{1, 2, 2, 6, 6}}, random);
    QCOMPARE(int(boxes.size()), 2);
    QCOMPARE(boxes[1].cls, 1);
    const int v = a.at<cv::Vec3b>(0, 0)[0];
    QVERIFY2(v > 60 && v < 140, qPrintable(QString::number(v))); // Beta(32, 32) is near 0.5
}

QTEST_APPLESS_MAIN(TestDataAugment)
#include "test_data_augment.moc"
