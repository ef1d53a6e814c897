// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers every converter uses: paths, counting what was left out, boxes, names files.
#include "data/convert_internal.h"

#include "data/image_io.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace hr::convert {

using Severity = Diagnostic::Severity;

std::string normalPath(const fs::path& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    std::string text = (ec ? p : a).lexically_normal().string();
    while (text.size() > 1 && text.back() == '/')
        text.pop_back();
    return text;
}

bool isDir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

Role roleOf(const std::string& splitName) {
    const std::string name = toLower(splitName);
    if (name.find("val") != std::string::npos)
        return Role::Val;
    if (name.find("test") != std::string::npos)
        return Role::Test;
    return Role::Train;
}

void record(ConvertReport& report, Severity severity, const std::string& reason,
            const std::string& file, int line, const std::string& message) {
    Diagnostic d;
    d.severity = severity;
    d.file = file;
    d.line = line;
    d.message = message;
    report.problems.push_back(d);
    for (auto& [known, count] : report.skipped)
        if (known == reason) {
            ++count;
            return;
        }
    report.skipped.emplace_back(reason, 1);
}

bool pixelBoxToYolo(double x1, double y1, double x2, double y2, int width, int height, Box& out,
                    bool& clipped) {
    clipped = false;
    if (width <= 0 || height <= 0 || !(x2 > x1) || !(y2 > y1))
        return false;
    const double cx1 = std::clamp(x1, 0.0, double(width)), cx2 = std::clamp(x2, 0.0, double(width));
    const double cy1 = std::clamp(y1, 0.0, double(height));
    const double cy2 = std::clamp(y2, 0.0, double(height));
    if (cx2 - cx1 <= 0 || cy2 - cy1 <= 0)
        return false;
    // Half a pixel over the edge is rounding in the tool that wrote it, not an error.
    clipped = std::max({cx1 - x1, x2 - cx2, cy1 - y1, y2 - cy2}) > 0.5;
    out.cx = (cx1 + cx2) / 2 / width;
    out.cy = (cy1 + cy2) / 2 / height;
    out.w = (cx2 - cx1) / width;
    out.h = (cy2 - cy1) / height;
    return true;
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

std::string count(long long n, const std::string& word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string firstExisting(const std::vector<std::string>& candidates) {
    for (const auto& c : candidates)
        if (isFile(c))
            return normalPath(c);
    return {};
}

std::vector<std::string> imagesUnder(const std::string& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && isImageFile(it->path().string()))
            found.push_back(normalPath(it->path()));
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::string safeRelativeName(const std::string& path) {
    const fs::path p = fs::path(path).lexically_normal();
    const std::string text = p.generic_string();
    if (p.is_absolute() || text.empty() || text.rfind("..", 0) == 0)
        return p.filename().string();
    return text;
}

std::vector<std::string> readNamesFile(const std::string& path) {
    std::string text;
    std::vector<std::string> names;
    if (!readFile(path, text))
        return names;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!trim(line).empty())
            names.push_back(trim(line));
    return names;
}

std::vector<std::string> findCocoFiles(const std::string& input) {
    if (isFile(input))
        return {normalPath(input)};
    std::vector<std::string> found;
    // COCO: annotations/instances_*.json; Roboflow: <split>/_annotations.coco.json.
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             input, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it.depth() > 2) {
            it.disable_recursion_pending();
            continue;
        }
        const fs::path& p = it->path();
        if (p.extension() != ".json" || !it->is_regular_file(ec))
            continue;
        const std::string name = p.filename().string();
        if (name.rfind("instances_", 0) == 0 || name.find(".coco.json") != std::string::npos ||
            name == "annotations.json" || name == "result.json")
            found.push_back(normalPath(p));
    }
    std::sort(found.begin(), found.end());
    return found;
}

} // namespace hr::convert
