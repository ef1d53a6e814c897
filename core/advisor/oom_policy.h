// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_advisor.h"
#include "advisor/fix_suggestion.h"
#include "train/trainer.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hr {

/// Shows the ranked fixes and the diagnosis to a person; returns the index of the chosen fix,
/// or nothing to stop. Called on the trainer's thread; may block (terminal prompt, GUI dialog).
using FixChooser = std::function<std::optional<int>(const std::vector<FixSuggestion>& fixes,
                                                    const std::string& diagnosis)>;

/// Called with every report and the fixes offered for it, before the decision (for logging:
/// the CLI prints them, a run can save them). May be empty.
using OomObserver =
    std::function<void(const OomReport& report, const std::vector<FixSuggestion>& fixes)>;

/// Turns an OOM policy into the trainer's OomHandler:
///  - Auto: applies the top-ranked fix that continues the run (never one that restarts it);
///    stops when none fits.
///  - Stop: stops (the caller prints the fixes and exits non-zero).
///  - Ask: calls `ask`; an empty `ask`, no fixes, or no answer stops.
/// `progress` (may be empty) follows the search for fixes as it goes and can end it early: the
/// GUI shows the fixes as they are found while the CLI waits for them all.
/// The handler owns copies of its arguments and may outlive the caller's scope.
OomHandler makeAdvisorHandler(OomPolicy policy, PeakPredictor predictor, FixChooser ask,
                              AdvisorOptions options = AdvisorOptions{}, OomObserver observer = {},
                              FixProgress progress = {});

/// Seconds the advisor may run probe steps for one report under `policy`
/// (AdvisorOptions::predictionSeconds): a person choosing (ask) sees the fixes as they are
/// found and may pick one earlier; a run continuing on its own (auto, stop) waits briefly.
double predictionSecondsFor(OomPolicy policy);

/// The decision that applies `fix` (stop = false).
OomDecision decisionFor(const FixSuggestion& fix);

} // namespace hr
