// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli: the command-line face of Headroom. Subcommands register themselves.
#include "command.h"

#include "util/crash_signals.h"
#include "util/text.h"
#include "util/user_message.h"

#include <iostream>

namespace {

void printOverview(std::ostream& out) {
    out << "Usage: headroom-cli <command> [options] [key=value ...]\n\n"
           "Headroom trains YOLOv8/YOLOv9 detectors and keeps out-of-memory errors from ending "
           "a run.\n\nCommands:\n";
    for (const auto& c : hr::cli::CommandRegistry::instance().commands()) {
        std::string name = "  " + c.name;
        name.resize(std::max<size_t>(name.size() + 2, 18), ' ');
        out << name << c.summary << "\n";
    }
    out << "\nRun 'headroom-cli <command> --help' for a command's options.\n"
           "  --version    print the version and exit\n";
}

} // namespace

int main(int argc, char** argv) {
    hr::keepCrashSignalsWithTheSystem(argv);
    using namespace hr::cli;
    std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty()) {
        printOverview(std::cerr);
        return ExitUsage;
    }
    const std::string first = words.front();
    if (first == "--help" || first == "-h" || first == "help") {
        printOverview(std::cout);
        return ExitOk;
    }
    if (first == "--version" || first == "-V") {
        std::cout << "headroom-cli " << HEADROOM_VERSION << "\n";
        return ExitOk;
    }
    const auto& registry = CommandRegistry::instance();
    // Two-word commands ("bench data", "bench train") are registered under both words.
    const Command* command = nullptr;
    if (words.size() > 1)
        command = registry.find(first + " " + words[1]);
    if (command)
        words.erase(words.begin());
    else
        command = registry.find(first);
    if (!command) {
        std::vector<std::string> names;
        bool isGroup = false;
        for (const auto& c : registry.commands()) {
            names.push_back(c.name);
            isGroup = isGroup || c.name.rfind(first + " ", 0) == 0;
        }
        if (isGroup) {
            std::cerr << "headroom-cli: '" << first << "' needs a second word: ";
            for (const auto& n : names)
                if (n.rfind(first + " ", 0) == 0)
                    std::cerr << "'" << n << "' ";
            std::cerr << "\n";
            return ExitUsage;
        }
        std::cerr << "headroom-cli: unknown command '" << first << "'";
        const std::string near = hr::nearestMatch(first, names);
        if (!near.empty())
            std::cerr << "; did you mean '" << near << "'?";
        std::cerr << "\nRun 'headroom-cli --help' for the list of commands.\n";
        return ExitUsage;
    }
    words.erase(words.begin());
    for (const auto& w : words) {
        if (w == "--help" || w == "-h") {
            std::cout << commandHelp(*command);
            return ExitOk;
        }
    }
    ParsedArgs args;
    std::string error;
    if (!parseArgs(words, command->options, command->acceptsOverrides, command->acceptsPositionals,
                   args, error)) {
        std::cerr << "headroom-cli " << command->name << ": " << error << "\n"
                  << "Run 'headroom-cli " << command->name << " --help' for its options.\n";
        return ExitUsage;
    }
    try {
        return command->run(args);
    } catch (const std::exception& e) {
        std::cerr << "headroom-cli " << command->name << ": " << hr::userMessage(e) << "\n";
        return ExitFailure;
    }
}
