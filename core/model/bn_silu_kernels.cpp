// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/bn_silu_kernels.h"
#include "model/kernel_support.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hr::kernels {

namespace {

using detail::BFloat16Io;
using detail::expApprox;
using detail::FloatIo;

// Float accumulators are flushed into the double sums every kBlockRows rows: the inner loops
// stay in float (twice the vector width) and a sum over 400,000 rows still keeps its digits.
constexpr std::int64_t kBlockRows = 64;

HR_INLINE float sigmoid(float z) {
    return 1.0f / (1.0f + expApprox(-z));
}

// d silu(z) / dz = s (1 + z (1 - s)), s = sigmoid(z).
HR_INLINE float siluGrad(float z) {
    const float s = sigmoid(z);
    return s * (1.0f + z * (1.0f - s));
}

/// Two per-channel sums over rows [begin, end): `addRows(r0, r1, first, second)` adds rows
/// [r0, r1) into float arrays, flushed into the double sums every kBlockRows rows.
template <typename AddRows>
HR_INLINE void blockedSums(std::int64_t channels, std::int64_t begin, std::int64_t end,
                           double* HR_RESTRICT first, double* HR_RESTRICT second,
                           const AddRows& addRows) {
    std::vector<float> blockFirst(static_cast<size_t>(channels));
    std::vector<float> blockSecond(static_cast<size_t>(channels));
    for (std::int64_t r0 = begin; r0 < end; r0 += kBlockRows) {
        std::fill(blockFirst.begin(), blockFirst.end(), 0.0f);
        std::fill(blockSecond.begin(), blockSecond.end(), 0.0f);
        addRows(r0, end < r0 + kBlockRows ? end : r0 + kBlockRows, blockFirst.data(),
                blockSecond.data());
        for (std::int64_t c = 0; c < channels; ++c) {
            first[c] += blockFirst[c];
            second[c] += blockSecond[c];
        }
    }
}

template <typename Io>
HR_INLINE void momentsOf(const void* xv, std::int64_t channels, std::int64_t begin,
                         std::int64_t end, const float* HR_RESTRICT shift, double* sum,
                         double* squares) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    blockedSums(channels, begin, end, sum, squares,
                [&](std::int64_t r0, std::int64_t r1, float* HR_RESTRICT bs, float* HR_RESTRICT bq)
                    HR_LAMBDA_INLINE {
                        for (std::int64_t r = r0; r < r1; ++r) {
                            const typename Io::T* HR_RESTRICT row = x + r * channels;
                            for (std::int64_t c = 0; c < channels; ++c) {
                                const float d = Io::load(row, c) - shift[c];
                                bs[c] += d;
                                bq[c] += d * d;
                            }
                        }
                    });
}

template <typename Io>
HR_INLINE void siluOf(const void* xv, void* yv, std::int64_t channels, std::int64_t begin,
                      std::int64_t end, const float* HR_RESTRICT scale,
                      const float* HR_RESTRICT offset) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    auto* y = static_cast<typename Io::T*>(yv);
    for (std::int64_t r = begin; r < end; ++r) {
        const typename Io::T* HR_RESTRICT in = x + r * channels;
        typename Io::T* HR_RESTRICT out = y + r * channels;
        for (std::int64_t c = 0; c < channels; ++c) {
            const float z = Io::load(in, c) * scale[c] + offset[c];
            Io::store(out, c, z * sigmoid(z));
        }
    }
}

template <typename Io, bool StoreDz>
HR_INLINE void gradSumsOf(const void* xv, const void* dyv, void* dzv, std::int64_t channels,
                          std::int64_t begin, std::int64_t end, const float* HR_RESTRICT scale,
                          const float* HR_RESTRICT offset, const float* HR_RESTRICT mean,
                          double* sumDz, double* sumDzCentred) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    const auto* dy = static_cast<const typename Io::T*>(dyv);
    auto* dzOut = static_cast<typename Io::T*>(dzv);
    blockedSums(channels, begin, end, sumDz, sumDzCentred,
                [&](std::int64_t r0, std::int64_t r1, float* HR_RESTRICT bd,
                    float* HR_RESTRICT bc) HR_LAMBDA_INLINE {
                    for (std::int64_t r = r0; r < r1; ++r) {
                        const typename Io::T* HR_RESTRICT xr = x + r * channels;
                        const typename Io::T* HR_RESTRICT gr = dy + r * channels;
                        typename Io::T* HR_RESTRICT out = StoreDz ? dzOut + r * channels : nullptr;
                        for (std::int64_t c = 0; c < channels; ++c) {
                            const float xc = Io::load(xr, c);
                            const float dz = Io::load(gr, c) * siluGrad(xc * scale[c] + offset[c]);
                            if constexpr (StoreDz)
                                Io::store(out, c, dz);
                            bd[c] += dz;
                            bc[c] += dz * (xc - mean[c]);
                        }
                    }
                });
}

