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
    /// Where the workers' network-library lines go (glog's, from c10d and Gloo: connection
    /// retries and the like), appended with the rank; they are not shown. Empty: dropped.
    std::string libraryLog;
};

/// How the workers ended.
struct WorkerOutcome {
    int exitCode = 0;    ///< 0 when all succeeded, else the first failure's code
    std::string summary; ///< the first failure (rank, status, its last output), what became
                         ///< of the others, and one line per later failure; or why none started
    std::vector<int> statuses; ///< exit code per local worker (128 + signal when killed)
    int firstFailedRank = -1;  ///< global rank of the first worker that failed, -1 if none
    std::vector<std::string> errorTails; ///< the end of each local worker's stderr
    long libraryLogLines = 0;            ///< lines written to WorkerPlan::libraryLog
};

/// How long the other workers may go on once the run has ended for them (rank 0 finished, or a
/// rank failed) before they are ended: long enough to leave a collective and write their files.
constexpr std::chrono::seconds kWorkerGrace{30};

/// Starts the workers with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and
/// MASTER_PORT set (other variables inherited) and waits for all of them, watching them the
/// whole time. Each worker's stderr passes through this process (so its end can be quoted),
/// except the network library's log lines (WorkerPlan::libraryLog).
/// When a worker exits with a non-zero status or is killed, before the run ended or during
/// it, the others are sent SIGTERM at once - a Headroom worker then gives up its wait for the
/// other ranks or fails at its next batch, where it would otherwise wait in the rendezvous
/// until HEADROOM_DIST_TIMEOUT - and any still running after `grace` are killed (SIGKILL).
/// A worker that exits with 0 has finished its part. Interrupts (Ctrl-C) reach the workers
/// through the terminal; this process waits for them.
WorkerOutcome runWorkers(const WorkerPlan& plan, std::chrono::seconds grace);

/// True for a line of glog's format (what c10d and Gloo log), which is not for a user's eyes.
bool isLibraryLogLine(const std::string& line);
/// True for a line that belongs to the library line before it: the backtrace c10 prints under
/// a warning, and the blank line after it.
bool continuesLibraryEntry(const std::string& line);

/// Sorts one stream's lines, in order: true for the library's lines and the backtraces under
/// them (one rule for the launcher's workers and a process's own stderr).
class LibraryLineFilter {
public:
    bool isLibrary(const std::string& line) {
        m_inEntry = isLibraryLogLine(line) || (m_inEntry && continuesLibraryEntry(line));
        return m_inEntry;
    }

private:
    bool m_inEntry = false;
};

/// The last `lines` non-empty lines of `text`, each indented by `indent`.
std::string lastLines(const std::string& text, int lines, const std::string& indent);

/// This process's own argv (from /proc/self/cmdline); empty when it cannot be read.
std::vector<std::string> ownArguments();

/// A TCP port that was free on the loopback interface a moment ago; 0 when none was found.
int freeLocalPort();

} // namespace hr
