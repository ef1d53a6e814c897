// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/device_name.h"

#include "memory/memory_probe.h"
#include "util/text.h"

#include <torch/cuda.h>

#include <stdexcept>

namespace hr {

torch::Device resolveDevice(const std::string& name) {
    const std::string lower = toLower(name);
    if (lower == "auto" || lower.empty())
        return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0)
                                           : torch::Device(torch::kCPU);
    if (lower == "cpu")
        return torch::kCPU;
    if (lower.rfind("cuda", 0) == 0) {
        if (!torch::cuda::is_available())
            throw std::invalid_argument("device " + name + " was asked for, but " + noCudaReason() +
                                        "; use device=cpu");
        return torch::Device(lower == "cuda" ? std::string("cuda:0") : lower);
    }
    throw std::invalid_argument("unknown device '" + name + "' (use auto, cpu, cuda or cuda:N)");
}

} // namespace hr
