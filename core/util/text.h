// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace hr {

/// Levenshtein distance between two strings (bytes).
int editDistance(const std::string& a, const std::string& b);

/// The candidate closest to `word` by edit distance, or "" when none is reasonably close
/// (distance more than a third of the word's length, at least 2).
std::string nearestMatch(const std::string& word, const std::vector<std::string>& candidates);

/// Lower-cased copy (ASCII).
std::string toLower(std::string text);

/// Text without leading and trailing white space.
std::string trim(const std::string& text);

/// Splits on a single character; keeps empty fields.
std::vector<std::string> split(const std::string& text, char separator);

/// A CSV field: as it is, or in double quotes (inner quotes doubled) when it holds a comma, a
/// quote or a line break (RFC 4180).
std::string csvField(const std::string& text);

/// Escapes a string for a JSON string literal (without the quotes).
std::string jsonEscape(const std::string& text);

} // namespace hr
