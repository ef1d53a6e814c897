// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Settings checked against the machine a run starts on, not against their own bounds:
// nproc against the cores, the memory the run needs against the RAM. Errors name the setting
// and the fix; `headroom-cli train --force` starts the run anyway (docs/decisions.md, "Limits
// against the machine").

#include "config/train_config.h"
#include "util/machine.h"

#include <cstdint>

namespace hr {

/// The least memory a run needs on this machine (estimate/host_memory.h works it out).
struct RunMemoryNeed {
    std::int64_t bytes = 0;       ///< every process together; 0 = unknown (not checked)
    std::int64_t classScores = 0; ///< of it: the head's class scores, their targets, gradients
    int processes = 1;
};

/// The errors for `config` (with `nc` classes) on `machine`; none when it fits.
Diagnostics checkMachineLimits(const TrainConfig& config, int nc, const MachineFacts& machine,
                               const RunMemoryNeed& need);

} // namespace hr
