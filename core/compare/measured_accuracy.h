// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"

#include <string>

namespace hr {

/// The advisor's AccuracyLookup over the runs in `project` (a runs folder, as the strategy
/// comparison writes it): a run counts for a config when it finished without a fix and its
/// config.yaml trains the same way (data, model and scale, weights, epochs, image size, batch
/// and nominal batch, AMP, checkpointing, freezing, optimizer, chunked assignment). The
/// folder is read on the first call (the advisor calls from the trainer's thread); its answer
/// is the best-fitness epoch's mAP. Never throws.
AccuracyLookup measuredAccuracyOfRuns(const std::string& project);

} // namespace hr
