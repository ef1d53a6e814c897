// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The check of one setting's value, inside the config module: train_config.cpp reads values and
// reports what this finds wrong with them; validate() runs it over every row of the settings
// table. Most rows are checked by their bound (settings_table.h); the functions below are the
// rows' own checks and normalisers, named by the table.

#include "config/train_config.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace hr {

struct SettingRow;

namespace settings_check {

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

/// A range's bound as messages and the settings list write it: "1", "0.001".
std::string boundText(double value);

/// The optimizer names Headroom has.
const std::vector<std::string>& optimizerNames();

/// The check of one row for an already-read config; nothing when the value is fine.
std::optional<Problem> checkValue(const TrainConfig& c, const SettingRow& row);

/// The same by key (a row's key or alias); nothing for an unknown key.
std::optional<Problem> checkValue(const TrainConfig& c, const std::string& key);

/// The problem as an error diagnostic at `file`:`line`, `key`.
Diagnostic problemDiagnostic(const Problem& problem, const std::string& file, int line,
                             const std::string& key);

// The rows' own checks (SettingBound::Custom).
std::optional<Problem> checkEpochs(const TrainConfig& c);
std::optional<Problem> checkBatch(const TrainConfig& c);
std::optional<Problem> checkImgsz(const TrainConfig& c);
std::optional<Problem> checkDevice(const TrainConfig& c);
std::optional<Problem> checkModel(const TrainConfig& c);
std::optional<Problem> checkModelScale(const TrainConfig& c);

/// "model file 'NAME' not found": the model row's check, and the model builder's when a name
/// reaches it unchecked.
Problem modelNotFound(const std::string& name);
std::optional<Problem> checkOptimizer(const TrainConfig& c);
std::optional<Problem> checkBudget(const TrainConfig& c);
std::optional<Problem> checkZero(const TrainConfig& c);

/// batch: 0.7 is Ultralytics' fraction of GPU memory, which Headroom spells -1.
std::optional<Problem> batchFractionHint(const YAML::Node& value);

// The rows' normalisers: text as read, in the value's one spelling.
std::string lowerCase(const std::string& text);
/// Lower case; Ultralytics' `device: 0` is the first CUDA device.
std::string deviceName(const std::string& text);
/// SGD, Adam, AdamW, auto in any case.
std::string optimizerName(const std::string& text);
/// Ultralytics' cache: true means RAM, false no cache.
std::string cacheMode(const std::string& text);

} // namespace settings_check
} // namespace hr
