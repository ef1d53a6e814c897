// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/cpu_probe.h"

#include "memory/cpu_memory_tracker.h"

#include <unistd.h>

namespace hr {

CpuProbe::CpuProbe() {
    CpuMemoryTracker::instance().install();
}

std::int64_t CpuProbe::allocated() const {
    return CpuMemoryTracker::instance().allocated();
}

std::int64_t CpuProbe::reserved() const {
    return CpuMemoryTracker::instance().allocated();
}

std::int64_t CpuProbe::peak() const {
    return CpuMemoryTracker::instance().peak();
}

void CpuProbe::resetPeak() {
    CpuMemoryTracker::instance().resetPeak();
}

void CpuProbe::setBudget(std::int64_t bytes) {
    CpuMemoryTracker::instance().setBudget(bytes);
}

std::int64_t CpuProbe::budget() const {
    return CpuMemoryTracker::instance().budget();
}

std::int64_t CpuProbe::capacity() const {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return 0;
    return static_cast<std::int64_t>(pages) * pageSize;
}

std::int64_t CpuProbe::lastFailedRequest() const {
    return CpuMemoryTracker::instance().lastFailedRequest();
}

AllocationFailure CpuProbe::lastFailure() const {
    return CpuMemoryTracker::instance().lastFailure();
}

void CpuProbe::beginSession() {
    CpuMemoryTracker::instance().beginSession();
}

} // namespace hr
