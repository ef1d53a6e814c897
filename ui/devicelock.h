// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <mutex>

namespace hr::ui {

/// One user of the device at a time: a training run (TrainingSession's thread) or a memory
/// estimate (EstimatorService's thread). The estimator lifts the CPU budget and resets the
/// allocator's peak while it calibrates; next to a live run that would drop the run's budget
/// and count the run's tensors as the probe's. Lock it only off the GUI thread: the holder may
/// keep it for a whole run, so a waiter that must stay interruptible uses try_lock_for().
std::timed_mutex& deviceLock();

} // namespace hr::ui
