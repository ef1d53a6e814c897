// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/bn_silu_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

// Each entry point is compiled for AVX-512, AVX2+FMA and the baseline, chosen when the program
// loads (GCC/Clang function multi-versioning); the loops run along the channels, which are
// contiguous, so they vectorise. Elsewhere one baseline build.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__APPLE__)
#define HR_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=haswell", "default")))
#else
#define HR_KERNEL_CLONES
#endif

#if defined(__GNUC__) || defined(__clang__)
#define HR_INLINE inline __attribute__((always_inline))
#define HR_RESTRICT __restrict__
#else
#define HR_INLINE inline
#define HR_RESTRICT
#endif

namespace hr::kernels {

namespace {

// Float accumulators are flushed into the double sums every kBlockRows rows: the inner loops
// stay in float (twice the vector width) and a sum over 400,000 rows still keeps its digits.
constexpr std::int64_t kBlockRows = 64;

HR_INLINE float fromBits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

HR_INLINE std::uint32_t toBits(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

struct FloatIo {
    using T = float;
    static HR_INLINE float load(const T* p, std::int64_t i) { return p[i]; }
    static HR_INLINE void store(T* p, std::int64_t i, float v) { p[i] = v; }
};

struct BFloat16Io {
    using T = std::uint16_t;
    static HR_INLINE float load(const T* p, std::int64_t i) {
        return fromBits(static_cast<std::uint32_t>(p[i]) << 16);
    }
    // Round to nearest even; a NaN stays a (quiet) NaN instead of rounding into infinity.
    static HR_INLINE void store(T* p, std::int64_t i, float v) {
        const std::uint32_t bits = toBits(v);
        const std::uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
        p[i] = static_cast<T>(v != v ? 0x7FC0u : rounded);
    }
};

// e^x for x in float's range: 2^n e^r with |r| <= ln2 / 2 and a degree-6 Taylor polynomial
// (relative error ~1e-7), written so the compiler vectorises it; std::exp would not.
HR_INLINE float expApprox(float x) {
    // Ternaries, not std::min/max: those are not always inlined into the clones.
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    // Rounds to the nearest integer: adding 1.5 * 2^23 leaves no fraction bits. std::floor
    // would keep the loop from vectorising.
    constexpr float kRound = 12582912.0f;
    const float n = (x * 1.44269504f + kRound) - kRound;
    // ln 2 in two parts, the first exact in float, so n * ln2 loses no digits.
    const float r = (x - n * 0.693145751953125f) - n * 1.4286068e-6f;
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    const auto exponent = static_cast<std::uint32_t>(static_cast<std::int32_t>(n) + 127);
    return p * fromBits(exponent << 23);
}

HR_INLINE float sigmoid(float z) {
    return 1.0f / (1.0f + expApprox(-z));
}

// d silu(z) / dz = s (1 + z (1 - s)), s = sigmoid(z).
HR_INLINE float siluGrad(float z) {
    const float s = sigmoid(z);
    return s * (1.0f + z * (1.0f - s));
}

template <typename Io>
HR_INLINE void momentsOf(const void* xv, std::int64_t channels, std::int64_t begin,
                         std::int64_t end, const float* HR_RESTRICT shift, double* HR_RESTRICT sum,
                         double* HR_RESTRICT squares) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    std::vector<float> blockSum(static_cast<size_t>(channels));
    std::vector<float> blockSquares(static_cast<size_t>(channels));
    float* HR_RESTRICT bs = blockSum.data();
    float* HR_RESTRICT bq = blockSquares.data();
    for (std::int64_t r0 = begin; r0 < end; r0 += kBlockRows) {
        std::fill(blockSum.begin(), blockSum.end(), 0.0f);
        std::fill(blockSquares.begin(), blockSquares.end(), 0.0f);
        const std::int64_t r1 = std::min(end, r0 + kBlockRows);
        for (std::int64_t r = r0; r < r1; ++r) {
            const typename Io::T* HR_RESTRICT row = x + r * channels;
            for (std::int64_t c = 0; c < channels; ++c) {
                const float d = Io::load(row, c) - shift[c];
                bs[c] += d;
                bq[c] += d * d;
            }
        }
        for (std::int64_t c = 0; c < channels; ++c) {
            sum[c] += bs[c];
            squares[c] += bq[c];
        }
    }
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

template <typename Io>
HR_INLINE void gradSumsOf(const void* xv, const void* dyv, std::int64_t channels,
                          std::int64_t begin, std::int64_t end, const float* HR_RESTRICT scale,
                          const float* HR_RESTRICT offset, const float* HR_RESTRICT mean,
                          double* HR_RESTRICT sumDz, double* HR_RESTRICT sumDzCentred) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    const auto* dy = static_cast<const typename Io::T*>(dyv);
    std::vector<float> blockDz(static_cast<size_t>(channels));
    std::vector<float> blockDzCentred(static_cast<size_t>(channels));
    float* HR_RESTRICT bd = blockDz.data();
    float* HR_RESTRICT bc = blockDzCentred.data();
    for (std::int64_t r0 = begin; r0 < end; r0 += kBlockRows) {
        std::fill(blockDz.begin(), blockDz.end(), 0.0f);
        std::fill(blockDzCentred.begin(), blockDzCentred.end(), 0.0f);
        const std::int64_t r1 = std::min(end, r0 + kBlockRows);
        for (std::int64_t r = r0; r < r1; ++r) {
            const typename Io::T* HR_RESTRICT xr = x + r * channels;
            const typename Io::T* HR_RESTRICT gr = dy + r * channels;
            for (std::int64_t c = 0; c < channels; ++c) {
                const float xc = Io::load(xr, c);
                const float dz = Io::load(gr, c) * siluGrad(xc * scale[c] + offset[c]);
                bd[c] += dz;
                bc[c] += dz * (xc - mean[c]);
            }
        }
        for (std::int64_t c = 0; c < channels; ++c) {
            sumDz[c] += bd[c];
            sumDzCentred[c] += bc[c];
        }
    }
}

template <typename Io>
HR_INLINE void gradInputOf(const void* xv, const void* dyv, void* dxv, std::int64_t channels,
                           std::int64_t begin, std::int64_t end, const float* HR_RESTRICT scale,
                           const float* HR_RESTRICT offset, const float* HR_RESTRICT gain,
                           const float* HR_RESTRICT slope, const float* HR_RESTRICT constant) {
    const auto* x = static_cast<const typename Io::T*>(xv);
    const auto* dy = static_cast<const typename Io::T*>(dyv);
    auto* dx = static_cast<typename Io::T*>(dxv);
    for (std::int64_t r = begin; r < end; ++r) {
        const typename Io::T* HR_RESTRICT xr = x + r * channels;
        const typename Io::T* HR_RESTRICT gr = dy + r * channels;
        typename Io::T* HR_RESTRICT out = dx + r * channels;
        for (std::int64_t c = 0; c < channels; ++c) {
            const float xc = Io::load(xr, c);
            const float dz = Io::load(gr, c) * siluGrad(xc * scale[c] + offset[c]);
            Io::store(out, c, dz * gain[c] + xc * slope[c] + constant[c]);
        }
    }
}

} // namespace

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
    if (storage == Storage::Float)
        siluOf<FloatIo>(x, y, channels, begin, end, scale, offset);
    else
        siluOf<BFloat16Io>(x, y, channels, begin, end, scale, offset);
}

HR_KERNEL_CLONES
void bnSiluGradSums(const void* x, const void* dy, Storage storage, std::int64_t channels,
                    std::int64_t begin, std::int64_t end, const float* scale, const float* offset,
                    const float* mean, double* sumDz, double* sumDzCentred) {
    if (storage == Storage::Float)
        gradSumsOf<FloatIo>(x, dy, channels, begin, end, scale, offset, mean, sumDz, sumDzCentred);
    else
        gradSumsOf<BFloat16Io>(x, dy, channels, begin, end, scale, offset, mean, sumDz,
                               sumDzCentred);
}

HR_KERNEL_CLONES
void bnSiluGradInput(const void* x, const void* dy, void* dx, Storage storage,
                     std::int64_t channels, std::int64_t begin, std::int64_t end,
                     const float* scale, const float* offset, const float* gain, const float* slope,
                     const float* constant) {
    if (storage == Storage::Float)
        gradInputOf<FloatIo>(x, dy, dx, channels, begin, end, scale, offset, gain, slope, constant);
    else
        gradInputOf<BFloat16Io>(x, dy, dx, channels, begin, end, scale, offset, gain, slope,
                                constant);
}

} // namespace hr::kernels
