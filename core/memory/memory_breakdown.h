// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace hr {

/// Where a device's memory goes, in bytes. Measured by the trainer (tensor sizes, tracker peaks)
/// or predicted by the estimator. `total` is the peak the parts add up to.
struct MemoryBreakdown {
    std::int64_t weights = 0;
    std::int64_t gradients = 0;
    std::int64_t optimizerState = 0;
    std::int64_t ema = 0;
    std::int64_t activations = 0; ///< peak in forward/backward minus the resident baseline
    std::int64_t batchData = 0;   ///< the batch's images and targets on the device
    std::int64_t other = 0;       ///< workspace, allocator slack, anything not attributed
    std::int64_t total = 0;

    std::int64_t resident() const { return weights + gradients + optimizerState + ema; }
};

} // namespace hr
