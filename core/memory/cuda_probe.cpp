// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/cuda_probe.h"

#ifdef HEADROOM_WITH_CUDA

#include <ATen/ATen.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <mutex>

namespace hr {

namespace {

// Index 0 of every Stat array is StatType::AGGREGATE in every LibTorch release; the enum moved
// namespaces between releases, so the index is spelled out.
constexpr std::size_t kAggregate = 0;

// NVML, resolved with dlopen so that a machine without the driver's library still runs.
struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
using NvmlInit = int (*)();
using NvmlByPciBusId = int (*)(const char*, void**);
using NvmlMemoryInfo = int (*)(void*, NvmlMemory*);

struct Nvml {
    bool ready = false;
    NvmlByPciBusId byPciBusId = nullptr;
    NvmlMemoryInfo memoryInfo = nullptr;
};

const Nvml& nvml() {
    static Nvml api;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr)
            return;
        auto init = reinterpret_cast<NvmlInit>(dlsym(lib, "nvmlInit_v2"));
        api.byPciBusId =
            reinterpret_cast<NvmlByPciBusId>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
        api.memoryInfo = reinterpret_cast<NvmlMemoryInfo>(dlsym(lib, "nvmlDeviceGetMemoryInfo"));
        // NVML stays loaded and initialised for the life of the process.
        api.ready = init && api.byPciBusId && api.memoryInfo && init() == 0;
    });
    return api;
}

constexpr int kMaxDevices = 64;
std::array<std::atomic<std::int64_t>, kMaxDevices> g_lastFailed{};

#if TORCH_VERSION_MAJOR >= 2
void attachOomObserver() {
    static std::once_flag once;
    std::call_once(once, [] {
        c10::cuda::CUDACachingAllocator::attachOutOfMemoryObserver(
            [](std::int64_t device, std::size_t requested, std::size_t, std::size_t) {
                if (device >= 0 && device < kMaxDevices)
                    g_lastFailed[static_cast<std::size_t>(device)].store(
                        static_cast<std::int64_t>(requested));
            });
    });
}
#endif

c10::DeviceIndex deviceIndex(int index) {
    return static_cast<c10::DeviceIndex>(index);
}

} // namespace

CudaProbe::CudaProbe(int index) : m_index(index) {
    // The caching allocator's statistics exist only once LibTorch has initialised CUDA; a tiny
    // tensor makes it do so (the block stays in the allocator's cache).
    at::empty({1}, at::TensorOptions().device(at::Device(at::kCUDA, deviceIndex(index))));
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, index) == cudaSuccess)
        m_capacity = static_cast<std::int64_t>(properties.totalGlobalMem);
    else
        cudaGetLastError(); // clear the sticky-free error so later CUDA calls are unaffected
#if TORCH_VERSION_MAJOR >= 2
    attachOomObserver();
#endif
    const Nvml& api = nvml();
    char busId[32] = {};
    if (api.ready && cudaDeviceGetPCIBusId(busId, sizeof busId, index) == cudaSuccess) {
        void* device = nullptr;
        if (api.byPciBusId(busId, &device) == 0)
            m_nvmlDevice = device;
    }
}

CudaProbe::~CudaProbe() = default;

int CudaProbe::deviceCount() {
    return static_cast<int>(c10::cuda::device_count());
}

std::string CudaProbe::deviceName() const {
    return "cuda:" + std::to_string(m_index);
}

std::int64_t CudaProbe::allocated() const {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(m_index));
    return stats.allocated_bytes[kAggregate].current;
}

std::int64_t CudaProbe::reserved() const {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(m_index));
    return stats.reserved_bytes[kAggregate].current;
}

std::int64_t CudaProbe::peak() const {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(m_index));
    return stats.allocated_bytes[kAggregate].peak;
}

std::int64_t CudaProbe::peakReserved() const {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(m_index));
    return stats.reserved_bytes[kAggregate].peak;
}

void CudaProbe::resetPeak() {
    c10::cuda::CUDACachingAllocator::resetPeakStats(deviceIndex(m_index));
}

void CudaProbe::setBudget(std::int64_t bytes) {
    const std::int64_t budget = bytes > 0 ? bytes : 0;
    double fraction = 1.0;
    if (budget > 0 && m_capacity > 0)
        fraction = std::min(1.0, static_cast<double>(budget) / static_cast<double>(m_capacity));
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, deviceIndex(m_index));
    m_budget.store(budget);
}

std::int64_t CudaProbe::lastFailedRequest() const {
    if (m_index < 0 || m_index >= kMaxDevices)
        return 0;
    return g_lastFailed[static_cast<std::size_t>(m_index)].load();
}

std::int64_t CudaProbe::retries() const {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(m_index));
    return stats.num_alloc_retries;
}

std::int64_t CudaProbe::fragmentation() const {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(deviceIndex(m_index));
    return stats.reserved_bytes[kAggregate].current - stats.allocated_bytes[kAggregate].current;
}

std::int64_t CudaProbe::deviceUsed() const {
    if (m_nvmlDevice == nullptr)
        return -1;
    NvmlMemory memory{};
    if (nvml().memoryInfo(m_nvmlDevice, &memory) != 0)
        return -1;
    return static_cast<std::int64_t>(memory.used);
}

} // namespace hr

#endif // HEADROOM_WITH_CUDA
