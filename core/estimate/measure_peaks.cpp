// SPDX-License-Identifier: GPL-3.0-or-later
// Real steps at the configured batch, measured: the resident floor and measurePeaks().
#include "estimate/memory_estimator.h"

#include "estimate/calibration_cache.h"
#include "estimate/probe_batch.h"
#include "estimate/probe_session.h"
#include "model/detection_model.h"
#include "util/text.h"
#include "util/user_message.h"

#include <torch/torch.h>

#include <algorithm>

namespace hr {

using estimate::CalibrationCache;
using estimate::DataFacts;
using estimate::ProbeSession;

MemoryBreakdown residentFloor(const TrainConfig& config, std::string* error) {
    CalibrationCache& cache = CalibrationCache::shared();
    const std::unique_lock<std::mutex> held = cache.lock();
    MemoryBreakdown floor;
    DataFacts facts;
    if (!cache.dataFacts(config, facts, error, held))
        return floor;
    try {
        ProbeSession session(config, facts, estimate::kProbeBatchSmall, error);
        if (!session.ready())
            return floor;
        // Before the first step: weights and the EMA copy exist, gradients and optimizer state
        // not yet; they are sized from the trainable parameters.
        const MemoryBreakdown built = session.step().residentMemory();
        std::int64_t trainable = 0;
        for (const auto& p : session.step().model()->parameters())
            if (p.requires_grad())
                trainable += p.numel() * static_cast<std::int64_t>(p.element_size());
        const OptimizerChoice& choice = session.step().optimizerChoice();
        const bool sgd = toLower(choice.name) == "sgd";
        const int stateTensors = sgd ? (choice.momentum != 0.0 ? 1 : 0) : 2;
        const bool stateElsewhere =
            (config.optimizer_offload && session.probe().deviceName() != "cpu") ||
            (config.nproc > 1 && config.zero == 1);
        floor.weights = built.weights;
        floor.ema = built.ema;
        floor.gradients = trainable;
        floor.optimizerState = stateElsewhere ? 0 : stateTensors * trainable;
        floor.total = floor.resident();
    } catch (const c10::Error& e) {
        if (error)
            *error = std::string("building the model failed: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        if (error)
            *error = "building the model failed: " + userMessage(e);
    }
    return floor;
}

std::optional<MeasuredPeaks> measurePeaks(const TrainConfig& config, std::string* error,
                                          int timedPairs) {
    CalibrationCache& cache = CalibrationCache::shared();
    const std::unique_lock<std::mutex> held = cache.lock();
    DataFacts facts;
    if (!cache.dataFacts(config, facts, error, held))
        return std::nullopt;
    const int batch = std::max(config.batch, 1);
    try {
        ProbeSession session(config, facts, batch, error);
        if (!session.ready())
            return std::nullopt;
        MeasuredPeaks peaks;
        const int accumulate = accumulateSteps(config.nbs, batch);
        {
            // Freed before validation, as a run's last training batch is.
            const Batch train = probeBatch(batch, config.imgsz, facts.objectsPerImage, facts.nc);
            session.step().step(train); // optimizer state now exists
            if (accumulate > 1) {
                // As in a run that accumulates: the batch before leaves its gradients, the
                // measured one runs forward and backward on top of them and then the optimizer
                // step.
                StepSchedule schedule = session.step().schedule();
                schedule.accumulate = 2;
                session.step().setSchedule(schedule);
                session.step().step(train);
            }
            peaks.stepPeak = session.trainPeak(train);
        }
        const Batch val =
            probeBatch(validationBatch(config), config.imgsz, facts.objectsPerImage, facts.nc);
        peaks.valPeak = session.valPeak(val);
        if (timedPairs > 0) {
            StepSchedule schedule = session.step().schedule();
            schedule.accumulate = 2;
            session.step().setSchedule(schedule);
            std::vector<double> work, optimizer;
            const Batch train = probeBatch(batch, config.imgsz, facts.objectsPerImage, facts.nc);
            estimate::timePairs(session, train, timedPairs, work, optimizer);
            peaks.time.accumulate = accumulate;
            peaks.time.stepSeconds = estimate::median(work);
            peaks.time.optimizerSeconds = estimate::median(optimizer);
            peaks.time.secondsPerImage =
                (peaks.time.stepSeconds + peaks.time.optimizerSeconds / accumulate) / batch;
            peaks.time.timedSteps = static_cast<int>(work.size());
        }
        return peaks;
    } catch (const c10::Error& e) {
        if (error)
            *error = std::string("measuring step failed: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        if (error)
            *error = "measuring step failed: " + userMessage(e);
    }
    return std::nullopt;
}

} // namespace hr
