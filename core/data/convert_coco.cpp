// SPDX-License-Identifier: GPL-3.0-or-later
// COCO JSON -> YOLO: category ids remapped to 0..n-1 in id order, crowd boxes left out and
// counted, images without annotations kept as backgrounds.
#include "data/convert_internal.h"

#include "data/image_io.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using nlohmann::json;

namespace hr::convert {

namespace {

using Severity = Diagnostic::Severity;

// "instances_train2017.json" -> "train2017"; Roboflow's "train/_annotations.coco.json" -> "train".
std::string splitNameOf(const fs::path& file) {
    std::string stem = file.filename().string();
    stem = stem.substr(0, stem.find('.'));
    if (stem.rfind("instances_", 0) == 0)
        return stem.substr(10);
    if (stem == "_annotations" || stem == "annotations" || stem == "result")
        return file.parent_path().filename().string();
    return stem;
}

std::optional<double> number(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

std::optional<long long> wholeNumber(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !(it->is_number_integer() || it->is_number_unsigned()))
        return std::nullopt;
    return it->get<long long>();
}

std::string text(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Instance masks: the converter writes boxes, and the polygons are most of a COCO file's values.
const std::string kSkippedKey = "segmentation";

/// Counts the values a parse would keep (everything but kSkippedKey's), stopping past `most`.
class ValueCounter : public nlohmann::json_sax<json> {
public:
    explicit ValueCounter(std::uint64_t most) : m_most(most) {}
    std::uint64_t kept = 0;
    bool failed = false;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& name) override {
        if (m_skipDepth < 0 && name == kSkippedKey)
            m_skipNext = true;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        failed = true; // the DOM parse that follows words it
        return false;
    }

private:
    bool value() {
        if (m_skipNext) {
            m_skipNext = false;
            return true;
        }
        return m_skipDepth >= 0 || ++kept <= m_most;
    }
    bool open() {
        if (m_skipNext) {
            m_skipNext = false;
            m_skipDepth = m_depth;
        }
        ++m_depth;
        return m_skipDepth >= 0 || ++kept <= m_most;
    }
    bool close() {
        if (--m_depth == m_skipDepth)
            m_skipDepth = -1;
        return true;
    }

    std::uint64_t m_most;
    int m_depth = 0;
    int m_skipDepth = -1; ///< depth of the skipped list being read, -1: none
    bool m_skipNext = false;
};

std::string withCommas(std::uint64_t n) {
    std::string digits = std::to_string(n);
    for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(static_cast<size_t>(at), ",");
    return digits;
}

/// Why `path` is too large to read (its size, then the values a parse would keep), or "".
/// The values are counted by a parse that builds nothing, so memory stays flat either way.
std::string tooLarge(const std::string& path, const ConvertOptions& options) {
    std::error_code ec;
    const std::uint64_t bytes = fs::file_size(path, ec);
    const std::string fix = ": split the annotations into several files (one per split, or "
                            "per part of a split) and convert each";
    if (!ec && bytes > options.mostJsonBytes)
        return path + ": " + withCommas(bytes) + " bytes, more than the " +
               withCommas(options.mostJsonBytes) + " bytes Headroom reads from one COCO file" + fix;
    std::ifstream in(path, std::ios::binary);
    ValueCounter counter(options.mostJsonValues);
    const bool complete = json::sax_parse(in, &counter);
    if (!complete && !counter.failed)
        return path + ": more than " + withCommas(options.mostJsonValues) +
               " JSON values besides the masks (\"segmentation\"), the most Headroom reads "
               "from one COCO file (instances_train2017.json holds about 11 million)" +
               fix;
    return {};
}

// Reads and parses one file; fills report.error with file, line and column when broken.
std::optional<json> parseFile(const std::string& path, const ConvertOptions& options,
                              ConvertReport& report) {
    if (const std::string why = tooLarge(path, options); !why.empty()) {
        report.error = why;
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        report.error = path + ": cannot read: " + std::strerror(errno);
        return std::nullopt;
    }
    // Masks are skipped while parsing, so they never take memory.
    const json::parser_callback_t skipMasks = [](int, json::parse_event_t event, json& value) {
        return !(event == json::parse_event_t::key && value == kSkippedKey);
    };
    try {
        json document = json::parse(in, skipMasks);
        if (!document.is_object() || !document.contains("images") ||
            !document["images"].is_array()) {
            report.error = path + ": not a COCO annotation file (no \"images\" list)";
            return std::nullopt;
        }
        return document;
    } catch (const json::parse_error& e) {
        // what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."
        std::string what = e.what();
        const size_t at = what.find("] ");
        report.error =
            path + ": broken JSON: " + (at == std::string::npos ? what : what.substr(at + 2));
        return std::nullopt;
    }
}

} // namespace

bool collectCoco(const std::string& input, const ConvertOptions& options, Collected& out,
                 ConvertReport& report) {
    const std::vector<std::string> files = findCocoFiles(input);
    if (files.empty()) {
        report.error = "found no COCO JSON in " + input +
                       " (looked for instances_*.json and *.coco.json up to two folders deep)";
        return false;
    }
    std::vector<json> documents;
    for (const auto& file : files) {
        auto document = parseFile(file, options, report);
        if (!document)
            return false;
        documents.push_back(std::move(*document));
    }

    // Categories of all files, by id; the same id must mean the same name everywhere.
    std::map<long long, std::pair<std::string, std::string>> categories; // id -> (name, file)
    for (size_t f = 0; f < files.size(); ++f) {
        const json& list =
            documents[f].contains("categories") ? documents[f]["categories"] : json();
        if (!list.is_array()) {
            report.error = files[f] + ": no \"categories\" list";
            return false;
        }
        for (size_t i = 0; i < list.size(); ++i) {
            const auto id = wholeNumber(list[i], "id");
            const std::string name = text(list[i], "name");
            if (!id || name.empty()) {
                report.error = files[f] + ": categories[" + std::to_string(i) +
                               "] needs a whole-number \"id\" and a \"name\"";
                return false;
            }
            const auto [it, added] = categories.emplace(*id, std::make_pair(name, files[f]));
            if (!added && it->second.first != name) {
                report.error = files[f] + ": category id " + std::to_string(*id) + " is '" + name +
                               "' but '" + it->second.first + "' in " + it->second.second;
                return false;
            }
        }
    }
    std::map<long long, int> classOf;
    for (const auto& [id, entry] : categories) {
        classOf[id] = static_cast<int>(out.names.size());
        out.names.push_back(entry.first);
    }

    for (size_t f = 0; f < files.size(); ++f) {
        const fs::path file(files[f]);
        const fs::path folder = file.parent_path();
        const std::string split = splitNameOf(file);
        const json& images = documents[f]["images"];
        Part part;
        // A lone file is all there is to train on (and is split by autosplit).
        part.role = files.size() == 1 ? Role::Train : roleOf(split);
        std::map<long long, size_t> itemOf; // image id -> index in part.items
        std::map<long long, std::pair<int, int>> sizeOf;
        for (size_t i = 0; i < images.size(); ++i) {
            const json& image = images[i];
            const std::string entry = "images[" + std::to_string(i) + "]";
            const auto id = wholeNumber(image, "id");
            const std::string name = text(image, "file_name");
            if (!id || name.empty()) {
                record(report, Severity::Warning, "image entry without id or file_name", files[f],
                       0, entry + " has no whole-number \"id\" or no \"file_name\": left it out");
                continue;
            }
            const fs::path base = fs::path(name).filename();
            std::vector<std::string> candidates;
            for (const fs::path& dir :
                 {folder, folder / "images", folder.parent_path() / "images" / split,
                  folder.parent_path() / split, folder.parent_path() / "images",
                  folder.parent_path(), folder / split, fs::path(input) / "images"}) {
                candidates.push_back((dir / name).string());
                candidates.push_back((dir / base).string());
            }
            const std::string source = firstExisting(candidates);
            if (source.empty()) {
                record(report, Severity::Warning, "image file not found", files[f], 0,
                       entry + " (id " + std::to_string(*id) + "): '" + name +
                           "' is not beside the JSON, in images/, images/" + split + "/ or " +
                           split + "/: left it out");
                continue;
            }
            const std::string where = entry + " (id " + std::to_string(*id) + ")";
            if (sourceInsideRoots(source, options.imageRoots).empty()) {
                refuseOutside(report, files[f], 0, where, source);
                continue;
            }
            int width = static_cast<int>(number(image, "width").value_or(0));
            int height = static_cast<int>(number(image, "height").value_or(0));
            if (width <= 0 || height <= 0) {
                std::string error;
                const cv::Mat decoded = readImage(source, &error);
                width = decoded.cols, height = decoded.rows;
                if (decoded.empty()) {
                    record(report, Severity::Warning, "image without size that cannot be read",
                           files[f], 0,
                           entry + " (id " + std::to_string(*id) + "): " + error + ": left it out");
                    continue;
                }
            }
            if (itemOf.count(*id)) {
                record(report, Severity::Warning, "image id given twice", files[f], 0,
                       entry + ": image id " + std::to_string(*id) +
                           " appears twice: kept the first");
                continue;
            }
            itemOf[*id] = part.items.size();
            sizeOf[*id] = {width, height};
            Item item;
            item.source = source;
            item.name = safeRelativeName(name);
            item.entryFile = files[f];
            item.entry = where;
            part.items.push_back(std::move(item));
        }

        const json& annotations =
            documents[f].contains("annotations") ? documents[f]["annotations"] : json::array();
        for (size_t i = 0; i < annotations.size(); ++i) {
            const json& a = annotations[i];
            const auto annotationId = wholeNumber(a, "id");
            const std::string entry =
                "annotations[" + std::to_string(i) + "]" +
                (annotationId ? " (id " + std::to_string(*annotationId) + ")" : std::string());
            const auto imageId = wholeNumber(a, "image_id");
            const auto categoryId = wholeNumber(a, "category_id");
            if (!imageId || !itemOf.count(*imageId)) {
                record(report, Severity::Warning, "annotation of an unknown or left-out image",
                       files[f], 0,
                       entry + ": image_id " + (imageId ? std::to_string(*imageId) : "missing") +
                           " is not a usable image of this file: left it out");
                continue;
            }
            if (!categoryId || !classOf.count(*categoryId)) {
                record(report, Severity::Warning, "unknown category id", files[f], 0,
                       entry + ": category_id " +
                           (categoryId ? std::to_string(*categoryId) : "missing") +
                           " is not in \"categories\": left it out");
                continue;
            }
            if (number(a, "iscrowd").value_or(0) != 0) {
                record(report, Severity::Warning, "crowd box (iscrowd 1)", files[f], 0,
                       entry + ": a crowd region, not one object: left it out");
                continue;
            }
            const auto bbox = a.find("bbox");
            if (bbox == a.end() || !bbox->is_array() || bbox->size() != 4 ||
                !std::all_of(bbox->begin(), bbox->end(),
                             [](const json& v) { return v.is_number(); })) {
                record(report, Severity::Warning, "annotation without a bbox", files[f], 0,
                       entry + ": \"bbox\" must be [x, y, width, height]: left it out");
                continue;
            }
            const double x = (*bbox)[0].get<double>(), y = (*bbox)[1].get<double>();
            const double w = (*bbox)[2].get<double>(), h = (*bbox)[3].get<double>();
            const auto [width, height] = sizeOf[*imageId];
            Item& item = part.items[itemOf[*imageId]];
            Box box;
            bool clipped = false;
            if (w <= 0 || h <= 0) {
                record(report, Severity::Warning, "box of zero size", files[f], 0,
                       entry + ": width " + number(w) + ", height " + number(h) + ": left it out");
                continue;
            }
            if (!pixelBoxToYolo(x, y, x + w, y + h, width, height, box, clipped)) {
                record(report, Severity::Warning, "box outside the image", files[f], 0,
                       entry + ": bbox [" + number(x) + ", " + number(y) + ", " + number(w) + ", " +
                           number(h) + "] lies outside the " + std::to_string(width) + "x" +
                           std::to_string(height) + " image " + item.name + ": left it out");
                continue;
            }
            if (clipped)
                record(report, Severity::Note, "box clipped to the image", files[f], 0,
                       entry + ": bbox reaches outside the " + std::to_string(width) + "x" +
                           std::to_string(height) + " image " + item.name + ": clipped it");
            box.cls = classOf[*categoryId];
            item.boxes.push_back(box);
        }
        out.parts.push_back(std::move(part));
    }
    return true;
}

} // namespace hr::convert
