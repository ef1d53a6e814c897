// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

/// What the trainer is doing; memory samples and OOM reports are tagged with it.
enum class Phase { Idle, Data, Forward, Loss, Backward, Optimizer, Ema, Validation };

/// "idle", "data", "forward", "loss", "backward", "optimizer", "ema", "validation".
const char* toString(Phase phase);

/// The inverse of toString(); returns false (and leaves `phase` alone) for unknown text.
bool parsePhase(const std::string& text, Phase& phase);

} // namespace hr
