// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <string>

namespace hr {

/// Reads a .txt list of images (Ultralytics' train.txt): one path a line, trimmed. Blank lines
/// and lines starting with '#' (comments) are left out; `visit` gets every other entry, as
/// written, with its 1-based line. An unreadable file lists nothing.
void readImageList(const std::string& path,
                   const std::function<void(const std::string& entry, int line)>& visit);

} // namespace hr
