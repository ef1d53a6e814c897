// SPDX-License-Identifier: GPL-3.0-or-later
#include "command.h"

#include "config/settings_table.h"

#include <algorithm>
#include <utility>

namespace hr::cli {

Command::Command(std::string name, Run run, std::string summary, std::string usage,
                 std::string description)
    : name(std::move(name)), summary(std::move(summary)), usage(std::move(usage)),
      description(std::move(description)), run(std::move(run)) {}

CommandRegistry& CommandRegistry::instance() {
    static CommandRegistry registry;
    return registry;
}

bool CommandRegistry::add(Command command) {
    m_commands.push_back(std::move(command));
    std::sort(m_commands.begin(), m_commands.end(),
              [](const Command& a, const Command& b) { return a.name < b.name; });
    return true;
}

const Command* CommandRegistry::find(const std::string& name) const {
    for (const auto& c : m_commands)
        if (c.name == name)
            return &c;
    return nullptr;
}

std::string commandHelp(const Command& command) {
    std::string out = "Usage: " + command.usage + "\n\n" + command.summary + "\n";
    if (!command.description.empty())
        out += "\n" + command.description + "\n";
    out += "\nOptions:\n";
    std::vector<OptionSpec> options = command.options;
    options.push_back({"--help", "", "show this help and exit"});
    for (const auto& o : options) {
        std::string left = "  " + o.name + (o.valueName.empty() ? "" : " " + o.valueName);
        if (left.size() < 26)
            left.resize(26, ' ');
        else
            left += "\n" + std::string(26, ' ');
        out += left + o.help + "\n";
    }
    if (command.acceptsOverrides)
        out += "\nSettings: any training setting as key=value (Ultralytics names), e.g.\n"
               "  imgsz=320 batch=8 epochs=30 amp=false memory_budget=3GiB on_oom=auto\n";
    if (command.listsSettings)
        out += "\nEvery setting, its default and range, and what it does:\n" + settingsHelp();
    return out;
}

} // namespace hr::cli
