// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"
#include "compare/strategy.h"
#include "config/train_config.h"
#include "train/events.h"

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace hr {

class Trainer;

/// Runs a strategy matrix: each strategy is a normal run in `base.project` named
/// `<base.name>-<strategy>`, on the same data, seed and epochs, one after another, with
/// on_oom=stop so that an OOM ends that strategy's run and is recorded (status "OOM" and the
/// phase) instead of being fixed. The header is LibTorch-free; the GUI adapter owns one.
class StrategyRunner {
public:
    /// Called on the thread that calls run(): `index` is the strategy's position.
    using EventSink = std::function<void(size_t index, const TrainEvent& event)>;

    StrategyRunner(TrainConfig base, std::vector<Strategy> strategies);
    ~StrategyRunner();
    StrategyRunner(const StrategyRunner&) = delete;
    StrategyRunner& operator=(const StrategyRunner&) = delete;

    void setEventSink(EventSink sink) { m_sink = std::move(sink); }

    /// Runs every strategy in order and measures each from its run folder; the Pareto front is
    /// marked. A strategy whose settings are rejected is an "invalid" row; after requestStop()
    /// the current run stops (its row says "stopped") and the rest are "not run". Never throws.
    Comparison run();

    /// Stops the running strategy after its current step and skips the rest. Any thread.
    void requestStop();

private:
    TrainConfig m_base;
    std::vector<Strategy> m_strategies;
    EventSink m_sink;
    std::mutex m_mutex;
    Trainer* m_current = nullptr; ///< guarded by m_mutex
    bool m_stop = false;          ///< guarded by m_mutex
};

} // namespace hr
