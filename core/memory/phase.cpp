// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/phase.h"

namespace hr {

const char* toString(Phase phase) {
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

bool parsePhase(const std::string& text, Phase& phase) {
    for (Phase candidate : {Phase::Idle, Phase::Data, Phase::Forward, Phase::Loss, Phase::Backward,
                            Phase::Optimizer, Phase::Ema, Phase::Validation}) {
        if (text == toString(candidate)) {
            phase = candidate;
            return true;
        }
    }
    return false;
}

} // namespace hr
