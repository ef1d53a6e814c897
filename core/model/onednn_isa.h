// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// Caps oneDNN's instruction set below its native bf16 kernels when the loaded oneDNN is one
/// whose bf16 convolutions divide by zero for some shapes (3.6 and later 3.x, as Debian 13's
/// LibTorch 2.6 loads it: yolov8s under AMP dies with SIGFPE in SPPF). Keeps a user's own ONEDNN_MAX_CPU_ISA.
/// Must run before the first convolution; blocks.cpp calls it while the program loads.
/// Returns whether it capped.
bool capOneDnnWhereItFaults();

} // namespace hr
