// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// What the trainer is doing; memory samples and OOM reports are tagged with it.
enum class Phase { Idle, Data, Forward, Loss, Backward, Optimizer, Ema, Validation };

/// "idle", "data", "forward", "loss", "backward", "optimizer", "ema", "validation".
const char* toString(Phase phase);

} // namespace hr
