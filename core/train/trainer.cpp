// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/trainer.h"

#include "config/data_config.h"
#include "config/weights_source.h"
#include "data/data_loader.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "dist/data_parallel_group.h"
#include "dist/launch_env.h"
#include "eval/metrics_accumulator.h"
#include "memory/cpu_memory_tracker.h"
#include "memory/memory_probe.h"
#include "memory/memory_sampler.h"
#include "memory/resident_memory.h"
#include "model/detection_model.h"
#include "model/model_io.h"
#include "train/lr_schedule.h"
#include "train/run_folder.h"
#include "train/train_step.h"
#include "train/weight_updater.h"
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/resources.h"
#include "util/speed_checks.h"
#include "util/text.h"
#include "util/user_message.h"

#ifdef HEADROOM_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

namespace hr {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Thrown inside the trainer to end the run with a message (RunFailed).
struct RunError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Out of memory and no fix was chosen (or none could work): the run ends "stopped_by_oom".
struct OomStop : RunError {
    using RunError::RunError;
};

/// Thrown from the phase callback when the user stopped the run mid-step: the step is dropped
/// (last.pt keeps the previous epoch's end, as for any stop within an epoch).
struct StopNow {};

/// The backup a checkpoint write keeps of the previous last.pt: a torn or damaged last.pt
/// loses at most the epoch since.
std::string backupOf(const std::string& checkpoint) {
    return checkpoint + ".bak";
}

bool isOomMessage(const std::string& message) {
    const std::string lower = toLower(message);
    return lower.find("out of memory") != std::string::npos ||
           lower.find("headroom budget: tried to allocate") != std::string::npos ||
           lower.find("cuda_error_out_of_memory") != std::string::npos ||
           lower.find("cudnn_status_alloc_failed") != std::string::npos;
}

/// What an out-of-memory failure looked like when it was caught.
struct OomFailure {
    std::string message;
    bool hostMemory = false;
};

/// Called from a catch block: the exception in flight as an out-of-memory failure. Anything
/// that is not an out-of-memory error is thrown on unchanged.
OomFailure oomFailureOfCurrentException() {
    try {
        throw;
    } catch (const c10::OutOfMemoryError& e) {
        return OomFailure{e.what_without_backtrace(), false};
    } catch (const c10::Error& e) {
        if (!isOomMessage(e.what_without_backtrace()))
            throw;
        return OomFailure{e.what_without_backtrace(), false};
    } catch (const std::bad_alloc& e) {
        return OomFailure{std::string("host memory exhausted: ") + e.what(), true};
    }
}

/// The run to resume: the newest `project/name*` folder with weights/last.pt.
std::string findResumeFolder(const TrainConfig& config) {
    const auto hasCheckpoint = [](const fs::path& folder) {
        std::error_code ec;
        return fs::exists(folder / "weights" / "last.pt", ec) ||
               fs::exists(folder / "weights" / "last.pt.bak", ec);
    };
    const fs::path exact = fs::path(config.project) / config.name;
    if (hasCheckpoint(exact))
        return exact.string();
    std::string best;
    fs::file_time_type newest{};
    std::error_code ec;
    if (!fs::is_directory(config.project, ec))
        return {};
    for (const auto& entry : fs::directory_iterator(config.project, ec)) {
        fs::path last = entry.path() / "weights" / "last.pt";
        if (entry.path().filename().string().rfind(config.name, 0) != 0 ||
            !hasCheckpoint(entry.path()))
            continue;
        if (!fs::exists(last, ec))
            last += ".bak";
        const auto time = fs::last_write_time(last, ec);
        if (best.empty() || time > newest) {
            best = entry.path().string();
            newest = time;
        }
    }
    return best;
}

torch::Device resolveDevice(const std::string& name) {
    const std::string lower = toLower(name);
    if (lower == "auto" || lower.empty())
        return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0)
                                           : torch::Device(torch::kCPU);
    if (lower == "cpu")
        return torch::kCPU;
    if (lower.rfind("cuda", 0) == 0) {
        if (!torch::cuda::is_available())
            throw RunError("device " + name +
                           " was asked for, but this build or machine has "
                           "no CUDA; use device=cpu");
        return torch::Device(lower == "cuda" ? std::string("cuda:0") : lower);
    }
    throw RunError("unknown device '" + name + "' (use auto, cpu, cuda or cuda:N)");
}

/// Settings that only concern this process, taken from the new command line on resume.
void keepRuntimeSettings(TrainConfig& stored, const TrainConfig& given) {
    stored.memory_budget = given.memory_budget;
    stored.on_oom = given.on_oom;
    stored.threads = given.threads;
    stored.workers = given.workers;
    stored.device = given.device;
    stored.memory_sample_hz = given.memory_sample_hz;
    stored.resume = true;
}

bool sameTrainLoader(const TrainConfig& a, const TrainConfig& b) {
    const LoaderOptions x = LoaderOptions::fromConfig(a, true);
    const LoaderOptions y = LoaderOptions::fromConfig(b, true);
    return x.imgsz == y.imgsz && x.batch == y.batch && x.workers == y.workers &&
           x.cache == y.cache && x.rect == y.rect && x.hyp.mosaic == y.hyp.mosaic &&
           x.hyp.mixup == y.hyp.mixup && x.close_mosaic == y.close_mosaic;
}

bool sameValLoader(const TrainConfig& a, const TrainConfig& b) {
    const LoaderOptions x = LoaderOptions::fromConfig(a, false);
    const LoaderOptions y = LoaderOptions::fromConfig(b, false);
    return x.imgsz == y.imgsz && x.batch == y.batch && x.workers == y.workers && x.cache == y.cache;
}

/// How long a rank waits in a collective for the others (HEADROOM_DIST_TIMEOUT seconds,
/// default 600): rank 0 validates while the others wait, and a rank that died ends the rest
/// at the latest after this.
std::chrono::milliseconds collectiveTimeout() {
    if (const char* text = std::getenv("HEADROOM_DIST_TIMEOUT"); text && *text) {
        const long seconds = std::strtol(text, nullptr, 10);
        if (seconds > 0)
            return std::chrono::seconds(seconds);
    }
    return std::chrono::seconds(600);
}

