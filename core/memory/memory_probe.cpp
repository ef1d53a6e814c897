// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/memory_probe.h"

#include "memory/cpu_probe.h"
#ifdef HEADROOM_WITH_CUDA
#include "memory/cuda_probe.h"
#endif
#include "util/bytes.h"
#include "util/text.h"

#include <cctype>
#include <cstdlib>

namespace hr {

MemorySample MemoryProbe::sample() const {
    MemorySample s;
    s.allocated = allocated();
    s.reserved = reserved();
    s.peakSinceLastStep = peak();
    s.budget = budget();
    return s;
}

std::unique_ptr<MemoryProbe> makeProbe(const std::string& device, std::string* error) {
    const std::string name = toLower(trim(device));
    if (name == "cpu")
        return std::make_unique<CpuProbe>();
    const bool wantsCuda = name == "cuda" || name.rfind("cuda:", 0) == 0;
    if (name == "auto" || wantsCuda) {
#ifdef HEADROOM_WITH_CUDA
        int index = 0;
        if (name.size() > 5) {
            char* end = nullptr;
            const long parsed = std::strtol(name.c_str() + 5, &end, 10);
            if (end == name.c_str() + 5 || *end != '\0' || parsed < 0) {
                if (error)
                    *error = "unknown device '" + device + "': use cpu, cuda or cuda:N";
                return nullptr;
            }
            index = static_cast<int>(parsed);
        }
        if (CudaProbe::deviceCount() > index)
            return std::make_unique<CudaProbe>(index);
        if (wantsCuda) {
            if (error)
                *error = "device '" + device + "' is not available: " +
                         (CudaProbe::deviceCount() == 0
                              ? noCudaReason()
                              : "this machine has " + std::to_string(CudaProbe::deviceCount()) +
                                    " CUDA device(s)") +
                         "; use cpu";
            return nullptr;
        }
#else
        if (wantsCuda) {
            if (error)
                *error =
                    "device '" + device + "' is not available: " + noCudaReason() + "; use cpu";
            return nullptr;
        }
#endif
        return std::make_unique<CpuProbe>();
    }
    if (error)
        *error = "unknown device '" + device + "': use cpu, cuda, cuda:N or auto";
    return nullptr;
}

std::string noCudaReason() {
#ifdef HEADROOM_WITH_CUDA
    return "this build's LibTorch has CUDA, but no CUDA device answers on this machine (check "
           "the NVIDIA driver with nvidia-smi)";
#else
    return "this build's LibTorch is CPU-only (rebuild against a CUDA LibTorch: the README's \"On "
           "a GPU machine\")";
#endif
}

namespace {

/// The byte size written at text[i] ("20.00 MiB", "1.5 GiB"); 0 when there is none.
std::int64_t byteSizeAt(const std::string& text, std::size_t i) {
    const std::size_t numberStart = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
        ++i;
    std::string number = text.substr(numberStart, i - numberStart);
    while (!number.empty() && number.back() == '.')
        number.pop_back(); // "2.00 GiB." ends a sentence, "20." would too
    if (number.empty())
        return 0;
    while (i < text.size() && text[i] == ' ')
        ++i;
    const std::size_t unitStart = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i])))
        ++i;
    const auto bytes = parseByteSize(number + text.substr(unitStart, i - unitStart));
    return bytes ? *bytes : 0;
}

} // namespace

std::int64_t parseRequestedBytes(const std::string& oomMessage) {
    const std::string text = toLower(oomMessage);
    const std::string key = "tried to allocate ";
    const std::size_t at = text.find(key);
    return at == std::string::npos ? 0 : byteSizeAt(text, at + key.size());
}

std::int64_t parseAllocatedBytes(const std::string& oomMessage) {
    const std::string text = toLower(oomMessage);
    // LibTorch 2.x CUDA: "Of the allocated memory 7.50 GiB is allocated by PyTorch".
    const std::string key = "of the allocated memory ";
    if (const std::size_t at = text.find(key); at != std::string::npos)
        return byteSizeAt(text, at + key.size());
    // The budget's and LibTorch 1.x CUDA's: "...; 7.50 GiB already allocated; ...".
    const std::size_t at = text.find(" already allocated");
    if (at == std::string::npos)
        return 0;
    std::size_t start = at;
    for (int spaces = 0; start > 0; --start) { // back over "<number> <unit>"
        const char c = text[start - 1];
        if (c == ' ' && ++spaces == 2)
            break;
        if (c == '(' || c == ';')
            break;
    }
    return byteSizeAt(text, start);
}

int cudaDevicesFor(const std::string& device) {
    if (device.rfind("cuda", 0) != 0 && device != "auto")
        return 0;
#ifdef HEADROOM_WITH_CUDA
    return CudaProbe::deviceCount();
#else
    return 0;
#endif
}

} // namespace hr
