// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/train_rules.h"

#include <algorithm>
#include <cmath>

namespace hr {

int accumulateSteps(const TrainConfig& config) {
    if (config.batch <= 0)
        return 1;
    return accumulateSteps(config.nbs, config.batch);
}

int accumulateSteps(int nbs, int batch) {
    if (nbs <= 0 || batch <= 0)
        return 1;
    // Python's round() rounds halves to even; nearbyint does the same in the default mode.
    const double steps = std::nearbyint(static_cast<double>(nbs) / batch);
    return std::max(static_cast<int>(steps), 1);
}

int validationBatch(const TrainConfig& config, int trainBatch) {
    return config.val_batch > 0 ? config.val_batch : trainBatch;
}

int validationBatch(const TrainConfig& config) {
    return validationBatch(config, std::max(config.batch, 1));
}

int rankBatch(int batch, int ranks) {
    return std::max(1, batch / std::max(ranks, 1));
}

} // namespace hr
