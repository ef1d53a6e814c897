// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every difference between the LibTorch releases Headroom builds against sits here: Debian's
// 1.13 (CPU) and a current 2.x (the CUDA builds of the torch package). Code elsewhere calls these
// names and never tests TORCH_VERSION itself. Header-only, so core/util stays free of LibTorch:
// only LibTorch users include it. docs/gpu.md lists what each block covers and where it was read.

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>
#include <torch/optim/optimizer.h>
#include <torch/version.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if TORCH_VERSION_MAJOR < 2
#include <c10/util/variant.h>
#endif
#ifdef HEADROOM_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#define HEADROOM_TORCH_AT_LEAST(major, minor)                                                      \
    (TORCH_VERSION_MAJOR > (major) ||                                                              \
     (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// c10::Allocator: 2.3 made allocate() non-const and added the pure virtual copy_data().
#if HEADROOM_TORCH_AT_LEAST(2, 3)
#define HEADROOM_ALLOCATOR_API_2_3 1
#define HEADROOM_ALLOCATE_CONST
#else
#define HEADROOM_ALLOCATE_CONST const
#endif

namespace hr::compat {

// Out of memory: both releases throw c10::OutOfMemoryError (CPU budget and CUDA caching
// allocator alike); releases before 1.13 called the CUDA one c10::CUDAOutOfMemoryError.
using OutOfMemoryError = c10::OutOfMemoryError;

// Autocast. 2.4 replaced the per-device functions (is_enabled / set_enabled for CUDA,
// is_cpu_enabled, get_autocast_gpu_dtype, ...) by ones taking the device type; the old names
// remain as deprecated wrappers that warn at run time.
inline bool autocastEnabled(c10::DeviceType type) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
    return at::autocast::is_autocast_enabled(type);
#else
    return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled()
                                        : at::autocast::is_enabled();
#endif
}

inline void setAutocastEnabled(c10::DeviceType type, bool enabled) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_enabled(type, enabled);
#else
    if (type == c10::DeviceType::CPU)
        at::autocast::set_cpu_enabled(enabled);
    else
        at::autocast::set_enabled(enabled);
#endif
}

inline at::ScalarType autocastDtype(c10::DeviceType type) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
    return at::autocast::get_autocast_dtype(type);
#else
    return type == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void setAutocastDtype(c10::DeviceType type, at::ScalarType dtype) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_dtype(type, dtype);
#else
    if (type == c10::DeviceType::CPU)
        at::autocast::set_autocast_cpu_dtype(dtype);
    else
        at::autocast::set_autocast_gpu_dtype(dtype);
#endif
}

// The optimizer's per-parameter state is keyed by the parameter's TensorImpl: as its address
// printed into a std::string in 1.13, as the void* itself in 2.x.
using OptimizerStateKey =
    std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state().begin()->first)>;

inline OptimizerStateKey optimizerStateKey(const at::Tensor& parameter) {
#if TORCH_VERSION_MAJOR >= 2
    return parameter.unsafeGetTensorImpl();
#else
    return c10::guts::to_string(parameter.unsafeGetTensorImpl());
#endif
}

// Module options keep alternatives (a convolution's padding) in c10::variant in 1.13 and in
// std::variant from 2.0 on.
template <class T, class Variant>
decltype(auto) alternative(Variant&& v) {
#if TORCH_VERSION_MAJOR >= 2
    return std::get<T>(std::forward<Variant>(v));
#else
    return c10::get<T>(std::forward<Variant>(v));
#endif
}

// GradScaler's unscale: divides every gradient by the loss scale and says whether all are
// finite. On CUDA one fused kernel per dtype does it (the op has a CUDA kernel in 1.13 and 2.x:
// a loop would launch three kernels per parameter); 1.13 has no CPU kernel, so the CPU loops.
// One host sync either way. Gradients must share one device.
inline bool unscaleGradients(const std::vector<at::Tensor>& grads, double inverseScale) {
    if (grads.empty())
        return true;
    at::NoGradGuard noGrad;
    const at::Device device = grads.front().device();
    if (device.is_cuda()) {
        std::map<at::ScalarType, std::vector<at::Tensor>> byType;
        for (const auto& g : grads)
            byType[g.scalar_type()].push_back(g);
        const auto options = at::TensorOptions().device(device).dtype(at::kFloat);
        at::Tensor found = at::zeros({1}, options);
        const at::Tensor inverse = at::full({1}, inverseScale, options);
        for (auto& [type, list] : byType)
            at::_amp_foreach_non_finite_check_and_unscale_(list, found, inverse);
        return found.item<float>() == 0.0f;
    }
    at::Tensor bad;
    for (const auto& g : grads) {
        at::Tensor grad = g; // a handle: mul_ changes the gradient itself
        grad.mul_(inverseScale);
        at::Tensor flag = grad.isfinite().logical_not().any();
        bad = bad.defined() ? bad.logical_or(flag) : flag;
    }
    return !bad.defined() || !bad.item<bool>();
}

