// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hr::cli {

/// One `--name VALUE` option or `--name` flag of a subcommand.
struct OptionSpec {
    std::string name;      ///< with dashes: "--data"
    std::string valueName; ///< "FILE"; empty for a flag
    std::string help;
};

/// What a subcommand's command line said.
class ParsedArgs {
public:
    bool has(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback = {}) const;
    /// The value as an integer; fills `error` and returns nothing when it is not one.
    std::optional<long long> integer(const std::string& name, std::string* error) const;
    std::optional<double> number(const std::string& name, std::string* error) const;

    /// `key=value` words, in order (Ultralytics-style overrides).
    const std::vector<std::pair<std::string, std::string>>& overrides() const {
        return m_overrides;
    }
    const std::vector<std::string>& positionals() const { return m_positionals; }

    void setValue(const std::string& name, const std::string& value) { m_values[name] = value; }
    void addOverride(std::string key, std::string value) {
        m_overrides.emplace_back(std::move(key), std::move(value));
    }
    void addPositional(std::string word) { m_positionals.push_back(std::move(word)); }
    /// Removes the last `key=value` override named `key` and returns its value (a command's own
    /// key among the TrainConfig overrides, e.g. val's split=test).
    std::optional<std::string> takeOverride(const std::string& key) {
        std::optional<std::string> found;
        for (auto it = m_overrides.begin(); it != m_overrides.end();) {
            if (it->first == key) {
                found = it->second;
                it = m_overrides.erase(it);
            } else {
                ++it;
            }
        }
        return found;
    }

private:
    std::map<std::string, std::string> m_values;
    std::vector<std::pair<std::string, std::string>> m_overrides;
    std::vector<std::string> m_positionals;
};

/// Parses `words` against `specs`. `--name=value` and `--name value` both work. Unknown
/// options are errors that name the nearest known option. Returns false with `error` set.
bool parseArgs(const std::vector<std::string>& words, const std::vector<OptionSpec>& specs,
               bool acceptOverrides, bool acceptPositionals, ParsedArgs& out, std::string& error);

} // namespace hr::cli
