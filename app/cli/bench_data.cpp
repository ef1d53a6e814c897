// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli bench data: images per second of the data loader alone (decode, augment, collate).
#include "command.h"
#include "common.h"

#include "config/data_config.h"
#include "data/data_loader.h"
#include "data/synthetic_dataset.h"
#include "util/bytes.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

namespace hr::cli {
namespace {

const IntegerOptionReader readInteger{"bench data"};

int runBenchData(const ParsedArgs& args) {
    long long imgsz = 320, batch = 16, workers = 2, batches = 40;
    if (!readInteger(args, "--imgsz", 32, imgsz) || !readInteger(args, "--batch", 1, batch) ||
        !readInteger(args, "--workers", 0, workers) || !readInteger(args, "--batches", 1, batches))
        return ExitUsage;
    LoaderOptions options; // a default TrainConfig's training options
    double mosaic = options.hyp.mosaic;
    if (args.has("--mosaic")) {
        std::string error;
        const auto value = args.number("--mosaic", &error);
        if (!value || *value < 0.0 || *value > 1.0) {
            std::cerr << "bench data: --mosaic must be a probability in [0, 1]\n";
            return ExitUsage;
        }
        mosaic = *value;
    }
    const std::string cache = args.value("--cache", options.cache);
    if (cache != "none" && cache != "ram" && cache != "disk") {
        std::cerr << "bench data: --cache must be none, ram or disk\n";
        return ExitUsage;
    }

    const auto report = scanTrainSplit(args.value("--data"), "bench data", args.has("--yes"));
    if (!report)
        return ExitFailure;

    options.imgsz = static_cast<int>(imgsz);
    options.batch = static_cast<int>(batch);
    options.workers = static_cast<int>(workers);
    options.cache = cache;
    options.hyp.mosaic = mosaic;
    options.close_mosaic = 0;
    DataLoader loader(report, options);
    if (cache == "ram")
        std::cout << "ram cache: " << formatBytes(loader.cacheBytesEstimate()) << " when full\n";

    // The first batch pays for thread start and cold file caches: timed separately.
    using Clock = std::chrono::steady_clock;
    int epoch = 0;
    loader.startEpoch(epoch);
    Batch b;
    const auto startFirst = Clock::now();
    if (!loader.next(b)) {
        std::cerr << "bench data: the loader produced no batch. " << loader.error() << "\n";
        return ExitFailure;
    }
    const double firstSeconds = std::chrono::duration<double>(Clock::now() - startFirst).count();
    std::int64_t images = 0, peakBytes = 0;
    std::vector<float> sides; // longer box side in pixels, every object of every batch
    const auto start = Clock::now();
    const double cpuStart = processCpuSeconds();
    const std::int64_t readStart = loader.imagesRead();
    for (long long i = 0; i < batches; ++i) {
        if (!loader.next(b)) {
            if (!loader.error().empty()) {
                std::cerr << loader.error() << "\n";
                return ExitFailure;
            }
            loader.startEpoch(++epoch);
            if (!loader.next(b))
                return ExitFailure;
        }
        images += b.images.size(0);
        peakBytes = std::max(peakBytes, loader.hostBytesInFlight());
        const torch::Tensor side = std::get<0>(b.targets.slice(1, 4, 6).max(1))
                                       .mul(static_cast<float>(imgsz))
                                       .contiguous();
        sides.insert(sides.end(), side.data_ptr<float>(), side.data_ptr<float>() + side.numel());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double cpuSeconds = processCpuSeconds() - cpuStart;
    const std::int64_t read = loader.imagesRead() - readStart;
    // The colour the HSV augmentation leaves, over as many further images (untimed): the
    // loader's RGB back to BGR, mean H, S, V per image in OpenCV's ranges.
    cv::Scalar hsvSum(0, 0, 0);
    std::int64_t colourImages = 0;
    for (long long i = 0; i < batches; ++i) {
        if (!loader.next(b)) {
            loader.startEpoch(++epoch);
            if (!loader.next(b))
                break;
        }
        const torch::Tensor bgr = b.images.flip(1).permute({0, 2, 3, 1}).contiguous();
        for (std::int64_t k = 0; k < bgr.size(0); ++k, ++colourImages) {
            cv::Mat image(static_cast<int>(bgr.size(1)), static_cast<int>(bgr.size(2)), CV_8UC3,
                          bgr[k].data_ptr<std::uint8_t>());
            cv::Mat hsv;
            cv::cvtColor(image, hsv, cv::COLOR_BGR2HSV);
            hsvSum += cv::mean(hsv);
        }
    }
    loader.stop();
    const double rate = images / std::max(seconds, 1e-9);
    std::cout << std::fixed << std::setprecision(1) << "data loader: " << rate << " images/s ("
              << images << " images in " << std::setprecision(2) << seconds << " s; imgsz " << imgsz
              << ", batch " << batch << ", workers " << workers << ", mosaic " << mosaic
              << ", cache " << cache << ")\n"
              << "first batch: " << firstSeconds << " s; queued batches held at most "
              << formatBytes(peakBytes) << " of host memory; " << report->images.size()
              << " training images\n"
              << "cpu: " << std::setprecision(1) << images / std::max(cpuSeconds, 1e-9)
              << " images per CPU-second (" << std::setprecision(2) << cpuSeconds
              << " CPU-s): the rate on idle cores is about this times the cores used\n"
              << "read: " << read << " image files for " << images
              << " training images (4 per image without the images the loader keeps for "
                 "mosaic)\n";
    // What augmentation does to the objects: how many a training image holds and how big.
    std::sort(sides.begin(), sides.end());
    const auto sidePercentile = [&](double q) {
        return sides.empty() ? 0.0 : sides[static_cast<size_t>(q * (sides.size() - 1))];
    };
    std::cout << std::setprecision(2)
              << "objects: " << double(sides.size()) / std::max<std::int64_t>(images, 1)
              << " per training image; longer side p10 / p50 / p90: " << std::setprecision(1)
              << sidePercentile(0.1) << " / " << sidePercentile(0.5) << " / " << sidePercentile(0.9)
              << " px\n";
    const double n = static_cast<double>(std::max<std::int64_t>(colourImages, 1));
    std::cout << std::setprecision(2) << "colour: mean H / S / V " << hsvSum[0] / n << " / "
              << hsvSum[1] / n << " / " << hsvSum[2] / n << " over " << colourImages
              << " further images\n";
    return ExitOk;
}

Command benchDataCommand() {
    Command c(
        "bench data", runBenchData,
        "Measure the data loader alone: images per second with augmentation",
        "headroom-cli bench data [--data data.yaml] [--imgsz S] [--batch B] "
        "[--workers W] [--batches N] [--mosaic P] [--cache none|ram|disk]",
        "Builds training batches (decode, mosaic, random affine, HSV, flips, collate) as fast "
        "as the loader can and prints images per second, without any model. Compare it with "
        "the images per second a training run consumes: the loader should be several times "
        "faster so that training never waits for data. It also prints what augmentation did "
        "to the objects: how many a training image holds and their sizes in pixels, and the "
        "mean hue, saturation and value (OpenCV ranges) of the augmented images.");
    c.options = {{"--data", "FILE", "data.yaml (default: the built-in data set)"},
                 largeScanOption(),
                 {"--imgsz", "S", "training image size (default 320)"},
                 {"--batch", "B", "images per batch (default 16)"},
                 {"--workers", "W", "loader threads (default 2)"},
                 {"--batches", "N", "batches to time after the first (default 40)"},
                 {"--mosaic", "P", "mosaic probability (default 1.0)"},
                 {"--cache", "MODE", "none, ram or disk (default none)"}};
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(benchDataCommand);

} // namespace hr::cli
