// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#ifdef HEADROOM_WITH_CUDA

#include "memory/memory_probe.h"

#include <atomic>
#include <cstdint>

namespace hr {

/// A CUDA device's probe: the caching allocator's statistics for this process (allocated,
/// reserved, their peaks, allocation retries), the budget as the per-process memory fraction,
/// and device-wide used memory through NVML, loaded at run time (absent NVML: deviceUsed() is
/// -1, not an error). Only built when LibTorch has CUDA (HEADROOM_WITH_CUDA).
class CudaProbe final : public MemoryProbe {
public:
    /// `index` must be < deviceCount().
    explicit CudaProbe(int index);
    ~CudaProbe() override;

    /// CUDA devices visible to this process (0 when the driver or devices are missing).
    static int deviceCount();

    std::string deviceName() const override;
    std::int64_t allocated() const override;
    std::int64_t reserved() const override;
    std::int64_t peak() const override;
    std::int64_t peakReserved() const override;
    void resetPeak() override;
    void setBudget(std::int64_t bytes) override;
    std::int64_t budget() const override { return m_budget.load(); }
    std::int64_t capacity() const override { return m_capacity; }
    /// From the allocator's out-of-memory observer (LibTorch >= 2.0); 0 with older ones, where
    /// parseRequestedBytes() on the error message gives the size.
    std::int64_t lastFailedRequest() const override;
    std::int64_t retries() const override;
    std::int64_t fragmentation() const override;
    std::int64_t deviceUsed() const override;

private:
    int m_index = 0;
    std::int64_t m_capacity = 0;
    std::atomic<std::int64_t> m_budget{0};
    void* m_nvmlDevice = nullptr; ///< nvmlDevice_t when NVML is available
};

} // namespace hr

#endif // HEADROOM_WITH_CUDA
