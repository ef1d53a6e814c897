// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/phase.h"

namespace hr {

bool parsePhase(const std::string& text, Phase& phase) {
    for (Phase candidate :
         {Phase::Idle, Phase::Data, Phase::Forward, Phase::Loss, Phase::Backward, Phase::Optimizer,
          Phase::Ema, Phase::Validation, Phase::Loader, Phase::Checkpoint, Phase::Probe}) {
        if (text == toString(candidate)) {
            phase = candidate;
            return true;
        }
    }
    return false;
}

} // namespace hr
