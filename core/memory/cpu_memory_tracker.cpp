// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/cpu_memory_tracker.h"

#include "util/bytes.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstring>
#include <iterator>
#include <new>
#include <sys/mman.h>
#include <utility>
#include <vector>

namespace hr {

namespace {

// The header in front of every block. 64 bytes keeps the data at oneDNN's/ATen's alignment.
constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHeaderBytes = 64;
constexpr std::uint64_t kMagic = 0x48524d454d424c4bULL; // "HRMEMBLK"

struct BlockHeader {
    std::uint64_t size; ///< bytes the caller asked for
    std::uint64_t magic;
    std::uint64_t mapped; ///< length of the block's own mapping; 0 for a malloc block
    /// The session it counts in; 0 = a host block (HostAllocationScope), counted in m_host.
    std::atomic<std::uint64_t> session;
};
static_assert(sizeof(BlockHeader) <= kHeaderBytes, "header must fit in front of the data");

// Installed with a priority above the default allocator's 0, so nothing registered later at
// the default priority silently replaces the tracker.
constexpr std::uint8_t kPriority = 10;

// Blocks this large (glibc would mmap them: its mmap threshold cannot go above 32 MiB) get a
// mapping of their own, in 2 MiB steps (transparent huge pages where the kernel offers them), and
// are kept for reuse when freed, as CUDA's caching allocator keeps its blocks. A training step
// frees and asks again for the same sizes, so the cache turns ~25000 page faults per step
// (yolov8n, 320 px, batch 16: the kernel zero-filling every large activation again) into none.
constexpr std::size_t kLargeBlock = 32u << 20;
constexpr std::size_t kHugePage = 2u << 20;
constexpr std::int64_t kCacheLimit = std::int64_t(512) << 20;

std::size_t mappedLength(std::size_t bytes) {
    return (kHeaderBytes + bytes + kHugePage - 1) / kHugePage * kHugePage;
}

void* mapBlock(std::size_t length) {
    void* base =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return nullptr;
#ifdef MADV_HUGEPAGE
    ::madvise(base, length, MADV_HUGEPAGE); // advice only: failure keeps 4 KiB pages
#endif
    return base;
}

thread_local int t_hostScopes = 0;

} // namespace

HostAllocationScope::HostAllocationScope() {
    ++t_hostScopes;
}

HostAllocationScope::~HostAllocationScope() {
    --t_hostScopes;
}

bool HostAllocationScope::active() {
    return t_hostScopes > 0;
}

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
    // would page-fault its activations in again (docs/decisions.md, "glibc's heap"). A fixed
    // mmap threshold (its maximum, 32 MiB) and a high trim threshold keep freed blocks in the
    // heap for reuse, like a caching allocator.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
    // glibc gives threads arenas of their own (up to 8 per core), and what the loader's threads
    // free stays in theirs; two arenas share that memory with the training thread: 30-75 MiB
    // less peak RSS, the same speed (docs/decisions.md, "Peak RSS taken apart").
    mallopt(M_ARENA_MAX, 2);
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
    const bool host = HostAllocationScope::active();
    const std::uint64_t session = host ? 0 : m_session.load(std::memory_order_relaxed);
    std::atomic<std::int64_t>& counter = host ? m_host : m_allocated;
    // Reserve first, then check: concurrent requests can never pass the budget together.
    const std::int64_t live = counter.fetch_add(size, std::memory_order_relaxed) + size;
    const std::int64_t limit = m_budget.load(std::memory_order_relaxed);
    if (!host && limit > 0 && live > limit) {
        counter.fetch_sub(size, std::memory_order_relaxed);
        refuse(size, live - size, limit);
    }

    void* base = nullptr;
    std::size_t mapped = 0;
    if (bytes >= kLargeBlock) {
        mapped = mappedLength(bytes);
        base = takeCached(mapped);
        if (base == nullptr)
            base = mapBlock(mapped);
        if (base == nullptr) { // the kernel refused: give back the cache once and retry
            releaseCached();
            base = mapBlock(mapped);
        }
    } else if (posix_memalign(&base, kAlignment, kHeaderBytes + bytes) != 0) {
        base = nullptr;
    }
    if (base == nullptr) {
        counter.fetch_sub(size, std::memory_order_relaxed);
        m_lastFailed.store(size, std::memory_order_relaxed);
        m_ooms.fetch_add(1, std::memory_order_relaxed);
        C10_THROW_ERROR(OutOfMemoryError, "Headroom: host memory exhausted: tried to allocate " +
                                              formatBytes(size) + " (" + formatBytes(live - size) +
                                              " already allocated)");
    }
    auto* header = static_cast<BlockHeader*>(base);
    header->size = bytes;
    header->magic = kMagic;
    header->mapped = mapped;
    new (&header->session) std::atomic<std::uint64_t>(session);

