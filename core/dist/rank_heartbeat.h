// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <memory>
#include <string>

namespace hr {

/// How long a rank may go without a heartbeat before the run ends without it:
/// HEADROOM_RANK_TIMEOUT seconds (a decimal number above 0), default 60. A rank that is alive
/// sends one every second whatever its training thread does (a long validation on rank 0
/// included), so only a stopped (SIGSTOP, a debugger), frozen or vanished process misses it.
std::chrono::milliseconds rankTimeoutFromEnvironment();

/// The heartbeat of one rank of a data-parallel run, over its own connection to rank 0's
/// TCPStore: every second it adds 1 to this rank's counter and reads the others'. A rank whose
/// counter has not moved for `timeout` (or rank 0, when the store it hosts stops answering) is
/// silent: silentRank() names it from then on and, when it runs on this machine, it is killed
/// (SIGKILL; a stopped process takes no other signal), so that the collective the other ranks
/// wait in fails at once instead of after the collective timeout. A rank on another machine is
/// only named. A rank that ends its run normally says so first, and is never silent.
class RankHeartbeat {
public:
    /// Starts the heartbeat's threads; never throws (a heartbeat that cannot connect stays
    /// quiet and names no one).
    RankHeartbeat(const std::string& host, int port, int rank, int size,
                  std::chrono::milliseconds timeout);
    ~RankHeartbeat(); ///< says this rank is done, then stops (waits at most a second)
    RankHeartbeat(const RankHeartbeat&) = delete;
    RankHeartbeat& operator=(const RankHeartbeat&) = delete;

    /// The rank that stopped answering, -1 while every rank answers.
    int silentRank() const;
    /// "rank 1 of 2 sent no heartbeat for 60 s (HEADROOM_RANK_TIMEOUT): ..." or "".
    std::string silence() const;

    struct State;

private:
    std::shared_ptr<State> m_state;
};

} // namespace hr
