// SPDX-License-Identifier: GPL-3.0-or-later
// The loops of the box-side decode of the loss (detection_loss.cpp): the expected bin of each
// distribution of `bins` logits. Plain C++ with no LibTorch, compiled for several instruction
// sets like core/model's kernels; the caller threads.
#pragma once

#include <cstdint>

namespace hr::kernels {

/// For rows [begin, end) of `logits` [rows, bins]: expected[r] = sum_i i softmax(row r)_i.
/// Keeps, per row, the largest logit and the reciprocal of the softmax's sum in `softmaxScale`
/// [rows, 2], for the backward.
void expectedBin(const float* logits, float* expected, float* softmaxScale, std::int64_t bins,
                 std::int64_t begin, std::int64_t end);

/// The backward of expectedBin for rows [begin, end): dLogits_i = dExpected p_i (i - expected).
void expectedBinGrad(const float* logits, const float* expected, const float* softmaxScale,
                     const float* dExpected, float* dLogits, std::int64_t bins, std::int64_t begin,
                     std::int64_t end);

} // namespace hr::kernels
