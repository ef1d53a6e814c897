// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace hr {

/// What `train --nproc N` starts on this machine (torchrun's meaning of the names).
struct WorkerPlan {
    int nproc = 1;    ///< processes on this machine
    int nnodes = 1;   ///< machines
    int nodeRank = 0; ///< this machine's index; its processes get ranks nodeRank*nproc + i
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0; ///< 0: a free port of this machine (only for nnodes == 1)
    std::string executable = "/proc/self/exe";
    std::vector<std::string> arguments; ///< argv of each worker, argv[0] included
};

/// How the workers ended.
struct WorkerOutcome {
    int exitCode = 0;          ///< 0 when all succeeded, else the first failure's code
    std::string summary;       ///< one line per worker that failed, or why none started
    std::vector<int> statuses; ///< exit code per local worker (128 + signal when killed)
};

/// Starts the workers with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and
/// MASTER_PORT set (other variables inherited) and waits for all of them. When one fails, the
/// others get `grace` to end on their own (their collectives fail when a rank is gone) and are
/// then terminated, so a dead worker never leaves the rest hanging. Interrupts (Ctrl-C) reach
/// the workers through the terminal; this process waits for them.
WorkerOutcome runWorkers(const WorkerPlan& plan, std::chrono::seconds grace);

/// This process's own argv (from /proc/self/cmdline); empty when it cannot be read.
std::vector<std::string> ownArguments();

/// A TCP port that was free on the loopback interface a moment ago; 0 when none was found.
int freeLocalPort();

} // namespace hr
