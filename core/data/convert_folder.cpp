// SPDX-License-Identifier: GPL-3.0-or-later
// Folders as they are: the door that writes a missing data.yaml, and layout detection for
// Open folder.
#include "data/convert.h"

#include "config/data_config.h"
#include "data/autosplit.h"
#include "data/convert_internal.h"
#include "data/image_io.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace hr {

using Severity = Diagnostic::Severity;
using convert::isDir;
using convert::isFile;

namespace {

// Label files of a folder data set: labels/ beside images/, or .txt beside the images.
std::vector<std::string> labelFilesOf(const std::vector<std::string>& images) {
    std::vector<std::string> labels;
    for (const auto& image : images)
        if (isFile(labelPathForImage(image)))
            labels.push_back(labelPathForImage(image));
    return labels;
}

// The largest class id used in YOLO label files, -1 when none.
int largestClassId(const std::vector<std::string>& labelFiles) {
    int largest = -1;
    for (const auto& file : labelFiles) {
        std::string text;
        if (!readFile(file, text))
            continue;
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream words(line);
            double id = -1;
            if (words >> id && id >= 0 && id == std::floor(id) && id < 100000)
                largest = std::max(largest, static_cast<int>(id));
        }
    }
    return largest;
}

std::vector<std::string> classesTxtBeside(const std::string& folder) {
    for (const char* name : {"classes.txt", "labels/classes.txt", "obj.names"}) {
        const fs::path p = fs::path(folder) / name;
        if (isFile(p))
            return convert::readNamesFile(p.string());
    }
    return {};
}

} // namespace

ConvertReport writeFolderDataYaml(const std::string& folder, const ConvertOptions& options) {
    ConvertReport report;
    const fs::path dir = convert::normalPath(folder);
    if (!isDir(dir)) {
        report.error = dir.string() + " is not a folder";
        return report;
    }
    if (isFile(dir / "data.yaml")) {
        report.error = (dir / "data.yaml").string() + " exists already; open it instead";
        return report;
    }
    const fs::path imagesDir = isDir(dir / "images") ? dir / "images" : dir;
    const std::vector<std::string> images = convert::imagesUnder(imagesDir.string());
    if (images.empty()) {
        report.error = "found no images (.jpg .jpeg .png .bmp .webp .tif) in " + imagesDir.string();
        return report;
    }
    const std::vector<std::string> labels = labelFilesOf(images);
    std::vector<std::string> names = options.names;
    if (names.empty())
        names = classesTxtBeside(dir.string());
    const int largest = largestClassId(labels);
    if (names.empty()) {
        for (int i = 0; i <= std::max(0, largest); ++i)
            names.push_back("class" + std::to_string(i));
    }
    if (largest >= static_cast<int>(names.size())) {
        report.error = "the labels use class id " + std::to_string(largest) + " but only " +
                       std::to_string(names.size()) + " names are given; give at least " +
                       std::to_string(largest + 1) + " names";
        return report;
    }

    // Ultralytics' autosplit: same draw, same file names, "./"-relative entries.
    const std::vector<int> to =
        autosplitAssignment(images.size(), trainValWeights(options.valFraction));
    std::string lists[2];
    int counts[2] = {0, 0};
    for (size_t i = 0; i < images.size(); ++i) {
        const int split = to[i] == 1 ? 1 : 0;
        lists[split] += "./" + fs::path(images[i]).lexically_relative(dir).generic_string() + "\n";
        ++counts[split];
    }
    if (counts[1] == 0 && images.size() > 1) {
        // The draw gave val nothing (few images): the last training image validates.
        const size_t cut = lists[0].rfind('\n', lists[0].size() - 2);
        const std::string last = lists[0].substr(cut == std::string::npos ? 0 : cut + 1);
        lists[0].resize(lists[0].size() - last.size());
        lists[1] = last;
        --counts[0], ++counts[1];
    } else if (counts[1] == 0) {
        lists[1] = lists[0]; // one image: it trains and validates
        counts[1] = counts[0];
    }
    std::string error;
    const fs::path trainList = dir / "autosplit_train.txt", valList = dir / "autosplit_val.txt";
    std::error_code ec;
    fs::remove(dir / "autosplit_test.txt", ec); // a stale one would not match the new draw
    if (!writeFileAtomically(trainList.string(), lists[0], &error) ||
        !writeFileAtomically(valList.string(), lists[1], &error)) {
        report.error = error + " (is the folder writable?)";
        return report;
    }
    DataConfig config;
    config.root = dir.string();
    config.train = {trainList.string()};
    config.val = {valList.string()};
    config.names = names;
    if (!saveDataConfig(config, (dir / "data.yaml").string(), &error)) {
        report.error = error + " (is the folder writable?)";
        return report;
    }
    for (int split : {0, 1}) {
        ConvertReport::SplitCount counted;
        counted.split = split == 0 ? "train" : "val";
        counted.images = counts[split];
        counted.list = (split == 0 ? trainList : valList).string();
        report.splits.push_back(counted);
    }
    report.autosplit = true;
    report.valFraction = options.valFraction;
    report.classes = static_cast<int>(names.size());
    report.numberedNames = options.names.empty() && names.front() == "class0";
    report.labelledImages = static_cast<int>(labels.size());
    report.dataYaml = (dir / "data.yaml").string();
    return report;
}

