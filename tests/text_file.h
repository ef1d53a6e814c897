// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading a run's text files in tests. No Qt: the GPU check (tests/cuda) builds without it.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hr::testing {

/// The whole file; empty when it cannot be read.
inline std::string fileText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The non-empty lines of `text`.
inline std::vector<std::string> nonEmptyLines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            out.push_back(line);
    return out;
}

} // namespace hr::testing
