// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "config/train_rules.h"
#include "memory/memory_breakdown.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hr {

/// A prediction of a run's device memory, before it starts. LibTorch-free (the GUI includes it).
struct MemoryEstimate {
    /// Peak of a training step at config.batch: the run's state, the batch once the step has
    /// moved it to the device, the step's activations. The loader's queued batches are host
    /// memory and not in it (docs/decisions.md), on a GPU and under a CPU budget alike.
    std::int64_t trainPeak = 0;
    std::int64_t valPeak = 0;       ///< peak of a validation batch at the validation batch size
    MemoryBreakdown breakdown;      ///< at config.batch; total = trainPeak
    std::int64_t perImageTrain = 0; ///< bytes one more image adds to a training step
    std::int64_t perImageVal = 0;   ///< bytes one more image adds to a validation batch
    int batch = 0;                  ///< the configured (total) batch
    int ranks = 1;     ///< data-parallel processes (nproc); every number above is per rank
    int rankBatch = 0; ///< images one rank steps on: batch / ranks
    int valBatch = 0;
    int objectsPerImage = 0; ///< targets per image the probe steps used (assigner size)
    std::string device;      ///< "cpu", "cuda:0"
    std::string note;        ///< how it was obtained and what it does not cover (English)

    /// What `note` says, as values for a UI to word in its own language.
    struct How {
        int probeBatchSmall = 0, probeBatchLarge = 0; ///< the calibration's probe batches
        std::string probeDevice;                      ///< where the probes ran
        enum class PeakPart {
            Forward,
            Loss,
            Backward,
            OptimizerStep
        } peakPart = PeakPart::Forward; ///< the part of a training step that peaks
        double stateShare = 1.0;        ///< optimizer state a rank keeps (ZeRO-1), 1 = all
        int valProbeSmall = 0, valProbeLarge = 0; ///< validation probes, 0 = none used
        bool scaledFromOtherSize = false;         ///< per-image memory scaled by the pixel count
    } how;
};

/// Predicts training and validation peak memory for `config` (model, imgsz, batch, amp,
/// checkpointing, freeze, optimizer, the data set's objects per image) by calibrating: a few
/// short probe steps of the real training step (TrainStep) at two small batch sizes, whose peaks
/// give a per-image model (peak = resident + batch x per-image). Calibrations are cached per
/// model and settings, so later calls with another batch are instant. A batch of -1 is treated
/// as 1. With nproc > 1 the prediction is per rank: each rank trains on batch / nproc images
/// (plus the gradient all-reduce's bucket copies), rank 0 validates at the validation batch,
/// and with zero: 1 a rank keeps only its owned parameters' optimizer state. Returns an estimate
/// with trainPeak 0 and fills `error` when the model or data cannot be loaded or a probe step
/// fails.
MemoryEstimate estimateMemory(const TrainConfig& config, std::string* error);

/// The PeakPredictor the advisor uses: estimateMemory(config).trainPeak, or nothing on failure.
std::optional<std::int64_t> predictTrainPeak(const TrainConfig& config);

/// Like predictTrainPeak, but never runs probe steps: from a cached calibration of the same
/// settings, or one at another image size scaled by the pixel count. Nothing when neither
/// exists. Costs microseconds: for an OOM recovery that must not wait for calibrations.
std::optional<std::int64_t> predictTrainPeakWithoutProbing(const TrainConfig& config);

/// The advisor's PeakPredictor: the larger of the predicted training and validation peaks (a
/// fix for a validation OOM, a smaller val_batch, changes only the latter), or nothing.
std::optional<std::int64_t> predictPeak(const TrainConfig& config);

/// predictPeak without probe steps (see predictTrainPeakWithoutProbing).
std::optional<std::int64_t> predictPeakWithoutProbing(const TrainConfig& config);

/// What a training step holds at its optimizer step whatever the image size, batch, AMP or
/// checkpointing: the weights, the gradients of the trainable parameters, the optimizer state
/// they will get (SGD: one tensor per weight, Adam/AdamW: two; none when offloaded) and the EMA
/// copy, from the built model and optimizer without running a step (milliseconds). A lower
/// bound of every peak estimateMemory() predicts for this model, optimizer and freeze; total =
/// resident(). With nproc > 1 and zero: 1 the optimizer state is left out (a rank keeps a
/// share). total is 0, with `error` filled, when the model or data cannot be loaded.
MemoryBreakdown residentFloor(const TrainConfig& config, std::string* error);

/// Ground-truth boxes per image the loss' assigner is sized for with this config's data set:
/// its most per image, x4 with mosaic, at most 300. 0 when the data set cannot be read.
int assignerObjectsPerImage(const TrainConfig& config);

