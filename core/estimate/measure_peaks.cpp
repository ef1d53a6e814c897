// SPDX-License-Identifier: GPL-3.0-or-later
// Real steps at the configured batch, measured: the resident floor and measurePeaks().
#include "estimate/memory_estimator.h"

#include "config/train_rules.h"
#include "estimate/calibration_cache.h"
#include "estimate/probe_batch.h"
#include "estimate/probe_session.h"
#include "model/detection_model.h"
#include "train/compute_threads.h"
#include "util/text.h"
#include "util/user_message.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <memory>

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
    } catch (const std::exception& e) { // c10::Error too: userMessage drops its backtrace
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
            peaks.time.secondsPerImage = estimate::perImageSeconds(
                peaks.time.stepSeconds, peaks.time.optimizerSeconds, accumulate, batch);
            peaks.time.timedSteps = static_cast<int>(work.size());
        }
        return peaks;
    } catch (const std::exception& e) { // c10::Error too: userMessage drops its backtrace
        if (error)
            *error = "measuring step failed: " + userMessage(e);
    }
    return std::nullopt;
}

namespace {

/// One side of steps timed in turns: the settings, the images per step and the accumulation
/// that spreads the optimizer step over its batches.
struct TurnSide {
    const TrainConfig* config = nullptr;
    int batch = 1;
    int accumulate = 1;
};

/// How many rounds timeInTurns takes: `rounds`, and with `upTo` > `rounds` more while
/// `enough` says no; a stop (keepGoing) after `keep` rounds returns those.
struct TurnRounds {
    int rounds = 1;
    int upTo = 0;
    int keep = 0;
    std::function<bool(const std::vector<std::pair<double, double>>&)> enough;
};

/// Rounds of a pair of `first`'s steps and a pair of `second`'s (in turns: first then second,
/// then second then first), each side in a probe session of its own, after a warm-up step and
/// pair of each; seconds per image of each round. The caller holds the cache's lock (`held`).
std::optional<std::vector<std::pair<double, double>>>
timeInTurns(const std::array<TurnSide, 2>& sides, const TurnRounds& plan, std::string* error,
            const std::unique_lock<std::mutex>& held, const std::function<bool()>& keepGoing = {}) {
    const auto stopped = [&] {
        if (!keepGoing || keepGoing())
            return false;
        if (error)
            *error = "the timing was stopped";
        return true;
    };
    CalibrationCache& cache = CalibrationCache::shared();
    std::array<DataFacts, 2> facts;
    for (std::size_t i = 0; i < 2; ++i)
        if (!cache.dataFacts(*sides[i].config, facts[i], error, held))
            return std::nullopt;
    try {
        std::array<std::unique_ptr<ProbeSession>, 2> sessions;
        std::array<Batch, 2> batches;
        for (std::size_t i = 0; i < 2; ++i) {
            if (stopped())
                return std::nullopt;
            const TrainConfig& c = *sides[i].config;
            sessions[i] = std::make_unique<ProbeSession>(c, facts[i], sides[i].batch, error);
            if (!sessions[i]->ready())
                return std::nullopt;
            batches[i] = probeBatch(sides[i].batch, c.imgsz, facts[i].objectsPerImage, facts[i].nc);
            sessions[i]->step().step(batches[i]); // optimizer state now exists
            StepSchedule schedule = sessions[i]->step().schedule();
            schedule.accumulate = 2;
            sessions[i]->step().setSchedule(schedule);
            std::vector<double> work, optimizer;
            estimate::timePairs(*sessions[i], batches[i], 1, work, optimizer); // warm-up
        }
        std::vector<std::pair<double, double>> out;
        const int most = std::max(plan.rounds, plan.upTo);
        for (int round = 0; round < most; ++round) {
            if (round >= plan.rounds && (!plan.enough || plan.enough(out)))
                break;
            std::array<double, 2> perImage{};
            // Every other round the second side goes first: a load that rises or falls through
            // a round then slows each side as often as the other.
            for (std::size_t k = 0; k < 2; ++k) {
                if (keepGoing && !keepGoing()) {
                    if (plan.keep > 0 && int(out.size()) >= plan.keep)
                        return out;
                    if (error)
                        *error = "the timing was stopped";
                    return std::nullopt;
                }
                const std::size_t i = round % 2 ? 1 - k : k;
                std::vector<double> work, optimizer;
                estimate::timePairs(*sessions[i], batches[i], 1, work, optimizer);
                perImage[i] =
                    estimate::perImageSeconds(estimate::median(work), estimate::median(optimizer),
                                              sides[i].accumulate, sides[i].batch);
            }
            out.emplace_back(perImage[0], perImage[1]);
        }
        return out;
    } catch (const std::exception& e) { // c10::Error too: userMessage drops its backtrace
        if (error)
            *error = "timing steps failed: " + userMessage(e);
    }
    return std::nullopt;
}

/// Computes with one thread while it lives, then with as many as before.
class OneComputeThread {
public:
    OneComputeThread() : m_threads(at::get_num_threads()) { setComputeThreads(1); }
    ~OneComputeThread() { setComputeThreads(m_threads); }
    OneComputeThread(const OneComputeThread&) = delete;
    OneComputeThread& operator=(const OneComputeThread&) = delete;

private:
    int m_threads;
};

/// The side of `config` whose steps predictTimeFactor times: at its batch per rank, at most
/// kProbeBatchLarge images (larger batches are reached by the calibration's line).
TurnSide probeSide(const TrainConfig& config) {
    const int batch = rankBatch(std::max(config.batch, 1), config.nproc);
    return {&config, std::min(batch, estimate::kProbeBatchLarge),
            accumulateSteps(config.nbs, std::max(config.batch, 1))};
}

} // namespace

