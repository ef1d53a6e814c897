// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/machine_limits.h"

#include "util/bytes.h"

namespace hr {

namespace {

Diagnostic machineError(const std::string& key, const std::string& message, const std::string& fix,
                        const char* code, std::vector<std::string> args) {
    Diagnostic d =
        makeDiagnostic(Diagnostic::Severity::Error, "this machine", 0, key, message, fix);
    d.code = code;
    d.args = std::move(args);
    return d;
}

} // namespace

Diagnostics checkMachineLimits(const TrainConfig& config, int nc, const MachineFacts& machine,
                               const RunMemoryNeed& need) {
    Diagnostics out;
    const std::string cores = std::to_string(machine.cores);
    // Each process runs its own step with at least one compute thread: more processes than
    // cores only take turns, each holding a whole model copy (64 on 2 cores took 10 GB).
    if (config.nproc > machine.cores)
        out.push_back(machineError(
            "nproc",
            "nproc " + std::to_string(config.nproc) + " starts " + std::to_string(config.nproc) +
                " training processes, but this machine has " + cores + " CPU cores",
            "write nproc: " + cores + " or less (one process per device), or add --force",
            "nproc_cores", {std::to_string(config.nproc), cores}));
    if (need.bytes > machine.availableBytes && need.bytes > 0) {
        // Name the setting that makes most of it: the class scores grow with nc, the rest
        // with batch x imgsz^2.
        const bool classes = need.classScores * 2 > need.bytes;
        const std::string key = classes ? "nc" : "imgsz";
        std::string what =
            "batch " + std::to_string(config.batch) + " at imgsz " + std::to_string(config.imgsz);
        if (need.processes > 1)
            what += " in each of " + std::to_string(need.processes) + " processes";
        if (classes)
            what += "; the scores of " + std::to_string(nc) + " classes alone take " +
                    formatBytes(need.classScores);
        out.push_back(machineError(
            key,
            "the run needs at least " + formatBytes(need.bytes) + " of memory (" + what +
                "), but this machine has " + formatBytes(machine.availableBytes) +
                " available of " + formatBytes(machine.totalBytes),
            std::string("lower ") + (classes ? "nc, " : "") +
                "batch or imgsz (headroom-cli estimate shows the peak), or add --force",
            classes ? "memory_classes" : "memory_machine",
            {formatBytes(need.bytes), formatBytes(machine.availableBytes),
             formatBytes(machine.totalBytes), std::to_string(nc)}));
    }
    return out;
}

} // namespace hr
