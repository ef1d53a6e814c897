// SPDX-License-Identifier: GPL-3.0-or-later
// Setting a run up: the ranks, the data set, the model, the loaders, the run folder.
#include "train/trainer_impl.h"

#include "config/train_rules.h"
#include "config/weights_source.h"
#include "data/synthetic_dataset.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "train/compute_threads.h"
#include "train/device_name.h"
#include "util/user_message.h"

#include <filesystem>
#include <set>
#include <stdexcept>

namespace hr {

namespace {

/// The scan's `label_binary` warnings of both splits, each file once.
std::vector<const Diagnostic*> binaryLabels(const DatasetReport& train, const DatasetReport& val) {
    std::vector<const Diagnostic*> out;
    std::set<std::string> seen;
    for (const DatasetReport* report : {&train, &val})
        for (const Diagnostic& d : report->problems)
            if (d.code == "label_binary" && seen.insert(d.file).second)
                out.push_back(&d);
    return out;
}

/// A scan that stopped at its file limit, unconfirmed, ends the run with its one sentence.
void failOnLargeScan(const DatasetReport& report) {
    if (const Diagnostic* large = largeScanProblem(report))
        throw RunError(large->toString(), "scan_too_large",
                       {large->file, large->args.at(0), large->args.at(1)});
}

} // namespace

std::function<bool(int, int)> Trainer::Impl::scanProgress(const std::string& split) {
    const auto started = Clock::now();
    auto shown = started;
    return [this, split, started, shown](int done, int total) mutable {
        const auto now = Clock::now();
        if (now - started >= std::chrono::seconds(1) && now - shown >= std::chrono::seconds(1)) {
            shown = now;
            log(LogMessage::Level::Info,
                "scanning the " + split + " images: " + std::to_string(done) + " of " +
                    std::to_string(total),
                LogCode::Scanning, {split, std::to_string(done), std::to_string(total)});
        }
        return true;
    };
}

void Trainer::Impl::loadData() {
    std::string dataPath = config.data;
    if (dataPath.empty()) {
        std::string error;
        dataPath = ensureBuiltinDataset(&error);
        if (dataPath.empty())
            throw RunError("cannot create the built-in data set: " + error, "builtin_data",
                           {error});
        log(LogMessage::Level::Info, "using the built-in data set " + dataPath,
            LogCode::BuiltinData, {dataPath});
    }
    DataConfigResult loaded = loadDataConfig(dataPath);
    if (!loaded.config)
        throw RunError(formatDiagnostics(loaded.diagnostics), "data_config",
                       diagnosticArgs(loaded.diagnostics));
    ScanOptions scan;
    scan.singleCls = config.single_cls;
    scan.fraction = config.fraction;
    scan.largeScanConfirmed = largeScanConfirmed;
    scan.progress = scanProgress("training");
    auto train = std::make_shared<DatasetReport>(scanDataset(*loaded.config, Split::Train, scan));
    failOnLargeScan(*train);
    if (!train->usable())
        throw RunError("the training split has no usable image:\n" +
                           formatDiagnostics(train->problems),
                       "no_train_images", diagnosticArgs(train->problems));
    ScanOptions valScan;
    valScan.singleCls = config.single_cls;
    valScan.largeScanConfirmed = largeScanConfirmed;
    valScan.progress = scanProgress("validation");
    auto val = std::make_shared<DatasetReport>(scanDataset(*loaded.config, Split::Val, valScan));
    failOnLargeScan(*val);
    if (!val->usable()) {
        log(LogMessage::Level::Warning,
            "the data set has no usable validation images; validating on the training images",
            LogCode::NoValImages, {});
        val = std::make_shared<DatasetReport>(*train);
        val->split = Split::Val;
    }
    if (machineCheck) {
        // After the scan: the check's memory prediction reads the data set, from its cache now.
        const Diagnostics problems =
            machineCheck(config, config.single_cls ? 1 : loaded.config->nc());
        if (hasErrors(problems))
            throw RunError(formatDiagnostics(problems), "machine_limits", diagnosticArgs(problems));
    }
    if (const auto binary = binaryLabels(*train, *val); !binary.empty()) {
        // The scan's own warning, once, for the person who never ran data-check.
        const Diagnostic& first = *binary.front();
        const std::string line = std::to_string(first.line);
        const std::string more = std::to_string(binary.size() - 1);
        log(LogMessage::Level::Warning,
            first.file + ":" + line + ": " + first.message + " (fix: " + first.fix + ")" +
                (binary.size() > 1 ? "; " + more +
                                         " more label files hold binary data too (headroom-cli "
                                         "data-check lists them)"
                                   : std::string()),
            LogCode::LabelBinary, {first.file, line, more});
    }
    names = config.single_cls ? std::vector<std::string>{"item"} : loaded.config->names;
    nc = static_cast<int>(names.size());
    trainData = train;
    valData = val;
}

void Trainer::Impl::connectRanks() {
    std::string launchError;
    const std::optional<LaunchEnv> env =
        launchOverride ? launchOverride : readLaunchEnv(&launchError);
    if (!env)
        throw RunError(launchError, "launch_env", {launchError});
    launch = *env;
    useComputeThreads(config.threads, launch.localWorldSize);
    if (config.nproc > 1 && !launch.distributed())
        log(LogMessage::Level::Warning,
            "nproc " + std::to_string(config.nproc) +
                ": this process was not started as one of the workers (no RANK/WORLD_SIZE), so "
                "it trains alone; `headroom-cli train --nproc N` starts them",
            LogCode::NprocAlone, {std::to_string(config.nproc)});
    if (launch.distributed()) {
        std::string error;
        std::vector<std::string> errorArgs;
        group = DataParallelGroup::connect(
            launch, collectiveTimeout(), &error, [this] { return abortReason(); }, &errorArgs);
        if (!group)
            throw RunError(error, "rank_connect", errorArgs);
        if (config.sync_bn && leader())
            log(LogMessage::Level::Info,
                "sync_bn: BatchNorm statistics over the batches of all " +
                    std::to_string(launch.worldSize) + " ranks",
                LogCode::SyncBn, {std::to_string(launch.worldSize)});
        if (config.batch > 0 && config.batch % launch.worldSize != 0)
            log(LogMessage::Level::Warning,
                "batch " + std::to_string(config.batch) + " is not a multiple of the " +
                    std::to_string(launch.worldSize) + " ranks; each rank takes " +
                    std::to_string(rankBatch(config.batch, launch.worldSize)),
                LogCode::BatchNotMultiple,
                {std::to_string(config.batch), std::to_string(launch.worldSize),
                 std::to_string(rankBatch(config.batch, launch.worldSize))});
    }
}

void Trainer::Impl::loadStartingWeights(DetectionModel& model) {
    const std::string weights = startingWeights(config);
    if (weights.empty() || config.resume)
        return;
    std::string error;
    WeightTransfer transfer;
    if (!loadWeightsInto(model, weights, &error, &transfer))
        throw RunError(error, "weights_load", {weights, error});
    const std::string file = std::filesystem::path(weights).filename().string();
    log(LogMessage::Level::Info, transfer.summary, LogCode::Transferred,
        {std::to_string(transfer.transferred), std::to_string(transfer.total), file});
    if (transfer.transferred * 2 < transfer.total)
        log(LogMessage::Level::Warning,
            "most tensors did not transfer (" + transfer.summary +
                "): the weights were made for another architecture than " +
                model->architectureName(),
            LogCode::TransferMostlyFailed,
            {std::to_string(transfer.transferred), std::to_string(transfer.total), file,
             model->architectureName()});
    if (const std::string w = classNamesMismatch(transfer.classNames, names); !w.empty())
        log(LogMessage::Level::Warning,
            w + "; the class layers learn the data set's classes from scratch where the "
                "counts differ, and keep the checkpoint's meaning where they agree",
            LogCode::ClassNamesDiffer,
            {classNamesPreview(transfer.classNames), classNamesPreview(names)});
}

void Trainer::Impl::onPhase(Phase phase) {
    if (sampler)
        sampler->setPhase(phase);
    hostFault.enter(phase);
    // Stop ends within the running step: the forward/backward part of it is dropped (the
    // optimizer and EMA parts are short and leave the weights consistent). Ranks of a
    // data-parallel run must stop at the same step, so they keep the between-steps check.
    if (!group && stopRequested.load() &&
        (phase == Phase::Forward || phase == Phase::Loss || phase == Phase::Backward))
        throw StopNow{};
}

void Trainer::Impl::setUp() {
    connectRanks();

    // Stored absolute, so that a resume from any folder finds the same files.
    makePathsAbsolute(config);
    std::string resumeDir;
    const std::string resumeCheckpoint = config.resume ? prepareResume(resumeDir) : std::string();
    torch::manual_seed(static_cast<std::uint64_t>(config.seed));
    if (config.batch < 1) {
        log(LogMessage::Level::Warning,
            "batch -1 (auto-fit) is resolved by the command line or GUI; the trainer uses 16",
            LogCode::BatchAuto, {});
        config.batch = 16;
    }

    try {
        device = resolveDevice(config.device);
    } catch (const std::invalid_argument& e) {
        throw RunError(e.what(), "device", {config.device, e.what()});
    }
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
        log(LogMessage::Level::Warning, "no memory probe for " + device.str() + ": " + probeError,
            LogCode::NoProbe, {device.str(), probeError});
    }

