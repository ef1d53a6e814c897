// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/torch_compat.h"

#include <c10/core/Allocator.h>

#include "memory/memory_probe.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

namespace hr {

/// The CPU tensor allocator Headroom installs in place of LibTorch's default one. It counts live
/// and peak tensor bytes (every CPU tensor, oneDNN's buffers included, once installed) and
/// enforces an optional **budget**: an allocation that would take the live bytes past it throws
/// `c10::OutOfMemoryError` with a message shaped like CUDA's, so a CPU run fails the way a GPU of
/// that size would, and the failure is catchable around forward/backward.
///
/// What counts (the simulated device, docs/ARCHITECTURE.md "What counts against a CPU budget"):
/// allocations of the current **session** (beginSession(): a run starts one) made outside a
/// HostAllocationScope. Host-side work - a data loader assembling batches - runs in a
/// HostAllocationScope: on a GPU those bytes are host RAM, not device memory. A host batch
/// starts to count when the trainer moves it to the device (countOnDevice()). Blocks of an
/// earlier session (an earlier run's or calibration's tensors still alive) never count toward
/// the new one.
///
/// There is one tracker per process (`instance()`, never destroyed: blocks it handed out may be
/// freed at any time, even during static destruction). Counters are atomics; every method is
/// thread-safe. Each block carries a 64-byte header holding its size and session, so the data
/// stays 64-byte aligned and `raw_allocate()` / `raw_deleter()` work (data == context).
class CpuMemoryTracker final : public c10::Allocator {
public:
    /// The process-wide tracker. Not installed until install() is called.
    static CpuMemoryTracker& instance();

    /// Makes this tracker LibTorch's CPU allocator (`c10::SetCPUAllocator`). Idempotent.
    /// Tensors allocated before this call are not counted (and are freed by their own allocator).
    /// With glibc it also keeps freed memory in the process heap (mallopt), which removes the
    /// page faults that otherwise dominate CPU step time, and limits the heap to two arenas.
    void install();
    /// Puts LibTorch's default CPU allocator back. Blocks already handed out stay valid, but
    /// call it only between steps: oneDNN frees its buffers through whichever allocator is
    /// current, so no oneDNN buffer may be live across the switch.
    void uninstall();
    bool installed() const { return m_installed.load(std::memory_order_relaxed); }

    c10::DataPtr allocate(size_t bytes) HEADROOM_ALLOCATE_CONST override;
    c10::DeleterFnPtr raw_deleter() const override;
#ifdef HEADROOM_ALLOCATOR_API_2_3
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
#endif

    /// Live counted bytes: this session's device allocations (see the class comment).
    std::int64_t allocated() const {
        return m_allocated.load(std::memory_order_relaxed);
    }
    /// Highest allocated() since the last resetPeak().
    std::int64_t peak() const {
        return m_peak.load(std::memory_order_relaxed);
    }
    /// Sets the peak to the current live bytes.
    void resetPeak();

    /// Bytes the live tensors may reach; 0 = no budget.
    void setBudget(std::int64_t bytes);
    std::int64_t budget() const {
        return m_budget.load(std::memory_order_relaxed);
    }

    /// Starts a new accounting session: allocated() and peak() restart at 0, and blocks alive
    /// now (any earlier work's) stop counting - freeing them later changes nothing. Call when
    /// a run starts, before it builds anything.
    void beginSession();
    /// Makes a host block (allocated in a HostAllocationScope or an earlier session) count from
    /// now on, as a copy to the device would: throws c10::OutOfMemoryError when the budget
    /// refuses it. Does nothing for a block that already counts, or one this tracker did not
    /// allocate. `data` is a storage's DataPtr.
    void countOnDevice(const c10::DataPtr& data);
    /// Live bytes of host-scope blocks (loader batches, not counted against the budget).
    std::int64_t hostAllocated() const {
        return m_host.load(std::memory_order_relaxed);
    }
    /// The figures at the last refusal (serial 0 = none yet).
    AllocationFailure lastFailure() const;

    /// Size of the last request refused by the budget (0 = none yet).
    std::int64_t lastFailedRequest() const {
        return m_lastFailed.load(std::memory_order_relaxed);
    }
    /// How many requests the budget refused since the process started.
    std::int64_t oomCount() const {
        return m_ooms.load(std::memory_order_relaxed);
    }
    /// How many blocks this tracker handed out since the process started.
    std::int64_t allocationCount() const {
        return m_allocations.load(std::memory_order_relaxed);
    }
    /// Bytes of freed large blocks (32 MiB and more) kept mapped for reuse; they count towards
    /// the process's resident memory but not towards allocated() or the budget, as CUDA's
    /// reserved-but-free memory does not count as allocated.
    std::int64_t cachedBytes() const {
        return m_cached.load(std::memory_order_relaxed);
    }
    /// Returns every cached block to the kernel (as CUDA's emptyCache does).
    void releaseCached() const;

    CpuMemoryTracker(const CpuMemoryTracker&) = delete;
    CpuMemoryTracker& operator=(const CpuMemoryTracker&) = delete;

private:
    CpuMemoryTracker() = default;
    static void release(void* data);
    void* takeCached(std::size_t length) const;
    void keepCached(void* base, std::size_t length);
    [[noreturn]] void refuse(std::int64_t size, std::int64_t live, std::int64_t limit) const;

    mutable std::atomic<std::int64_t> m_allocated{0};
    mutable std::atomic<std::int64_t> m_peak{0};
    std::atomic<std::int64_t> m_budget{0};
    mutable std::atomic<std::int64_t> m_lastFailed{0};
    mutable std::atomic<std::int64_t> m_ooms{0};
    mutable std::atomic<std::int64_t> m_allocations{0};
    mutable std::atomic<std::int64_t> m_host{0};
    std::atomic<std::uint64_t> m_session{1};
    mutable std::mutex m_failureMutex;
    mutable AllocationFailure m_failure;
    std::atomic<bool> m_installed{false};
    mutable std::mutex m_cacheMutex;
    mutable std::multimap<std::size_t, void*> m_cache; ///< mapping length -> block, for reuse
    mutable std::atomic<std::int64_t> m_cached{0};
};

/// Allocations this thread makes while one is alive are host memory: never counted, never
/// refused by the budget (data loader workers; nesting is fine).
class HostAllocationScope {
public:
    HostAllocationScope();
    ~HostAllocationScope();
    HostAllocationScope(const HostAllocationScope&) = delete;
    HostAllocationScope& operator=(const HostAllocationScope&) = delete;
    /// True while the calling thread is inside one.
    static bool active();
};

/// The message the budget's OutOfMemoryError carries: "Headroom budget: tried to allocate X
/// (Y already allocated; Z budget; W free)". Exposed so that tests and the advisor agree on it.
std::string budgetOomMessage(std::int64_t requested, std::int64_t allocated, std::int64_t budget);

} // namespace hr
