// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The trainer's inside, shared by the files it is split into (trainer.cpp: the run and its
// loop; trainer_setup.cpp; trainer_checkpoint.cpp; trainer_resume.cpp; oom_recovery.cpp;
// fix_broadcast.cpp). Not part of the train module's interface.

#include "train/log_code.h"
#include "train/trainer.h"

#include "config/data_config.h"
#include "config/train_rules.h"
#include "data/data_loader.h"
#include "data/dataset.h"
#include "dist/data_parallel_group.h"
#include "dist/launch_env.h"
#include "eval/metrics.h"
#include "memory/memory_probe.h"
#include "memory/memory_sampler.h"
#include "train/lr_schedule.h"
#include "train/run_folder.h"
#include "train/train_step.h"
#include "util/user_message.h"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hr {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Thrown inside the trainer to end the run with a message (RunFailed): the CLI's English,
/// and the same as a code and its values for a UI in another language (RunFailed lists them).
/// data, weights, model (when they name files here) and project made absolute against the
/// working folder (trainer_resume.cpp).
void makePathsAbsolute(TrainConfig& config);

struct RunError : std::runtime_error {
    explicit RunError(const std::string& message, std::string code = {},
                      std::vector<std::string> args = {})
        : std::runtime_error(message), code(std::move(code)), args(std::move(args)) {}
    std::string code;
    std::vector<std::string> args;
};

/// A RunError's values: `first`, then diagnosticArgs(diagnostics).
inline std::vector<std::string> argsWithDiagnostics(std::vector<std::string> first,
                                                    const Diagnostics& diagnostics) {
    for (std::string& arg : diagnosticArgs(diagnostics))
        first.push_back(std::move(arg));
    return first;
}

/// Out of memory and no fix was chosen (or none could work): the run ends "stopped_by_oom".
struct OomStop : RunError {
    using RunError::RunError;
};

/// Thrown from the phase callback when the user stopped the run mid-step: the step is dropped
/// (last.pt keeps the previous epoch's end, as for any stop within an epoch).
struct StopNow {};

/// What an out-of-memory failure looked like when it was caught.
struct OomFailure {
    std::string message;
    bool hostMemory = false;
};

/// True for the text of an out-of-memory error (CUDA's, the CPU budget's, cuDNN's).
bool isOomMessage(const std::string& message);

/// Called from a catch block: the exception in flight as an out-of-memory failure. Anything
/// that is not an out-of-memory error is thrown on unchanged.
OomFailure oomFailureOfCurrentException();

/// A test's host allocation failure: HEADROOM_TEST_HOST_ALLOC_FAIL="phase:n" (read when the
/// trainer is made) makes the run's n-th entry into that phase throw std::bad_alloc, as an
/// allocation that failed there would.
struct HostFault {
    Phase phase = Phase::Idle;
    int left = 0; ///< entries until the failure; 0 = none
    static HostFault fromEnvironment();
    void enter(Phase entered) {
        if (left > 0 && entered == phase && --left == 0)
            throw std::bad_alloc();
    }
};

/// How long a rank waits in a collective for the others (HEADROOM_DIST_TIMEOUT seconds,
/// default 600): rank 0 validates while the others wait, and a rank that died ends the rest
/// at the latest after this.
std::chrono::milliseconds collectiveTimeout();

struct Trainer::Impl {
    TrainConfig config;
    EventSink sink;
    OomHandler oomHandler;
    MinimumBudget minimumBudget;
    MachineCheck machineCheck;
    bool largeScanConfirmed = false;
    std::atomic<bool> paused{false};
    std::atomic<bool> stopRequested{false};
    // abort(): the reason (under abortMutex), or only the signal from abortFromSignal().
    std::atomic<bool> aborted{false};
    std::atomic<int> abortSignal{0};
    std::mutex abortMutex;
    std::string abortText;
    std::mutex pauseMutex;
    std::condition_variable pauseChanged;

