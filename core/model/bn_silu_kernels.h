// SPDX-License-Identifier: GPL-3.0-or-later
// The loops of the fused training-mode BatchNorm + SiLU (bn_silu.h) over one range of rows of a
// channels-last tensor seen as [rows, channels]. Plain C++ with no LibTorch, so the file can be
// compiled for several instruction sets and vectorised (its CMake rule); the caller threads.
#pragma once

#include "model/kernel_types.h"

#include <cstdint>

namespace hr::kernels {

/// Adds, per channel, the sum of (x - shift) and of (x - shift)^2 over rows [begin, end) to
/// `sum` and `squares` (the shift keeps E[x^2] - E[x]^2 from cancelling).
void channelMoments(const void* x, Storage storage, std::int64_t channels, std::int64_t begin,
                    std::int64_t end, const float* shift, double* sum, double* squares);

/// y = silu(x * scale + offset) per channel over rows [begin, end).
void scaleOffsetSilu(const void* x, void* y, Storage storage, std::int64_t channels,
                     std::int64_t begin, std::int64_t end, const float* scale, const float* offset);

/// Backward, first pass: with z = x * scale + offset and dz = dy * silu'(z), adds per channel
/// the sum of dz to `sumDz` and of dz * (x - mean) to `sumDzCentred` over rows [begin, end),
/// and stores dz in `dz` unless it is null.
void bnSiluGradSums(const void* x, const void* dy, void* dz, Storage storage, std::int64_t channels,
                    std::int64_t begin, std::int64_t end, const float* scale, const float* offset,
                    const float* mean, double* sumDz, double* sumDzCentred);

/// Backward, second pass: dx = dz * gain + x * slope + constant per channel over rows
/// [begin, end), dz as the first pass stored it. `dx` may be `dz` (in place).
void bnSiluGradInput(const void* x, const void* dz, void* dx, Storage storage,
                     std::int64_t channels, std::int64_t begin, std::int64_t end, const float* gain,
                     const float* slope, const float* constant);

/// Whether the passes that apply SiLU have hand-written AVX-512 versions here: on x86-64 CPUs
/// with AVX512-BF16, in GCC builds. They run unless allowAvx512(false); else the loops above,
/// compiled for the CPU's vector width.
bool avx512Available();

/// Switches the hand-written versions off (tests compare both) or back on; on by default.
void allowAvx512(bool allow);

} // namespace hr::kernels
