// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small helpers the config readers share: reading scalars strictly (no silent "16.5" -> 16),
// describing a node for an error message, and turning yaml-cpp's exceptions into diagnostics.
// Used by core/config's readers and by other core readers of user YAML (core/compare's
// strategies file), so that every file:line message is made the same way.

#include "util/diagnostic.h"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace hr::yaml {

/// The node's 1-based line, 0 when yaml-cpp does not know it (a node built in code).
int lineOf(const YAML::Node& node);

/// "'sixteen'", "a list", "a map", "nothing" - for "expected X, got Y" messages.
std::string describe(const YAML::Node& node);

/// A whole number (also "16.0"); nothing for text, fractions, lists or maps.
std::optional<long long> toWhole(const YAML::Node& node);

/// A finite number; nothing otherwise.
std::optional<double> toNumber(const YAML::Node& node);

/// true/false, yes/no, on/off (any case); nothing otherwise.
std::optional<bool> toBool(const YAML::Node& node);

/// The shortest decimal text that reads back as exactly `value` ("0.01", "1e-05").
std::string formatNumber(double value);

/// `text` as a YAML scalar, quoted only when a plain scalar would read back differently
/// (empty, looks like a number, bool or null, or contains YAML syntax).
std::string quoteIfNeeded(const std::string& text);

/// yaml-cpp's message for a syntax error as a code and the value some messages end with.
struct SyntaxError {
    /// "end_of_map_flow", "map_value", "tab_in_indentation" ... (yaml_read.cpp lists them with
    /// yaml-cpp's text); empty for a message that list does not hold (another yaml-cpp).
    std::string code;
    std::string value; ///< the bad escape character, unicode value or version; usually empty
};

/// The code of yaml-cpp's message `message` (YAML::Exception::msg).
SyntaxError syntaxError(const std::string& message);

/// The largest YAML text parseDocument() reads, and the most items (list entries, map entries,
/// lines) it may hold: far above any settings, data set or model file.
inline constexpr std::size_t kMostYamlBytes = std::size_t(8) << 20;
inline constexpr std::size_t kMostYamlItems = 250'000;

/// Why `text` is too large for a YAML reader (kMostYamlBytes, kMostYamlItems), or "".
std::string tooLarge(const std::string& text);

/// Parses a YAML document; refuses (code "yaml_too_large") a text over kMostYamlBytes or
/// kMostYamlItems. On malformed text returns nothing and appends an error naming
/// `sourceName` and the 1-based line yaml-cpp reports, coded "malformed_yaml" with the values
/// {syntaxError code, 1-based column (0: unknown), syntaxError value}.
std::optional<YAML::Node> parseDocument(const std::string& text, const std::string& sourceName,
                                        Diagnostics& diagnostics);

/// "did you mean 'batch'?" for the entry of `known` nearest to `word`; `otherwise` when none is
/// near enough (the fix text of an unknown-key diagnostic).
std::string suggestion(const std::string& word, const std::vector<std::string>& known,
                       const std::string& otherwise);

} // namespace hr::yaml
