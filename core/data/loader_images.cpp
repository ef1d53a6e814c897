// SPDX-License-Identifier: GPL-3.0-or-later
// The data loader's images: read (or taken from a cache), augmented and placed in a batch.
#include "data/data_loader_state.h"

#include "data/image_disk_cache.h"
#include "data/image_io.h"
#include "data/label_cache.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace hr {

cv::Mat DataLoader::State::loadImage(int index, bool& failed, bool keep) {
    failed = false;
    const ImageRecord& record = data->images[index];
    {
        std::lock_guard<std::mutex> lock(cacheMutex);
        if (opt.cache == "ram" && !ram[index].empty())
            return ram[index];
        cv::Mat kept;
        if (recent.find(index, kept, keep)) // empty unless keepsImages(mosaicOn)
            return kept;
    }
    ++filesRead;
    cv::Mat image;
    std::string error, reason;
    // Training decodes large JPEGs at a reduced scale (a sixth less loader time for 640x480
    // photos at 320 px); validation in full, as Ultralytics' validator does, so the mAPs agree.
    const JpegDecode decode = opt.augment ? JpegDecode::Reduced : JpegDecode::Full;
    if (opt.cache == "disk") {
        const FileStamp stamp = FileStamp::of(record.imagePath);
        const std::string path = diskCachePath(record.imagePath, opt.imgsz, decode);
        if (!readDiskCache(path, stamp, image)) {
            image = readImageResized(record.imagePath, opt.imgsz, &error, &reason, decode);
            if (!image.empty())
                writeDiskCache(path, stamp, image);
        }
    } else {
        image = readImageResized(record.imagePath, opt.imgsz, &error, &reason, decode);
    }
    if (image.empty()) {
        // Damaged coded data that the header check let through, or a file that changed after
        // the scan: a grey background keeps training going.
        ++failures;
        noteUnreadable(index, error, reason);
        failed = true;
        const double r =
            static_cast<double>(opt.imgsz) / std::max({record.width, record.height, 1});
        image = cv::Mat(std::max(1, static_cast<int>(std::lround(record.height * r))),
                        std::max(1, static_cast<int>(std::lround(record.width * r))), CV_8UC3,
                        cv::Scalar::all(kPadValue));
        return image;
    }
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (opt.cache == "ram" && ram[index].empty()) {
        ram[index] = image;
        cacheFilled += static_cast<std::int64_t>(image.total() * image.elemSize());
    }
    if (keep)
        recent.keep(index, image);
    return image;
}

Sample DataLoader::State::loadSample(int index, bool keep) {
    Sample s;
    bool failed = false;
    s.image = loadImage(index, failed, keep);
    // A grey stand-in for a broken image carries no objects.
    if (!failed)
        s.boxes = toPixelBoxes(data->images[index].labels, s.image.cols, s.image.rows);
    return s;
}

Sample DataLoader::State::trainSample(int index, cv::Size shape, AugmentRandom& random, bool own) {
    Sample out;
    double scale = 1.0;
    const bool square = shape.width == opt.imgsz && shape.height == opt.imgsz;
    if (mosaicOn && square && random.chance(opt.hyp.mosaic)) {
        const int s = opt.imgsz;
        std::array<cv::Mat, 4> images;
        std::array<PixelBoxes, 4> boxes;
        for (int k = 0; k < 4; ++k) {
            Sample part = k == 0 ? loadSample(index, own) : loadSample(random.index(imageCount()));
            images[k] = part.image;
            boxes[k] = std::move(part.boxes);
        }
        const int xc = static_cast<int>(random.uniform(s / 2.0, 1.5 * s));
        const int yc = static_cast<int>(random.uniform(s / 2.0, 1.5 * s));
        cv::Mat canvas;
        PixelBoxes placed;
        mosaic4(images, boxes, s, cv::Point(xc, yc), canvas, placed);
        const cv::Matx33d M = randomAffineMatrix(opt.hyp, canvas.size(), shape, random, &scale);
        warpWithBoxes(canvas, out.image, M, shape, placed, scale);
        out.boxes = std::move(placed);
    } else {
        Sample loaded = loadSample(index, own);
        cv::Mat boxed;
        letterbox(loaded.image, boxed, shape, true, &loaded.boxes);
        const cv::Matx33d M = randomAffineMatrix(opt.hyp, boxed.size(), shape, random, &scale);
        warpWithBoxes(boxed, out.image, M, shape, loaded.boxes, scale);
        out.boxes = std::move(loaded.boxes);
    }
    if (own && random.chance(opt.hyp.mixup) && mosaicOn) {
        Sample other = trainSample(random.index(imageCount()), shape, random, false);
        mixup(out.image, out.boxes, other.image, other.boxes, random);
    }
    return out;
}

void DataLoader::State::startBatch(std::int64_t index, Batch& out) const {
    const cv::Size shape = batchShapes[static_cast<size_t>(index)];
    const int count = batchSize(index);
    out.images = torch::empty(
        {count, 3, shape.height, shape.width},
        torch::TensorOptions(torch::kUInt8).memory_format(torch::MemoryFormat::ChannelsLast));
    out.paths.assign(static_cast<size_t>(count), std::string());
    out.letterbox.assign(static_cast<size_t>(count), LetterboxInfo{});
}

