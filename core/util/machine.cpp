// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/machine.h"

#include <fstream>
#include <sched.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace hr {

MachineFacts machineFacts() {
    MachineFacts m;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        m.cores = CPU_COUNT(&set);
    else
        m.cores = static_cast<int>(std::thread::hardware_concurrency());
    if (m.cores < 1)
        m.cores = 1;
    m.totalBytes = static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    m.availableBytes = m.totalBytes;
    // MemAvailable counts the page cache the kernel can give back; free memory alone would
    // refuse runs on any machine that has read files for a while.
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::int64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") {
            m.availableBytes = kib * 1024;
            break;
        }
    return m;
}

} // namespace hr
