// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/speed_checks.h"

#include "util/atomic_file.h"
#include "util/resources.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

namespace hr {
namespace {

std::mutex g_mutex;

using Checks = std::map<std::pair<std::string, std::string>, double>;

std::string checksPath() {
    return headroomCacheDir() + "/speed-checks.tsv";
}

// One line per device and fix: "device<TAB>fix id<TAB>ratio".
Checks readChecks() {
    Checks checks;
    std::string text;
    if (!readFile(checksPath(), text))
        return checks;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t a = line.find('\t');
        const std::size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
        if (b == std::string::npos)
            continue;
        try {
            const double ratio = std::stod(line.substr(b + 1));
            if (std::isfinite(ratio) && ratio > 0)
                checks[{line.substr(0, a), line.substr(a + 1, b - a - 1)}] = ratio;
        } catch (const std::exception&) {
            // a damaged line is skipped
        }
    }
    return checks;
}

} // namespace

void recordSpeedCheck(const std::string& device, const std::string& fixId, double ratio) {
    if (!(ratio > 0) || !std::isfinite(ratio) || device.find('\t') != std::string::npos ||
        fixId.find('\t') != std::string::npos)
        return;
    std::lock_guard<std::mutex> lock(g_mutex);
    Checks checks = readChecks();
    checks[{device, fixId}] = ratio;
    std::ostringstream out;
    for (const auto& [key, value] : checks)
        out << key.first << '\t' << key.second << '\t' << value << '\n';
    std::error_code ec;
    std::filesystem::create_directories(headroomCacheDir(), ec);
    writeFileAtomically(checksPath(), out.str());
}

std::optional<double> speedCheckRatio(const std::string& device, const std::string& fixId) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const Checks checks = readChecks();
    const auto it = checks.find({device, fixId});
    if (it == checks.end())
        return std::nullopt;
    return it->second;
}

} // namespace hr
