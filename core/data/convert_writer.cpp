// SPDX-License-Identifier: GPL-3.0-or-later
// The YOLO writer: a temporary folder beside the output, autosplit, then a rename.
#include "data/convert_internal.h"

#include "config/data_config.h"
#include "data/autosplit.h"
#include "data/image_io.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace hr::convert {

using Severity = Diagnostic::Severity;

namespace {

constexpr const char* kMarker = ".headroom-convert"; // marks a folder a conversion wrote

std::string boxLine(const Box& b) {
    char line[96];
    std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f\n", b.cls, b.cx, b.cy, b.w, b.h);
    return line;
}

// Hard link (no copy, no space) when source and output share a file system, else a copy.
bool placeImage(const std::string& source, const fs::path& target, std::string& error) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    fs::create_hard_link(source, target, ec);
    if (!ec)
        return true;
    ec.clear();
    fs::copy_file(source, target, fs::copy_options::overwrite_existing, ec);
    if (ec) {
        error = "cannot copy " + source + " to " + target.string() + ": " + ec.message();
        return false;
    }
    return true;
}

bool writeText(const fs::path& path, const std::string& text, std::string& error) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        error = "cannot write " + path.string();
        return false;
    }
    return true;
}

} // namespace

bool writeYoloDataset(Collected& collected, SourceFormat format, const std::string& input,
                      const std::string& output, const ConvertOptions& options,
                      ConvertReport& report) {
    // One list per split; a source without val is split by Ultralytics' autosplit rule.
    std::map<Role, std::vector<Item>> byRole;
    for (Part& part : collected.parts)
        for (Item& item : part.items)
            byRole[part.role].push_back(std::move(item));
    for (auto& [role, items] : byRole)
        std::stable_sort(items.begin(), items.end(),
                         [](const Item& a, const Item& b) { return a.name < b.name; });
    bool autosplit = false;
    if (byRole[Role::Val].empty() && !byRole[Role::Train].empty()) {
        std::vector<Item> all = std::move(byRole[Role::Train]);
        byRole[Role::Train].clear();
        const std::vector<int> to =
            autosplitAssignment(all.size(), trainValWeights(options.valFraction));
        for (size_t i = 0; i < all.size(); ++i)
            byRole[to[i] == 1 ? Role::Val : Role::Train].push_back(std::move(all[i]));
        if (byRole[Role::Val].empty() && byRole[Role::Train].size() > 1) {
            // Too few images for the draw to pick one: validation needs at least one.
            byRole[Role::Val].push_back(std::move(byRole[Role::Train].back()));
            byRole[Role::Train].pop_back();
        }
        autosplit = true;
    }
    size_t total = 0;
    for (const auto& [role, items] : byRole)
        total += items.size();
    if (total == 0) {
        report.error = "found no image to convert in " + input;
        return false;
    }

    const fs::path out = fs::path(normalPath(output));
    std::error_code ec;
    if (fs::exists(out, ec)) {
        const bool ours = isFile(out / kMarker);
        const bool empty = isDir(out) && fs::is_empty(out, ec);
        if (!ours && !empty) {
            report.error = out.string() +
                           " exists and is not an earlier conversion; choose a new or empty folder";
            return false;
        }
    }
    const fs::path temp = out.parent_path() / ("." + out.filename().string() + ".converting-" +
                                               std::to_string(::getpid()));
    fs::remove_all(temp, ec);
    if (!fs::create_directories(temp, ec) || ec) {
        report.error = "cannot create " + temp.string() + ": " + ec.message();
        return false;
    }
    auto fail = [&](const std::string& message) {
        std::error_code ignored;
        fs::remove_all(temp, ignored);
        report.error = message;
        return false;
    };

    const std::pair<Role, const char*> roles[] = {
        {Role::Train, "train"}, {Role::Val, "val"}, {Role::Test, "test"}};
    DataConfig config;
    config.root = temp.string();
    config.names = collected.names;
    int done = 0;
    for (const auto& [role, split] : roles) {
        auto& items = byRole[role];
        if (items.empty())
            continue;
        std::set<std::string> used;
        int objects = 0, backgrounds = 0, written = 0;
        for (const Item& item : items) {
            if (options.progress && done % 32 == 0 && !options.progress(done, int(total)))
                return fail("cancelled; nothing was written");
            ++done;
            if (!used.insert(item.name).second) {
                record(report, Severity::Warning, "same file name twice in a split", item.source, 0,
                       "another image of split '" + std::string(split) + "' is called '" +
                           item.name + "': left this one out");
                continue;
            }
            const fs::path image = temp / "images" / split / item.name;
            const fs::path label = (temp / "labels" / split / item.name).replace_extension(".txt");
            std::string error, text;
            if (item.labelText) {
                text = *item.labelText;
                std::istringstream lines(text);
                std::string line;
                int count = 0;
                while (std::getline(lines, line))
                    count += trim(line).empty() ? 0 : 1;
                objects += count;
                backgrounds += count == 0;
            } else {
                for (const Box& b : item.boxes)
                    text += boxLine(b);
                objects += static_cast<int>(item.boxes.size());
                backgrounds += item.boxes.empty();
            }
            if (!placeImage(item.source, image, error) || !writeText(label, text, error))
                return fail(error);
            ++written;
        }
        const std::string folder = (temp / "images" / split).string();
        (role == Role::Train ? config.train
         : role == Role::Val ? config.val
                             : config.test)
            .push_back(folder);
        ConvertReport::SplitCount counted;
        counted.split = split;
        counted.images = written;
        counted.objects = objects;
        counted.backgrounds = backgrounds;
        report.splits.push_back(counted);
    }
    report.autosplit = autosplit;
    report.valFraction = options.valFraction;
    report.classes = static_cast<int>(collected.names.size());
    if (options.progress)
        options.progress(int(total), int(total));
    std::string error;
    const std::string yaml = (temp / "data.yaml").string();
    if (!saveDataConfig(config, yaml, &error))
        return fail(error);
    if (!writeText(temp / kMarker,
                   std::string("converted by headroom-cli convert --from ") + toString(format) +
                       " --in " + input + "\n",
                   error))
        return fail(error);

    // Swap into place: an earlier conversion is moved aside first and removed after.
    const fs::path old = out.parent_path() / ("." + out.filename().string() + ".replaced-" +
                                              std::to_string(::getpid()));
    const bool replacing = fs::exists(out, ec);
    if (replacing) {
        fs::rename(out, old, ec);
        if (ec)
            return fail("cannot replace " + out.string() + ": " + ec.message());
    }
    fs::rename(temp, out, ec);
    if (ec) {
        std::error_code ignored;
        if (replacing)
            fs::rename(old, out, ignored);
        return fail("cannot move the result to " + out.string() + ": " + ec.message());
    }
    if (replacing)
        fs::remove_all(old, ec);
    report.dataYaml = (out / "data.yaml").string();
    return true;
}

} // namespace hr::convert
