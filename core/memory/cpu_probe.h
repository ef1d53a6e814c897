// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/memory_probe.h"

namespace hr {

/// The CPU's probe: figures from the process-wide CpuMemoryTracker, which its constructor
/// installs. Several CpuProbes share the tracker (and its budget).
class CpuProbe final : public MemoryProbe {
public:
    CpuProbe();

    std::string deviceName() const override { return "cpu"; }
    std::int64_t allocated() const override;
    std::int64_t reserved() const override;
    std::int64_t peak() const override;
    void resetPeak() override;
    void setBudget(std::int64_t bytes) override;
    std::int64_t budget() const override;
    std::int64_t capacity() const override;
    std::int64_t lastFailedRequest() const override;
    AllocationFailure lastFailure() const override;
    void beginSession() override;
    std::int64_t retries() const override { return 0; }
    std::int64_t fragmentation() const override { return 0; }
};

} // namespace hr
