// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/oom_report.h"
#include "train/events.h"

#include <string>

namespace hr {

/// The `type` an event has in events.jsonl: "run_started", "batch_end", "epoch_end",
/// "memory_sample", "oom", "fix_applied", "fix_checked", "run_finished", "run_failed", "log".
const char* eventType(const TrainEvent& event);

/// One event as a single-line JSON object with its `type` and `time` (Unix seconds) first and
/// its fields after, in snake_case. Configs are embedded as their YAML text (`config_yaml`).
std::string eventToJson(const TrainEvent& event, double unixSeconds);

/// The OOM report as a (multi-line) JSON document: phase, bytes, breakdown, timeline, config.
std::string oomReportToJson(const OomReport& report);

} // namespace hr
