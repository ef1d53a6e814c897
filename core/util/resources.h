// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

/// The folder holding Headroom's shipped resources (models/ ...). Looked up in this order:
/// $HEADROOM_RESOURCES, the source tree's resources/ (a build run in place), the installed
/// share/headroom folder. Returns "" when none exists.
std::string resourcesDir();

/// Resolves a model name or path: an existing file as given, else `resources/models/<name>`
/// (".yaml" appended when missing). Returns "" when nothing matches.
std::string findModelFile(const std::string& nameOrPath);

/// Headroom's cache folder: $XDG_CACHE_HOME/headroom (default ~/.cache/headroom).
std::string headroomCacheDir();

} // namespace hr
