// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "args.h"

#include <functional>
#include <string>
#include <vector>

namespace hr::cli {

/// One `headroom-cli <name>` subcommand. Each lives in its own cmd_<name>.cpp and registers
/// itself with HEADROOM_REGISTER_COMMAND.
struct Command {
    using Run = std::function<int(const ParsedArgs&)>;

    Command() = default;
    /// What every command has: its name, what it runs and the texts of its help.
    Command(std::string name, Run run, std::string summary, std::string usage,
            std::string description);

    std::string name;
    std::string summary;     ///< one line for `headroom-cli --help`
    std::string usage;       ///< "headroom-cli train --data D --model M [key=value ...]"
    std::string description; ///< paragraphs shown by `<name> --help`
    std::vector<OptionSpec> options;
    bool acceptsOverrides = false; ///< takes key=value TrainConfig overrides
    bool listsSettings = false;    ///< its --help lists every setting (the settings table)
    bool acceptsPositionals = false;
    Run run; ///< returns the process exit code
};

class CommandRegistry {
public:
    static CommandRegistry& instance();
    bool add(Command command);
    const Command* find(const std::string& name) const;
    const std::vector<Command>& commands() const { return m_commands; }

private:
    std::vector<Command> m_commands;
};

/// The help text of one command.
std::string commandHelp(const Command& command);

/// Exit codes shared by all subcommands.
enum ExitCode { ExitOk = 0, ExitFailure = 1, ExitUsage = 2 };

} // namespace hr::cli

#define HEADROOM_CLI_CONCAT2(a, b) a##b
#define HEADROOM_CLI_CONCAT(a, b) HEADROOM_CLI_CONCAT2(a, b)
/// Registers the Command returned by `factory()` at start-up.
#define HEADROOM_REGISTER_COMMAND(factory)                                                         \
    static const bool HEADROOM_CLI_CONCAT(headroomCommandRegistered, __LINE__) =                   \
        ::hr::cli::CommandRegistry::instance().add(factory())
