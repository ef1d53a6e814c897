// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "args.h"

#include "config/train_config.h"

#include <vector>

namespace hr::cli {

/// The options every training-like command shares (--config --data --model --epochs ...).
std::vector<OptionSpec> trainConfigOptions();

/// Builds the TrainConfig a command line asks for: defaults, then --config FILE, then the
/// named options, then key=value overrides, then validation. Prints every diagnostic to stderr
/// ("file:line: error: ..."); returns false when any is an error.
bool buildTrainConfig(const ParsedArgs& args, TrainConfig& config);

} // namespace hr::cli
