// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "util/diagnostic.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hr {

/// A number somebody published for a strategy (a blog table, a paper), kept beside the measured
/// value so the two can be compared. Absolute numbers from other hardware are not comparable
/// with ours, so the comparison uses ratios to the baseline strategy (the first of a matrix)
/// when that one carries a claim too. 0 = not claimed.
struct PublishedClaim {
    double memoryGb = 0;
    double epochMinutes = 0;
    double map50 = 0;
    std::string source; ///< where the numbers come from, in words

    bool empty() const { return memoryGb <= 0 && epochMinutes <= 0 && map50 <= 0; }
};

/// One way to train the same model on the same data: a name and the settings it changes.
/// Values may use `B` for the base batch size ("B/4", "B*2", "B"); they are resolved by
/// applyStrategy().
struct Strategy {
    std::string name; ///< short, used in the run folder name: `<base>-<name>`
    std::vector<std::pair<std::string, std::string>> overrides; ///< key=value, in order
    std::optional<PublishedClaim> claim;
    std::string description; ///< one line for tables; empty = made from the overrides
};

/// Result of reading a strategies file.
struct StrategiesResult {
    std::vector<Strategy> strategies; ///< empty when any error was found
    Diagnostics diagnostics;
};

/// The default matrix, mirroring the published table in the design notes, relative to the
/// base batch B: native B; B/4 + accumulate 4; B/4 + AMP; B/8 + AMP + accumulate 8; B/4 + AMP +
/// checkpointing. Accumulation is explicit: each strategy sets nbs = batch x accumulate, so
/// "native" steps the optimizer after every batch and "accumulate 4" keeps native's images per
/// optimizer step. Native runs without AMP. The published YOLOv9-c numbers ride along as claims.
std::vector<Strategy> defaultStrategies();

/// Reads strategies from YAML text: either a list or a map with a `strategies:` list, each entry
///   { name: b4-amp, overrides: {batch: B/4, amp: true}, claim: {memory_gb: 6.8, epoch_min: 15,
///     map50: 0.680, source: "..."}, description: "..." }
/// Every problem is a diagnostic naming `sourceName` and the line: missing or duplicate names,
/// unknown keys (with the nearest known one), overrides that TrainConfig rejects.
StrategiesResult parseStrategies(const std::string& yamlText, const std::string& sourceName);

/// parseStrategies() on a file's contents; an unreadable file is one error.
StrategiesResult loadStrategies(const std::string& path);

/// The problems of one strategy as it stands (the GUI's editor, before a run): a name that
/// cannot be part of a folder name, each override as TrainConfig reads it (`B` resolved against
/// a batch of 16; unknown keys name the nearest known one, impossible values such as batch 0
/// are errors), a claim with a negative number or an mAP above 1. File and line are empty;
/// every message starts with the strategy's name. Coded for a UI (Diagnostic::code, args), with
/// the codes of TrainConfig's checks for overrides and: strategy_no_name; strategy_bad_name:
/// name; override_no_key: value; override_twice: key; not_negative: value (a claim's number);
/// claim_map50_fraction. checkStrategies() adds no_strategies and strategy_duplicate: name.
Diagnostics checkStrategy(const Strategy& strategy);

/// checkStrategy() for each strategy, plus an empty list and names used twice.
Diagnostics checkStrategies(const std::vector<Strategy>& strategies);

/// The strategies as the YAML that parseStrategies() reads back to the same list (names,
/// descriptions, overrides in order, claims).
std::string strategiesToYaml(const std::vector<Strategy>& strategies);

/// Writes strategiesToYaml() atomically. Returns false and fills `error` on failure.
bool saveStrategies(const std::vector<Strategy>& strategies, const std::string& path,
                    std::string* error);

/// `base` with the strategy's overrides applied (B replaced by base.batch), run name
/// `<base.name>-<strategy.name>`, and on_oom=stop so that an OOM is recorded rather than fixed.
/// Returns nothing and appends diagnostics when an override is rejected.
std::optional<TrainConfig> applyStrategy(const TrainConfig& base, const Strategy& strategy,
                                         Diagnostics& diagnostics);

/// Resolves "B", "B/4", "B*2" (spaces allowed) against `batch`, at least 1; other text is
/// returned unchanged. Division rounds down.
std::string resolveBatchExpression(const std::string& value, int batch);

/// "batch B/4, amp true" - the overrides in words, for tables.
std::string describeOverrides(const Strategy& strategy);

} // namespace hr