/// Time per image of a training step on this machine, from timed steps: the median seconds of
/// forward + loss + backward at the step's batch and of the optimizer step + EMA, which runs
/// once per `accumulate` batches. Seconds are the process's CPU time (every thread), which
/// other processes' load does not stretch; ratios of them are the speed factors. Loading data
/// is not in it (the loader works ahead).
struct StepTimeEstimate {
    double secondsPerImage = 0.0;  ///< (stepSeconds + optimizerSeconds / accumulate) / batch
    double stepSeconds = 0.0;      ///< forward, loss and backward of one step
    double optimizerSeconds = 0.0; ///< one optimizer step + EMA update
    int accumulate = 1;
    int timedSteps = 0; ///< steps the medians are taken over (per batch size), after warm-up
};

/// The time per image of `config` from its calibration's timed probe steps (the median of at
/// least 3 steps after a warm-up at each probe batch, a line through them against the batch),
/// calibrating first when needed. Cached with the memory calibration, per device and settings.
/// Nothing, with `error` filled, when the probe steps cannot run.
std::optional<StepTimeEstimate> predictStepTime(const TrainConfig& config, std::string* error);

/// predictStepTime without probe steps: nothing unless probe steps of these settings at this
/// image size already ran (time is not scaled from another image size).
std::optional<StepTimeEstimate> predictStepTimeWithoutProbing(const TrainConfig& config);

/// What real steps measured (for the accuracy matrix, `bench fixes` and tests).
struct MeasuredPeaks {
    std::int64_t stepPeak = 0; ///< training step at config.batch (steady state: second step)
    std::int64_t valPeak = 0;  ///< validation batch at the validation batch size
    StepTimeEstimate time;     ///< timed steps at config.batch (timedPairs > 0), else zeros
};

/// Runs real training steps at config.batch and one validation batch, with the same synthetic
/// batches as the calibration, and returns the measured peaks; with `timedPairs` > 0 it then
/// times that many pairs of steps at config.batch (each pair: one step without, one with the
/// optimizer step). Nothing on failure (`error`).
std::optional<MeasuredPeaks> measurePeaks(const TrainConfig& config, std::string* error,
                                          int timedPairs = 0);

/// Seconds per image of real training steps of `first` and `second`, timed in turns so that
/// both see the same load on a shared machine: each of `rounds` rounds times a pair of steps of
/// `first` (one without, one with the optimizer step) and a pair of `second` (every other round
/// `second` first), after a warm-up pair of each. Element r holds round r's (first, second);
/// seconds per image are StepTimeEstimate's, from the process's CPU time. Nothing on failure
/// (`error`).
std::optional<std::vector<std::pair<double, double>>> timeStepsInTurns(const TrainConfig& first,
                                                                       const TrainConfig& second,
                                                                       int rounds,
                                                                       std::string* error);

/// How much longer (>1) or shorter a training step of `after` takes per image than one of
/// `before` on this machine.
struct TimeFactor {
    double factor = 1.0;       ///< after's seconds per image over before's
    double lowest = 1.0;       ///< the lowest of the rounds' ratios
    double highest = 1.0;      ///< the highest
    int rounds = 0;            ///< rounds timed in turns
    double beforeSeconds = 0.; ///< before's seconds per image (median of the rounds)
    double afterSeconds = 0.;  ///< after's
};

/// Rounds of probe steps that predictTimeFactor times in turns: kTimeFactorRounds, then more
/// up to kTimeFactorMaxRounds while the rounds' ratios spread by more than
/// kTimeFactorSpread of their median (a load that came and went); when `keepGoing` ends the
/// timing earlier, kTimeFactorMinRounds finished rounds still give a factor.
inline constexpr int kTimeFactorMinRounds = 3;
inline constexpr int kTimeFactorRounds = 5;
inline constexpr int kTimeFactorMaxRounds = 9;
inline constexpr double kTimeFactorSpread = 0.2;

/// The time factor of `after` against `before` from probe steps of both timed in turns
/// (timeStepsInTurns at each config's batch, at most kProbeBatchLarge images; a larger batch is
/// reached by each config's own calibration line, which compares steps of one session). A
/// ratio of two calibrations made at different moments carries the load of each moment: on a
/// shared machine it missed the factor by up to 75%, turns stay within a few percent
/// (docs/decisions.md, "Fourth look"). Cached per device and pair of settings; without
/// `probe` only the cache answers. `keepGoing`, when given, is asked before each probe step:
/// false ends the timing, with the factor of the rounds finished when there are at least
/// kTimeFactorMinRounds, else with nothing (and nothing cached).
std::optional<TimeFactor> predictTimeFactor(const TrainConfig& before, const TrainConfig& after,
                                            bool probe, std::string* error,
                                            const std::function<bool()>& keepGoing = {});

/// Forgets every cached calibration.
void clearEstimateCache();

} // namespace hr