/// A fix chosen by rank 0, sent to the other ranks as text: id, description, predicted peak
/// and the YAML of the new config.
std::string encodeDecision(const OomDecision& decision) {
    if (decision.stop)
        return {};
    return decision.fixId + "\n" + decision.description + "\n" +
           std::to_string(decision.predictedPeak) + "\n" + toYaml(decision.config);
}

OomDecision decodeDecision(const std::string& text) {
    OomDecision decision;
    std::istringstream in(text);
    std::string peak;
    if (text.empty() || !std::getline(in, decision.fixId) ||
        !std::getline(in, decision.description) || !std::getline(in, peak))
        return decision;
    const std::string yaml = text.substr(static_cast<size_t>(in.tellg()));
    TrainConfigResult parsed = parseTrainConfig(yaml, "fix from rank 0");
    if (!parsed.config)
        throw RunError("the fix sent by rank 0 is unreadable:\n" +
                       formatDiagnostics(parsed.diagnostics));
    decision.stop = false;
    decision.config = *parsed.config;
    decision.predictedPeak = std::strtoll(peak.c_str(), nullptr, 10);
    return decision;
}

} // namespace

struct Trainer::Impl {
    TrainConfig config;
    EventSink sink;
    OomHandler oomHandler;
    MinimumBudget minimumBudget;
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
            throw RunError(why);
    }
    /// True on every rank when any rank was asked to stop (they leave at the same step).
    bool stopAgreed() {
        if (!group)
            return stopRequested;
        return !group->failedRanks(!stopRequested).empty();
    }
    /// Rank 0 asks the OOM handler; the other ranks receive its decision.
    OomDecision decideFix(const OomReport& report, Phase phase);
    double secondsPerBatch = 0; ///< smoothed, for the ETA
    struct FixCheck {
        bool active = false;
        std::string fixId;
        std::int64_t predicted = 0;
        double predictedPerImage = 0; ///< time per image before the fix x its speed factor
        double correction = 1.0;      ///< OomDecision::speedCorrection
        bool epochEnded = false;      ///< the peak has been watched through an epoch's end
        int warmUp = 1;               ///< steps left before timing (new shapes prepare kernels)
        double seconds = 0;
        std::int64_t images = 0;
        int steps = 0;
    } fixCheck;
    /// The latest steps' (seconds, images), at most kFixCheckSteps: the time per image a fix's
    /// speed factor is applied to.
    std::deque<std::pair<double, std::int64_t>> recentSteps;
    /// Emits the fix check; with enough timed steps, keeps how the speed prediction compared
    /// for this fix's later predictions on this machine.
    void emitFixCheck() {
        FixChecked check{fixCheck.fixId, fixCheck.predicted, peakSinceFix};
        check.predictedSecondsPerImage = fixCheck.predictedPerImage;
        check.timedSteps = fixCheck.steps;
        if (fixCheck.images > 0)
            check.measuredSecondsPerImage = fixCheck.seconds / double(fixCheck.images);
        if (check.timedSteps >= kFixCheckSteps && check.predictedSecondsPerImage > 0 &&
            check.measuredSecondsPerImage > 0 && leader())
            recordSpeedCheck(device.str(), fixCheck.fixId,
                             fixCheck.correction * check.measuredSecondsPerImage /
                                 check.predictedSecondsPerImage);
        emit(check);
        fixCheck.active = false;
    }
    /// A finished training step: timed for the fix check and the next fix's prediction.
    void noteStepTime(double seconds, std::int64_t images) {
        recentSteps.emplace_back(seconds, images);
        while (recentSteps.size() > static_cast<std::size_t>(kFixCheckSteps))
            recentSteps.pop_front();
        if (!fixCheck.active)
            return;
        if (fixCheck.warmUp > 0) {
            --fixCheck.warmUp;
            return;
        }
        fixCheck.seconds += seconds;
        fixCheck.images += images;
        if (++fixCheck.steps >= kFixCheckSteps && fixCheck.epochEnded)
            emitFixCheck();
    }

    Impl(TrainConfig c, EventSink s) : config(std::move(c)), sink(std::move(s)) {}

    void emit(const TrainEvent& event) {
        if (folder)
            folder->addEvent(event);
        if (sink)
            sink(event);
    }
    void log(LogMessage::Level level, const std::string& text) { emit(LogMessage{level, text}); }

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

    // --- set-up ---------------------------------------------------------------------------
    void setUp();
    void loadData();
    void makeTrainLoader() {
        trainLoader.reset(); // free its host buffers before the new one fills
        loadFailuresSeen = 0;
        LoaderOptions options = LoaderOptions::fromConfig(config, true);
        if (group) {
            // `batch` is the total over the ranks (Ultralytics); each reads its own shard.
            options.batch = std::max(1, options.batch / group->size());
            options.shardRank = group->rank();
            options.shardCount = group->size();
        }
        trainLoader = std::make_unique<DataLoader>(trainData, options);
    }
    void makeValLoader() {
        valLoader.reset();
        valLoader = std::make_unique<DataLoader>(valData, LoaderOptions::fromConfig(config, false));
    }
    int batchesPerEpoch() const { return static_cast<int>(trainLoader->batchesPerEpoch()); }

    // --- the loop -------------------------------------------------------------------------
    enum class EpochOutcome { Done, Stopped };
    EpochOutcome trainEpoch(int epoch, EpochEnd& result);
    MetricsResult validate(int epoch, EpochEnd& result);
    /// Returns true when a fix was applied (continue), false to stop the run.
    bool recover(const OomFailure& failure, Phase phase, int epoch, int batch);
    void applyFix(const OomDecision& decision, int epoch, int batch);
    /// Writes last.pt (keeping the previous one as its backup); an OOM while writing goes to
    /// the advisor like any other, then the write is tried once more.
    void saveCheckpoint(const std::string& path, int completedEpochs);
    void writeCheckpoint(const std::string& path, int completedEpochs);
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
    /// One sentence when nothing fits the budget, naming the smallest budget that works (from
    /// minimumBudget); "" when something fits or nobody can tell. `held`: what already failed
    /// to fit, for the sentence when minimumBudget cannot tell.
    std::string budgetTooSmall(const std::string& held = {});
    bool validating = false;        ///< rank 0 alone: an OOM's fix is not broadcast
    bool validationSkipped = false; ///< stopped during validation: no metrics this epoch
    int runImpl();
};

