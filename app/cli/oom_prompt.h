// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "train/trainer.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace hr::cli {

/// The OomHandler headroom-cli gives the trainer, following `config.on_oom`:
///  - auto: prints the diagnosis and the ranked fixes, applies the top one, continues;
///  - stop: prints them and stops (the trainer then saves and the command exits non-zero);
///  - ask: prints them and prompts on the terminal when stdin is a TTY; without a terminal it
///    says so and stops.
/// `predictor` predicts a config's peak (the estimator); empty = the advisor's rough scaling of
/// the OOM report's own measurements. Output goes to `std::cout`.
OomHandler makeOomHandler(const TrainConfig& config, PeakPredictor predictor = {});

/// The terminal prompt behind `on_oom: ask`: prints `diagnosis` and the numbered fixes to
/// `out`, reads a number (1-based) or "s"/"stop"/empty from `in`; asks again on other input.
/// Returns the 0-based index, or nothing to stop (also at end of input).
std::optional<int> promptForFix(const std::vector<FixSuggestion>& fixes,
                                const std::string& diagnosis, std::istream& in, std::ostream& out);

} // namespace hr::cli
