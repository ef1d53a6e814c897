// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/machine_limits.h"
#include "config/train_config.h"

namespace hr {

/// The least host memory a run of `config` with `nc` classes needs, all its processes together,
/// before it starts and without probe steps (milliseconds): the estimator's resident floor (or
/// its prediction, when a calibration of these settings is cached) for a model on the CPU, the
/// weights alone for one on a GPU, plus per image what no step can do without: the input in
/// floats, the head's class and box outputs with their targets and gradients, and the loader's
/// queued batches. A lower bound: a run refused on it would not have fitted.
RunMemoryNeed hostMemoryNeed(const TrainConfig& config, int nc);

/// checkMachineLimits() for `config` with `nc` classes on this machine, with hostMemoryNeed()
/// (nc 0: unknown, nproc alone is checked). The check of `headroom-cli train` before it starts
/// workers, and the trainer's MachineCheck (a resumed run, the studio's Start).
Diagnostics machineLimitProblems(const TrainConfig& config, int nc);

} // namespace hr