void Trainer::Impl::loadData() {
    std::string dataPath = config.data;
    if (dataPath.empty()) {
        std::string error;
        dataPath = ensureBuiltinDataset(&error);
        if (dataPath.empty())
            throw RunError("cannot create the built-in data set: " + error);
        log(LogMessage::Level::Info, "using the built-in data set " + dataPath);
    }
    DataConfigResult loaded = loadDataConfig(dataPath);
    if (!loaded.config)
        throw RunError(formatDiagnostics(loaded.diagnostics));
    ScanOptions scan;
    scan.singleCls = config.single_cls;
    scan.fraction = config.fraction;
    auto train = std::make_shared<DatasetReport>(scanDataset(*loaded.config, Split::Train, scan));
    if (!train->usable())
        throw RunError("the training split has no usable image:\n" +
                       formatDiagnostics(train->problems));
    ScanOptions valScan;
    valScan.singleCls = config.single_cls;
    auto val = std::make_shared<DatasetReport>(scanDataset(*loaded.config, Split::Val, valScan));
    if (!val->usable()) {
        log(LogMessage::Level::Warning, "the data set has no usable validation images; "
                                        "validating on the training images");
        val = std::make_shared<DatasetReport>(*train);
        val->split = Split::Val;
    }
    names = config.single_cls ? std::vector<std::string>{"item"} : loaded.config->names;
    nc = static_cast<int>(names.size());
    trainData = train;
    valData = val;
}

void Trainer::Impl::setUp() {
    std::string launchError;
    const std::optional<LaunchEnv> env =
        launchOverride ? launchOverride : readLaunchEnv(&launchError);
    if (!env)
        throw RunError(launchError);
    launch = *env;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads =
        config.threads > 0 ? config.threads : std::max(1, cores / launch.localWorldSize);
    at::set_num_threads(threads);
    if (config.nproc > 1 && !launch.distributed())
        log(LogMessage::Level::Warning,
            "nproc " + std::to_string(config.nproc) +
                ": this process was not started as one of the workers (no RANK/WORLD_SIZE), so "
                "it trains alone; `headroom-cli train --nproc N` starts them");
    if (launch.distributed()) {
        std::string error;
        group = DataParallelGroup::connect(launch, collectiveTimeout(), &error,
                                           [this] { return abortReason(); });
        if (!group)
            throw RunError(error);
        if (config.sync_bn && leader())
            log(LogMessage::Level::Info, "sync_bn: BatchNorm statistics over the batches of all " +
                                             std::to_string(launch.worldSize) + " ranks");
        if (config.batch > 0 && config.batch % launch.worldSize != 0)
            log(LogMessage::Level::Warning,
                "batch " + std::to_string(config.batch) + " is not a multiple of the " +
                    std::to_string(launch.worldSize) + " ranks; each rank takes " +
                    std::to_string(std::max(1, config.batch / launch.worldSize)));
    }

    std::string resumeDir;
    std::string resumeCheckpoint;
    if (config.resume) {
        resumeDir = findResumeFolder(config);
        if (resumeDir.empty())
            throw RunError("resume: no run with weights/last.pt under " + config.project + "/" +
                           config.name + "*");
        c10::IValue yaml;
        resumeCheckpoint = readableCheckpoint(resumeDir + "/weights/last.pt", yaml);
        TrainConfigResult stored = parseTrainConfig(yaml.toStringRef(), resumeCheckpoint);
        if (!stored.config)
            throw RunError("resume: the checkpoint's config is unusable:\n" +
                           formatDiagnostics(stored.diagnostics));
        TrainConfig resumed = *stored.config;
        keepRuntimeSettings(resumed, config);
        config = resumed;
    }
    torch::manual_seed(static_cast<std::uint64_t>(config.seed));
    if (config.batch < 1) {
        log(LogMessage::Level::Warning,
            "batch -1 (auto-fit) is resolved by the command line or GUI; the trainer uses 16");
        config.batch = 16;
    }

    device = resolveDevice(config.device);
    if (group && device.is_cuda())
        device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(launch.localRank));
    std::string probeError;
    probe = makeProbe(device.str(), &probeError);
    if (probe) {
        // What earlier work in this process still holds (a stopped run, a calibration) is not
        // this run's: the budget counts from here.
        probe->beginSession();
        probe->setBudget(config.memory_budget);
        sampler = std::make_unique<MemorySampler>(*probe, config.memory_sample_hz);
        sampler->setCallback([this](const MemorySample& sample) {
            {
                std::lock_guard<std::mutex> lock(sampleMutex);
                pendingSamples.push_back(sample);
            }
            if (liveSamples)
                liveSamples(sample);
        });
    } else {
        log(LogMessage::Level::Warning, "no memory probe for " + device.str() + ": " + probeError);
    }

    loadData();
    ModelBuild build = buildModel(config.model, nc, config.scale);
    if (!build.model)
        throw RunError(formatDiagnostics(build.diagnostics));
    if (const std::string weights = startingWeights(config); !weights.empty() && !config.resume) {
        std::string error;
        WeightTransfer transfer;
        if (!loadWeightsInto(build.model, weights, &error, &transfer))
            throw RunError(error);
        log(LogMessage::Level::Info, transfer.summary);
        if (transfer.transferred * 2 < transfer.total)
            log(LogMessage::Level::Warning,
                "most tensors did not transfer (" + transfer.summary +
                    "): the weights were made for another architecture than " +
                    build.model->architectureName());
        if (const std::string w = classNamesMismatch(transfer.classNames, names); !w.empty())
            log(LogMessage::Level::Warning, w);
    }
    makeTrainLoader();
    const std::int64_t iterations =
        plannedIterations(config, static_cast<std::int64_t>(trainData->images.size()));
    step = std::make_unique<TrainStep>(config, build.model, nc, device, iterations);
    step->setDataParallel(group.get());
    step->setPhaseCallback([this](Phase phase) {
        if (sampler)
            sampler->setPhase(phase);
        // Stop ends within the running step: the forward/backward part of it is dropped (the
        // optimizer and EMA parts are short and leave the weights consistent). Ranks of a
        // data-parallel run must stop at the same step, so they keep the between-steps check.
        if (!group && stopRequested.load() &&
            (phase == Phase::Forward || phase == Phase::Loss || phase == Phase::Backward))
            throw StopNow{};
    });
    const OptimizerChoice& choice = step->optimizerChoice();
    schedule =
        std::make_unique<LrSchedule>(config, choice.lr, choice.warmupBiasLr, batchesPerEpoch());
    if (choice.automatic)
        log(LogMessage::Level::Info, "optimizer auto: " + choice.name +
                                         " lr=" + std::to_string(choice.lr) +
                                         " momentum=" + std::to_string(choice.momentum) + " (" +
                                         std::to_string(iterations) + " planned iterations)");

    std::string error;
    if (leader()) { // only rank 0 writes the run folder
        folder = config.resume
                     ? RunFolder::open(resumeDir, &error)
                     : RunFolder::create(config.project, config.name, config.exist_ok, &error);
        if (!folder)
            throw RunError(error);
        if (!folder->writeConfig(config))
            throw RunError(folder->error());
    }
    runDir =
        group ? group->broadcastText(folder ? folder->path() : std::string(), 0) : folder->path();
    if (config.resume) {
        loadCheckpoint(resumeCheckpoint);
        if (folder)
            folder->truncateResults(startEpoch);
        log(LogMessage::Level::Info,
            "resumed " + resumeDir + " at epoch " + std::to_string(startEpoch + 1));
    }
    if (sampler) {
        sampler->setRank(launch.rank);
        // Rank 0's samples are events (memory.csv); the others stream to their own file.
        std::string streamError;
        if (!leader() &&
            !sampler->streamCsv(runDir + "/memory.rank" + std::to_string(launch.rank) + ".csv",
                                config.resume, &streamError))
            log(LogMessage::Level::Warning,
                "rank " + std::to_string(launch.rank) + ": " + streamError);
        sampler->start();
    }
}

