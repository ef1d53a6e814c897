// SPDX-License-Identifier: GPL-3.0-or-later
// The loop of nearest upsampling's backward over one range of rows of a channels-last tensor.
// Plain C++ with no LibTorch, compiled for several instruction sets like bn_silu_kernels; the
// caller threads.
#pragma once

#include "model/kernel_types.h"

#include <cstdint>

namespace hr::kernels {

/// Where a channels-last gradient lies: its element strides between images, rows and columns
/// (its channels are contiguous). A slice of a concatenation's gradient is read in place.
struct PixelStrides {
    std::int64_t image = 0;
    std::int64_t row = 0;
    std::int64_t column = 0;
};

/// Backward of nearest upsampling by an integer `factor`, for rows [begin, end) of dx (row =
/// image * height + y): dx[image, y, x, c] is the sum of dy over the factor x factor pixels that
/// copied it. dx is dense channels-last [images, height, width, channels].
void nearestUpsampleGrad(const void* dy, PixelStrides dyStrides, void* dx, Storage storage,
                         std::int64_t channels, std::int64_t height, std::int64_t width,
                         std::int64_t factor, std::int64_t begin, std::int64_t end);

} // namespace hr::kernels
