// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace hr {

/// What this machine offers a run: the cores this process may use and its memory.
struct MachineFacts {
    int cores = 1;                   ///< CPUs in this process's affinity mask
    std::int64_t totalBytes = 0;     ///< physical RAM
    std::int64_t availableBytes = 0; ///< /proc/meminfo MemAvailable (total when unreadable)
};

/// Reads the facts now (microseconds).
MachineFacts machineFacts();

} // namespace hr