std::string Trainer::Impl::readableCheckpoint(const std::string& path, c10::IValue& configYaml) {
    std::error_code ec;
    std::string firstError;
    for (const std::string& candidate : {path, backupOf(path)}) {
        if (!fs::exists(candidate, ec))
            continue;
        try {
            torch::serialize::InputArchive archive;
            archive.load_from(candidate);
            archive.read("config_yaml", configYaml);
            c10::IValue value;
            archive.read("epoch", value);
            if (candidate != path) {
                // Set the damaged file aside, or the next checkpoint would make it the backup.
                fs::rename(path, path + ".damaged", ec);
                log(LogMessage::Level::Warning,
                    firstError + "; resuming from its backup " + candidate + " (epoch " +
                        std::to_string(value.toInt()) + "; the damaged file is now " + path +
                        ".damaged)");
            }
            return candidate;
        } catch (const std::exception& e) {
            if (firstError.empty())
                firstError = userMessage(e, candidate);
        }
    }
    if (firstError.empty())
        throw RunError("resume: " + path + " does not exist");
    if (fs::exists(backupOf(path), ec))
        throw RunError("resume: the checkpoint " + path + " and its backup " + backupOf(path) +
                       " are both damaged or incomplete, so start a new run (without resume)");
    throw RunError("resume: " + firstError);
}

void Trainer::Impl::saveCheckpoint(const std::string& path, int completedEpochs) {
    std::optional<OomFailure> failure;
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            if (sampler)
                sampler->setPhase(Phase::Checkpoint);
            // Serialising is host work (on a GPU it copies to host RAM): outside the budget.
            HostAllocationScope host;
            writeCheckpoint(path, completedEpochs);
            if (sampler)
                sampler->setPhase(Phase::Idle);
            return;
        } catch (const c10::Error& e) {
            if (!isOomMessage(e.what_without_backtrace()))
                throw RunError(userMessage(e, path));
            failure = OomFailure{e.what_without_backtrace(), true};
        } catch (const std::bad_alloc& e) {
            failure = OomFailure{std::string("host memory exhausted: ") + e.what(), true};
        }
        // Host RAM ran out while writing: the advisor may free some (cache, workers); then
        // the write is tried once more.
        if (attempt == 0 && !recover(*failure, Phase::Checkpoint, completedEpochs - 1, 0))
            break;
    }
    throw OomStop("out of memory while writing " + path + " (" + failure->message +
                  "); the previous checkpoint is kept. Free host memory (fewer workers, "
                  "cache=none) and resume.");
}

void Trainer::Impl::writeCheckpoint(const std::string& path, int completedEpochs) {
    torch::serialize::OutputArchive archive;
    step->save(archive, names);
    archive.write("format", c10::IValue(std::string("headroom-checkpoint-1")));
    archive.write("epoch", c10::IValue(static_cast<std::int64_t>(completedEpochs)));
    archive.write("global_step", c10::IValue(globalStep));
    archive.write("best_fitness", c10::IValue(bestFitness));
    archive.write("best_epoch", c10::IValue(static_cast<std::int64_t>(bestEpoch)));
    archive.write("best_map50", c10::IValue(bestMap50));
    archive.write("best_map", c10::IValue(bestMap));
    archive.write("config_yaml", c10::IValue(toYaml(config)));
    std::ostringstream bytes;
    archive.save_to(bytes);
    // Keep the previous checkpoint as the backup (a hard link: no copy, and no moment without
    // a complete last.pt or backup) before the new one replaces it.
    std::error_code ec;
    if (fs::exists(path, ec)) {
        const std::string backup = backupOf(path);
        const std::string staging = backup + ".tmp";
        fs::remove(staging, ec);
        fs::create_hard_link(path, staging, ec);
        if (ec)
            fs::copy_file(path, staging, fs::copy_options::overwrite_existing, ec);
        if (!ec)
            fs::rename(staging, backup, ec);
    }
    std::string error;
    if (!writeFileAtomically(path, bytes.str(), &error))
        throw RunError(userText("cannot write the checkpoint: " + error, path));
}

