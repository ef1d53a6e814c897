// SPDX-License-Identifier: GPL-3.0-or-later
// The converters' common half: the YOLO writer (temporary folder, then rename), autosplit,
// the folder door that writes a missing data.yaml, and layout detection for Open folder.
#include "data/convert.h"

#include "config/data_config.h"
#include "data/autosplit.h"
#include "data/convert_internal.h"
#include "data/image_io.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace hr {

using Severity = Diagnostic::Severity;

namespace {

constexpr const char* kMarker = ".headroom-convert"; // marks a folder a conversion wrote

std::string normal(const fs::path& p) {
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

std::string boxLine(const convert::Box& b) {
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

namespace convert {

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
            return normal(c);
    return {};
}

std::vector<std::string> imagesUnder(const std::string& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && isImageFile(it->path().string()))
            found.push_back(normal(it->path()));
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

    const fs::path out = fs::path(normal(output));
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

std::vector<std::string> findCocoFiles(const std::string& input) {
    if (isFile(input))
        return {normal(input)};
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
            found.push_back(normal(p));
    }
    std::sort(found.begin(), found.end());
    return found;
}

} // namespace convert

const char* toString(SourceFormat format) {
    switch (format) {
    case SourceFormat::Coco:
        return "coco";
    case SourceFormat::Voc:
        return "voc";
    case SourceFormat::CvatYolo:
        return "cvat-yolo";
    case SourceFormat::LabelStudioYolo:
        return "labelstudio-yolo";
    case SourceFormat::Folder:
        break;
    }
    return "folder";
}

std::optional<SourceFormat> parseSourceFormat(const std::string& text) {
    for (SourceFormat f : {SourceFormat::Coco, SourceFormat::Voc, SourceFormat::CvatYolo,
                           SourceFormat::LabelStudioYolo, SourceFormat::Folder})
        if (text == toString(f))
            return f;
    return std::nullopt;
}

std::string describe(SourceFormat format) {
    switch (format) {
    case SourceFormat::Coco:
        return "COCO JSON";
    case SourceFormat::Voc:
        return "Pascal VOC XML";
    case SourceFormat::CvatYolo:
        return "CVAT YOLO export";
    case SourceFormat::LabelStudioYolo:
        return "Label Studio YOLO export";
    case SourceFormat::Folder:
        break;
    }
    return "images and YOLO labels without a data.yaml";
}

std::string ConvertReport::format(size_t maxProblems) const {
    std::ostringstream out;
    for (const auto& s : splits) {
        out << "wrote " << s.split << ": " << convert::count(s.images, "image");
        if (!s.list.empty())
            out << " listed in " << s.list;
        if (s.objects >= 0)
            out << ", " << convert::count(s.objects, "object") << ", "
                << convert::count(s.backgrounds, "background");
        if (autosplit && s.split != "test")
            out << " (autosplit " << std::lround(100 * (1 - valFraction)) << "/"
                << std::lround(100 * valFraction) << ")";
        out << "\n";
    }
    if (!dataYaml.empty()) {
        out << "data.yaml with " << classes << (classes == 1 ? " class" : " classes");
        if (numberedNames)
            out << " (class0.. from the labels' ids; name them with --names or a classes.txt)";
        if (labelledImages >= 0) {
            int images = 0;
            for (const auto& s : splits)
                images += s.images;
            out << "; " << labelledImages << " of " << convert::count(images, "image")
                << " have a label file";
        }
        out << "\n";
    }
    for (const auto& [reason, count] : skipped)
        out << (count == 1 ? "1 entry" : std::to_string(count) + " entries") << ": " << reason
            << "\n";
    for (size_t i = 0; i < problems.size() && i < maxProblems; ++i)
        out << "  " << problems[i].toString() << "\n";
    if (problems.size() > maxProblems)
        out << "  ... and " << problems.size() - maxProblems << " more\n";
    if (!dataYaml.empty())
        out << "data set: " << dataYaml << "\n";
    return out.str();
}

ConvertReport convertDataset(SourceFormat from, const std::string& input, const std::string& output,
                             const ConvertOptions& options) {
    ConvertReport report;
    if (from == SourceFormat::Folder)
        return writeFolderDataYaml(input, options);
    std::error_code ec;
    if (!fs::exists(input, ec)) {
        report.error = input + " does not exist";
        return report;
    }
    if (output.empty()) {
        report.error = "no output folder given";
        return report;
    }
    const std::string in = normal(input), out = normal(output);
    if (out == in || (out + "/").rfind(in + "/", 0) == 0 || (in + "/").rfind(out + "/", 0) == 0) {
        report.error = "the output folder " + out + " must lie outside the input " + in +
                       " (and not contain it)";
        return report;
    }
    convert::Collected collected;
    bool ok = false;
    switch (from) {
    case SourceFormat::Coco:
        ok = convert::collectCoco(in, options, collected, report);
        break;
    case SourceFormat::Voc:
        ok = convert::collectVoc(in, options, collected, report);
        break;
    case SourceFormat::CvatYolo:
        ok = convert::collectCvatYolo(in, options, collected, report);
        break;
    case SourceFormat::LabelStudioYolo:
        ok = convert::collectLabelStudioYolo(in, options, collected, report);
        break;
    case SourceFormat::Folder:
        break;
    }
    if (ok && collected.names.empty()) {
        report.error = "found no class names in " + in;
        ok = false;
    }
    if (ok)
        convert::writeYoloDataset(collected, from, in, out, options, report);
    return report;
}

ConvertReport writeFolderDataYaml(const std::string& folder, const ConvertOptions& options) {
    ConvertReport report;
    const fs::path dir = normal(folder);
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
    fs::path in = normal(input);
    if (isFile(in))
        in = in.parent_path();
    return in.string() + "-yolo";
}

FolderLayout detectLayout(const std::string& path) {
    FolderLayout layout;
    const fs::path p = normal(path);
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
