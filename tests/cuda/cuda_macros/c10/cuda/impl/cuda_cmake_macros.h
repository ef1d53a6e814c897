// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stand-in for the header a CUDA build of LibTorch generates and a CPU-only one (Debian's) lacks,
// so that tests/cuda's compile check can read c10/cuda's headers there (never linked).
#define C10_CUDA_BUILD_SHARED_LIBS