void Trainer::Impl::saveOptimizerShard() {
    torch::serialize::OutputArchive archive;
    step->saveOptimizerShard(archive);
    std::ostringstream bytes;
    archive.save_to(bytes);
    std::string error;
    if (!writeFileAtomically(shardPath(), bytes.str(), &error))
        log(LogMessage::Level::Warning, "rank " + std::to_string(launch.rank) +
                                            ": cannot write its optimizer shard (" + error +
                                            "); a resumed run restarts it");
}

void Trainer::Impl::loadCheckpoint(const std::string& path) {
    torch::serialize::InputArchive archive;
    archive.load_from(path, device);
    step->load(archive);
    if (step->ownsSeparateOptimizerShard()) {
        std::error_code ec;
        if (fs::exists(shardPath(), ec)) {
            torch::serialize::InputArchive shard;
            shard.load_from(shardPath(), device);
            step->loadOptimizerShard(shard);
        } else {
            log(LogMessage::Level::Warning, "rank " + std::to_string(launch.rank) +
                                                ": no optimizer shard " + shardPath() +
                                                "; its optimizer state starts afresh");
        }
    }
    c10::IValue value;
    archive.read("epoch", value);
    startEpoch = static_cast<int>(value.toInt());
    completedEpochs = startEpoch;
    archive.read("global_step", value);
    globalStep = value.toInt();
    archive.read("best_fitness", value);
    bestFitness = value.toDouble();
    archive.read("best_epoch", value);
    bestEpoch = static_cast<int>(value.toInt());
    archive.read("best_map50", value);
    bestMap50 = value.toDouble();
    archive.read("best_map", value);
    bestMap = value.toDouble();
}

void Trainer::Impl::fillSnapshot(OomReport& report, const OomFailure& failure) {
    report.breakdown = step ? step->residentMemory() : MemoryBreakdown{};
    report.breakdown.batchData = failure.hostMemory ? 0 : failedBatchBytes;
    report.requestedBytes = parseRequestedBytes(failure.message);
    if (probe) {
        report.budgetBytes = probe->budget() > 0 ? probe->budget() : probe->capacity();
        const AllocationFailure snap = probe->lastFailure();
        if (snap.serial != 0 && snap.serial != lastFailureSerial && !failure.hostMemory) {
            // The refusal this failure came from: every figure from that one moment.
            lastFailureSerial = snap.serial;
            report.requestedBytes = snap.requested;
            report.allocatedBytes = snap.allocated;
            report.peakBytes = snap.peak;
            report.budgetBytes = snap.budget;
        } else {
            // No snapshot (CUDA, host RAM): the allocator's message names what was in use;
            // the probe's figures come after the failed step released its memory.
            report.allocatedBytes = parseAllocatedBytes(failure.message);
            if (report.allocatedBytes == 0)
                report.allocatedBytes = probe->allocated();
            report.peakBytes = std::max(probe->peak(), report.allocatedBytes);
            if (report.requestedBytes == 0)
                report.requestedBytes = probe->lastFailedRequest();
        }
    }
    // The bars add up to what the failed moment needed: in use + the refused request (or the
    // step's peak before it, when higher).
    attributePeak(report.breakdown,
                  std::max(report.peakBytes, report.allocatedBytes + report.requestedBytes));
}

std::string Trainer::Impl::budgetTooSmall(const std::string& held) {
    const std::int64_t budget = config.memory_budget;
    if (budget <= 0)
        return {};
    std::int64_t works = 0;
    if (minimumBudget) {
        if (probe)
            probe->setBudget(0); // the estimator's probe steps measure without the budget
        try {
            works = minimumBudget(config);
        } catch (const std::exception&) {
            works = 0;
        }
        if (probe)
            probe->setBudget(budget);
    }
    const std::string what = config.model + " at " + std::to_string(config.imgsz) + " px";
    if (works > budget) {
        const std::int64_t mib = std::int64_t(1) << 20;
        return "memory_budget " + formatBytes(budget) + " is too small for " + what +
               " whatever the batch, AMP, checkpointing or image size: set memory_budget=" +
               std::to_string((works + mib - 1) / mib) +
               "MiB or more (or use a smaller model) and start again.";
    }
    if (held.empty())
        return {};
    return "memory_budget " + formatBytes(budget) + " is too small: " + held + " of " + what +
           " do not fit in it, so raise memory_budget (or remove it) and start again.";
}

bool Trainer::Impl::recover(const OomFailure& failure, Phase phase, int epoch, int batch) {
    // Whatever the failed step held is gone with the unwound stack; drop the gradients of the
    // broken accumulation group too and give cached blocks back.
    step->resetAccumulation();
#ifdef HEADROOM_WITH_CUDA
    if (device.is_cuda())
        c10::cuda::CUDACachingAllocator::emptyCache();
#endif
    OomReport report;
    report.phase = phase;
    report.rawMessage = userText(failure.message);
    report.hostMemory = failure.hostMemory;
    report.config = config;
    report.epoch = epoch;
    report.batch = batch;
    report.device = device.str();
    fillSnapshot(report, failure);
    if (sampler) {
        const MemorySample mark = sampler->markOom(phase, report.allocatedBytes, report.peakBytes);
        report.seconds = mark.seconds;
        report.timeline = sampler->timelineSince(5.0);
    }
    drainSamples();
    emit(OomOccurred{report});
    if (folder)
        folder->writeOomReport(report);
    if (++oomsWithoutProgress > 8) {
        if (const std::string why = budgetTooSmall(); !why.empty())
            throw OomStop(why);
    }
    if (oomsWithoutProgress > 8)
        throw OomStop("out of memory " + std::to_string(oomsWithoutProgress - 1) +
                      " times in a row without a completed step; giving up");
    const OomDecision decision = decideFix(report, phase);
    if (decision.stop) {
        // A person who stopped the run (or closed the studio) wants it ended now, not an
        // estimate of the smallest budget first.
        if (!stopRequested)
            if (const std::string why = budgetTooSmall(); !why.empty())
                throw OomStop(why);
        return false;
    }
    const Diagnostics problems = hr::validate(decision.config, "fix " + decision.fixId);
    if (hasErrors(problems))
        throw RunError("the fix '" + decision.fixId + "' gave an invalid config:\n" +
                       formatDiagnostics(problems));
    applyFix(decision, epoch, batch);
    if (probe)
        probe->resetPeak();
    return true;
}

