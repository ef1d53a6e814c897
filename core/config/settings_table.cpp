// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/settings_table.h"

#include "config/settings_row.h"
#include "config/train_config_check.h"
#include "config/yaml_read.h"
#include "util/bytes.h"

#include <sstream>

namespace hr {

namespace {

std::string listText(const std::vector<int>& values) {
    std::string list = "[";
    for (size_t i = 0; i < values.size(); ++i)
        list += (i ? ", " : "") + std::to_string(values[i]);
    return list + "]";
}

// `text` in lines of at most `width` characters, each starting with `indent`.
std::string wrapped(const std::string& text, const std::string& indent, size_t width) {
    std::istringstream words(text);
    std::string out, line, word;
    while (words >> word) {
        if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return line.empty() ? out : out + indent + line + "\n";
}

} // namespace

const std::vector<SettingRow>& settingRows() {
    static const std::vector<SettingRow> rows = [] {
        std::vector<SettingRow> out;
        for (auto part : {settings_rows::taskRows, settings_rows::dataRows})
            for (settings_rows::Row& row : part())
                out.push_back(std::move(row.r));
        return out;
    }();
    return rows;
}

const char* settingGroupTitle(SettingGroup group) {
    switch (group) {
    case SettingGroup::ModelData:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Model and data");
    case SettingGroup::DeviceMemory:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Device and memory");
    case SettingGroup::Schedule:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Schedule and optimizer");
    case SettingGroup::Loss:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Loss gains");
    case SettingGroup::Augmentation:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Augmentation");
    case SettingGroup::Validation:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Validation");
    case SettingGroup::RunFolder:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Run folder");
    case SettingGroup::Distributed:
        return QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Distributed");
    }
    return "";
}

const SettingRow* findSettingRow(const std::string& key) {
    for (const SettingRow& row : settingRows())
        if (key == row.key || (row.alias && key == row.alias))
            return &row;
    return nullptr;
}

std::string settingText(const TrainConfig& config, const SettingRow& row) {
    return std::visit(
        [&](auto member) -> std::string {
            using T = std::decay_t<decltype(config.*member)>;
            const T& v = config.*member;
            if constexpr (std::is_same_v<T, int>)
                return std::to_string(v);
            else if constexpr (std::is_same_v<T, double>)
                return yaml::formatNumber(v);
            else if constexpr (std::is_same_v<T, bool>)
                return v ? "true" : "false";
            else if constexpr (std::is_same_v<T, std::string>)
                return yaml::quoteIfNeeded(v);
            else if constexpr (std::is_same_v<T, std::int64_t>)
                return v == 0 ? "none" : exactByteSize(v, false);
            else if constexpr (std::is_same_v<T, std::vector<int>>)
                return listText(v);
            else
                return toString(v);
        },
        row.member);
}

std::string settingsKey(const TrainConfig& config, SettingFlag flag, const char* except) {
    std::string key;
    for (const SettingRow& row : settingRows())
        if ((row.flags & flag) && !(except && std::string(except) == row.key))
            key += std::string(row.key) + "=" + settingText(config, row) + "\n";
    return key;
}

bool sameSettings(const TrainConfig& a, const TrainConfig& b, SettingFlag flag) {
    for (const SettingRow& row : settingRows())
        if ((row.flags & flag) &&
            !std::visit([&](auto member) { return a.*member == b.*member; }, row.member))
            return false;
    return true;
}

void copySettings(TrainConfig& to, const TrainConfig& from, SettingFlag flag) {
    for (const SettingRow& row : settingRows())
        if (row.flags & flag)
            std::visit([&](auto member) { to.*member = from.*member; }, row.member);
}

std::string settingsHelp() {
    static const TrainConfig defaults;
    std::ostringstream out;
    for (const SettingRow& row : settingRows()) {
        out << "  " << row.key << " (default " << settingText(defaults, row);
        const std::string lo = settings_check::boundText(row.lo),
                          hi = settings_check::boundText(row.hi);
        switch (row.bound) {
        case SettingBound::AtLeast:
            out << "; at least " << lo;
            break;
        case SettingBound::NotNegative:
            out << "; 0 or more";
            break;
        case SettingBound::Above:
            out << "; above " << lo;
            break;
        case SettingBound::Closed:
            out << "; " << lo << " to " << hi;
            break;
        case SettingBound::ClosedOpen:
            out << "; " << lo << " to below " << hi;
            break;
        case SettingBound::OpenClosed:
            out << "; above " << lo << " up to " << hi;
            break;
        default:
            if (row.range)
                out << "; " << row.range;
            break;
        }
        if (!row.choices.empty() && row.editor != SettingEditor::Editable) {
            out << "; one of";
            for (const SettingChoice& choice : row.choices)
                out << ' ' << (*choice.value ? choice.value : "''");
        }
        std::string text = row.help;
        const std::pair<const char*, const char*> effects[] = {
            {"memory", row.memory}, {"speed", row.speed}, {"accuracy", row.accuracy}};
        for (const auto& [what, effect] : effects)
            if (effect)
                text += std::string(" ") + what + ": " + effect;
        out << ")\n" << wrapped(text, "      ", 100);
    }
    return out.str();
}

} // namespace hr