std::optional<std::vector<std::pair<double, double>>> timeStepsInTurns(const TrainConfig& first,
                                                                       const TrainConfig& second,
                                                                       int rounds,
                                                                       std::string* error) {
    const std::unique_lock<std::mutex> held = CalibrationCache::shared().lock();
    std::array<TurnSide, 2> sides;
    for (std::size_t i = 0; i < 2; ++i) {
        const TrainConfig& c = i == 0 ? first : second;
        const int batch = std::max(c.batch, 1);
        sides[i] = {&c, batch, accumulateSteps(c.nbs, batch)};
    }
    TurnRounds plan;
    plan.rounds = rounds;
    return timeInTurns(sides, plan, error, held);
}

std::optional<TimeFactor> predictTimeFactor(const TrainConfig& before, const TrainConfig& after,
                                            bool probe, std::string* error,
                                            const std::function<bool()>& keepGoing) {
    CalibrationCache& cache = CalibrationCache::shared();
    std::string key;
    {
        const std::unique_lock<std::mutex> held = cache.lock();
        if (!cache.timeFactorKey(before, after, key, error, held))
            return std::nullopt;
        const auto& factors = cache.timeFactors(held);
        if (const auto cached = factors.find(key); cached != factors.end())
            return cached->second;
    }
    if (!probe) {
        if (error)
            *error = "these settings were not timed against each other yet";
        return std::nullopt;
    }
    const std::array<TurnSide, 2> sides = {probeSide(before), probeSide(after)};
    // A batch above the probe batches: its seconds per image from the config's own calibration
    // line, relative to the probe batch the turns ran at.
    std::array<double, 2> scale = {1.0, 1.0};
    for (std::size_t i = 0; i < 2; ++i) {
        const TrainConfig& c = *sides[i].config;
        const int batch = rankBatch(std::max(c.batch, 1), c.nproc);
        if (batch == sides[i].batch)
            continue;
        if (keepGoing && !keepGoing())
            return std::nullopt;
        const std::optional<estimate::Calibration> calibration =
            cache.calibrationFor(c, true, error);
        if (!calibration || calibration->derived || calibration->times.steps <= 0)
            return std::nullopt;
        const double atProbe = calibration->times.perImage(sides[i].batch, sides[i].accumulate);
        if (atProbe <= 0)
            return std::nullopt;
        scale[i] = calibration->times.perImage(batch, sides[i].accumulate) / atProbe;
    }
    const auto ratiosOf = [](const std::vector<std::pair<double, double>>& rounds) {
        std::vector<double> ratios;
        for (const auto& [a, b] : rounds)
            if (a > 0 && b > 0)
                ratios.push_back(b / a);
        return ratios;
    };
    TurnRounds plan;
    plan.rounds = kTimeFactorRounds;
    plan.upTo = kTimeFactorMaxRounds;
    plan.keep = kTimeFactorMinRounds;
    // A spread this wide means the load changed within a round; more rounds outvote it.
    plan.enough = [&ratiosOf](const std::vector<std::pair<double, double>>& rounds) {
        const std::vector<double> ratios = ratiosOf(rounds);
        if (ratios.empty())
            return false;
        const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
        return *high - *low <= kTimeFactorSpread * estimate::median(ratios);
    };
    const std::unique_lock<std::mutex> held = cache.lock();
    // Timed with one thread, in the calling thread's CPU time: with two, OpenMP's waiting and
    // the studio's own threads (its live curve while a person chooses) were counted on both
    // sides and pulled every factor towards 1.
    const OneComputeThread oneThread;
    const auto rounds = timeInTurns(sides, plan, error, held, keepGoing);
    if (!rounds || rounds->empty())
        return std::nullopt;
    std::vector<double> ratios = ratiosOf(*rounds), first, second;
    for (const auto& [a, b] : *rounds) {
        if (a <= 0 || b <= 0)
            continue;
        first.push_back(a);
        second.push_back(b);
    }
    if (ratios.empty())
        return std::nullopt;
    const double scaling = scale[1] / scale[0];
    TimeFactor t;
    t.factor = estimate::median(ratios) * scaling;
    t.lowest = *std::min_element(ratios.begin(), ratios.end()) * scaling;
    t.highest = *std::max_element(ratios.begin(), ratios.end()) * scaling;
    t.rounds = static_cast<int>(ratios.size());
    t.beforeSeconds = estimate::median(first) * scale[0];
    t.afterSeconds = estimate::median(second) * scale[1];
    cache.timeFactors(held)[key] = t;
    return t;
}

} // namespace hr