// TCPStore's server backend. 2.2 added one on libuv (TCPStoreOptions::useLibUV), 2.4 made it the
// default, and a LibTorch built without libuv (Debian's 2.6, some wheels) refuses it in the
// constructor, before any socket is opened. The library exports no query for it, so the first
// store asks for libuv where the options have the field and falls back to the classic backend
// when the library answers that it has none; the answer holds for the process.
namespace detail {
template <class Options>
auto setStoreLibuv(Options& options, bool on, int) -> decltype(options.useLibUV = on, true) {
    options.useLibUV = on;
    return true;
}
template <class Options>
bool setStoreLibuv(Options&, bool, long) {
    return false;
}
inline std::atomic<int>& storeLibuvKnown() {
    static std::atomic<int> known{-1}; // -1 not asked yet, 0 absent, 1 present
    return known;
}
} // namespace detail

template <class Store, class Options>
c10::intrusive_ptr<Store> makeTcpStore(const std::string& host, Options options) {
    auto& known = detail::storeLibuvKnown();
    const bool hasField = detail::setStoreLibuv(options, known.load() != 0, 0);
    if (!hasField || known.load() != -1)
        return c10::make_intrusive<Store>(host, options);
    try {
        auto store = c10::make_intrusive<Store>(host, options);
        known = 1;
        return store;
    } catch (const c10::Error& e) {
        const std::string what = e.what_without_backtrace();
        if (what.find("libuv") == std::string::npos)
            throw;
    }
    known = 0;
    detail::setStoreLibuv(options, false, 0);
    return c10::make_intrusive<Store>(host, options);
}

#ifdef HEADROOM_WITH_CUDA
// The CUDA caching allocator. 2.x moved DeviceStats and StatType into c10::CachingDeviceAllocator
// (c10/core/CachingDeviceAllocator.h) and takes c10::DeviceIndex where 1.13 took int; the fields
// read here kept their names. Index 0 of each Stat array is the aggregate in every release.

struct CudaAllocatorStats {
    std::int64_t allocated = 0;     ///< bytes in live tensors
    std::int64_t reserved = 0;      ///< bytes cudaMalloc'ed by the allocator (live + cached)
    std::int64_t peakAllocated = 0; ///< since the last resetCudaPeak()
    std::int64_t peakReserved = 0;
    std::int64_t retries = 0; ///< cudaMalloc failures answered by freeing the cache and retrying
    std::int64_t ooms = 0;    ///< out-of-memory errors raised
};

inline CudaAllocatorStats cudaAllocatorStats(int device) {
    const auto s =
        c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
    constexpr std::size_t aggregate = 0;
    CudaAllocatorStats out;
    out.allocated = static_cast<std::int64_t>(s.allocated_bytes[aggregate].current);
    out.reserved = static_cast<std::int64_t>(s.reserved_bytes[aggregate].current);
    out.peakAllocated = static_cast<std::int64_t>(s.allocated_bytes[aggregate].peak);
    out.peakReserved = static_cast<std::int64_t>(s.reserved_bytes[aggregate].peak);
    out.retries = static_cast<std::int64_t>(s.num_alloc_retries);
    out.ooms = static_cast<std::int64_t>(s.num_ooms);
    return out;
}

inline void resetCudaPeak(int device) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
}

/// The per-process memory fraction: the allocator refuses to reserve more than fraction x the
/// device's memory and raises OutOfMemoryError instead.
inline void setCudaMemoryFraction(double fraction, int device) {
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction,
                                                       static_cast<c10::DeviceIndex>(device));
}

/// Returns the allocator's cached, unused blocks to the driver.
inline void emptyCudaCache() {
    c10::cuda::CUDACachingAllocator::emptyCache();
}

// The out-of-memory observer exists from 2.0 on (device, bytes requested, device total, device
// free; the sizes became size_t in later 2.x). Without it the request is parsed from the message.
#if TORCH_VERSION_MAJOR >= 2
#define HEADROOM_CUDA_OOM_OBSERVER 1
template <class Callback>
void attachCudaOomObserver(Callback callback) {
    c10::cuda::CUDACachingAllocator::attachOutOfMemoryObserver(
        [callback](std::int64_t device, auto requested, auto, auto) {
            callback(device, static_cast<std::int64_t>(requested));
        });
}
#endif
#endif // HEADROOM_WITH_CUDA

} // namespace hr::compat
