// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/measured_accuracy.h"

#include "config/train_config.h"
#include "runs/run_store.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace hr {
namespace {

/// Whether two configs train the same way (what the accuracy of a run depends on).
bool sameTraining(const TrainConfig& a, const TrainConfig& b) {
    return a.data == b.data && a.model == b.model && a.model_scale == b.model_scale &&
           a.weights == b.weights && a.epochs == b.epochs && a.imgsz == b.imgsz &&
           a.batch == b.batch && a.nbs == b.nbs && a.amp == b.amp &&
           a.checkpointing == b.checkpointing && a.freeze == b.freeze &&
           a.optimizer == b.optimizer && a.assign_chunk == b.assign_chunk && a.seed == b.seed;
}

struct MeasuredRun {
    TrainConfig config;
    MeasuredAccuracy accuracy;
};

std::vector<MeasuredRun> readRuns(const std::string& project) {
    std::vector<MeasuredRun> runs;
    for (const RunSummary& summary : RunStore::list(project)) {
        if (summary.state != "finished" || summary.fixes > 0 || summary.bestEpoch <= 0)
            continue;
        const TrainConfigResult loaded = loadTrainConfig(summary.path + "/config.yaml");
        if (!loaded.config)
            continue;
        runs.push_back({*loaded.config, {summary.bestMap50, summary.bestMap, summary.path}});
    }
    return runs;
}

} // namespace

AccuracyLookup measuredAccuracyOfRuns(const std::string& project) {
    struct Cache {
        std::once_flag read;
        std::vector<MeasuredRun> runs;
    };
    auto cache = std::make_shared<Cache>();
    return [project, cache](const TrainConfig& config) -> std::optional<MeasuredAccuracy> {
        try {
            std::call_once(cache->read, [&] { cache->runs = readRuns(project); });
        } catch (const std::exception&) {
            return std::nullopt;
        }
        for (const MeasuredRun& run : cache->runs)
            if (sameTraining(run.config, config))
                return run.accuracy;
        return std::nullopt;
    };
}

} // namespace hr
