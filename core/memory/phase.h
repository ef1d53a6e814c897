// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

/// What the trainer is doing; memory samples and OOM reports are tagged with it.
enum class Phase { Idle, Data, Forward, Loss, Backward, Optimizer, Ema, Validation };

/// "idle", "data", "forward", "loss", "backward", "optimizer", "ema", "validation".
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
    }
    return "idle";
}

/// The inverse of toString(); returns false (and leaves `phase` alone) for unknown text.
bool parsePhase(const std::string& text, Phase& phase);

} // namespace hr