    std::int64_t peak = m_peak.load(std::memory_order_relaxed);
    while (!host && live > peak &&
           !m_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
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
    CpuMemoryTracker& tracker = instance();
    const std::uint64_t session = header->session.load(std::memory_order_relaxed);
    const auto size = static_cast<std::int64_t>(header->size);
    if (session == 0)
        tracker.m_host.fetch_sub(size, std::memory_order_relaxed);
    else if (session == tracker.m_session.load(std::memory_order_relaxed))
        tracker.m_allocated.fetch_sub(size, std::memory_order_relaxed);
    // else: an earlier session's block, no longer counted anywhere
    if (header->mapped != 0)
        tracker.keepCached(base, header->mapped);
    else
        std::free(base);
}

void* CpuMemoryTracker::takeCached(std::size_t length) const {
    std::lock_guard<std::mutex> lock(m_cacheMutex);
    const auto it = m_cache.find(length);
    if (it == m_cache.end())
        return nullptr;
    void* base = it->second;
    m_cache.erase(it);
    m_cached.fetch_sub(static_cast<std::int64_t>(length), std::memory_order_relaxed);
    return base;
}

void CpuMemoryTracker::keepCached(void* base, std::size_t length) {
    std::vector<std::pair<void*, std::size_t>> evicted;
    {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        m_cache.emplace(length, base);
        std::int64_t cached =
            m_cached.fetch_add(static_cast<std::int64_t>(length), std::memory_order_relaxed) +
            static_cast<std::int64_t>(length);
        // Over the limit: unmap the largest blocks first (the rarest sizes to ask for again).
        while (cached > kCacheLimit && !m_cache.empty()) {
            auto largest = std::prev(m_cache.end());
            evicted.emplace_back(largest->second, largest->first);
            cached -= static_cast<std::int64_t>(largest->first);
            m_cached.fetch_sub(static_cast<std::int64_t>(largest->first),
                               std::memory_order_relaxed);
            m_cache.erase(largest);
        }
    }
    for (const auto& [block, size] : evicted)
        ::munmap(block, size);
}

void CpuMemoryTracker::releaseCached() const {
    std::multimap<std::size_t, void*> blocks;
    {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        blocks.swap(m_cache);
        m_cached.store(0, std::memory_order_relaxed);
    }
    for (const auto& [size, block] : blocks)
        ::munmap(block, size);
}

void CpuMemoryTracker::refuse(std::int64_t size, std::int64_t live, std::int64_t limit) const {
    m_lastFailed.store(size, std::memory_order_relaxed);
    const std::int64_t serial = m_ooms.fetch_add(1, std::memory_order_relaxed) + 1;
    {
        std::lock_guard<std::mutex> lock(m_failureMutex);
        m_failure.requested = size;
        m_failure.allocated = live;
        m_failure.peak = std::max(m_peak.load(std::memory_order_relaxed), live);
        m_failure.budget = limit;
        m_failure.serial = serial;
    }
    C10_THROW_ERROR(OutOfMemoryError, budgetOomMessage(size, live, limit));
}

AllocationFailure CpuMemoryTracker::lastFailure() const {
    std::lock_guard<std::mutex> lock(m_failureMutex);
    return m_failure;
}

void CpuMemoryTracker::beginSession() {
    m_session.fetch_add(1, std::memory_order_relaxed);
    m_allocated.store(0, std::memory_order_relaxed);
    m_peak.store(0, std::memory_order_relaxed);
}

void CpuMemoryTracker::countOnDevice(const c10::DataPtr& data) {
    if (data.get() == nullptr || data.get_deleter() != &CpuMemoryTracker::release)
        return;
    auto* header = reinterpret_cast<BlockHeader*>(static_cast<char*>(data.get()) - kHeaderBytes);
    const std::uint64_t current = m_session.load(std::memory_order_relaxed);
    const std::uint64_t was = header->session.load(std::memory_order_relaxed);
    if (was == current)
        return;
    const auto size = static_cast<std::int64_t>(header->size);
    const std::int64_t live = m_allocated.fetch_add(size, std::memory_order_relaxed) + size;
    const std::int64_t limit = m_budget.load(std::memory_order_relaxed);
    if (limit > 0 && live > limit) {
        m_allocated.fetch_sub(size, std::memory_order_relaxed);
        refuse(size, live - size, limit);
    }
    // The caller holds the storage, so nothing frees the block while its owner changes.
    header->session.store(current, std::memory_order_relaxed);
    if (was == 0)
        m_host.fetch_sub(size, std::memory_order_relaxed);
    std::int64_t peak = m_peak.load(std::memory_order_relaxed);
    while (live > peak && !m_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
}

void CpuMemoryTracker::resetPeak() {
    m_peak.store(m_allocated.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void CpuMemoryTracker::setBudget(std::int64_t bytes) {
    m_budget.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

} // namespace hr
