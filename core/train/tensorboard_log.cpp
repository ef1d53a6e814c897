// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/tensorboard_log.h"

#include <chrono>
#include <cmath>

namespace hr {

namespace {

double unixNow() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

float mebibytes(std::int64_t bytes) {
    return static_cast<float>(double(bytes) / (1024.0 * 1024.0));
}

} // namespace

TensorBoardLog::TensorBoardLog(const std::string& folder) : m_writer(folder, unixNow()) {}

std::vector<std::pair<std::string, float>> TensorBoardLog::epochScalars(const EpochEnd& e) {
    std::vector<std::pair<std::string, float>> s = {
        {"train/box_loss", float(e.boxLoss)},
        {"train/cls_loss", float(e.clsLoss)},
        {"train/dfl_loss", float(e.dflLoss)},
        {"lr/pg0", float(e.lr0)},
        {"lr/pg1", float(e.lr1)},
        {"lr/pg2", float(e.lr2)},
        {"memory/train_peak_MiB", mebibytes(e.trainPeakBytes)},
        {"time/epoch_seconds", float(e.epochSeconds)},
        {"time/images_per_s", float(e.imagesPerSecond)},
    };
    // As in results.csv: an epoch that did not validate has zeros (val: false).
    const std::pair<std::string, float> metrics[] = {
        {"metrics/precision(B)", float(e.precision)},
        {"metrics/recall(B)", float(e.recall)},
        {"metrics/mAP50(B)", float(e.map50)},
        {"metrics/mAP50-95(B)", float(e.map)},
        {"val/box_loss", float(e.valBoxLoss)},
        {"val/cls_loss", float(e.valClsLoss)},
        {"val/dfl_loss", float(e.valDflLoss)},
        {"memory/val_peak_MiB", mebibytes(e.valPeakBytes)},
    };
    s.insert(s.end(), std::begin(metrics), std::end(metrics));
    return s;
}

void TensorBoardLog::add(const TrainEvent& event) {
    if (const auto* e = std::get_if<EpochEnd>(&event)) {
        // Step = the epoch's number from 1, as Ultralytics' TensorBoard callback counts.
        m_writer.addScalars(unixNow(), e->epoch + 1, epochScalars(*e));
    } else if (const auto* s = std::get_if<MemorySample>(&event)) {
        m_writer.addScalars(unixNow(), std::llround(s->seconds * 1000.0),
                            {{"memory/allocated_MiB", mebibytes(s->allocated)},
                             {"memory/reserved_MiB", mebibytes(s->reserved)}});
    }
}

} // namespace hr
