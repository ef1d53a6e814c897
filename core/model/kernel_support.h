// SPDX-License-Identifier: GPL-3.0-or-later
// What the vectorised kernel files share (core/model/bn_silu_kernels.cpp and
// resample_kernels.cpp, core/loss/distribution_kernels.cpp): how an entry point is compiled for
// several instruction sets, how float and bf16 elements are read and written, and e^x. Include
// only from such a file.
#pragma once

#include "model/kernel_types.h"

#include <cstdint>
#include <cstring>

// Each entry point is compiled for AVX-512, AVX2+FMA and the baseline, chosen when the program
// loads (GCC/Clang function multi-versioning); the loops run along the channels, which are
// contiguous, so they vectorise. Elsewhere one baseline build.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__APPLE__)
#define HR_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=haswell", "default")))
#else
#define HR_KERNEL_CLONES
#endif

// A lambda that holds a clone's loop must be inlined into each clone (HR_LAMBDA_INLINE): on its
// own it is compiled for the baseline only.
#if defined(__GNUC__) || defined(__clang__)
#define HR_INLINE inline __attribute__((always_inline))
#define HR_LAMBDA_INLINE __attribute__((always_inline))
#define HR_RESTRICT __restrict__
#else
#define HR_INLINE inline
#define HR_LAMBDA_INLINE
#define HR_RESTRICT
#endif

namespace hr::kernels::detail {

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

} // namespace hr::kernels::detail