    // Run state (trainer thread only, except the sample queue).
    std::optional<RunFolder> folder;
    std::unique_ptr<MemoryProbe> probe;
    std::unique_ptr<MemorySampler> sampler;
    std::mutex sampleMutex;
    std::vector<MemorySample> pendingSamples;
    Trainer::LiveSampleSink liveSamples; ///< set before run(), then only read
    std::shared_ptr<const DatasetReport> trainData, valData;
    std::unique_ptr<DataLoader> trainLoader, valLoader;
    std::unique_ptr<TrainStep> step;
    std::unique_ptr<LrSchedule> schedule;
    std::vector<std::string> names;
    torch::Device device{torch::kCPU};
    int nc = 0;
    int startEpoch = 0;
    std::int64_t globalStep = 0;
    double bestFitness = -1.0;
    int bestEpoch = -1;
    double bestMap50 = 0, bestMap = 0;
    std::int64_t epochPeak = 0;
    std::int64_t peakSinceFix = 0; ///< measured peak since the last fix was applied
    int oomsWithoutProgress = 0;
    // Data parallel: this process's place (rank 0 of 1 without one) and its group.
    LaunchEnv launch;
    std::optional<LaunchEnv> launchOverride; ///< Trainer::setLaunch()
    std::unique_ptr<DataParallelGroup> group;
    bool leader() const { return launch.rank == 0; }
    std::string runDir; ///< rank 0's run folder, known on every rank
    /// A fix rank 0 chose during its validation: sent to the other ranks at the epoch's end.
    std::optional<OomDecision> validationFix;
    /// ZeRO: where a rank other than 0 keeps its optimizer shard next to last.pt.
    std::string shardPath() const {
        return runDir + "/weights/last.rank" + std::to_string(launch.rank) + ".pt";
    }
    void saveOptimizerShard();
    /// Why the run was aborted from outside; empty while it was not.
    std::string abortReason() {
        if (!aborted)
            return {};
        {
            std::lock_guard<std::mutex> lock(abortMutex);
            if (!abortText.empty())
                return abortText;
        }
        return "rank " + std::to_string(launch.rank) + " received signal " +
               std::to_string(abortSignal.load()) +
               (abortSignal == SIGTERM ? " (SIGTERM: the launcher ends every worker when one "
                                         "has failed, and says which)"
                                       : "");
    }
    /// Throws the abort reason as the run's failure; called before each batch.
    void throwIfAborted() {
        if (const std::string why = abortReason(); !why.empty())
            throw RunError(why, "aborted", {why});
    }
    /// True on every rank when any rank was asked to stop (they leave at the same step).
    bool stopAgreed() {
        if (!group)
            return stopRequested;
        return !group->failedRanks(!stopRequested).empty();
    }
    /// Rank 0 asks the OOM handler; the other ranks receive its decision (fix_broadcast.cpp).
    OomDecision decideFix(const OomReport& report, Phase phase);
    /// At an epoch's end, every rank takes rank 0's best epoch and the fix rank 0 chose
    /// during its validation, if any.
    void shareEpochEnd(int epoch);
    double secondsPerBatch = 0; ///< smoothed, for the ETA
    struct FixCheck {
        bool active = false;
        std::string fixId;
        std::int64_t predicted = 0;
        double predictedPerImage = 0; ///< time per image before the fix x its speed factor
        double correction = 1.0;      ///< OomDecision::speedCorrection
        bool epochEnded = false;      ///< the peak has been watched through an epoch's end
        double seconds = 0;
        std::int64_t images = 0;
        int steps = 0;
    } fixCheck;
    /// The latest steps' (seconds, images), at most kFixCheckSteps: the time per image a fix's
    /// speed factor is applied to.
    std::deque<std::pair<double, std::int64_t>> recentSteps;
    int recentWarmUp = kUntimedSteps; ///< untimed steps left at new shapes
    /// Emits the fix check; with enough timed steps, keeps how the speed prediction compared
    /// for this fix's later predictions on this machine.
    void emitFixCheck();
    /// A finished training step: timed for the fix check and the next fix's prediction.
    void noteStepTime(double seconds, std::int64_t images);

