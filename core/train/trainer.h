// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "dist/launch_env.h"
#include "memory/oom_report.h"
#include "train/events.h"

#include <functional>
#include <memory>
#include <string>

namespace hr {

/// The answer to an out-of-memory failure: stop, or continue the same run with a new config.
struct OomDecision {
    bool stop = true;
    TrainConfig config;             ///< the config to continue with (when !stop)
    std::string fixId;              ///< which fix was chosen, for the run's history
    std::string description;        ///< the fix in words
    std::int64_t predictedPeak = 0; ///< the estimator's prediction for `config`, 0 = none
    double speedFactor = 0.0;       ///< predicted time per image relative to before, 0 = none
    /// The factor speedFactor already holds from an earlier check of this fix on this machine
    /// (the trainer's own check compounds it).
    double speedCorrection = 1.0;
    /// With stop: the advisor found a device fix for this model predicted to fit, so the budget
    /// is not too small and the trainer skips the search for the smallest one (minutes of probe
    /// steps on a CPU).
    bool fixFits = false;
};

/// Called on the trainer's thread after an OOM, once the failed step's memory is released.
/// May block (a GUI dialog waits for the user). Without a handler the trainer follows
/// TrainConfig::on_oom with no fixes: it stops.
using OomHandler = std::function<OomDecision(const OomReport&)>;

/// The smallest memory budget in which `config` can train with some fix (batch, AMP,
/// checkpointing, image size), when config.memory_budget is too small for all of them; 0 when it
/// is not too small or nobody can tell (estimate's smallestWorkingBudget). The trainer asks only
/// when a run cannot go on for lack of memory.
using MinimumBudget = std::function<std::int64_t(const TrainConfig&)>;

/// The errors of `config` (with `nc` classes) against the machine it starts on, none when it
/// fits (estimate's machineLimitProblems).
using MachineCheck = std::function<Diagnostics(const TrainConfig&, int nc)>;

/// A complete training run: data, model, loss, optimizer, validation, the run folder.
/// The header is LibTorch-free so that the GUI adapter can own a Trainer without pulling in
/// torch. Every method except run() may be called from any thread.
class Trainer {
public:
    /// `sink` receives every event, on the thread that calls run().
    Trainer(TrainConfig config, EventSink sink);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// Trains to the end (or until stopped) on the calling thread. Returns 0 when the run
    /// finished or was stopped by the user, non-zero when it failed (a RunFailed event says
    /// why). Never throws.
    int run();

    /// Pauses / resumes between steps.
    void requestPause(bool paused);
    /// Stops after the current step; the run folder keeps the last checkpoint.
    void requestStop();
    /// requestStop() for a signal handler (SIGINT, SIGTERM): async-signal-safe, it only sets a
    /// flag, which the run reads between steps (a paused run ends at its next pause check).
    void requestStopFromSignal();
    /// Ends a data-parallel run from outside because it cannot go on (whoever started the
    /// workers saw one end): the wait for the other ranks gives up at once, and a training or
    /// validation loop throws at its next batch; the run fails with `reason` (RunFailed).
    /// Weights are not saved (last.pt keeps the last finished epoch). Any thread.
    void abort(const std::string& reason);
    /// abort() for a signal handler (async-signal-safe: it only sets flags); the reason names
    /// the signal, e.g. the SIGTERM a launcher sends when another worker failed.
    void abortFromSignal(int signal);

    /// Receives every memory sample as the sampler takes it (memory_sample_hz a second, on the
    /// sampler's thread; the OOM mark on the run's), also while a step runs long and while the
    /// OOM handler waits for a decision: for a live display. The samples still reach the event
    /// sink too, between steps, for the run folder. Must be cheap and thread-safe. Call before
    /// run().
    using LiveSampleSink = std::function<void(const MemorySample&)>;
    void setLiveSampleSink(LiveSampleSink sink);

    /// Sets who decides what happens after an OOM. Call before run().
    void setOomHandler(OomHandler handler);
    /// With one, a run that stops for lack of memory at a budget nothing fits ends with one
    /// sentence naming the smallest budget that works. Call before run().
    void setMinimumBudget(MinimumBudget minimum);

    /// The run's settings, a resumed run's stored ones included, are checked against this
    /// machine once the data set is scanned, before the model is built: errors fail the run
    /// with `machine_limits` and their diagnostics. Without a check nothing is. Before run().
    void setMachineCheck(MachineCheck check);
    /// The person asked for a data-set scan past its file limit (ScanOptions::
    /// largeScanConfirmed); without it such a run fails with the code `scan_too_large`. Call
    /// before run().
    void confirmLargeScan(bool confirmed);

    /// This process's place in a data-parallel run, instead of RANK, WORLD_SIZE, ... from the
    /// environment (the studio trains as rank 0 and starts the other ranks itself). Call
    /// before run().
    void setLaunch(const LaunchEnv& launch);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace hr
