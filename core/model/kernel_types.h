// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr::kernels {

/// How a kernel's tensor elements are stored: float, or bf16 (the upper half of a float,
/// computed in float and rounded to nearest even when written).
enum class Storage { Float, BFloat16 };

} // namespace hr::kernels
