// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/launch_env.h"

#include <cerrno>
#include <cstdlib>

namespace hr {

namespace {

/// Parses the whole of `text` as a base-10 integer.
bool parseInt(const std::string& text, long& out) {
    if (text.empty())
        return false;
    errno = 0;
    char* end = nullptr;
    out = std::strtol(text.c_str(), &end, 10);
    return errno == 0 && end && *end == '\0';
}

bool readInt(const char* name, long low, long high, int& out, std::string* error) {
    const char* value = std::getenv(name);
    if (!value)
        return true;
    long parsed = 0;
    if (!parseInt(value, parsed) || parsed < low || parsed > high) {
        if (error)
            *error = std::string(name) + "='" + value + "' is not a whole number from " +
                     std::to_string(low) + " to " + std::to_string(high);
        return false;
    }
    out = static_cast<int>(parsed);
    return true;
}

} // namespace

std::optional<LaunchEnv> readLaunchEnv(std::string* error) {
    LaunchEnv env;
    if (!readInt("WORLD_SIZE", 1, 4096, env.worldSize, error) ||
        !readInt("RANK", 0, 4095, env.rank, error) ||
        !readInt("LOCAL_RANK", 0, 4095, env.localRank, error) ||
        !readInt("LOCAL_WORLD_SIZE", 1, 4096, env.localWorldSize, error) ||
        !readInt("MASTER_PORT", 1, 65535, env.masterPort, error))
        return std::nullopt;
    if (const char* addr = std::getenv("MASTER_ADDR"); addr && *addr)
        env.masterAddr = addr;
    if (env.rank >= env.worldSize) {
        if (error)
            *error = "RANK=" + std::to_string(env.rank) +
                     " must be below WORLD_SIZE=" + std::to_string(env.worldSize);
        return std::nullopt;
    }
    return env;
}

} // namespace hr