    loadData();
    ModelBuild build = buildModel(config.model, nc, config.model_scale);
    if (!build.model)
        throw RunError(formatDiagnostics(build.diagnostics), "model_build",
                       argsWithDiagnostics({config.model}, build.diagnostics));
    loadStartingWeights(build.model);
    makeTrainLoader();
    const std::int64_t iterations =
        plannedIterations(config, static_cast<std::int64_t>(trainData->images.size()));
    step = std::make_unique<TrainStep>(config, build.model, nc, device, iterations);
    step->setDataParallel(group.get());
    step->setPhaseCallback([this](Phase phase) { onPhase(phase); });
    const OptimizerChoice& choice = step->optimizerChoice();
    schedule =
        std::make_unique<LrSchedule>(config, choice.lr, choice.warmupBiasLr, batchesPerEpoch());
    if (choice.automatic)
        log(LogMessage::Level::Info,
            "optimizer auto: " + choice.name + " lr=" + std::to_string(choice.lr) +
                " momentum=" + std::to_string(choice.momentum) + " (" + std::to_string(iterations) +
                " planned iterations)",
            LogCode::OptimizerAuto,
            {choice.name, std::to_string(choice.lr), std::to_string(choice.momentum),
             std::to_string(iterations)});

    std::string error;
    if (leader()) { // only rank 0 writes the run folder
        long writer = 0;
        folder = config.resume ? RunFolder::open(resumeDir, &error, &writer)
                               : RunFolder::create(config.project, config.name, config.exist_ok,
                                                   &error, &writer);
        if (!folder && writer != 0)
            throw RunError(error, "run_folder_busy",
                           {config.resume ? resumeDir : config.project + "/" + config.name,
                            writer > 0 ? std::to_string(writer) : std::string("?")});
        if (!folder)
            throw RunError(error, "run_folder", {error});
        if (!folder->writeConfig(config))
            throw RunError(folder->error(), "run_folder", {folder->error()});
    }
    runDir =
        group ? group->broadcastText(folder ? folder->path() : std::string(), 0) : folder->path();
    if (config.resume) {
        loadCheckpoint(resumeCheckpoint);
        if (folder && !folder->truncateResults(startEpoch))
            throw RunError(userText(folder->error()), "run_folder", {folder->error()});
        log(LogMessage::Level::Info,
            "resumed " + resumeDir + " at epoch " + std::to_string(startEpoch + 1),
            LogCode::Resumed, {resumeDir, std::to_string(startEpoch + 1)});
    }
    if (sampler) {
        sampler->setRank(launch.rank);
        // Rank 0's samples are events (memory.csv); the others stream to their own file.
        std::string streamError;
        if (!leader() &&
            !sampler->streamCsv(runDir + "/memory.rank" + std::to_string(launch.rank) + ".csv",
                                config.resume, &streamError))
            log(LogMessage::Level::Warning,
                "rank " + std::to_string(launch.rank) + ": " + streamError,
                LogCode::RankMemoryStream, {std::to_string(launch.rank), streamError});
        sampler->start();
    }
}

} // namespace hr
