// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/parallel_rows.h"

#include <ATen/Config.h>
#include <ATen/Parallel.h>

#if AT_PARALLEL_OPENMP && !defined(_OPENMP)
#error "parallel_rows.cpp must be compiled with OpenMP, or at::parallel_for runs on one thread"
#endif

namespace hr {

void parallelRows(std::int64_t rows, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& body) {
    at::parallel_for(0, rows, grain,
                     [&](std::int64_t begin, std::int64_t end) { body(begin, end); });
}

} // namespace hr