// `dz` and `dx` may be one array: each element is read before it is written.
template <typename Io>
HR_INLINE void gradInputOf(const void* xv, const void* dzv, void* dxv, std::int64_t channels,
                           std::int64_t begin, std::int64_t end, const float* HR_RESTRICT gain,
                           const float* HR_RESTRICT slope, const float* HR_RESTRICT constant) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    const auto* dz = static_cast<const typename Io::T*>(dzv);
    auto* dx = static_cast<typename Io::T*>(dxv);
    for (std::int64_t r = begin; r < end; ++r) {
        const typename Io::T* HR_RESTRICT xr = x + r * channels;
        const typename Io::T* gr = dz + r * channels;
        typename Io::T* out = dx + r * channels;
        for (std::int64_t c = 0; c < channels; ++c)
            Io::store(out, c, Io::load(gr, c) * gain[c] + Io::load(xr, c) * slope[c] + constant[c]);
    }
}

// Hand-written AVX-512 for the three passes that apply SiLU, on CPUs that have AVX512-BF16.
// GCC's own vectorising of the loops above packs bf16 through integer shuffles, divides for the
// sigmoid and, on AMD Zen, loses most of its speed to masked loads and stores; the silu pass
// runs 1.7x (fp32) and 3.3x (bf16) faster (docs/decisions.md, "Fused BatchNorm and SiLU by
// hand"). GCC only: its pragma gives the lambdas below the same instruction set as their
// functions.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__APPLE__)
#define HR_AVX512_KERNELS 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma")
// GCC 12's AVX-512 intrinsics trip its own maybe-uninitialized warning (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace avx512 {

// Lanes c .. c + 15 of a row: all sixteen, or the first few at a row's end. Whole-vector loads
// and stores wherever they fit, since masked ones are what is slow on AMD Zen.
struct Full {};
struct Tail {
    __mmask16 mask;
};

HR_INLINE __m512 loadFloats(const float* p, Full) {
    return _mm512_loadu_ps(p);
}
HR_INLINE __m512 loadFloats(const float* p, Tail t) {
    return _mm512_maskz_loadu_ps(t.mask, p);
}
HR_INLINE void storeFloats(float* p, __m512 v, Full) {
    _mm512_storeu_ps(p, v);
}
HR_INLINE void storeFloats(float* p, __m512 v, Tail t) {
    _mm512_mask_storeu_ps(p, t.mask, v);
}

HR_INLINE __m512 widen(__m256i bf16) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bf16), 16));
}
HR_INLINE __m512 loadFloats(const std::uint16_t* p, Full) {
    return widen(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
HR_INLINE __m512 loadFloats(const std::uint16_t* p, Tail t) {
    return widen(_mm256_maskz_loadu_epi16(t.mask, p));
}
// vcvtneps2bf16 rounds to nearest even and keeps NaNs, as BFloat16Io::store does.
HR_INLINE void storeFloats(std::uint16_t* p, __m512 v, Full) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), (__m256i)_mm512_cvtneps_pbh(v));
}
HR_INLINE void storeFloats(std::uint16_t* p, __m512 v, Tail t) {
    _mm256_mask_storeu_epi16(p, t.mask, (__m256i)_mm512_cvtneps_pbh(v));
}

/// Calls `lanes(c, Full{})` for each whole vector of a row's channels, then `lanes(c, Tail)`
/// for what is left.
template <typename Lanes>
HR_INLINE void forLanes(std::int64_t channels, const Lanes& lanes) {
    std::int64_t c = 0;
    for (; c + 16 <= channels; c += 16)
        lanes(c, Full{});
    if (c < channels)
        lanes(c, Tail{static_cast<__mmask16>((1u << (channels - c)) - 1u)});
}

