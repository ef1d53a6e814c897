// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/resources.h"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace hr {

std::string resourcesDir() {
    std::error_code ec;
    if (const char* env = std::getenv("HEADROOM_RESOURCES"); env && fs::is_directory(env, ec))
        return env;
    for (const char* candidate : {HEADROOM_SOURCE_RESOURCES, HEADROOM_INSTALLED_RESOURCES})
        if (fs::is_directory(candidate, ec))
            return candidate;
    return {};
}

std::string findModelFile(const std::string& nameOrPath) {
    std::error_code ec;
    if (nameOrPath.empty())
        return {};
    if (fs::is_regular_file(nameOrPath, ec))
        return fs::absolute(nameOrPath, ec).string();
    const std::string dir = resourcesDir();
    if (dir.empty())
        return {};
    fs::path candidate = fs::path(dir) / "models" / nameOrPath;
    if (candidate.extension() != ".yaml" && candidate.extension() != ".yml")
        candidate += ".yaml";
    return fs::is_regular_file(candidate, ec) ? candidate.string() : std::string();
}

std::string headroomCacheDir() {
    fs::path base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = fs::path(home) / ".cache";
    else
        base = fs::temp_directory_path();
    return (base / "headroom").string();
}

} // namespace hr
