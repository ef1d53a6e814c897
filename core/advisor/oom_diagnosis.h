// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "memory/oom_report.h"
#include "train/events.h"

#include <string>
#include <vector>

namespace hr {

/// The OOM in plain words, e.g. "The backward pass of batch 16 at 640 px (epoch 3, step 12)
/// needed 1.90 GiB for activations and batch data; weights, gradients and AdamW state hold
/// 412 MiB; the budget is 3.00 GiB." followed by what is special about the phase (validation
/// batch, the assigner's tensors in the loss, fragmentation on CUDA) or, for host-memory
/// exhaustion, that host RAM ran out and device settings do not help. Never empty.
std::string describeOom(const OomReport& report);

/// The advisor's answer as one JSON object: {"phase", "host_memory", "diagnosis" (describeOom()),
/// "fixes" (fixSuggestionsToJson())}. The report itself is written by the trainer
/// (train/event_json.h, oomReportToJson); this is what the advisor adds to it.
std::string adviceToJson(const OomReport& report, const std::vector<FixSuggestion>& fixes);

/// A host allocation that failed inside a training or validation step on the CPU: there host
/// RAM is the device's memory, so the device settings free it as well as the host fixes.
bool hostFailureInCpuStep(const OomReport& report);

/// How close the chosen fix's prediction was: "predicted 2.10 GiB, measured 2.02 GiB (-4%)".
std::string describeFixCheck(const FixChecked& check);

} // namespace hr
