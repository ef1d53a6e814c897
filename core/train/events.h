// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "memory/memory_sample.h"
#include "memory/oom_report.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace hr {

/// The trainer's event stream. Events are small values; the trainer calls the sink from its own
/// thread, so a sink must be cheap and thread-safe (the GUI adapter queues them as signals).

struct RunStarted {
    std::string runDir;
    TrainConfig config; ///< the config as the run will use it (auto-fit applied)
    std::int64_t parameters = 0;
    int startEpoch = 0; ///< 0-based; > 0 when resumed
    int batchesPerEpoch = 0;
};

struct BatchEnd {
    int epoch = 0;      ///< 0-based
    int batchIndex = 0; ///< 0-based within the epoch
    int batchesPerEpoch = 0;
    std::int64_t step = 0;                        ///< batches done since the run started
    double boxLoss = 0, clsLoss = 0, dflLoss = 0; ///< running means over the epoch
    double lr = 0;                                ///< lr of param group 0
    double imagesPerSecond = 0;
    double etaSeconds = 0; ///< to the end of the run
    std::int64_t peakBytes = 0;
};

struct EpochEnd {
    int epoch = 0; ///< 0-based
    int epochs = 0;
    double boxLoss = 0, clsLoss = 0, dflLoss = 0;          ///< training means
    double valBoxLoss = 0, valClsLoss = 0, valDflLoss = 0; ///< validation means
    double precision = 0, recall = 0, map50 = 0, map = 0;  ///< map = mAP@0.5:0.95
    double lr0 = 0, lr1 = 0, lr2 = 0;
    double epochSeconds = 0;
    double imagesPerSecond = 0;
    std::int64_t trainPeakBytes = 0; ///< the allocator's peak over the epoch's training steps
    std::int64_t valPeakBytes = 0;   ///< peak while validating; 0 when the epoch did not validate
    bool best = false;               ///< this epoch set a new best fitness

    /// The epoch's peak, training and validation together (results.csv's peak_memory_bytes).
    std::int64_t peakBytes() const { return std::max(trainPeakBytes, valPeakBytes); }
};

/// How a run ended. Written as "state" in events.jsonl's run_finished line:
/// "finished" (all epochs, or early stopping by patience), "stopped" (the user), "failed" (an
/// error: `reason` says which and what to do), "stopped_by_oom" (out of memory and no fix was
/// chosen or none could work: `reason` says so).
enum class RunState { Finished, Stopped, Failed, StoppedByOom };

inline const char* toString(RunState state) {
    switch (state) {
    case RunState::Finished:
        return "finished";
    case RunState::Stopped:
        return "stopped";
    case RunState::Failed:
        return "failed";
    case RunState::StoppedByOom:
        return "stopped_by_oom";
    }
    return "finished";
}

/// The inverse of toString(RunState); false (state untouched) for unknown text.
inline bool parseRunState(const std::string& text, RunState& state) {
    for (RunState s :
         {RunState::Finished, RunState::Stopped, RunState::Failed, RunState::StoppedByOom})
        if (text == toString(s)) {
            state = s;
            return true;
        }
    return false;
}

/// The last event of every run, whatever its end (a failed run sends RunFailed just before it,
/// with the same text, for consumers that only show errors).
/// events.jsonl: {"type":"run_finished","state":"failed","reason":"...", ...}.
struct RunFinished {
    std::string runDir;
    int epochsDone = 0;
    double map50 = 0, map = 0; ///< of the best epoch
    bool stoppedEarly = false; ///< patience ran out
    bool stoppedByUser = false;
    RunState state = RunState::Finished;
    /// Failed / StoppedByOom: what went wrong and what to do, user text (never a backtrace).
    std::string reason;
    /// The reason as a code and its values (RunFailed's), for a UI in another language.
    std::string reasonCode;
    std::vector<std::string> reasonArgs;
};

