// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/phase.h"

#include <cstdint>

namespace hr {

/// One point of the memory timeline.
struct MemorySample {
    double seconds = 0.0;       ///< since the sampler started
    std::int64_t allocated = 0; ///< live tensor bytes
    std::int64_t reserved = 0;  ///< bytes held by the allocator (CUDA cache); = allocated on CPU
    /// Peak allocated since the last training step or validation batch (the trainer resets the
    /// allocator's peak after each), or since the run started.
    std::int64_t peakSinceLastStep = 0;
    std::int64_t budget = 0;   ///< the budget in force, 0 = none
    Phase phase = Phase::Idle; ///< Phase::Probe: a probe step's memory, never the run's peak
    int rank = 0;
    bool oom = false; ///< taken at the moment an allocation failed (the OOM mark on the curve)
};

} // namespace hr
