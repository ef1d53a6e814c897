// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/calibration_cache.h"

#include "config/data_config.h"
#include "config/settings_table.h"
#include "config/train_rules.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "memory/memory_probe.h"
#include "util/user_message.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace hr::estimate {
namespace {

/// Everything a calibration depends on except the image size.
std::string calibrationFamily(const TrainConfig& c, const DataFacts& facts,
                              const std::string& device) {
    std::ostringstream key;
    key << settingsKey(c, kCalibrationKey, "imgsz") << facts.nc << '|' << facts.objectsPerImage
        << '|' << device;
    return key.str();
}

std::string calibrationKey(const TrainConfig& c, const DataFacts& facts,
                           const std::string& device) {
    return calibrationFamily(c, facts, device) + "@" + std::to_string(c.imgsz);
}

} // namespace

CalibrationCache& CalibrationCache::shared() {
    static CalibrationCache cache;
    return cache;
}

bool CalibrationCache::dataFacts(const TrainConfig& config, DataFacts& facts, std::string* error,
                                 const std::unique_lock<std::mutex>& /*held*/) {
    std::string path = config.data;
    if (path.empty()) {
        path = ensureBuiltinDataset(error);
        if (path.empty())
            return false;
    }
    const std::string key =
        path + (config.single_cls ? "|single" : "") + (config.mosaic > 0 ? "|mosaic" : "");
    const auto cached = m_dataFacts.find(key);
    if (cached != m_dataFacts.end()) {
        facts = cached->second;
        return true;
    }
    const DataConfigResult loaded = loadDataConfig(path);
    if (!loaded.config) {
        if (error)
            *error = loaded.diagnostics.empty() ? "cannot read " + path
                                                : loaded.diagnostics.front().toString();
        return false;
    }
    ScanOptions options;
    options.singleCls = config.single_cls;
    const DatasetReport report = scanDataset(*loaded.config, Split::Train, options);
    facts.nc = config.single_cls ? 1 : loaded.config->nc();
    // A mosaic tile holds parts of four images: size the assigner for four images' objects.
    const int perImage = std::max(1, report.stats.maxObjectsPerImage);
    facts.objectsPerImage = std::min(kMaxObjectsPerImage, perImage * (config.mosaic > 0 ? 4 : 1));
    facts.trainImages = report.stats.images;
    m_dataFacts[key] = facts;
    return true;
}

/// A calibration for `imgsz` scaled from the cached one of the same family whose image size is
/// nearest: the per-image slopes follow the pixel count, the intercepts stay
/// (docs/decisions.md, "Calibration").
std::optional<Calibration> CalibrationCache::scaledCalibration(const std::string& family,
                                                               int imgsz) const {
    const Calibration* nearest = nullptr;
    for (const auto& [key, c] : m_calibrations) {
        if (c.family != family || c.derived || c.imgsz <= 0)
            continue;
        if (!nearest || std::abs(c.imgsz - imgsz) < std::abs(nearest->imgsz - imgsz))
            nearest = &c;
    }
    if (!nearest)
        return std::nullopt;
    Calibration out = *nearest;
    const double ratio = double(imgsz) * imgsz / (double(nearest->imgsz) * nearest->imgsz);
    for (StepLines* lines : {&out.fresh, &out.held})
        for (Line& line : *lines)
            line.slope *= ratio;
    out.val.slope *= ratio;
    out.valLarge.slope *= ratio;
    out.imgsz = imgsz;
    out.derived = true;
    out.times = StepTimes{}; // time is not scaled: only probe steps at this size say it
    return out;
}

/// The calibration for `config`: cached, newly measured with probe steps, or (without probing)
/// scaled from another image size. Nothing, with `error` filled, when none can be had.
std::optional<Calibration> CalibrationCache::calibrationFor(const TrainConfig& config, bool probe,
                                                            std::string* error) {
    const std::unique_lock<std::mutex> held = lock();
    DataFacts facts;
    if (!dataFacts(config, facts, error, held))
        return std::nullopt;
    const std::unique_ptr<MemoryProbe> memoryProbe = makeProbe(config.device, error);
    if (!memoryProbe)
        return std::nullopt;
    const std::string family = calibrationFamily(config, facts, memoryProbe->deviceName());
    const std::string key = calibrationKey(config, facts, memoryProbe->deviceName());
    const bool largeValidation = validationBatch(config) >= kValLargeFrom;
    const auto cached = m_calibrations.find(key);
    if (cached != m_calibrations.end() && (!probe || cached->second.complete(config)))
        return cached->second;
    if (!probe && cached == m_calibrations.end()) {
        auto scaled = scaledCalibration(family, config.imgsz);
        if (!scaled && error)
            *error = "no calibration of these settings yet";
        return scaled;
    }
    Calibration calibration;
    if (cached != m_calibrations.end())
        calibration = cached->second;
    try {
        if (cached == m_calibrations.end() && !calibrate(config, facts, calibration, error))
            return std::nullopt;
        if (largeValidation && !calibration.valLargeProbed &&
            !calibrateLargeValidation(config, facts, calibration, error))
            return std::nullopt;
    } catch (const std::exception& e) { // c10::Error too: userMessage drops its backtrace
        if (error)
            *error = "probe step failed: " + userMessage(e);
        return std::nullopt;
    }
    calibration.family = family;
    m_calibrations[key] = calibration;
    return calibration;
}

bool CalibrationCache::timeFactorKey(const TrainConfig& before, const TrainConfig& after,
                                     std::string& key, std::string* error,
                                     const std::unique_lock<std::mutex>& held) {
    key.clear();
    for (const TrainConfig* config : {&before, &after}) {
        DataFacts facts;
        if (!dataFacts(*config, facts, error, held))
            return false;
        const std::unique_ptr<MemoryProbe> memoryProbe = makeProbe(config->device, error);
        if (!memoryProbe)
            return false;
        key += calibrationKey(*config, facts, memoryProbe->deviceName()) + "|batch " +
               std::to_string(config->batch) + "|nbs " + std::to_string(config->nbs) + "|nproc " +
               std::to_string(config->nproc) + "\n";
    }
    return true;
}

void CalibrationCache::clear() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_calibrations.clear();
    m_timeFactors.clear();
    m_dataFacts.clear();
}

} // namespace hr::estimate