OomDecision Trainer::Impl::decideFix(const OomReport& report, Phase phase) {
    // Validation runs on rank 0 alone, so its fixes are rank 0's alone too.
    if (!group || phase == Phase::Validation || validating) {
        OomDecision decision = oomHandler ? oomHandler(report) : OomDecision{};
        if (group && !decision.stop)
            validationFix = decision;
        return decision;
    }
    std::string text;
    if (leader() && oomHandler)
        text = encodeDecision(oomHandler(report));
    return decodeDecision(group->broadcastText(text, 0));
}

void Trainer::Impl::applyFix(const OomDecision& decision, int epoch, int batch) {
    const TrainConfig previous = config;
    config = decision.config;
    // Process-level settings are not the fix's to change.
    config.resume = previous.resume;
    if (config.memory_budget != previous.memory_budget && probe)
        probe->setBudget(config.memory_budget);
    if (!sameTrainLoader(previous, config)) {
        makeTrainLoader();
        schedule->setBatch(config.batch, batchesPerEpoch());
    }
    if (!sameValLoader(previous, config))
        valLoader.reset(); // rebuilt at the next validation
    step->applyConfig(config);
    if (folder)
        folder->writeConfig(config);
    FixApplied applied;
    applied.fixId = decision.fixId;
    applied.description = decision.description;
    applied.config = config;
    applied.predictedPeak = decision.predictedPeak;
    applied.epoch = epoch;
    applied.batch = batch;
    emit(applied);
    double seconds = 0;
    std::int64_t images = 0;
    for (const auto& [stepSeconds, stepImages] : recentSteps) {
        seconds += stepSeconds;
        images += stepImages;
    }
    fixCheck = FixCheck{};
    fixCheck.active = true;
    fixCheck.fixId = decision.fixId;
    fixCheck.predicted = decision.predictedPeak;
    fixCheck.correction = decision.speedCorrection;
    if (images > 0 && decision.speedFactor > 0)
        fixCheck.predictedPerImage = seconds / double(images) * decision.speedFactor;
    recentSteps.clear();
    peakSinceFix = 0;
}

Trainer::Impl::EpochOutcome Trainer::Impl::trainEpoch(int epoch, EpochEnd& result) {
    int nb = batchesPerEpoch();
    int batchSize = config.batch;
    // Per-batch loss items, so a redone group replaces its entries.
    std::vector<std::array<double, 3>> items;
    std::int64_t images = 0;
    double trainSeconds = 0;
    trainLoader->startEpoch(epoch);
    int index = 0;      // next batch of this epoch
    int groupStart = 0; // first batch of the open accumulation group
    bool positioned = true;
    const auto epochStart = Clock::now();
    while (index < nb) {
        waitWhilePaused();
        throwIfAborted();
        if (stopAgreed())
            return EpochOutcome::Stopped;
        if (!positioned) {
            // Restart the epoch's batch order at `index` (same order, seed + epoch); the
            // batches before it are not built again.
            trainLoader->startEpoch(epoch, index);
            positioned = true;
        }
        const LrSchedule::Point point = schedule->at(epoch, index);
        step->setSchedule({point.lr, point.momentum, point.accumulate});
        const auto t0 = Clock::now();
        Batch batch;
        std::optional<OomFailure> failure;
        Phase failedPhase = Phase::Idle;
        if (!trainLoader->next(batch)) {
            if (trainLoader->error().empty())
                break;
            if (!trainLoader->errorIsOutOfMemory())
                throw RunError(trainLoader->error());
            // Host RAM ran out while a worker assembled a batch: an OOM like any other.
            failure = OomFailure{trainLoader->error(), true};
            failedPhase = Phase::Loader;
        }
        const double waitSeconds = secondsSince(t0);
        StepOutput out;
        if (!failure) {
            failedBatchBytes = batch.bytes();
            try {
                out = step->step(batch);
            } catch (const StopNow&) {
                return EpochOutcome::Stopped;
            } catch (...) {
                failure = oomFailureOfCurrentException();
            }
            if (failure)
                failedPhase = step->currentPhase();
        }
        if (failure) {
            batch = Batch{};
            if (!recover(*failure, failedPhase, epoch, index)) {
                releaseBudget();
                if (folder)
                    saveCheckpoint(folder->lastWeights(), epoch);
                throw OomStop("out of memory in the " + std::string(toString(failedPhase)) +
                              " phase of epoch " + std::to_string(epoch + 1) + ", batch " +
                              std::to_string(index + 1) + " (" + userText(failure->message) +
                              "); no fix was chosen. The last weights are in " +
                              (folder ? folder->lastWeights() : std::string("rank 0's run")) +
                              "; lower batch or imgsz, or set on_oom=auto, and resume.");
            }
            // Redo the broken accumulation group, at the new batch size when it changed.
            const int restart = static_cast<int>(static_cast<std::int64_t>(groupStart) * batchSize /
                                                 std::max(config.batch, 1));
            nb = batchesPerEpoch();
            batchSize = config.batch;
            items.resize(std::min<size_t>(items.size(), static_cast<size_t>(restart)));
            index = restart;
            groupStart = restart;
            positioned = false;
            continue;
        }
        oomsWithoutProgress = 0;
        notePeak();
        if (out.optimizerStepped)
            groupStart = index + 1;
        if (items.size() <= static_cast<size_t>(index))
            items.resize(static_cast<size_t>(index) + 1);
        items[static_cast<size_t>(index)] = out.items;
        images += out.images;
        const double stepSeconds = secondsSince(t0);
        trainSeconds += stepSeconds;
        noteStepTime(stepSeconds, out.images);
        secondsPerBatch =
            secondsPerBatch == 0 ? stepSeconds : 0.9 * secondsPerBatch + 0.1 * stepSeconds;
        ++index;
        ++globalStep;
        (void)waitSeconds;

        drainSamples();
        BatchEnd end;
        end.epoch = epoch;
        end.batch = index - 1;
        end.batchesPerEpoch = nb;
        end.step = globalStep;
        std::array<double, 3> sum{0, 0, 0};
        for (const auto& it : items)
            for (int k = 0; k < 3; ++k)
                sum[k] += it[k];
        const double n = static_cast<double>(std::max<size_t>(items.size(), 1));
        end.boxLoss = sum[0] / n;
        end.clsLoss = sum[1] / n;
        end.dflLoss = sum[2] / n;
        end.lr = point.lr[0];
        end.imagesPerSecond = trainSeconds > 0 ? images / trainSeconds : 0;
        const double remaining = (nb - index) + static_cast<double>(config.epochs - epoch - 1) * nb;
        end.etaSeconds = remaining * secondsPerBatch;
        end.peakBytes = epochPeak;
        emit(end);
        result.boxLoss = end.boxLoss;
        result.clsLoss = end.clsLoss;
        result.dflLoss = end.dflLoss;
    }
    const auto lr = step->schedule().lr;
    result.lr0 = lr[0];
    result.lr1 = lr[1];
    result.lr2 = lr[2];
    const double seconds = secondsSince(epochStart);
    result.imagesPerSecond = seconds > 0 ? images / seconds : 0;
    return EpochOutcome::Done;
}

