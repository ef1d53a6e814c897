// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>

namespace hr {

/// Runs `body(begin, end)` over [0, rows) split among LibTorch's intra-op threads, in chunks of
/// at least `grain` rows, as at::parallel_for does. at::parallel_for is a header template that
/// runs serially unless its caller is compiled with OpenMP; this one file is (its CMake rule),
/// so the callers keep the shared precompiled header.
void parallelRows(std::int64_t rows, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& body);

} // namespace hr
