// SPDX-License-Identifier: GPL-3.0-or-later
// The estimator's calibration: probe steps at two small batches fitted as lines per step part.
// Shared by the estimator's sources; not part of its interface.
#pragma once

#include "config/train_config.h"
#include "memory/memory_breakdown.h"
#include "memory/phase.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hr::estimate {

// Probe batch sizes of the calibration: small, so that it takes seconds.
inline constexpr int kProbeBatchSmall = 2;
inline constexpr int kProbeBatchLarge = 4;
// Validation batches from this size on are predicted from two more validation probes at
// kValProbeSmall and kValProbeLarge images (forward only, measured once per settings when first
// needed): the slope at 2 and 4 images does not hold for large batches (docs/decisions.md,
// "Calibration").
inline constexpr int kValLargeFrom = 12;
inline constexpr int kValProbeSmall = 16;
inline constexpr int kValProbeLarge = 24;
// More targets than this per image are not worth sizing for (Ultralytics caps detections at 300).
inline constexpr int kMaxObjectsPerImage = 300;

struct DataFacts {
    int nc = 0;
    int objectsPerImage = 1;
    int trainImages = 0;
};

/// Peak bytes = intercept + slope x images.
struct Line {
    double intercept = 0, slope = 0;
    double at(double images) const { return intercept + slope * images; }
};

/// The parts of a training step whose peaks are fitted apart: the part that peaks can change
/// with the batch (a constant optimizer step at small batches, a growing backward or loss at
/// large ones), which one line through the step's overall peaks misses (docs/decisions.md,
/// "Calibration").
enum StepPart { PartForward, PartLoss, PartBackward, PartOptimizer, kStepParts };

/// The part of the step a trainer phase belongs to.
StepPart partOf(Phase phase);

using StepPeaks = std::array<std::int64_t, kStepParts>;

using StepLines = std::array<Line, kStepParts>;

/// CPU seconds of one training step (the process's, every thread: another process's load on a
/// shared machine does not stretch them as it stretches wall time): forward, loss and backward
/// (with the batch's move to the device) apart from the optimizer step and EMA, which run once
/// per accumulation group.
struct StepSeconds {
    double work = 0.0;
    double optimizer = 0.0;
};

/// The median of the values; 0 for none.
double median(std::vector<double> values);

/// Seconds per image of steps of `images` images that accumulate `accumulate` batches: the
/// optimizer step and EMA run once per accumulation group.
inline double perImageSeconds(double stepSeconds, double optimizerSeconds, int accumulate,
                              double images) {
    return (stepSeconds + optimizerSeconds / std::max(accumulate, 1)) / images;
}

/// Time of training steps on this machine: seconds of forward + loss + backward against
/// images (a line through the medians at the two probe batches) and the optimizer step + EMA.
struct StepTimes {
    Line work;
    double optimizer = 0.0;
    int steps = 0; ///< timed steps per probe batch (after a warm-up step)
    /// Seconds per image of a run at `images` per step accumulating `accumulate` batches.
    double perImage(double images, int accumulate) const {
        return perImageSeconds(work.at(images), optimizer, accumulate, images);
    }
};

/// Peaks as the per-image model: a line per step part for training, one for validation.
struct Calibration {
    /// A step that starts without gradients: every step without accumulation, the first batch
    /// of an accumulation group.
    StepLines fresh;
    /// A step that starts with the previous batch's gradients (accumulation). Measured, not
    /// fresh + the gradients' bytes: backward's peak comes late, when most of a fresh step's
    /// own gradients exist too (docs/decisions.md, "Calibration").
    StepLines held;
    Line val;
    /// Validation at kValLargeFrom images and more: from probes at kValProbeSmall/Large.
    bool valLargeProbed = false;
    Line valLarge;
    MemoryBreakdown resident;
    std::string device;
    int objectsPerImage = 1;
    int imgsz = 0; ///< the image size the probe steps ran at
    /// Bytes of the trainable parameters' gradients. Probe steps run the optimizer every step
    /// (gradients freed before the next forward); with accumulation they stay allocated
    /// through the next batch's forward and backward, on top of its activations.
    std::int64_t gradientBytes = 0;
    /// Elements of each trainable parameter: ZeRO's owner assignment of a data-parallel run
    /// is computed from them (each rank keeps the optimizer state of the parameters it owns).
    std::vector<std::int64_t> trainableNumels;
    std::string family;   ///< the calibration key without the image size
    bool derived = false; ///< scaled from another image size's calibration, no probe steps
    StepTimes times;      ///< the probe steps' timings (not valid when `derived`)

    /// True when it answers for `config` without more probe steps: measured, not scaled, and
    /// with the large-validation probes when `config` validates kValLargeFrom images or more.
    bool complete(const TrainConfig& config) const;
};

/// The line through two probe points (x1, y1) and (x2, y2), images against peak bytes: the
/// slope is never negative (a lower second peak is noise, not memory a larger batch frees) and
/// the intercept passes through the first point.
Line fitLine(double x1, double y1, double x2, double y2);

/// Planned optimizer iterations, as Ultralytics counts them for `optimizer: auto`.
std::int64_t plannedIterations(const TrainConfig& config, const DataFacts& facts);

/// Measures a calibration of `config` with probe steps at kProbeBatchSmall and
/// kProbeBatchLarge. False, with `error` filled, when the probe session cannot start.
bool calibrate(const TrainConfig& config, const DataFacts& facts, Calibration& out,
               std::string* error);

/// The validation probes at kValProbeSmall and kValProbeLarge images (no training step: the
/// resident state of validation is weights, EMA, and the gradients and optimizer state a run
/// holds, which a training step at batch 2 creates first).
bool calibrateLargeValidation(const TrainConfig& config, const DataFacts& facts, Calibration& out,
                              std::string* error);

} // namespace hr::estimate
