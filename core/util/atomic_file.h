// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

/// Writes `contents` to `path` through a temporary file in the same folder and a rename, so a
/// kill at any moment leaves either the old file or the new one, never a torn one.
/// Returns false and fills `error` (when given) on failure.
bool writeFileAtomically(const std::string& path, const std::string& contents,
                         std::string* error = nullptr);

/// Reads a whole file; returns false and fills `error` on failure.
bool readFile(const std::string& path, std::string& contents, std::string* error = nullptr);

} // namespace hr