/// A failure, as user text (userMessage(): no backtrace). `state` is Failed or StoppedByOom.
struct RunFailed {
    std::string message;
    RunState state = RunState::Failed;
    /// What went wrong as a code and its values, for a UI that words the message in its own
    /// language (`message` is the CLI's English); empty when not coded. events.jsonl:
    /// "reason_code", "reason_args". Codes and their values (epochs and batches 1-based):
    ///  oom_no_fix: phase, epoch, batch, last weights | oom_validation_no_fix: epoch |
    ///  oom_checkpoint: path | oom_setup: - | oom_repeated: count |
    ///  budget_too_small: budget, model, imgsz, smallest working budget in MiB |
    ///  budget_too_small_for_model: budget, model, imgsz |
    ///  resume_missing: path | resume_no_run: folder pattern | resume_damaged: path, detail |
    ///  resume_both_damaged: path, backup | checkpoint_write: path, detail |
    ///  data_loader: detail | validation_loader: detail | builtin_data: detail |
    ///  fix_invalid: fix id, diagnostics | aborted: detail | data_config: diagnostics |
    ///  no_train_images: diagnostics | launch_env: detail |
    ///  rank_connect: rank, ranks, address, then "timeout", ranks joined, seconds |
    ///  "abandoned", reason | "error", the network library's text |
    ///  device: device, detail | model_build: model, diagnostics | weights_load: file, detail |
    ///  run_folder: detail | resume_config: checkpoint, diagnostics | fix_broadcast: diagnostics |
    ///  unexpected: detail (any other error, as userMessage() words it).
    /// A detail is core's English (an OS or loader error); a UI shows it as it is. Diagnostics
    /// are diagnosticArgs()' elements: their English, then each diagnostic coded.
    std::string code;
    std::vector<std::string> args;
};

/// A step ran out of memory; the trainer has released it and is asking for a decision.
struct OomOccurred {
    OomReport report;
};

/// A fix was applied to the live run; training continues from the same position.
struct FixApplied {
    std::string fixId;
    std::string description;
    TrainConfig config;             ///< the config now in force
    std::int64_t predictedPeak = 0; ///< the estimator's prediction, 0 = none
    int epoch = 0;
    int batchIndex = 0; ///< 0-based within the epoch
};

/// After a fix, what the run measured against what was predicted: the peak through the end
/// of the first epoch after it, and the time per image over the steps after it (at least
/// kFixCheckSteps, after kUntimedSteps; fewer only when the run ended first).
struct FixChecked {
    std::string fixId;
    std::int64_t predictedPeak = 0;
    std::int64_t measuredPeak = 0;
    double predictedSecondsPerImage = 0.0; ///< time per image before the fix x its speed
                                           ///< factor; 0 = under kFixBaseSteps timed before
    double measuredSecondsPerImage = 0.0;  ///< over `timedSteps` steps; 0 = none timed
    int timedSteps = 0;
};

/// Steps after a fix whose time per image FixChecked reports.
constexpr int kFixCheckSteps = 20;
/// Steps at new shapes that are not timed, before or after a fix: they prepare kernels.
constexpr int kUntimedSteps = 1;
/// Timed steps before a fix that its predicted time per image needs; with fewer (an OOM in a
/// run's first steps) FixChecked has no prediction and no speed check is kept.
constexpr int kFixBaseSteps = 5;

/// A line for the log: something the user should read that is not a number.
struct LogMessage {
    enum class Level { Info, Warning, Error } level = Level::Info;
    std::string text; ///< the CLI's English
    /// The line as a code and its values, for a UI that words it in its own language.
    /// events.jsonl: "code", "args". The codes and their values are listed once, in LogCode
    /// (train/log_code.h); every line the trainer logs has one.
    std::string code;
    std::vector<std::string> args;
};

using TrainEvent = std::variant<RunStarted, BatchEnd, EpochEnd, MemorySample, OomOccurred,
                                FixApplied, FixChecked, RunFinished, RunFailed, LogMessage>;

using EventSink = std::function<void(const TrainEvent&)>;

} // namespace hr
