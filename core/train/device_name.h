// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <string>

namespace hr {

/// The LibTorch device a `device` setting names: "auto" (or empty) is the first CUDA device when
/// there is one, else the CPU; "cpu"; "cuda" (= cuda:0) or "cuda:N". Throws
/// std::invalid_argument with the fix for an unknown name or CUDA where there is none.
torch::Device resolveDevice(const std::string& name);

} // namespace hr
