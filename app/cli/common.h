// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "args.h"

#include "config/train_config.h"
#include "util/process_time.h" // processCpuSeconds(), for the bench commands

#include <memory>
#include <string>
#include <vector>

namespace hr {
struct DatasetReport;
}

namespace hr::cli {

/// The options every training-like command shares (--config --data --model --epochs ...),
/// followed by `extra`, the command's own.
std::vector<OptionSpec> trainConfigOptions(std::vector<OptionSpec> extra = {});

/// `--json`, the measuring commands' flag for one JSON object instead of text.
OptionSpec jsonOption();

/// Reads whole-number options of one command: `reader(args, "--batch", 1, batch)` leaves
/// `batch` alone when the option is absent, and returns false after printing
/// "<command>: --batch must be an integer >= 1" when it is not one.
struct IntegerOptionReader {
    const char* command;
    bool operator()(const ParsedArgs& args, const char* name, long long minimum,
                    long long& value) const;
};

/// Builds the TrainConfig a command line asks for: defaults, then --config FILE, then the
/// named options, then key=value overrides, then validation. Prints every diagnostic to stderr
/// ("file:line: error: ..."); returns false when any is an error.
bool buildTrainConfig(const ParsedArgs& args, TrainConfig& config);

/// The training split of `dataYaml` (the built-in data set when empty), scanned (past the file
/// limit with `largeScanConfirmed`: --yes). Problems are printed to stderr prefixed with
/// `command`; nothing when the data cannot be used.
std::shared_ptr<DatasetReport> scanTrainSplit(const std::string& dataYaml,
                                              const std::string& command,
                                              bool largeScanConfirmed = false);

/// --yes: the one description of the flag that lets a scan pass the file limit.
OptionSpec largeScanOption();

} // namespace hr::cli
