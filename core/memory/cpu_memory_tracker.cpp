// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/cpu_memory_tracker.h"

#include "util/bytes.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstring>
#include <new>

namespace hr {

namespace {

// The header in front of every block. 64 bytes keeps the data at oneDNN's/ATen's alignment.
constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHeaderBytes = 64;
constexpr std::uint64_t kMagic = 0x48524d454d424c4bULL; // "HRMEMBLK"

struct BlockHeader {
    std::uint64_t size;
    std::uint64_t magic;
};
static_assert(sizeof(BlockHeader) <= kHeaderBytes, "header must fit in front of the data");

// Installed with a priority above the default allocator's 0, so nothing registered later at
// the default priority silently replaces the tracker.
constexpr std::uint8_t kPriority = 10;

} // namespace

CpuMemoryTracker& CpuMemoryTracker::instance() {
    // Leaked on purpose: tensors may outlive every static object.
    static CpuMemoryTracker* tracker = new CpuMemoryTracker();
    return *tracker;
}

void CpuMemoryTracker::install() {
    if (m_installed.exchange(true))
        return;
#if defined(__GLIBC__)
    // glibc returns freed tensor memory to the kernel (munmap, heap trimming), so every step
    // page-faults its activations in again: measured 4000 faults and 5-8x the step time of a small
    // conv net. A fixed mmap threshold (its maximum, 32 MiB) and a high trim threshold keep
    // freed blocks in the heap for reuse, like a caching allocator.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
#endif
    c10::SetCPUAllocator(this, kPriority);
}

void CpuMemoryTracker::uninstall() {
    if (!m_installed.exchange(false))
        return;
    c10::SetCPUAllocator(c10::GetDefaultCPUAllocator(), kPriority);
}

std::string budgetOomMessage(std::int64_t requested, std::int64_t allocated, std::int64_t budget) {
    const std::int64_t free = budget > allocated ? budget - allocated : 0;
    return "Headroom budget: tried to allocate " + formatBytes(requested) + " (" +
           formatBytes(allocated) + " already allocated; " + formatBytes(budget) + " budget; " +
           formatBytes(free) + " free)";
}

c10::DataPtr CpuMemoryTracker::allocate(size_t bytes) HEADROOM_ALLOCATE_CONST {
    const c10::Device device(c10::DeviceType::CPU);
    if (bytes == 0)
        return {nullptr, nullptr, &CpuMemoryTracker::release, device};

    const auto size = static_cast<std::int64_t>(bytes);
    // Reserve first, then check: concurrent requests can never pass the budget together.
    const std::int64_t live = m_allocated.fetch_add(size, std::memory_order_relaxed) + size;
    const std::int64_t limit = m_budget.load(std::memory_order_relaxed);
    if (limit > 0 && live > limit) {
        m_allocated.fetch_sub(size, std::memory_order_relaxed);
        m_lastFailed.store(size, std::memory_order_relaxed);
        m_ooms.fetch_add(1, std::memory_order_relaxed);
        C10_THROW_ERROR(OutOfMemoryError, budgetOomMessage(size, live - size, limit));
    }

    void* base = nullptr;
    if (posix_memalign(&base, kAlignment, kHeaderBytes + bytes) != 0 || base == nullptr) {
        m_allocated.fetch_sub(size, std::memory_order_relaxed);
        m_lastFailed.store(size, std::memory_order_relaxed);
        m_ooms.fetch_add(1, std::memory_order_relaxed);
        C10_THROW_ERROR(OutOfMemoryError, "Headroom: host memory exhausted: tried to allocate " +
                                              formatBytes(size) + " (" + formatBytes(live - size) +
                                              " already allocated)");
    }
    auto* header = static_cast<BlockHeader*>(base);
    header->size = bytes;
    header->magic = kMagic;

    std::int64_t peak = m_peak.load(std::memory_order_relaxed);
    while (live > peak && !m_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
    m_allocations.fetch_add(1, std::memory_order_relaxed);

    void* data = static_cast<char*>(base) + kHeaderBytes;
    return {data, data, &CpuMemoryTracker::release, device};
}

c10::DeleterFnPtr CpuMemoryTracker::raw_deleter() const {
    return &CpuMemoryTracker::release;
}

void CpuMemoryTracker::release(void* data) {
    if (data == nullptr)
        return;
    void* base = static_cast<char*>(data) - kHeaderBytes;
    auto* header = static_cast<BlockHeader*>(base);
    TORCH_INTERNAL_ASSERT(header->magic == kMagic, "CpuMemoryTracker: freeing a foreign block");
    header->magic = 0;
    instance().m_allocated.fetch_sub(static_cast<std::int64_t>(header->size),
                                     std::memory_order_relaxed);
    std::free(base);
}

void CpuMemoryTracker::resetPeak() {
    m_peak.store(m_allocated.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void CpuMemoryTracker::setBudget(std::int64_t bytes) {
    m_budget.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

} // namespace hr
