// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/onednn_isa.h"

#include <dlfcn.h>

#include <cstdlib>

namespace hr {

namespace {

// dnnl_version_t's leading fields (oneDNN's public C API, stable since 1.0).
struct OneDnnVersion {
    int major;
    int minor;
    int patch;
};

} // namespace

bool capOneDnnWhereItFaults() {
    if (std::getenv("ONEDNN_MAX_CPU_ISA") || std::getenv("DNNL_MAX_CPU_ISA"))
        return false;
    // A oneDNN linked into libtorch_cpu (1.13, the torch wheels) hides its symbols; Debian 13's
    // LibTorch loads the system's libdnnl.so.3, which exports them.
    using VersionFn = const OneDnnVersion* (*)();
    auto version = reinterpret_cast<VersionFn>(dlsym(RTLD_DEFAULT, "dnnl_version"));
    if (!version)
        return false;
    const OneDnnVersion* v = version();
    // Debian 13 ships 3.7 under the 3.6 soname (libdnnl3.6 3.7.2), and it faults the same way;
    // no later 3.x is known to be fixed, so every 3.x from 3.6 on is capped.
    if (!v || v->major != 3 || v->minor < 6)
        return false;
    // AVX-512 with VNNI: the same vector width, bf16 through conversions (docs/decisions.md,
    // "Debian 13's oneDNN 3.6 and bf16").
    return setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_VNNI", 0) == 0;
}

} // namespace hr
