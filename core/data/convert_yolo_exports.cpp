// SPDX-License-Identifier: GPL-3.0-or-later
// The "YOLO" exports of annotation tools: already YOLO label lines, but laid out for Darknet
// (CVAT) or without a data.yaml (Label Studio). Labels are copied as they are; data-check
// judges their lines afterwards.
#include "data/convert_internal.h"

#include "data/image_io.h"
#include "data/image_list.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <filesystem>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace hr::convert {

namespace {

using Severity = Diagnostic::Severity;

// obj.data: "classes = 3", "train = data/train.txt", "names = data/obj.names" ...
std::map<std::string, std::string> readKeyValues(const std::string& path) {
    std::map<std::string, std::string> values;
    std::string text;
    if (!readFile(path, text))
        return values;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const size_t eq = line.find('=');
        if (eq != std::string::npos)
            values[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    return values;
}

// Darknet lists name files relative to darknet's working folder, as "data/...", while the
// export's root is that "data" folder: try the path as written, then without "data/".
std::string inExport(const fs::path& root, const std::string& written) {
    std::vector<std::string> candidates = {(root / written).string()};
    if (written.rfind("data/", 0) == 0)
        candidates.push_back((root / written.substr(5)).string());
    candidates.push_back((root / fs::path(written).filename()).string());
    return firstExisting(candidates);
}

bool addLabelled(const std::string& image, const std::string& name, const std::string& listFile,
                 int line, Part& part, ConvertReport& report) {
    Item item;
    item.source = image;
    item.name = name;
    item.entryFile = listFile;
    item.entryLine = line;
    const std::string label = labelPathForImage(image);
    std::string text;
    if (readFile(label, text))
        item.labelText = text;
    else
        record(report, Severity::Note, "image without a label file (kept as a background)",
               listFile.empty() ? image : listFile, line,
               "no " + fs::path(label).filename().string() + " for " +
                   fs::path(image).filename().string() + ": kept as a background image");
    if (!item.labelText)
        item.labelText = std::string();
    part.items.push_back(std::move(item));
    return true;
}

} // namespace

bool collectCvatYolo(const std::string& input, const ConvertOptions& options, Collected& out,
                     ConvertReport& report) {
    (void)options;
    const fs::path root(input);
    const auto data = readKeyValues((root / "obj.data").string());
    std::string namesFile = data.count("names") ? inExport(root, data.at("names")) : "";
    if (namesFile.empty())
        namesFile = firstExisting({(root / "obj.names").string()});
    if (namesFile.empty()) {
        report.error =
            "no obj.names in " + input + " (a CVAT YOLO export has obj.names and obj.data)";
        return false;
    }
    out.names = readNamesFile(namesFile);
    if (data.count("classes") && std::to_string(out.names.size()) != data.at("classes"))
        record(report, Severity::Note, "obj.data and obj.names disagree",
               (root / "obj.data").string(), 0,
               "classes = " + data.at("classes") + " but obj.names lists " +
                   std::to_string(out.names.size()) + " names: used obj.names");

    bool anyList = false;
    for (const auto& [key, fallback] : {std::pair<const char*, const char*>{"train", "train.txt"},
                                        {"valid", "valid.txt"},
                                        {"test", "test.txt"}}) {
        std::string list = data.count(key) ? inExport(root, data.at(key)) : "";
        if (list.empty())
            list = firstExisting({(root / fallback).string()});
        if (list.empty())
            continue;
        anyList = true;
        Part part;
        part.role = roleOf(key);
        readImageList(list, [&](const std::string& entry, int lineNo) {
            const std::string image = inExport(root, entry);
            if (image.empty()) {
                record(report, Severity::Warning, "listed image not found", list, lineNo,
                       "'" + entry + "' is not in the export: left it out");
                return;
            }
            addLabelled(image, fs::path(image).filename().string(), list, lineNo, part, report);
        });
        out.parts.push_back(std::move(part));
    }
    if (!anyList) {
        // No list: every image in the obj_*_data folders.
        Part part;
        for (const auto& image : imagesUnder(input))
            addLabelled(image, fs::path(image).filename().string(), {}, 0, part, report);
        out.parts.push_back(std::move(part));
    }
    return true;
}

bool collectLabelStudioYolo(const std::string& input, const ConvertOptions& options, Collected& out,
                            ConvertReport& report) {
    const fs::path root(input);
    out.names = options.names;
    if (out.names.empty())
        out.names = readNamesFile((root / "classes.txt").string());
    if (out.names.empty()) {
        report.error =
            "no classes.txt in " + input +
            " (a Label Studio YOLO export has classes.txt, notes.json, images/, labels/)";
        return false;
    }
    const fs::path images = fs::is_directory(root / "images") ? root / "images" : root;
    Part part;
    for (const auto& image : imagesUnder(images.string()))
        addLabelled(image, fs::path(image).lexically_relative(images).generic_string(), {}, 0, part,
                    report);
    out.parts.push_back(std::move(part));
    return true;
}

} // namespace hr::convert
