// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The check of one setting's value, inside the config module: train_config.cpp reads values and
// reports what this finds wrong with them; validate() runs it over every key.

#include "config/train_config.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hr::settings_check {

/// What is wrong with one value, before file, line and key are attached.
struct Problem {
    Problem(std::string message_, std::string fix_, std::string code_ = {},
            std::vector<std::string> args_ = {})
        : message(std::move(message_)), fix(std::move(fix_)), code(std::move(code_)),
          args(std::move(args_)) {}
    std::string message;
    std::string fix;
    std::string code;              ///< Diagnostic::code
    std::vector<std::string> args; ///< Diagnostic::args
};

/// The optimizer names Headroom has.
const std::vector<std::string>& optimizerNames();

/// The range check for one key of an already-read config; nothing when the value is fine.
std::optional<Problem> checkValue(const TrainConfig& c, const std::string& key);

/// The problem as an error diagnostic at `file`:`line`, `key`.
Diagnostic problemDiagnostic(const Problem& problem, const std::string& file, int line,
                             const std::string& key);

} // namespace hr::settings_check
