// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/cuda_probe.h"

#ifdef HEADROOM_WITH_CUDA

#include "util/torch_compat.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <mutex>

namespace hr {

namespace {

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

#ifdef HEADROOM_CUDA_OOM_OBSERVER
void attachOomObserver() {
    static std::once_flag once;
    std::call_once(once, [] {
        compat::attachCudaOomObserver([](std::int64_t device, std::int64_t requested) {
            if (device >= 0 && device < kMaxDevices)
                g_lastFailed[static_cast<std::size_t>(device)].store(requested);
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
#ifdef HEADROOM_CUDA_OOM_OBSERVER
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
    return compat::cudaAllocatorStats(m_index).allocated;
}

std::int64_t CudaProbe::reserved() const {
    return compat::cudaAllocatorStats(m_index).reserved;
}

std::int64_t CudaProbe::peak() const {
    return compat::cudaAllocatorStats(m_index).peakAllocated;
}

std::int64_t CudaProbe::peakReserved() const {
    return compat::cudaAllocatorStats(m_index).peakReserved;
}

void CudaProbe::resetPeak() {
    compat::resetCudaPeak(m_index);
}

void CudaProbe::setBudget(std::int64_t bytes) {
    const std::int64_t budget = bytes > 0 ? bytes : 0;
    double fraction = 1.0;
    if (budget > 0 && m_capacity > 0)
        fraction = std::min(1.0, static_cast<double>(budget) / static_cast<double>(m_capacity));
    compat::setCudaMemoryFraction(fraction, m_index);
    m_budget.store(budget);
}

std::int64_t CudaProbe::lastFailedRequest() const {
    if (m_index < 0 || m_index >= kMaxDevices)
        return 0;
    return g_lastFailed[static_cast<std::size_t>(m_index)].load();
}

std::int64_t CudaProbe::retries() const {
    return compat::cudaAllocatorStats(m_index).retries;
}

std::int64_t CudaProbe::fragmentation() const {
    const compat::CudaAllocatorStats stats = compat::cudaAllocatorStats(m_index);
    return stats.reserved - stats.allocated;
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
