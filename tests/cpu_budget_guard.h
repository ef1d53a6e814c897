// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The process-wide CPU budget for one scope of a test.

#include "memory/cpu_memory_tracker.h"

#include <cstdint>

namespace hr::testing {

/// Sets the CPU tracker's budget and lifts it (0) when the scope ends on any path: a failed
/// QVERIFY returns from the test function early, and a budget left behind would make every
/// later test of the process fail with out-of-memory errors of its own.
class CpuBudgetGuard {
public:
    explicit CpuBudgetGuard(std::int64_t bytes) { set(bytes); }
    /// Only lifts the budget at the end: for a scope in which a run sets its memory_budget.
    CpuBudgetGuard() = default;
    ~CpuBudgetGuard() { CpuMemoryTracker::instance().setBudget(0); }
    CpuBudgetGuard(const CpuBudgetGuard&) = delete;
    CpuBudgetGuard& operator=(const CpuBudgetGuard&) = delete;

    void set(std::int64_t bytes) { CpuMemoryTracker::instance().setBudget(bytes); }
};

} // namespace hr::testing
