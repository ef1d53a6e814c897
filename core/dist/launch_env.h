// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

namespace hr {

/// Where one process of a data-parallel run stands, in torchrun's words: RANK, WORLD_SIZE,
/// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
/// MASTER_PORT. A process started without them is rank 0 of 1.
struct LaunchEnv {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    int localWorldSize = 1; ///< processes on this machine (LOCAL_WORLD_SIZE), to share its cores
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;

    bool distributed() const { return worldSize > 1; }
};

/// Reads the variables from the environment. Returns nullopt and sets `error` (one sentence
/// naming the variable and its value) when one is malformed or out of range, e.g. RANK >=
/// WORLD_SIZE. Unset variables keep their defaults.
std::optional<LaunchEnv> readLaunchEnv(std::string* error);

} // namespace hr