void collateTargets(const std::vector<std::vector<float>>& perImage, Batch& out) {
    size_t values = 0;
    for (const auto& rows : perImage)
        values += rows.size();
    out.targets = torch::empty({static_cast<std::int64_t>(values / 6), 6}, torch::kFloat32);
    float* at = out.targets.data_ptr<float>();
    for (const auto& rows : perImage) {
        if (!rows.empty())
            std::memcpy(at, rows.data(), rows.size() * sizeof(float));
        at += rows.size();
    }
}

void DataLoader::State::buildImage(std::int64_t index, int i, Batch& out,
                                   std::vector<float>& targets) {
    const cv::Size shape = batchShapes[static_cast<size_t>(index)];
    const int imageIndex = batches[static_cast<size_t>(index)][static_cast<size_t>(i)];
    const ImageRecord& record = data->images[imageIndex];
    // Everything random about this image depends on the seed, the epoch and its position.
    AugmentRandom random(mix(mix(opt.seed, static_cast<std::uint64_t>(epoch)),
                             static_cast<std::uint64_t>(index * opt.batch + i)));
    Sample sample;
    LetterboxInfo info;
    info.originalW = record.width;
    info.originalH = record.height;
    try {
        if (opt.augment) {
            sample = trainSample(imageIndex, shape, random, true);
            augmentHsv(sample.image, opt.hyp.hsv_h, opt.hyp.hsv_s, opt.hyp.hsv_v, random);
            if (random.chance(opt.hyp.flipud))
                flipVertical(sample.image, sample.boxes);
            if (random.chance(opt.hyp.fliplr))
                flipHorizontal(sample.image, sample.boxes);
        } else {
            Sample loaded = loadSample(imageIndex);
            const LetterboxInfo boxed =
                letterbox(loaded.image, sample.image, shape, false, &loaded.boxes);
            sample.boxes = std::move(loaded.boxes);
            const float loadScale =
                record.width > 0 ? static_cast<float>(loaded.image.cols) / record.width : 1.f;
            info.scale = loadScale * boxed.scale;
            info.padX = boxed.padX;
            info.padY = boxed.padY;
        }
    } catch (const cv::Exception&) {
        // OpenCV's message names its own source file and line: not words for a user.
        ++failures;
        noteUnreadable(imageIndex, "OpenCV could not prepare the image for training",
                       "cannot_process");
        sample.image = cv::Mat(shape, CV_8UC3, cv::Scalar::all(kPadValue));
        sample.boxes.clear();
    }
    if (opt.augment) {
        // Position of the plain letterbox of this image, for reference.
        const double r = std::min(static_cast<double>(shape.width) / std::max(1, record.width),
                                  static_cast<double>(shape.height) / std::max(1, record.height));
        info.scale = static_cast<float>(r);
        info.padX = static_cast<float>((shape.width - std::lround(record.width * r)) / 2);
        info.padY = static_cast<float>((shape.height - std::lround(record.height * r)) / 2);
    }
    // BGR -> RGB, in place in the batch's channels-last memory: the model's layout on the CPU,
    // so the trainer thread does not transpose the batch. Bytes, not floats: a quarter of the
    // memory to fill and queue here and to copy to a GPU; the trainer scales them
    // (docs/decisions.md, "8-bit batches").
    const std::int64_t plane = static_cast<std::int64_t>(shape.width) * shape.height;
    cv::Mat target(shape, CV_8UC3,
                   out.images.data_ptr<std::uint8_t>() + static_cast<std::int64_t>(i) * 3 * plane);
    cv::cvtColor(sample.image, target, cv::COLOR_BGR2RGB);
    const float W = static_cast<float>(shape.width), H = static_cast<float>(shape.height);
    targets.clear();
    for (const auto& b : sample.boxes) {
        targets.insert(targets.end(),
                       {static_cast<float>(i), static_cast<float>(b.cls), (b.x1 + b.x2) / 2 / W,
                        (b.y1 + b.y2) / 2 / H, b.width() / W, b.height() / H});
    }
    out.paths[static_cast<size_t>(i)] = record.imagePath;
    out.letterbox[static_cast<size_t>(i)] = info;
}

void DataLoader::State::buildBatch(std::int64_t index, Batch& out) {
    startBatch(index, out);
    std::vector<std::vector<float>> targets(static_cast<size_t>(batchSize(index)));
    for (int i = 0; i < batchSize(index); ++i)
        buildImage(index, i, out, targets[static_cast<size_t>(i)]);
    collateTargets(targets, out);
}

void DataLoader::State::noteUnreadable(int index, std::string error, std::string reason) {
    std::lock_guard<std::mutex> lock(unreadableMutex);
    if (unreadableIndices.insert(index).second)
        unreadable.push_back(
            {data->images[size_t(index)].imagePath, std::move(error), std::move(reason)});
}

} // namespace hr
