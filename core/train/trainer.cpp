// SPDX-License-Identifier: GPL-3.0-or-later
// The run: its epochs, training and validation loops, and the Trainer's interface. Set-up,
// resume, the checkpoint file, OOM recovery and the fix broadcast have files of their own.
#include "train/trainer_impl.h"

#include "eval/metrics_accumulator.h"
#include "model/detection_model.h"
#include "results/validation_results.h"
#include "util/user_message.h"

#include <filesystem>

namespace hr {

namespace {

namespace fs = std::filesystem;

} // namespace

Trainer::Impl::EpochOutcome Trainer::Impl::trainEpoch(int epoch, EpochEnd& result) {
    EpochProgress progress;
    progress.batches = batchesPerEpoch();
    progress.batchSize = config.batch;
    trainLoader->startEpoch(epoch);
    const auto epochStart = Clock::now();
    while (progress.index < progress.batches) {
        waitWhilePaused();
        throwIfAborted();
        throwIfWriteFailed();
        if (stopAgreed())
            return EpochOutcome::Stopped;
        if (!progress.positioned) {
            // Restart the epoch's batch order at `index` (same order, seed + epoch); the
            // batches before it are not built again.
            trainLoader->startEpoch(epoch, progress.index);
            progress.positioned = true;
        }
        const int index = progress.index;
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
                throw RunError(trainLoader->error(), "data_loader", {trainLoader->error()});
            // Host RAM ran out while a worker assembled a batch: an OOM like any other.
            failure = OomFailure{trainLoader->error(), true};
            failedPhase = Phase::Loader;
        }
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
            redoAfterFailure(*failure, failedPhase, epoch, progress);
            continue;
        }
        oomsWithoutProgress = 0;
        notePeak();
        if (out.optimizerStepped)
            progress.groupStart = index + 1;
        if (progress.items.size() <= static_cast<size_t>(index))
            progress.items.resize(static_cast<size_t>(index) + 1);
        progress.items[static_cast<size_t>(index)] = out.items;
        progress.images += out.images;
        const double stepSeconds = secondsSince(t0);
        progress.trainSeconds += stepSeconds;
        noteStepTime(stepSeconds, out.images);
        secondsPerBatch =
            secondsPerBatch == 0 ? stepSeconds : 0.9 * secondsPerBatch + 0.1 * stepSeconds;
        ++progress.index;
        ++globalStep;

        drainSamples();
        const BatchEnd end = batchEndEvent(epoch, progress, point.lr[0]);
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
    result.imagesPerSecond = seconds > 0 ? progress.images / seconds : 0;
    return EpochOutcome::Done;
}

void Trainer::Impl::redoAfterFailure(const OomFailure& failure, Phase phase, int epoch,
                                     EpochProgress& progress) {
    const int index = progress.index;
    if (!recover(failure, phase, epoch, index)) {
        releaseBudget();
        if (folder)
            saveCheckpoint(folder->lastWeights(), epoch);
        const std::string weights = folder ? folder->lastWeights() : std::string("rank 0's run");
        throw OomStop(
            "out of memory in the " + std::string(toString(phase)) + " phase of epoch " +
                std::to_string(epoch + 1) + ", batch " + std::to_string(index + 1) + " (" +
                userText(failure.message) + "); no fix was chosen. The last weights are in " +
                weights + "; lower batch or imgsz, or set on_oom=auto, and resume.",
            "oom_no_fix",
            {toString(phase), std::to_string(epoch + 1), std::to_string(index + 1), weights});
    }
    // Redo the broken accumulation group, at the new batch size when it changed.
    const int restart = static_cast<int>(static_cast<std::int64_t>(progress.groupStart) *
                                         progress.batchSize / std::max(config.batch, 1));
    progress.batches = batchesPerEpoch();
    progress.batchSize = config.batch;
    progress.items.resize(std::min<size_t>(progress.items.size(), static_cast<size_t>(restart)));
    progress.index = restart;
    progress.groupStart = restart;
    progress.positioned = false;
}

BatchEnd Trainer::Impl::batchEndEvent(int epoch, const EpochProgress& progress, double lr) const {
    const int nb = progress.batches;
    BatchEnd end;
    end.epoch = epoch;
    end.batchIndex = progress.index - 1;
    end.batchesPerEpoch = nb;
    end.step = globalStep;
    std::array<double, 3> sum{0, 0, 0};
    for (const auto& it : progress.items)
        for (int k = 0; k < 3; ++k)
            sum[k] += it[k];
    const double n = static_cast<double>(std::max<size_t>(progress.items.size(), 1));
    end.boxLoss = sum[0] / n;
    end.clsLoss = sum[1] / n;
    end.dflLoss = sum[2] / n;
    end.lr = lr;
    end.imagesPerSecond = progress.trainSeconds > 0 ? progress.images / progress.trainSeconds : 0;
    const double remaining =
        (nb - progress.index) + static_cast<double>(config.epochs - epoch - 1) * nb;
    end.etaSeconds = remaining * secondsPerBatch;
    end.peakBytes = epochPeak;
    return end;
}

