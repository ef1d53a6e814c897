// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/bytes.h"

#include "util/text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace hr {

std::optional<std::int64_t> parseByteSize(const std::string& text) {
    const std::string t = trim(text);
    if (t.empty())
        return std::nullopt;
    char* end = nullptr;
    const double number = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || !std::isfinite(number) || number < 0)
        return std::nullopt;
    const std::string unit = toLower(trim(std::string(end)));
    double factor = 0;
    if (unit.empty() || unit == "b")
        factor = 1;
    else if (unit == "k" || unit == "kib")
        factor = 1024.0;
    else if (unit == "m" || unit == "mib")
        factor = 1024.0 * 1024;
    else if (unit == "g" || unit == "gib")
        factor = 1024.0 * 1024 * 1024;
    else if (unit == "t" || unit == "tib")
        factor = 1024.0 * 1024 * 1024 * 1024;
    else if (unit == "kb")
        factor = 1e3;
    else if (unit == "mb")
        factor = 1e6;
    else if (unit == "gb")
        factor = 1e9;
    else if (unit == "tb")
        factor = 1e12;
    else
        return std::nullopt;
    const double bytes = number * factor;
    if (bytes > 9.0e18)
        return std::nullopt;
    return static_cast<std::int64_t>(std::llround(bytes));
}

std::string formatBytes(std::int64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes < 0 ? -bytes : bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char buffer[32];
    const char* sign = bytes < 0 ? "-" : "";
    if (unit == 0)
        std::snprintf(buffer, sizeof buffer, "%s%lld B", sign, static_cast<long long>(value));
    else if (value >= 100)
        std::snprintf(buffer, sizeof buffer, "%s%.0f %s", sign, value, units[unit]);
    else if (value >= 10)
        std::snprintf(buffer, sizeof buffer, "%s%.1f %s", sign, value, units[unit]);
    else
        std::snprintf(buffer, sizeof buffer, "%s%.2f %s", sign, value, units[unit]);
    return buffer;
}

std::string exactByteSize(std::int64_t bytes, bool spaced) {
    const std::pair<std::int64_t, const char*> units[] = {
        {1LL << 40, "TiB"}, {1LL << 30, "GiB"}, {1LL << 20, "MiB"}, {1LL << 10, "KiB"}};
    const std::string space = spaced ? " " : "";
    if (bytes != 0)
        for (const auto& [size, unit] : units)
            if (bytes % size == 0)
                return std::to_string(bytes / size) + space + unit;
    return std::to_string(bytes) + (spaced ? " B" : "");
}

} // namespace hr
