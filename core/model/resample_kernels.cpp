// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/resample_kernels.h"

#include "model/kernel_support.h"

#include <vector>

namespace hr::kernels {

namespace {

template <typename Io>
HR_INLINE void upsampleGradOf(const void* dyv, PixelStrides s, void* dxv, std::int64_t channels,
                              std::int64_t height, std::int64_t width, std::int64_t factor,
                              std::int64_t begin, std::int64_t end) {
    using T = typename Io::T;
    const auto* dy = static_cast<const T*>(dyv);
    auto* dx = static_cast<T*>(dxv);
    // Sums in float, as bf16 would lose digits over a block.
    std::vector<float> sums(static_cast<size_t>(channels));
    float* HR_RESTRICT acc = sums.data();
    for (std::int64_t r = begin; r < end; ++r) {
        const std::int64_t image = r / height, y = r % height;
        const T* rows = dy + image * s.image + y * factor * s.row;
        for (std::int64_t x = 0; x < width; ++x) {
            for (std::int64_t c = 0; c < channels; ++c)
                acc[c] = 0.0f;
            for (std::int64_t i = 0; i < factor; ++i)
                for (std::int64_t j = 0; j < factor; ++j) {
                    const T* HR_RESTRICT in = rows + i * s.row + (x * factor + j) * s.column;
                    for (std::int64_t c = 0; c < channels; ++c)
                        acc[c] += Io::load(in, c);
                }
            T* HR_RESTRICT out = dx + (r * width + x) * channels;
            for (std::int64_t c = 0; c < channels; ++c)
                Io::store(out, c, acc[c]);
        }
    }
}

} // namespace

HR_KERNEL_CLONES
void nearestUpsampleGrad(const void* dy, PixelStrides dyStrides, void* dx, Storage storage,
                         std::int64_t channels, std::int64_t height, std::int64_t width,
                         std::int64_t factor, std::int64_t begin, std::int64_t end) {
    if (storage == Storage::Float)
        upsampleGradOf<detail::FloatIo>(dy, dyStrides, dx, channels, height, width, factor, begin,
                                        end);
    else
        upsampleGradOf<detail::BFloat16Io>(dy, dyStrides, dx, channels, height, width, factor,
                                           begin, end);
}

} // namespace hr::kernels
