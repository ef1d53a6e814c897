// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one description of every training setting: one row per YAML key. Parsing, writing,
// comparison, the range checks, the studio's form (editor, label, tooltip), the CLI's list of
// settings and the keys that group settings (calibration, advisor cache, loader, resume) are
// all derived from these rows; adding a setting means adding a row.
//
// Texts a person reads in the studio (label, help, effects, choice labels) are English here and
// marked with QT_TRANSLATE_NOOP in the context kSettingsContext, so that lupdate collects them
// from this folder and the studio translates them with QCoreApplication::translate. Core has
// no Qt: the macro below is the same no-op Qt's is.

#include "config/train_config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#ifndef QT_TRANSLATE_NOOP
#define QT_TRANSLATE_NOOP(context, text) text
#endif

namespace YAML {
class Node;
}

namespace hr {

namespace settings_check {
struct Problem;
}

/// The translation context of the rows' texts. It is the settings form's, where they lived
/// before, so the zh_CN entries already made for them keep applying.
inline constexpr const char* kSettingsContext = "hr::ui::SettingsForm";

/// The TrainConfig member a row fills.
using SettingMember = std::variant<int TrainConfig::*, double TrainConfig::*, bool TrainConfig::*,
                                   std::string TrainConfig::*, std::int64_t TrainConfig::*,
                                   std::vector<int> TrainConfig::*, Checkpointing TrainConfig::*,
                                   OomPolicy TrainConfig::*>;

/// What a setting takes part in; a row may carry several.
enum SettingFlag : unsigned {
    /// The training data loader reads it: a change rebuilds the loader of a running run.
    kAffectsLoader = 1u << 0,
    /// The device memory a step needs depends on it: part of the advisor's prediction cache key.
    kAffectsMemory = 1u << 1,
    /// Concerns only the process that trains (budget, threads, device ...): a resumed run takes
    /// it from the new command line instead of the stored config.
    kRuntime = 1u << 2,
    /// Part of the estimator's calibration key (probe steps are redone when it changes).
    kCalibrationKey = 1u << 3,
};

/// The studio's group of a row.
enum class SettingGroup {
    ModelData,
    DeviceMemory,
    Schedule,
    Loss,
    Augmentation,
    Validation,
    RunFolder,
    Distributed
};

/// The group's title as the studio shows it (translatable, context kSettingsContext).
const char* settingGroupTitle(SettingGroup group);

/// What the range check of a row asks for; lo and hi are the row's.
enum class SettingBound {
    None,        ///< no check (the editor still uses lo..hi)
    AtLeast,     ///< >= lo
    NotNegative, ///< >= 0
    Above,       ///< > lo
    Closed,      ///< lo <= v <= hi
    ClosedOpen,  ///< lo <= v < hi
    OpenClosed,  ///< lo < v <= hi
    NotEmpty,    ///< text that is not empty
    OneOf,       ///< text that is one of the choices' values
    Custom,      ///< the row's own check function
};

/// How the studio edits a row.
enum class SettingEditor {
    Auto,     ///< spin box for numbers, check box for flags, a line for text
    Choice,   ///< a list of the row's choices
    Editable, ///< a list of the row's choices that also takes typed text
    ModelFile ///< the model files under resources/models, also typed text
};

struct SettingChoice {
    const char* value; ///< as written in YAML
    const char* label; ///< what the studio shows (translatable); nullptr = the value itself
};

using SettingCheck = std::optional<settings_check::Problem> (*)(const TrainConfig&);
/// Rewrites text as read (case, other spellings) into the value's one spelling.
using SettingNormaliser = std::string (*)(const std::string& text);
/// The problem of a value that is not a whole number for an int row, when the row knows better
/// than "expected a whole number" (batch: 0.7 is Ultralytics' fraction of GPU memory).
using SettingReadHint = std::optional<settings_check::Problem> (*)(const YAML::Node& value);

struct SettingRow {
    const char* key = "";
    SettingMember member;
    const char* alias = nullptr;   ///< another spelling accepted on input
    const char* section = nullptr; ///< YAML comment written before this row
    SettingGroup group = SettingGroup::ModelData;
    int place = 0; ///< position in its group in the studio; equal places keep table order
    unsigned flags = 0;

    // What a person reads (translatable, context kSettingsContext).
    const char* label = "";
    const char* help = "";
    const char* memory = nullptr;   ///< the effect on memory; nullptr = none
    const char* speed = nullptr;    ///< the effect on speed; nullptr = none
    const char* accuracy = nullptr; ///< the effect on accuracy; nullptr = none
    const char* special = nullptr;  ///< a number editor's text at its minimum, a line's placeholder

    // The check (messages are the CLI's English; the studio words them by code).
    SettingBound bound = SettingBound::None;
    double lo = 0;         ///< the check's lower bound and the editor's minimum
    double hi = 1e9;       ///< the check's upper bound and the editor's maximum
    const char* what = ""; ///< the setting in a check's message ("the hue gain")
    const char* fix = "";  ///< the fix of a check's message
    SettingCheck check = nullptr;
    const char* range = nullptr; ///< the range in words, for a row with its own check
    SettingNormaliser normalise = nullptr;
    SettingReadHint readHint = nullptr;

    // The editor.
    SettingEditor editor = SettingEditor::Auto;
    std::vector<SettingChoice> choices;
    int decimals = 3; ///< digits after the point of a number editor
    double step = 0;  ///< the editor's step; 0 = its default
};

/// Every row, in the order config files list the keys.
const std::vector<SettingRow>& settingRows();

/// The row of `key` (or of its alias); nullptr when there is none.
const SettingRow* findSettingRow(const std::string& key);

/// The value as toYaml() writes it ("16", "0.01", "3GiB", "[0, 1]", "backbone").
std::string settingText(const TrainConfig& config, const SettingRow& row);

/// Every row with `flag`, as "key=value" lines in table order, leaving out `except` (a key).
/// Two configs with the same text agree on every such setting.
std::string settingsKey(const TrainConfig& config, SettingFlag flag, const char* except = nullptr);

/// True when `a` and `b` agree on every setting with `flag`.
bool sameSettings(const TrainConfig& a, const TrainConfig& b, SettingFlag flag);

/// Copies every setting with `flag` from `from` into `to`.
void copySettings(TrainConfig& to, const TrainConfig& from, SettingFlag flag);

/// The settings as the CLI lists them: one block per key with its default, range or choices,
/// and help with its memory, speed and accuracy effect.
std::string settingsHelp();

} // namespace hr