std::string defaultConvertOutput(const std::string& input) {
    fs::path in = convert::normalPath(input);
    if (isFile(in))
        in = in.parent_path();
    return in.string() + "-yolo";
}

FolderLayout detectLayout(const std::string& path) {
    FolderLayout layout;
    const fs::path p = convert::normalPath(path);
    layout.input = p.string();
    if (isFile(p)) {
        const std::string ext = toLower(p.extension().string());
        if (ext == ".yaml" || ext == ".yml") {
            layout.kind = FolderLayout::Kind::DataYaml;
            layout.dataYaml = p.string();
            layout.description = "a data.yaml";
        } else if (ext == ".json") {
            layout.kind = FolderLayout::Kind::Convertible;
            layout.format = SourceFormat::Coco;
            layout.description = "a COCO JSON file";
        }
        return layout;
    }
    if (!isDir(p))
        return layout;

    // A data.yaml (or the only YAML) opens directly; a Roboflow one says so.
    std::vector<fs::path> yamls;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file(ec) &&
            (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
            yamls.push_back(e.path());
    const fs::path dataYaml = isFile(p / "data.yaml")
                                  ? p / "data.yaml"
                                  : (yamls.size() == 1 ? yamls.front() : fs::path());
    if (!dataYaml.empty()) {
        layout.kind = FolderLayout::Kind::DataYaml;
        layout.dataYaml = dataYaml.string();
        std::string text;
        readFile(dataYaml.string(), text);
        layout.roboflow =
            text.find("\nroboflow:") != std::string::npos || text.rfind("roboflow:", 0) == 0;
        layout.description = layout.roboflow
                                 ? "a Roboflow export (" + dataYaml.filename().string() + ")"
                                 : "a YOLO data set (" + dataYaml.filename().string() + ")";
        return layout;
    }
    auto convertible = [&](SourceFormat format, const std::string& what) {
        layout.kind = FolderLayout::Kind::Convertible;
        layout.format = format;
        layout.description = what;
    };
    if (isFile(p / "obj.names") && (isFile(p / "obj.data") || isFile(p / "train.txt"))) {
        convertible(SourceFormat::CvatYolo, "a CVAT YOLO export (obj.names, obj.data)");
        layout.names = convert::readNamesFile((p / "obj.names").string());
        return layout;
    }
    const std::vector<std::string> coco = convert::findCocoFiles(p.string());
    if (!coco.empty()) {
        std::string list;
        for (const auto& f : coco) {
            layout.files.push_back(fs::path(f).lexically_relative(p).string());
            list += (list.empty() ? "" : ", ") + layout.files.back();
        }
        convertible(SourceFormat::Coco, "COCO JSON (" + list + ")");
        return layout;
    }
    const fs::path annotations = isDir(p / "Annotations") ? p / "Annotations" : p;
    int xml = 0;
    for (const auto& e : fs::directory_iterator(annotations, ec))
        xml += e.path().extension() == ".xml";
    if (xml > 0) {
        convertible(SourceFormat::Voc, "Pascal VOC XML (" + std::to_string(xml) + " files in " +
                                           annotations.filename().string() + "/)");
        layout.images = xml;
        layout.files = {annotations == p ? "." : annotations.filename().string()};
        return layout;
    }
    const fs::path imagesDir = isDir(p / "images") ? p / "images" : p;
    const std::vector<std::string> images = convert::imagesUnder(imagesDir.string());
    const std::vector<std::string> labels = labelFilesOf(images);
    layout.images = static_cast<int>(images.size());
    if (images.empty() || labels.empty())
        return layout; // Nothing: no images, or images without any YOLO label
    if (isFile(p / "classes.txt") && isFile(p / "notes.json") && isDir(p / "labels")) {
        // Label Studio's YOLO export is an images/labels folder with classes.txt: it opens in
        // place like any such folder.
        layout.description = "a Label Studio YOLO export (classes.txt, notes.json)";
        layout.labelStudio = true;
    } else {
        layout.labelsBeside = !(isDir(p / "images") && isDir(p / "labels"));
        layout.description = isDir(p / "images") && isDir(p / "labels")
                                 ? "images/ and labels/ without a data.yaml"
                                 : "images with YOLO .txt labels beside them, without a data.yaml";
    }
    layout.kind = FolderLayout::Kind::ImagesAndLabels;
    layout.format = SourceFormat::Folder;
    layout.names = classesTxtBeside(p.string());
    if (layout.names.empty()) {
        const int largest = largestClassId(labels);
        for (int i = 0; i <= std::max(0, largest); ++i)
            layout.names.push_back("class" + std::to_string(i));
    }
    return layout;
}

} // namespace hr
