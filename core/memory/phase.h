// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

/// What the trainer is doing; memory samples and OOM reports are tagged with it.
/// Data is the batch's move to the device (it counts against the device); Loader is host-side
/// batch assembly (reading, augmenting, collating: it does not count, see
/// docs/ARCHITECTURE.md "What counts against a CPU budget"); Checkpoint is writing last.pt;
/// Probe is a step run by the estimator or the advisor to measure a config - its samples are
/// not the run's own memory and never count toward a run's peak.
enum class Phase {
    Idle,
    Data,
    Forward,
    Loss,
    Backward,
    Optimizer,
    Ema,
    Validation,
    Loader,
    Checkpoint,
    Probe
};

/// "idle", "data", "forward", "loss", "backward", "optimizer", "ema", "validation", "loader",
/// "checkpoint", "probe".
/// Inline so that torch-free modules (the advisor) can name phases without linking memory.
inline const char* toString(Phase phase) {
    switch (phase) {
    case Phase::Idle:
        return "idle";
    case Phase::Data:
        return "data";
    case Phase::Forward:
        return "forward";
    case Phase::Loss:
        return "loss";
    case Phase::Backward:
        return "backward";
    case Phase::Optimizer:
        return "optimizer";
    case Phase::Ema:
        return "ema";
    case Phase::Validation:
        return "validation";
    case Phase::Loader:
        return "loader";
    case Phase::Checkpoint:
        return "checkpoint";
    case Phase::Probe:
        return "probe";
    }
    return "idle";
}

/// The inverse of toString(); returns false (and leaves `phase` alone) for unknown text.
bool parsePhase(const std::string& text, Phase& phase);

} // namespace hr
