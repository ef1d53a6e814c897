// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// Makes this process compute with `threads` threads (at least 1): LibTorch's intra-op threads
/// (OpenMP, for operations started from the calling thread) and, where LibTorch's matrix
/// products run in OpenBLAS (Debian's LibTorch), OpenBLAS's own pool, which
/// at::set_num_threads() leaves at every core. Never throws.
void setComputeThreads(int threads);

/// The rule for a `threads` setting: `requested` when it is above 0, else this process's share
/// of the machine's cores when `processesOnMachine` processes share them (at least 1).
int computeThreadsFor(int requested, int processesOnMachine = 1);

/// setComputeThreads(computeThreadsFor(requested, processesOnMachine)); returns the count.
int useComputeThreads(int requested, int processesOnMachine = 1);

} // namespace hr