MetricsResult Trainer::Impl::validate(int epoch, EpochEnd& result) {
    validating = true;
    struct Done {
        bool& flag;
        ~Done() { flag = false; }
    } done{validating};
    for (;;) {
        if (!valLoader)
            makeValLoader();
        MetricsAccumulator metrics(nc);
        std::array<double, 3> sum{0, 0, 0};
        int batches = 0;
        std::optional<OomFailure> failure;
        notePeak(); // what training held so far is the training peak's
        Phase failedPhase = Phase::Validation;
        try {
            valLoader->startEpoch(0);
            Batch batch;
            while (valLoader->next(batch)) {
                throwIfAborted();
                if (!group && stopRequested) {
                    // The epoch's training is complete and will be saved; its metrics are not.
                    log(LogMessage::Level::Info,
                        "stopped: validation of epoch " + std::to_string(epoch + 1) + " skipped");
                    valLoader->stop();
                    result.valPeakBytes = 0;
                    validationSkipped = true;
                    return MetricsResult{};
                }
                failedBatchBytes = batch.bytes();
                const ValidationOutput out = step->validateBatch(batch, &metrics);
                for (int k = 0; k < 3; ++k)
                    sum[k] += out.items[k];
                ++batches;
                if (probe)
                    result.valPeakBytes = std::max(result.valPeakBytes, probe->peak());
                notePeak();
                drainSamples();
            }
            if (!valLoader->error().empty()) {
                if (!valLoader->errorIsOutOfMemory())
                    throw RunError("validation " + valLoader->error());
                failure = OomFailure{valLoader->error(), true};
                failedPhase = Phase::Loader;
            }
        } catch (...) {
            failure = oomFailureOfCurrentException();
        }
        if (failure) {
            valLoader->stop();
            if (!recover(*failure, failedPhase, epoch, batches)) {
                releaseBudget();
                saveCheckpoint(folder->lastWeights(), epoch + 1);
                throw OomStop("out of memory during validation of epoch " +
                              std::to_string(epoch + 1) + " (" + userText(failure->message) +
                              "); no fix was chosen. Lower val_batch and resume.");
            }
            continue; // validate again from the start with the fixed config
        }
        oomsWithoutProgress = 0;
        const double n = std::max(batches, 1);
        result.valBoxLoss = sum[0] / n;
        result.valClsLoss = sum[1] / n;
        result.valDflLoss = sum[2] / n;
        return metrics.compute();
    }
}

