// SPDX-License-Identifier: GPL-3.0-or-later
#include "args.h"

#include "util/text.h"

#include <cstdlib>

namespace hr::cli {

bool ParsedArgs::has(const std::string& name) const {
    return m_values.count(name) > 0;
}

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const {
    const auto it = m_values.find(name);
    return it == m_values.end() ? fallback : it->second;
}

std::optional<long long> ParsedArgs::integer(const std::string& name, std::string* error) const {
    const std::string text = value(name);
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') {
        if (error)
            *error = "option " + name + " needs a whole number, got '" + text + "'";
        return std::nullopt;
    }
    return v;
}

std::optional<double> ParsedArgs::number(const std::string& name, std::string* error) const {
    const std::string text = value(name);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') {
        if (error)
            *error = "option " + name + " needs a number, got '" + text + "'";
        return std::nullopt;
    }
    return v;
}

bool parseArgs(const std::vector<std::string>& words, const std::vector<OptionSpec>& specs,
               bool acceptOverrides, bool acceptPositionals, ParsedArgs& out, std::string& error) {
    std::vector<std::string> known;
    for (const auto& s : specs)
        known.push_back(s.name);
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word.rfind("--", 0) == 0) {
            std::string name = word;
            std::optional<std::string> inlineValue;
            const auto eq = word.find('=');
            if (eq != std::string::npos) {
                name = word.substr(0, eq);
                inlineValue = word.substr(eq + 1);
            }
            const OptionSpec* spec = nullptr;
            for (const auto& s : specs)
                if (s.name == name)
                    spec = &s;
            if (!spec) {
                error = "unknown option '" + name + "'";
                const std::string near = nearestMatch(name, known);
                if (!near.empty())
                    error += "; did you mean '" + near + "'?";
                return false;
            }
            if (spec->valueName.empty()) {
                if (inlineValue) {
                    error = "option " + name + " takes no value";
                    return false;
                }
                out.setValue(name, "1");
            } else if (inlineValue) {
                out.setValue(name, *inlineValue);
            } else {
                if (i + 1 >= words.size()) {
                    error = "option " + name + " needs a value (" + spec->valueName + ")";
                    return false;
                }
                out.setValue(name, words[++i]);
            }
        } else if (word.find('=') != std::string::npos && word.front() != '=') {
            if (!acceptOverrides) {
                error = "this command takes no key=value settings: '" + word + "'";
                return false;
            }
            const auto eq = word.find('=');
            out.addOverride(word.substr(0, eq), word.substr(eq + 1));
        } else if (word.size() > 1 && word[0] == '-') {
            error = "unknown option '" + word + "' (options start with --)";
            return false;
        } else {
            if (!acceptPositionals) {
                error = "unexpected argument '" + word + "'";
                return false;
            }
            out.addPositional(word);
        }
    }
    return true;
}

} // namespace hr::cli
