// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/memory_sample.h"

#include <cstdint>
#include <memory>
#include <string>

namespace hr {

/// A probe's figures at the moment an allocation was refused, taken before anything was
/// released: the numbers an OOM report shows (OomReport).
struct AllocationFailure {
    std::int64_t requested = 0; ///< the refused request
    std::int64_t allocated = 0; ///< counted bytes live when it was refused
    std::int64_t peak = 0;      ///< peak since the last resetPeak(), up to that moment
    std::int64_t budget = 0;
    std::int64_t serial = 0; ///< 1 for the process's first refusal, then 2, ...; 0 = none
};

/// Live memory figures of one device, in bytes. Implementations: CpuProbe (the tracking
/// allocator) and CudaProbe (the CUDA caching allocator; built when LibTorch has CUDA).
/// LibTorch-free so that the GUI can hold one. Every method is thread-safe (the sampler thread
/// reads while the trainer allocates).
class MemoryProbe {
public:
    virtual ~MemoryProbe() = default;

    /// "cpu", "cuda:0".
    virtual std::string deviceName() const = 0;
    /// Live tensor bytes.
    virtual std::int64_t allocated() const = 0;
    /// Bytes the allocator holds (CUDA cache included); equal to allocated() on CPU.
    virtual std::int64_t reserved() const = 0;
    /// Highest allocated() since the last resetPeak().
    virtual std::int64_t peak() const = 0;
    /// Highest reserved() since the last resetPeak().
    virtual std::int64_t peakReserved() const { return peak(); }
    virtual void resetPeak() = 0;

    /// Makes the device behave as if it had `bytes` of memory (0 = no budget). On CPU the
    /// tracker refuses allocations past it; on CUDA it becomes the per-process memory fraction.
    virtual void setBudget(std::int64_t bytes) = 0;
    virtual std::int64_t budget() const = 0;
    /// Total memory of the device (physical RAM on CPU), 0 when unknown.
    virtual std::int64_t capacity() const = 0;
    /// Size of the last allocation refused for lack of memory, 0 when unknown or none.
    virtual std::int64_t lastFailedRequest() const = 0;
    /// Times the allocator had to free its cache and retry (CUDA); 0 on CPU.
    virtual std::int64_t retries() const = 0;
    /// Bytes reserved but not allocated (reserved - allocated).
    virtual std::int64_t fragmentation() const = 0;
    /// The figures at the last refusal; serial 0 when the probe cannot know (CUDA: the trainer
    /// reads them from the allocator's message).
    virtual AllocationFailure lastFailure() const { return {}; }
    /// Starts counting afresh for a new run: memory earlier work still holds stops counting
    /// toward allocated(), peak() and the budget (CPU; CUDA's allocator has no such notion).
    virtual void beginSession() {}

    /// Device-wide used bytes, every process included (NVML); -1 when unknown.
    virtual std::int64_t deviceUsed() const { return -1; }

    /// The current figures as one timeline point (seconds and phase left for the caller).
    MemorySample sample() const;
};

/// A probe for "cpu", "cuda", "cuda:N" or "auto" (CUDA when available, else CPU). The CPU probe
/// installs the tracking allocator. Returns nullptr and fills `error` (when given) for an
/// unknown device, or CUDA when this build or machine has none.
std::unique_ptr<MemoryProbe> makeProbe(const std::string& device, std::string* error = nullptr);

/// Why CUDA cannot be used here, in words for a message: a CPU-only LibTorch, or no device.
std::string noCudaReason();

/// CUDA devices a run on `device` ("cuda", "cuda:N", "auto") can use: all visible ones; 0 for
/// "cpu", on a machine without them, or with a LibTorch built without CUDA.
int cudaDevicesFor(const std::string& device);

/// The bytes an out-of-memory message says were requested ("Tried to allocate 20.00 MiB",
/// CUDA's and the budget's wording); 0 when the message names no size.
std::int64_t parseRequestedBytes(const std::string& oomMessage);

/// The bytes an out-of-memory message says were in use when it failed ("X already allocated",
/// "Of the allocated memory X is allocated by PyTorch"); 0 when it names none.
std::int64_t parseAllocatedBytes(const std::string& oomMessage);

} // namespace hr