    Impl(TrainConfig c, EventSink s) : config(std::move(c)), sink(std::move(s)) {}
    HostFault hostFault = HostFault::fromEnvironment();

    void emit(const TrainEvent& event) {
        if (folder && !folder->addEvent(event) && writeFailure.empty())
            writeFailure = folder->error();
        if (sink)
            sink(event);
    }
    /// The first failed write of events.jsonl or memory.csv ("" while every write held).
    std::string writeFailure;
    /// Ends the run when a run folder write failed: nothing is reported done that is not on
    /// disk.
    void throwIfWriteFailed() {
        if (!writeFailure.empty())
            throw RunError(userText(writeFailure, folder ? folder->path() : std::string()),
                           "run_folder", {writeFailure});
    }
    /// A line the UI words from `code` and `args` (LogMessage); `text` is the CLI's English.
    /// Every line is coded: a new kind of line is a new LogCode, worded by the UI.
    void log(LogMessage::Level level, const std::string& text, LogCode code,
             std::vector<std::string> args) {
        emit(LogMessage{level, text, toString(code), std::move(args)});
    }

    /// Forwards the sampler's points on the trainer thread (the sink's contract).
    void drainSamples() {
        std::vector<MemorySample> samples;
        {
            std::lock_guard<std::mutex> lock(sampleMutex);
            samples.swap(pendingSamples);
        }
        for (const auto& s : samples)
            emit(s);
    }

    void waitWhilePaused() {
        std::unique_lock<std::mutex> lock(pauseMutex);
        pauseChanged.wait(lock, [this] { return !paused.load() || stopRequested.load(); });
    }

    /// The run is ending: the budget (process-wide on CPU) must not outlive it.
    void releaseBudget() {
        if (probe)
            probe->setBudget(0);
    }

    void notePeak() {
        if (!probe)
            return;
        epochPeak = std::max(epochPeak, probe->peak());
        peakSinceFix = std::max(peakSinceFix, probe->peak());
        probe->resetPeak();
    }

    // --- set-up (trainer_setup.cpp, trainer_resume.cpp) ------------------------------------
    void setUp();
    /// This process's place among the ranks, and the group of a data-parallel run.
    void connectRanks();
    void loadData();
    /// The pretrained weights a new run starts from (none on resume), logged as transferred.
    void loadStartingWeights(DetectionModel& model);
    /// The step's phase callback: the sampler's phase, a stop within the step, a test's fault.
    void onPhase(Phase phase);
    /// For scanDataset: logs how far the scan of `split` is, once a second after its first
    /// second (a large data set's first scan takes a while and a person should see it move).
    std::function<bool(int, int)> scanProgress(const std::string& split);
    /// resume: finds the run to resume, takes its stored config (keeping this process's own
    /// settings) into `config` and returns the checkpoint to load; `resumeDir` gets its folder.
    std::string prepareResume(std::string& resumeDir);
    void makeTrainLoader() {
        trainLoader.reset(); // free its host buffers before the new one fills
        loadFailuresSeen = 0;
        LoaderOptions options = LoaderOptions::fromConfig(config, true, device);
        if (group) {
            // `batch` is the total over the ranks (Ultralytics); each reads its own shard.
            options.batch = rankBatch(options.batch, group->size());
            options.shardRank = group->rank();
            options.shardCount = group->size();
        }
        trainLoader = std::make_unique<DataLoader>(trainData, options);
    }
    void makeValLoader() {
        valLoader.reset();
        valLoader =
            std::make_unique<DataLoader>(valData, LoaderOptions::fromConfig(config, false, device));
    }
    int batchesPerEpoch() const { return static_cast<int>(trainLoader->batchesPerEpoch()); }

