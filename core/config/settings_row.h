// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/config: the builder the settings table's rows are written with
// (settings_rows_*.cpp), so each row reads as a description, field by name.

#include "config/settings_table.h"
#include "config/train_config_check.h"

#include <limits>
#include <utility>
#include <vector>

namespace hr::settings_rows {

using G = SettingGroup;
using B = SettingBound;
using C = TrainConfig;
using namespace settings_check;

// One row, filled by name so that the table reads as a description.
struct Row {
    SettingRow r;
    template <class T>
    Row(const char* key, T C::*member, SettingGroup group) {
        r.key = key;
        r.member = member;
        r.group = group;
    }
    Row& words(const char* label, const char* help) {
        r.label = label;
        r.help = help;
        return *this;
    }
    Row& effects(const char* memory, const char* speed, const char* accuracy) {
        r.memory = memory;
        r.speed = speed;
        r.accuracy = accuracy;
        return *this;
    }
    Row& range(SettingBound bound, double lo, double hi, const char* what = "",
               const char* fix = "") {
        r.bound = bound;
        r.lo = lo;
        r.hi = hi;
        r.what = what;
        r.fix = fix;
        return *this;
    }
    Row& checked(SettingCheck check, const char* range, double lo = 0, double hi = 1e9) {
        r.bound = B::Custom;
        r.check = check;
        r.range = range;
        r.lo = lo;
        r.hi = hi;
        return *this;
    }
    Row& choices(SettingEditor editor, std::vector<SettingChoice> choices) {
        r.editor = editor;
        r.choices = std::move(choices);
        return *this;
    }
    Row& at(int place) {
        r.place = place;
        return *this;
    }
    Row& special(const char* text) {
        r.special = text;
        return *this;
    }
    Row& digits(int decimals, double step = 0) {
        r.decimals = decimals;
        r.step = step;
        return *this;
    }
    Row& normalise(SettingNormaliser normaliser) {
        r.normalise = normaliser;
        return *this;
    }
    Row& flags(unsigned flags) {
        r.flags = flags;
        return *this;
    }
    Row& section(const char* name) {
        r.section = name;
        return *this;
    }
    Row& alias(const char* name) {
        r.alias = name;
        return *this;
    }
    Row& hint(SettingReadHint readHint) {
        r.readHint = readHint;
        return *this;
    }
};

inline constexpr unsigned kLoader = kAffectsLoader;
inline constexpr unsigned kMemory = kAffectsMemory;
inline constexpr unsigned kCalib = kCalibrationKey;
inline constexpr double kMaxInt = std::numeric_limits<int>::max();

// The texts several rows share.
inline constexpr const char* kAugSpeed =
    QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "A little more loader time.");
inline constexpr const char* kAugMemory =
    QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Host memory only.");
inline constexpr const char* kDefaultSuits =
    QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "The default suits most data sets.");
inline constexpr const char* kUnitFix = "write a value from 0 to 1";

/// The rows of config files' task and optimisation sections, in file order.
std::vector<Row> taskRows();
/// The rows of the augmentation, validation, memory and distributed sections.
std::vector<Row> dataRows();

} // namespace hr::settings_rows