void Trainer::Impl::nameUnreadableImages(const DataLoader& loader) {
    constexpr std::size_t kMostUnreadableNamed = 20;
    for (const UnreadableImage& image : loader.unreadableImages()) {
        if (unreadableNamed.size() >= kMostUnreadableNamed)
            return;
        if (!unreadableNamed.insert(image.path).second)
            continue;
        log(LogMessage::Level::Warning,
            "cannot read " + image.path + ": " + image.error +
                "; training goes on with a grey image without objects in its place "
                "(headroom-cli data-check --deep finds such files before training)",
            LogCode::UnreadableImage, {image.path, image.error});
    }
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
                        "stopped: validation of epoch " + std::to_string(epoch + 1) + " skipped",
                        LogCode::ValidationSkipped, {std::to_string(epoch + 1)});
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
            nameUnreadableImages(*valLoader);
            if (!valLoader->error().empty()) {
                if (!valLoader->errorIsOutOfMemory())
                    throw RunError("validation " + valLoader->error(), "validation_loader",
                                   {valLoader->error()});
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
                recordWithoutMetrics(epoch, result);
                throw OomStop("out of memory during validation of epoch " +
                                  std::to_string(epoch + 1) + " (" + userText(failure->message) +
                                  "); no fix was chosen. Lower val_batch and resume.",
                              "oom_validation_no_fix", {std::to_string(epoch + 1)});
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

bool Trainer::Impl::scoreEpoch(int epoch, EpochEnd& result) {
    MetricsResult metrics;
    try {
        metrics = validate(epoch, result);
        if (validationSkipped)
            return false;
        std::string resultsError;
        if (folder && !writeValidationResults(folder->path(), names, metrics, &resultsError))
            throw RunError(userText(resultsError), "run_folder", {resultsError});
    } catch (const std::bad_alloc& e) {
        // Validation's steps go to the advisor; this is what came after them.
        if (completedEpochs <= epoch)
            recordWithoutMetrics(epoch, result);
        throw OomStop("host memory ran out while scoring the validation of epoch " +
                          std::to_string(epoch + 1) + " (" + e.what() +
                          "); the epoch is kept without its metrics. Free host memory (fewer "
                          "workers, cache=none) or lower val_batch, and resume.",
                      "oom_validation_no_fix", {std::to_string(epoch + 1)});
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
    return true;
}

void Trainer::Impl::recordWithoutMetrics(int epoch, EpochEnd& result) {
    result.precision = result.recall = result.map50 = result.map = 0;
    result.valBoxLoss = result.valClsLoss = result.valDflLoss = 0;
    result.valPeakBytes = 0;
    result.best = false;
    result.epochSeconds = secondsSince(epochStarted);
    recordEpoch(epoch, result);
}

void Trainer::Impl::logGradientBuckets() {
    const auto [buckets, overlapped] = step->gradientBuckets();
    log(LogMessage::Level::Info,
        std::to_string(group->size()) + " ranks: gradients all-reduced in " +
            std::to_string(buckets) + " buckets, " + std::to_string(overlapped) +
            " of them launched during backward" +
            (config.zero == 1 ? "; optimizer state sharded (zero 1)" : ""),
        LogCode::GradientBuckets,
        {std::to_string(group->size()), std::to_string(buckets), std::to_string(overlapped),
         config.zero == 1 ? "1" : "0"});
}

void Trainer::Impl::recordEpoch(int epoch, const EpochEnd& result) {
    if (const int unreadable = trainLoader->loadFailures(); unreadable > loadFailuresSeen) {
        log(LogMessage::Level::Warning,
            std::to_string(unreadable - loadFailuresSeen) +
                " image(s) could not be read this epoch and were replaced by grey images: "
                "they were moved or deleted, or their coded data is damaged (the scan reads "
                "headers only). Put them back, or check the data set (headroom-cli "
                "data-check --deep) before the next run.",
            LogCode::UnreadableImages, {std::to_string(unreadable - loadFailuresSeen)});
        loadFailuresSeen = unreadable;
    }
    nameUnreadableImages(*trainLoader);
    // The epoch's records first, its checkpoint last: a resume trusts last.pt, and a write
    // that fails before it leaves the previous epoch's state whole (a resume redoes this
    // one and replaces its row).
    if (folder && !folder->writeEpoch(result))
        throw RunError(userText(folder->error(), folder->path() + "/results.csv"), "run_folder",
                       {folder->error()});
    drainSamples();
    emit(result);
    throwIfWriteFailed();
    if (folder)
        saveCheckpoint(folder->lastWeights(), epoch + 1,
                       result.best ? folder->bestWeights() : std::string());
    else if (step->ownsSeparateOptimizerShard())
        saveOptimizerShard();
    completedEpochs = epoch + 1;
}

int Trainer::Impl::runImpl() {
    try {
        setUp();
    } catch (const std::exception& e) {
        // The model, its optimizer state and EMA copy do not fit before any step ran (the
        // model builder reports a refused allocation as a diagnostic, not as an OOM).
        if (!isOomMessage(e.what()))
            throw;
        if (auto why = budgetTooSmall("the weights, optimizer state and EMA copy"))
            throw *why;
        throw OomStop("out of memory while setting up the run (" + userMessage(e) +
                          "): the model does not fit, so raise memory_budget or use a smaller "
                          "model.",
                      "oom_setup");
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
        epochStarted = Clock::now();
        if (trainEpoch(epoch, result) == EpochOutcome::Stopped) {
            // The epoch is incomplete: last.pt keeps the previous epoch's end.
            finished.stoppedByUser = true;
            break;
        }
        notePeak();
        result.trainPeakBytes = epochPeak;
        const bool finalEpoch = epoch + 1 == config.epochs;
        // Stopped during validation: the epoch's training is complete and is kept without
        // metrics (rank 0 validates).
        const bool validationStopped =
            (config.val || finalEpoch) && leader() && !scoreEpoch(epoch, result);
        if (validationStopped) {
            recordWithoutMetrics(epoch, result);
            finished.stoppedByUser = true;
            ++epoch;
            break;
        }
        result.epochSeconds = secondsSince(epochStarted);
        if (group) {
            if (epoch == startEpoch)
                logGradientBuckets();
            shareEpochEnd(epoch);
        }
        recordEpoch(epoch, result);
        if (fixCheck.active) {
            fixCheck.epochEnded = true;
            if (fixCheck.steps >= kFixCheckSteps)
                emitFixCheck();
        }
        if (bestEpoch >= 0 && epoch - bestEpoch >= config.patience && !finalEpoch) {
            log(LogMessage::Level::Info,
                "stopping early: no improvement in the last " + std::to_string(config.patience) +
                    " epochs; the best was epoch " + std::to_string(bestEpoch + 1),
                LogCode::StoppingEarly,
                {std::to_string(config.patience), std::to_string(bestEpoch + 1)});
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
    if (folder && !folder->flush() && writeFailure.empty())
        writeFailure = folder->error();
    throwIfWriteFailed();
    // On disk before anyone is told: "finished" must not be printed for a run whose end was
    // not written.
    if (folder && (!folder->addEvent(finished) || !folder->flush()))
        throw RunError(userText(folder->error(), folder->path()), "run_folder", {folder->error()});
    if (sink)
        sink(finished);
    return 0;
}

Trainer::Trainer(TrainConfig config, EventSink sink)
    : d(std::make_unique<Impl>(std::move(config), std::move(sink))) {}

Trainer::~Trainer() = default;

int Trainer::run() {
    RunState state = RunState::Failed;
    std::string reason, code;
    std::vector<std::string> args;
    try {
        return d->runImpl();
    } catch (const OomStop& e) {
        state = RunState::StoppedByOom;
        reason = userMessage(e);
        code = e.code;
        args = e.args;
    } catch (const RunError& e) {
        reason = userMessage(e);
        code = e.code;
        args = e.args;
    } catch (const std::exception& e) {
        reason = userMessage(e);
        code = "unexpected";
        args = {reason};
    } catch (const StopNow&) {
        reason = "stopped"; // cannot happen: trainEpoch catches it
    }
    if (d->sampler)
        d->sampler->stop();
    d->releaseBudget();
    d->drainSamples();
    d->emit(RunFailed{reason, state, code, args});
    RunFinished finished;
    finished.runDir = d->folder ? d->folder->path() : std::string();
    finished.state = state;
    finished.reason = reason;
    finished.reasonCode = code;
    finished.reasonArgs = args;
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

void Trainer::requestStopFromSignal() {
    d->stopRequested = true;
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

void Trainer::setMachineCheck(MachineCheck check) {
    d->machineCheck = std::move(check);
}

void Trainer::confirmLargeScan(bool confirmed) {
    d->largeScanConfirmed = confirmed;
}

void Trainer::setLaunch(const LaunchEnv& launch) {
    d->launchOverride = launch;
}

} // namespace hr