    // --- the loop -------------------------------------------------------------------------
    enum class EpochOutcome { Done, Stopped };
    EpochOutcome trainEpoch(int epoch, EpochEnd& result);
    /// Where an epoch's training loop stands.
    struct EpochProgress {
        int batches = 0;   ///< batches of this epoch at the current batch size
        int batchSize = 0; ///< the batch size those batches have
        /// Per-batch loss items, so a redone group replaces its entries.
        std::vector<std::array<double, 3>> items;
        std::int64_t images = 0;
        double trainSeconds = 0;
        int index = 0;          ///< next batch of this epoch
        int groupStart = 0;     ///< first batch of the open accumulation group
        bool positioned = true; ///< the loader's order is at `index`
    };
    /// After a failed batch: applies the advisor's fix and rewinds `progress` to redo the
    /// broken accumulation group. Throws OomStop, with the last weights saved, when no fix
    /// was chosen.
    void redoAfterFailure(const OomFailure& failure, Phase phase, int epoch,
                          EpochProgress& progress);
    /// The event for the batch just finished (progress.index - 1), trained at `lr`.
    BatchEnd batchEndEvent(int epoch, const EpochProgress& progress, double lr) const;
    MetricsResult validate(int epoch, EpochEnd& result);
    /// Validates the epoch and fills its metrics into `result` (best or not included). False
    /// when the person stopped during validation: the epoch then has no metrics, as with
    /// val=false. Host RAM that runs out outside the validation steps (the metrics, their
    /// files) keeps the epoch without metrics and throws OomStop.
    bool scoreEpoch(int epoch, EpochEnd& result);
    /// An epoch whose training is complete but whose validation is not: its row and last.pt,
    /// as for an epoch with val=false (a resume goes on with the next epoch).
    void recordWithoutMetrics(int epoch, EpochEnd& result);
    Clock::time_point epochStarted; ///< when the current epoch's training began
    /// Returns true when a fix was applied (continue), false to stop the run.
    bool recover(const OomFailure& failure, Phase phase, int epoch, int batchIndex);
    void applyFix(const OomDecision& decision, int epoch, int batchIndex);
    /// Writes last.pt (keeping the previous one as its backup); an OOM while writing goes to
    /// the advisor like any other, then the write is tried once more.
    /// Says how the first epoch's gradients were all-reduced (data-parallel runs).
    void logGradientBuckets();
    /// An epoch's end on disk: results.csv, events.jsonl, then best.pt and last.pt; throws
    /// RunError when a write fails.
    void recordEpoch(int epoch, const EpochEnd& result);
    /// Writes last.pt (`path`), and first best.pt (`bestPath`) from the same bytes when given.
    void saveCheckpoint(const std::string& path, int completedEpochs,
                        const std::string& bestPath = {});
    void writeCheckpoint(const std::string& path, int completedEpochs, const std::string& bestPath);
    /// `path` when it loads, else its backup (with a warning); reads the stored config.
    /// Throws RunError naming the damaged file when neither loads.
    std::string readableCheckpoint(const std::string& path, c10::IValue& configYaml);
    void loadCheckpoint(const std::string& path);
    /// The figures of the failure just caught, from the probe's snapshot at the refused
    /// allocation (before the failed step released anything), or from the message.
    void fillSnapshot(OomReport& report, const OomFailure& failure);
    std::int64_t failedBatchBytes = 0; ///< the failed step's batch, for the OOM report
    std::int64_t lastFailureSerial = 0;
    int completedEpochs = 0;  ///< epochs whose end is in last.pt
    int loadFailuresSeen = 0; ///< images the train loader could not read, already reported
    /// Logs each image `loader` could not read that no warning of this run named yet (the
    /// first kMostUnreadableNamed of them; the epoch's count covers the rest).
    void nameUnreadableImages(const DataLoader& loader);
    std::set<std::string> unreadableNamed;
    /// One sentence when nothing fits the budget, naming the smallest budget that works (from
    /// minimumBudget); nothing when something fits or nobody can tell. `held`: what already
    /// failed to fit, for the sentence when minimumBudget cannot tell.
    std::optional<OomStop> budgetTooSmall(const std::string& held = {});
    bool validating = false;        ///< rank 0 alone: an OOM's fix is not broadcast
    bool validationSkipped = false; ///< stopped during validation: no metrics this epoch
    int runImpl();
};

} // namespace hr