/// forLanes over rows [begin, end): `lanes(at, c, Full{} or Tail)`, `at` the first element's
/// index in the tensor and `c` its channel.
template <typename Lanes>
HR_INLINE void forRowLanes(std::int64_t begin, std::int64_t end, std::int64_t channels,
                           const Lanes& lanes) {
    for (std::int64_t r = begin; r < end; ++r)
        forLanes(channels, [&](std::int64_t c, auto part) { lanes(r * channels + c, c, part); });
}

// The math is as precise as the storage keeps: for bf16 (8 bits of mantissa) a degree-4
// polynomial and the reciprocal's estimate alone; both errors stay under 1e-4 (an error of the
// bf16 rounding is 4e-3) and the passes take a third less time.
template <typename T>
constexpr bool kCoarse = std::is_same_v<T, std::uint16_t>;

// expApprox above, lane by lane.
template <bool Coarse>
HR_INLINE __m512 exp(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.4286068e-6f), r);
    __m512 p = _mm512_set1_ps(1.0f / 24.0f);
    if constexpr (!Coarse) {
        p = _mm512_set1_ps(1.0f / 720.0f);
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    }
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

// 1 / (1 + e^-z) from the reciprocal's 14-bit estimate, refined by a Newton step unless
// coarse: a division costs more than the whole polynomial.
template <bool Coarse>
HR_INLINE __m512 sigmoid(__m512 z) {
    const __m512 d =
        _mm512_add_ps(_mm512_set1_ps(1.0f), exp<Coarse>(_mm512_sub_ps(_mm512_setzero_ps(), z)));
    const __m512 r = _mm512_rcp14_ps(d);
    if constexpr (Coarse)
        return r;
    return _mm512_mul_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(2.0f)));
}

// siluGrad above, lane by lane.
template <bool Coarse>
HR_INLINE __m512 siluGrad(__m512 z) {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 s = sigmoid<Coarse>(z);
    return _mm512_mul_ps(s, _mm512_fmadd_ps(z, _mm512_sub_ps(one, s), one));
}

template <typename T>
void silu(const void* xv, void* yv, std::int64_t channels, std::int64_t begin, std::int64_t end,
          const float* scale, const float* offset) {
    const T* x = static_cast<const T*>(xv);
    T* y = static_cast<T*>(yv);
    forRowLanes(begin, end, channels, [&](std::int64_t at, std::int64_t c, auto lanes) {
        const __m512 z = _mm512_fmadd_ps(loadFloats(x + at, lanes), loadFloats(scale + c, lanes),
                                         loadFloats(offset + c, lanes));
        storeFloats(y + at, _mm512_mul_ps(z, sigmoid<kCoarse<T>>(z)), lanes);
    });
}

template <typename T, bool StoreDz>
void gradSums(const void* xv, const void* dyv, void* dzv, std::int64_t channels, std::int64_t begin,
              std::int64_t end, const float* scale, const float* offset, const float* mean,
              double* sumDz, double* sumDzCentred) {
    const T* x = static_cast<const T*>(xv);
    const T* dy = static_cast<const T*>(dyv);
    blockedSums(channels, begin, end, sumDz, sumDzCentred,
                [&](std::int64_t r0, std::int64_t r1, float* bd, float* bc) {
                    forRowLanes(r0, r1, channels, [&](std::int64_t at, std::int64_t c, auto lanes) {
                        const __m512 xc = loadFloats(x + at, lanes);
                        const __m512 z = _mm512_fmadd_ps(xc, loadFloats(scale + c, lanes),
                                                         loadFloats(offset + c, lanes));
                        const __m512 dz =
                            _mm512_mul_ps(loadFloats(dy + at, lanes), siluGrad<kCoarse<T>>(z));
                        if constexpr (StoreDz)
                            storeFloats(static_cast<T*>(dzv) + at, dz, lanes);
                        const __m512 centred = _mm512_sub_ps(xc, loadFloats(mean + c, lanes));
                        storeFloats(bd + c, _mm512_add_ps(loadFloats(bd + c, lanes), dz), lanes);
                        storeFloats(bc + c, _mm512_fmadd_ps(dz, centred, loadFloats(bc + c, lanes)),
                                    lanes);
                    });
                });
}

