// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"

namespace hr {

// Rules derived from a TrainConfig that the trainer, the loader, the estimator, the advisor and
// the front ends all apply. Each lives here once so that they cannot drift apart.

/// The accumulation Ultralytics uses: max(round(nbs / batch), 1), halves rounded to even as
/// Python does. 1 while batch is -1 (auto-fit decides the batch later).
int accumulateSteps(const TrainConfig& config);

/// The same for a batch already resolved (`batch` >= 1); `nbs` <= 0 counts as 1.
int accumulateSteps(int nbs, int batch);

/// The validation batch: val_batch, or the training batch when it is 0 (Ultralytics uses twice
/// the batch). At the training batch validation reuses the memory training's forward pass holds,
/// so it adds none (docs/decisions.md "Validation at the training batch"). `trainBatch` is the
/// resolved training batch; the one-argument form takes config.batch (at least 1).
int validationBatch(const TrainConfig& config, int trainBatch);
int validationBatch(const TrainConfig& config);

/// Images one rank steps on in a data-parallel run: `batch` is the total over the ranks
/// (Ultralytics' meaning), each rank takes batch / ranks, at least 1.
int rankBatch(int batch, int ranks);

/// Peaks are kept under this share of the memory budget: auto-fit aims under it, and the
/// advisor calls a fix fitting when its predicted peak stays under it. The rest absorbs the
/// prediction's error and the allocator's fragmentation.
constexpr double kFitSafety = 0.9;

} // namespace hr
