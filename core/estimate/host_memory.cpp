// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/host_memory.h"

#include "config/train_rules.h"
#include "data/data_loader.h"
#include "estimate/memory_estimator.h"
#include "train/device_name.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hr {

namespace {

/// Anchor points of the three detection strides (8, 16, 32) at `imgsz`.
double anchorPoints(int imgsz) {
    double points = 0;
    for (const int stride : {8, 16, 32}) {
        const double side = std::ceil(double(imgsz) / stride);
        points += side * side;
    }
    return points;
}

std::int64_t bytes(double value) {
    return static_cast<std::int64_t>(std::min(value, 9.0e18));
}

} // namespace

RunMemoryNeed hostMemoryNeed(const TrainConfig& config, int nc) {
    RunMemoryNeed need;
    need.processes = std::max(config.nproc, 1);
    torch::Device device(torch::kCPU);
    try {
        device = resolveDevice(config.device);
    } catch (const std::invalid_argument&) {
        return need; // the run's own start names the device
    }
    const int images = rankBatch(std::max(config.batch, 1), need.processes);
    const double side = config.imgsz;
    // The loader's queue: `prefetch` batches of 8-bit images (its own rule for its queue).
    const LoaderOptions loader = LoaderOptions::fromConfig(config, true, device);
    const double queued = double(loader.prefetch) * images * 3 * side * side;
    std::string error;
    const MemoryBreakdown floor = residentFloor(config, &error);
    double perProcess = queued;
    if (device.is_cpu()) {
        // The step's tensors are host memory: the class scores (logits, targets, the
        // gradient) and the 4 x 16 box bins (logits, gradient) per anchor, and the input.
        const double anchors = anchorPoints(config.imgsz);
        const double classScores = double(images) * anchors * nc * 4 * 3;
        const double boxBins = double(images) * anchors * 64 * 4 * 2;
        const double input = double(images) * 3 * side * side * 4;
        double step = double(floor.total) + classScores + boxBins + input;
        if (const auto predicted = predictPeakWithoutProbing(config))
            step = std::max(step, double(*predicted));
        perProcess += step;
        need.classScores = bytes(classScores * need.processes);
    } else {
        perProcess += double(floor.weights); // built on the host before it moves
    }
    need.bytes = bytes(perProcess * need.processes);
    return need;
}

Diagnostics machineLimitProblems(const TrainConfig& config, int nc) {
    const RunMemoryNeed need = nc > 0 ? hostMemoryNeed(config, nc) : RunMemoryNeed{};
    return checkMachineLimits(config, nc, machineFacts(), need);
}

} // namespace hr