template <typename T>
void gradInput(const void* xv, const void* dzv, void* dxv, std::int64_t channels,
               std::int64_t begin, std::int64_t end, const float* gain, const float* slope,
               const float* constant) {
    const T* x = static_cast<const T*>(xv);
    const T* dz = static_cast<const T*>(dzv);
    T* dx = static_cast<T*>(dxv);
    forRowLanes(begin, end, channels, [&](std::int64_t at, std::int64_t c, auto lanes) {
        const __m512 linear =
            _mm512_fmadd_ps(loadFloats(x + at, lanes), loadFloats(slope + c, lanes),
                            loadFloats(constant + c, lanes));
        storeFloats(
            dx + at,
            _mm512_fmadd_ps(loadFloats(dz + at, lanes), loadFloats(gain + c, lanes), linear),
            lanes);
    });
}

} // namespace avx512

#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

std::atomic<bool> avx512Allowed{true};

bool useAvx512() {
    return avx512Available() && avx512Allowed.load(std::memory_order_relaxed);
}

} // namespace

bool avx512Available() {
#ifdef HR_AVX512_KERNELS
    static const bool cpuHasIt =
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bf16");
    return cpuHasIt;
#else
    return false;
#endif
}

void allowAvx512(bool allow) {
    avx512Allowed.store(allow);
}

HR_KERNEL_CLONES
void channelMoments(const void* x, Storage storage, std::int64_t channels, std::int64_t begin,
                    std::int64_t end, const float* shift, double* sum, double* squares) {
    if (storage == Storage::Float)
        momentsOf<FloatIo>(x, channels, begin, end, shift, sum, squares);
    else
        momentsOf<BFloat16Io>(x, channels, begin, end, shift, sum, squares);
}

HR_KERNEL_CLONES
void scaleOffsetSilu(const void* x, void* y, Storage storage, std::int64_t channels,
                     std::int64_t begin, std::int64_t end, const float* scale,
                     const float* offset) {
#ifdef HR_AVX512_KERNELS
    if (useAvx512()) {
        if (storage == Storage::Float)
            avx512::silu<float>(x, y, channels, begin, end, scale, offset);
        else
            avx512::silu<std::uint16_t>(x, y, channels, begin, end, scale, offset);
        return;
    }
#endif
    if (storage == Storage::Float)
        siluOf<FloatIo>(x, y, channels, begin, end, scale, offset);
    else
        siluOf<BFloat16Io>(x, y, channels, begin, end, scale, offset);
}

HR_KERNEL_CLONES
void bnSiluGradSums(const void* x, const void* dy, void* dz, Storage storage, std::int64_t channels,
                    std::int64_t begin, std::int64_t end, const float* scale, const float* offset,
                    const float* mean, double* sumDz, double* sumDzCentred) {
#ifdef HR_AVX512_KERNELS
    if (useAvx512()) {
        const auto run = [&](auto kernel) {
            kernel(x, dy, dz, channels, begin, end, scale, offset, mean, sumDz, sumDzCentred);
        };
        if (storage == Storage::Float)
            dz ? run(avx512::gradSums<float, true>) : run(avx512::gradSums<float, false>);
        else
            dz ? run(avx512::gradSums<std::uint16_t, true>)
               : run(avx512::gradSums<std::uint16_t, false>);
        return;
    }
#endif
    const auto run = [&](auto kernel) {
        kernel(x, dy, dz, channels, begin, end, scale, offset, mean, sumDz, sumDzCentred);
    };
    if (storage == Storage::Float)
        dz ? run(gradSumsOf<FloatIo, true>) : run(gradSumsOf<FloatIo, false>);
    else
        dz ? run(gradSumsOf<BFloat16Io, true>) : run(gradSumsOf<BFloat16Io, false>);
}

HR_KERNEL_CLONES
void bnSiluGradInput(const void* x, const void* dz, void* dx, Storage storage,
                     std::int64_t channels, std::int64_t begin, std::int64_t end, const float* gain,
                     const float* slope, const float* constant) {
#ifdef HR_AVX512_KERNELS
    if (useAvx512()) {
        if (storage == Storage::Float)
            avx512::gradInput<float>(x, dz, dx, channels, begin, end, gain, slope, constant);
        else
            avx512::gradInput<std::uint16_t>(x, dz, dx, channels, begin, end, gain, slope,
                                             constant);
        return;
    }
#endif
    if (storage == Storage::Float)
        gradInputOf<FloatIo>(x, dz, dx, channels, begin, end, gain, slope, constant);
    else
        gradInputOf<BFloat16Io>(x, dz, dx, channels, begin, end, gain, slope, constant);
}

} // namespace hr::kernels
