// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/compute_threads.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <thread>

#include <dlfcn.h>

namespace hr {

void setComputeThreads(int threads) {
    const int count = std::max(threads, 1);
    at::set_num_threads(count);
    // OpenBLAS's pool otherwise keeps one thread per core, spinning while it waits: "threads: 1"
    // still used two cores for every convolution's matrix product, and the spinning made CPU
    // time depend on the machine's load (docs/decisions.md, issue 18). Looked up at run time:
    // a LibTorch built on MKL has no OpenBLAS.
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        set(count);
}

int computeThreadsFor(int requested, int processesOnMachine) {
    if (requested > 0)
        return requested;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, cores / std::max(processesOnMachine, 1));
}

int useComputeThreads(int requested, int processesOnMachine) {
    const int threads = computeThreadsFor(requested, processesOnMachine);
    setComputeThreads(threads);
    return threads;
}

} // namespace hr