int Trainer::Impl::runImpl() {
    try {
        setUp();
    } catch (const std::exception& e) {
        // The model, its optimizer state and EMA copy do not fit before any step ran (the
        // model builder reports a refused allocation as a diagnostic, not as an OOM).
        if (!isOomMessage(e.what()))
            throw;
        std::string why = budgetTooSmall("the weights, optimizer state and EMA copy");
        if (why.empty())
            why = "out of memory while setting up the run (" + userMessage(e) +
                  "): the model does not fit, so raise memory_budget or use a smaller model.";
        throw OomStop(why);
    }
    {
        RunStarted started;
        started.runDir = folder ? folder->path() : std::string();
        started.config = config;
        started.parameters = step->model()->parameterCount();
        started.startEpoch = startEpoch;
        started.batchesPerEpoch = batchesPerEpoch();
        emit(started);
    }
    RunFinished finished;
    finished.runDir = folder ? folder->path() : std::string();
    int epoch = startEpoch;
    for (; epoch < config.epochs; ++epoch) {
        EpochEnd result;
        result.epoch = epoch;
        result.epochs = config.epochs;
        epochPeak = 0;
        if (probe)
            probe->resetPeak();
        const auto start = Clock::now();
        if (trainEpoch(epoch, result) == EpochOutcome::Stopped) {
            // The epoch is incomplete: last.pt keeps the previous epoch's end.
            finished.stoppedByUser = true;
            break;
        }
        const bool finalEpoch = epoch + 1 == config.epochs;
        if ((config.val || finalEpoch) && leader()) { // rank 0 validates
            const MetricsResult metrics = validate(epoch, result);
            if (validationSkipped) {
                if (folder)
                    saveCheckpoint(folder->lastWeights(), epoch + 1);
                finished.stoppedByUser = true;
                ++epoch;
                break;
            }
            result.precision = metrics.precision;
            result.recall = metrics.recall;
            result.map50 = metrics.map50;
            result.map = metrics.map;
            const double fitness = metrics.fitness();
            if (fitness >= bestFitness) {
                bestFitness = fitness;
                bestEpoch = epoch;
                bestMap50 = metrics.map50;
                bestMap = metrics.map;
                result.best = true;
            }
        }
        result.epochSeconds = secondsSince(start);
        result.peakBytes = epochPeak;
        if (group) {
            if (epoch == startEpoch) {
                const auto [buckets, overlapped] = step->gradientBuckets();
                log(LogMessage::Level::Info,
                    std::to_string(group->size()) + " ranks: gradients all-reduced in " +
                        std::to_string(buckets) + " buckets, " + std::to_string(overlapped) +
                        " of them launched during backward" +
                        (config.zero == 1 ? "; optimizer state sharded (zero 1)" : ""));
            }
            // Early stopping follows rank 0's validation on every rank.
            torch::Tensor best = torch::full({1}, static_cast<std::int64_t>(bestEpoch));
            group->broadcast(best, 0);
            bestEpoch = static_cast<int>(best.item<std::int64_t>());
            // A fix from rank 0's validation (batch, imgsz, ...) applies to every rank.
            const std::string fix = group->broadcastText(
                leader() && validationFix ? encodeDecision(*validationFix) : std::string(), 0);
            if (!leader() && !fix.empty())
                applyFix(decodeDecision(fix), epoch, 0);
            validationFix.reset();
        }
        if (folder)
            saveCheckpoint(folder->lastWeights(), epoch + 1);
        else if (step->ownsSeparateOptimizerShard())
            saveOptimizerShard();
        completedEpochs = epoch + 1;
        if (result.best && folder) {
            std::error_code ec;
            fs::copy_file(folder->lastWeights(), folder->bestWeights() + ".tmp",
                          fs::copy_options::overwrite_existing, ec);
            if (!ec)
                fs::rename(folder->bestWeights() + ".tmp", folder->bestWeights(), ec);
            if (ec)
                log(LogMessage::Level::Warning, "cannot write best.pt: " + ec.message());
        }
        if (const int unreadable = trainLoader->loadFailures(); unreadable > loadFailuresSeen) {
            log(LogMessage::Level::Warning,
                std::to_string(unreadable - loadFailuresSeen) +
                    " image(s) could not be read this epoch and were replaced by grey images: "
                    "they were moved, deleted or damaged while training. Put them back, or "
                    "check the data set (headroom-cli data check) before the next run.");
            loadFailuresSeen = unreadable;
        }
        if (folder && !folder->writeEpoch(result))
            log(LogMessage::Level::Warning, "cannot write results.csv: " + folder->error());
        drainSamples();
        emit(result);
        if (fixCheck.active) {
            fixCheck.epochEnded = true;
            if (fixCheck.steps >= kFixCheckSteps)
                emitFixCheck();
        }
        if (bestEpoch >= 0 && epoch - bestEpoch >= config.patience && !finalEpoch) {
            log(LogMessage::Level::Info,
                "stopping early: no improvement in the last " + std::to_string(config.patience) +
                    " epochs; the best was epoch " + std::to_string(bestEpoch + 1));
            finished.stoppedEarly = true;
            ++epoch;
            break;
        }
        if (stopAgreed()) {
            finished.stoppedByUser = true;
            ++epoch;
            break;
        }
    }
    if (sampler)
        sampler->stop();
    releaseBudget();
    drainSamples();
    if (fixCheck.active && fixCheck.epochEnded)
        emitFixCheck(); // the run ended before kFixCheckSteps timed steps: what there is
    finished.epochsDone = epoch;
    finished.map50 = bestMap50;
    finished.map = bestMap;
    finished.state = finished.stoppedByUser ? RunState::Stopped : RunState::Finished;
    emit(finished);
    if (folder)
        folder->flush();
    return 0;
}

Trainer::Trainer(TrainConfig config, EventSink sink)
    : d(std::make_unique<Impl>(std::move(config), std::move(sink))) {}

Trainer::~Trainer() = default;

int Trainer::run() {
    RunState state = RunState::Failed;
    std::string reason;
    try {
        return d->runImpl();
    } catch (const OomStop& e) {
        state = RunState::StoppedByOom;
        reason = userMessage(e);
    } catch (const std::exception& e) {
        reason = userMessage(e);
    } catch (const StopNow&) {
        reason = "stopped"; // cannot happen: trainEpoch catches it
    }
    if (d->sampler)
        d->sampler->stop();
    d->releaseBudget();
    d->drainSamples();
    d->emit(RunFailed{reason, state});
    RunFinished finished;
    finished.runDir = d->folder ? d->folder->path() : std::string();
    finished.state = state;
    finished.reason = reason;
    finished.map50 = d->bestMap50;
    finished.map = d->bestMap;
    finished.epochsDone = d->completedEpochs;
    d->emit(finished);
    if (d->folder)
        d->folder->flush();
    return 1;
}

void Trainer::requestPause(bool paused) {
    {
        std::lock_guard<std::mutex> lock(d->pauseMutex);
        d->paused = paused;
    }
    d->pauseChanged.notify_all();
}

void Trainer::requestStop() {
    {
        std::lock_guard<std::mutex> lock(d->pauseMutex);
        d->stopRequested = true;
    }
    d->pauseChanged.notify_all();
}

void Trainer::abort(const std::string& reason) {
    {
        std::lock_guard<std::mutex> lock(d->abortMutex);
        d->abortText = reason;
    }
    d->aborted = true;
    requestStop();
}

void Trainer::abortFromSignal(int signal) {
    d->abortSignal = signal;
    d->aborted = true;
    d->stopRequested = true;
}

void Trainer::setOomHandler(OomHandler handler) {
    d->oomHandler = std::move(handler);
}

void Trainer::setLiveSampleSink(LiveSampleSink sink) {
    d->liveSamples = std::move(sink);
}

void Trainer::setMinimumBudget(MinimumBudget minimum) {
    d->minimumBudget = std::move(minimum);
}

void Trainer::setLaunch(const LaunchEnv& launch) {
    d->launchOverride = launch;
}

} // namespace hr
