// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/data_config.h"

#include "config/yaml_read.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

namespace hr {

namespace {

namespace fs = std::filesystem;
using Severity = Diagnostic::Severity;

// Keys Ultralytics data sets carry that Headroom reads (the others get a note or a warning).
const std::vector<std::string>& knownDataKeys() {
    static const std::vector<std::string> keys = {"path", "train", "val", "validation",
                                                  "test", "names", "nc",  "download"};
    return keys;
}

// Pose, segmentation and hub metadata: meaningful to Ultralytics, not to a detector.
const std::set<std::string>& ignoredDataKeys() {
    static const std::set<std::string> keys = {"kpt_shape", "flip_idx", "channels",   "yaml_file",
                                               "minival",   "license",  "author",     "roboflow",
                                               "version",   "url",      "description"};
    return keys;
}

std::string absoluteNormal(const fs::path& path) {
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    if (ec)
        absolute = path;
    std::string text = absolute.lexically_normal().string();
    while (text.size() > 1 && text.back() == '/')
        text.pop_back();
    return text;
}

std::string resolveAgainst(const std::string& base, const std::string& path) {
    const fs::path p(path);
    return absoluteNormal(p.is_absolute() ? p : fs::path(base) / p);
}

// `path` relative to `base` when it lies inside it, else `path` unchanged.
std::string relativeInside(const std::string& path, const std::string& base) {
    const fs::path relative = fs::path(path).lexically_relative(base);
    const std::string text = relative.string();
    if (text.empty() || text.rfind("..", 0) == 0)
        return path;
    return text;
}

class DataReader {
public:
    DataReader(std::string file, Diagnostics& out) : m_file(std::move(file)), m_out(out) {}

    void add(Severity severity, const YAML::Node& at, const std::string& key,
             const std::string& message, const std::string& fix = {}) {
        m_out.push_back(makeDiagnostic(severity, m_file, yaml::lineOf(at), key, message, fix));
    }

    /// As add(), with a code and its values for a UI that words the problem in its own language
    /// (ui/diagnosticwording.cpp lists the codes).
    void add(Severity severity, const YAML::Node& at, const std::string& key,
             const std::string& code, std::vector<std::string> args, const std::string& message,
             const std::string& fix = {}) {
        add(severity, at, key, message, fix);
        m_out.back().code = code;
        m_out.back().args = std::move(args);
    }

    // train/val/test: one path or a list of paths, each resolved against `root`.
    bool readPaths(const YAML::Node& value, const std::string& key, const std::string& root,
                   bool mustExist, std::vector<std::string>& paths) {
        std::vector<YAML::Node> items;
        if (value.IsScalar()) {
            items.push_back(value);
        } else if (value.IsSequence() && value.size() > 0) {
            for (const auto& item : value)
                items.push_back(item);
        } else {
            add(Severity::Error, value, key, "data_split_bad", {yaml::describe(value)},
                "expected a folder, a .txt list of images or a list of those, got " +
                    yaml::describe(value),
                "write e.g. '" + key + ": images/" + key + "'");
            return false;
        }
        bool ok = true;
        for (const YAML::Node& item : items) {
            if (!item.IsScalar() || trim(item.Scalar()).empty()) {
                add(Severity::Error, item, key, "data_split_item_bad", {yaml::describe(item)},
                    "expected a path, got " + yaml::describe(item),
                    "write a folder or a .txt file, relative to 'path'");
                ok = false;
                continue;
            }
            const std::string written = trim(item.Scalar());
            std::string resolved = resolveAgainst(root, written);
            std::error_code ec;
            if (!fs::exists(resolved, ec) && value.IsScalar() && written.rfind("../", 0) == 0) {
                // Roboflow exports write "train: ../train/images" next to train/; Ultralytics
                // retries such a single path without "../", so Headroom does too.
                const std::string retry = resolveAgainst(root, written.substr(3));
                if (fs::exists(retry, ec)) {
                    add(Severity::Note, item, key, "data_roboflow_retry",
                        {written, written.substr(3), retry},
                        "'" + written + "' does not exist; used '" + written.substr(3) + "' (" +
                            retry + ") as Ultralytics does for Roboflow exports");
                    resolved = retry;
                }
            }
            if (!fs::exists(resolved, ec)) {
                add(mustExist ? Severity::Error : Severity::Warning, item, key,
                    "data_split_missing", {item.Scalar(), resolved, root},
                    "'" + item.Scalar() + "' does not exist (resolved to " + resolved + ")",
                    "relative paths are read against 'path' (" + root + "); fix 'path' or '" + key +
                        "'");
                ok = ok && !mustExist;
                continue;
            }
            paths.push_back(resolved);
        }
        return ok;
    }

    // names: a list, or a map {0: a, 1: b} whose ids run from 0 without gaps.
    bool readNames(const YAML::Node& value, std::vector<std::string>& names) {
        if (value.IsSequence()) {
            for (const auto& item : value) {
                if (!item.IsScalar() || trim(item.Scalar()).empty()) {
                    add(Severity::Error, item, "names", "names_item_bad", {yaml::describe(item)},
                        "expected a class name, got " + yaml::describe(item),
                        "write one name per class");
                    return false;
                }
                names.push_back(trim(item.Scalar()));
            }
            return true;
        }
        if (!value.IsMap()) {
            add(Severity::Error, value, "names", "names_not_list", {yaml::describe(value)},
                "expected a list of class names or a map {0: name, 1: name}, got " +
                    yaml::describe(value),
                "write e.g. 'names: [cat, dog]'");
            return false;
        }
        std::map<long long, std::string> byId;
        for (const auto& entry : value) {
            const auto id = yaml::toWhole(entry.first);
            if (!id || *id < 0) {
                add(Severity::Error, entry.first, "names", "names_id_bad",
                    {yaml::describe(entry.first)},
                    "a class id must be a whole number from 0, got " + yaml::describe(entry.first),
                    "number the classes 0, 1, 2 ...");
                return false;
            }
            if (!entry.second.IsScalar() || trim(entry.second.Scalar()).empty()) {
                add(Severity::Error, entry.second, "names", "names_name_bad",
                    {std::to_string(*id), yaml::describe(entry.second)},
                    "expected the name of class " + std::to_string(*id) + ", got " +
                        yaml::describe(entry.second),
                    "write '" + std::to_string(*id) + ": name'");
                return false;
            }
            if (!byId.emplace(*id, trim(entry.second.Scalar())).second) {
                add(Severity::Error, entry.first, "names", "names_id_twice", {std::to_string(*id)},
                    "class id " + std::to_string(*id) + " appears twice",
                    "give every class its own id");
                return false;
            }
        }
        long long expected = 0;
        for (const auto& [id, name] : byId) {
            if (id != expected) {
                add(Severity::Error, value, "names", "names_gap", {std::to_string(expected)},
                    "class ids must run 0..N-1 without gaps; id " + std::to_string(expected) +
                        " is missing",
                    "renumber the classes or add class " + std::to_string(expected));
                return false;
            }
            names.push_back(name);
            ++expected;
        }
        return true;
    }

private:
    std::string m_file;
    Diagnostics& m_out;
};

} // namespace

bool DataConfig::operator==(const DataConfig& other) const {
    return root == other.root && train == other.train && val == other.val && test == other.test &&
           names == other.names;
}

std::string defaultDatasetsDir() {
    if (const char* own = std::getenv("HEADROOM_DATASETS_DIR"); own && *own)
        return absoluteNormal(own);
    // Ultralytics keeps its datasets folder in settings.json under $YOLO_CONFIG_DIR or
    // ~/.config/Ultralytics; a flat {"key": value} file, so a plain search finds the value.
    std::string settings;
    if (const char* dir = std::getenv("YOLO_CONFIG_DIR"); dir && *dir)
        settings = std::string(dir) + "/settings.json";
    else if (const char* home = std::getenv("HOME"); home && *home)
        settings = std::string(home) + "/.config/Ultralytics/settings.json";
    std::string text;
    if (settings.empty() || !readFile(settings, text))
        return {};
    const size_t key = text.find("\"datasets_dir\"");
    if (key == std::string::npos)
        return {};
    const size_t open = text.find('"', text.find(':', key));
    const size_t close = open == std::string::npos ? open : text.find('"', open + 1);
    if (close == std::string::npos)
        return {};
    return absoluteNormal(text.substr(open + 1, close - open - 1));
}

DataConfigResult loadDataConfig(const std::string& path) {
    DataConfigOptions options;
    options.datasetsDir = defaultDatasetsDir();
    return loadDataConfig(path, options);
}

DataConfigResult loadDataConfig(const std::string& path, const DataConfigOptions& options) {
    DataConfigResult result;
    Diagnostics& out = result.diagnostics;
    std::string text, error;
    if (!readFile(path, text, &error)) {
        out.push_back(makeDiagnostic(Severity::Error, path, 0, {},
                                     "cannot read the data set description: " + error,
                                     "check the path to data.yaml"));
        out.back().code = "data_unreadable";
        return result;
    }
    const std::optional<YAML::Node> root = yaml::parseDocument(text, path, out);
    if (!root)
        return result;
    DataReader reader(path, out);
    if (!root->IsMap()) {
        out.push_back(makeDiagnostic(Severity::Error, path, std::max(1, yaml::lineOf(*root)), {},
                                     "a data.yaml must be a map with train, val and names, got " +
                                         yaml::describe(*root),
                                     "write 'path:', 'train:', 'val:' and 'names:' lines"));
        out.back().code = "data_not_map";
        out.back().args = {yaml::describe(*root)};
        return result;
    }

    DataConfig config;
    config.yamlPath = path;
    const std::string yamlFolder = absoluteNormal(fs::path(absoluteNormal(path)).parent_path());
    config.root = yamlFolder;

    // First pass: where things are keyed, so `path` is known before train/val are resolved.
    std::map<std::string, std::pair<YAML::Node, YAML::Node>> entries; // key -> (key, value)
    for (const auto& entry : *root) {
        if (!entry.first.IsScalar()) {
            reader.add(Severity::Error, entry.first, {}, "data_key_not_word",
                       {yaml::describe(entry.first)},
                       "a key must be a word, got " + yaml::describe(entry.first));
            continue;
        }
        const std::string key = entry.first.Scalar();
        if (std::find(knownDataKeys().begin(), knownDataKeys().end(), key) !=
            knownDataKeys().end()) {
            entries[key] = {entry.first, entry.second};
        } else if (ignoredDataKeys().count(key)) {
            reader.add(Severity::Note, entry.first, key, "data_key_ignored", {},
                       "Headroom does not use this key");
        } else {
            const std::string near = nearestMatch(key, knownDataKeys());
            reader.add(Severity::Warning, entry.first, key, "data_key_unknown", {near},
                       "unknown key",
                       near.empty() ? "data.yaml keys are path, train, val, test, names, nc"
                                    : "did you mean '" + near + "'?");
        }
    }
    if (entries.count("validation")) {
        if (entries.count("val")) {
            reader.add(Severity::Warning, entries["validation"].first, "validation",
                       "data_val_twice", {}, "both 'val' and 'validation' are given: used 'val'",
                       "remove 'validation'");
        } else {
            reader.add(Severity::Note, entries["validation"].first, "validation",
                       "data_validation_as_val", {},
                       "read 'validation' as 'val', as Ultralytics does", "rename it to 'val'");
            entries["val"] = entries["validation"];
        }
        entries.erase("validation");
    }
    auto find = [&](const char* key) -> const std::pair<YAML::Node, YAML::Node>* {
        const auto it = entries.find(key);
        return it == entries.end() ? nullptr : &it->second;
    };

    if (const auto* download = find("download"))
        reader.add(Severity::Note, download->first, "download", "data_download", {},
                   "Headroom never downloads data sets; the files must already be on disk");

    bool ok = true;
    if (const auto* base = find("path")) {
        if (base->second.IsNull()) {
            // `path:` with nothing: the YAML's folder, as when the key is absent.
        } else if (!base->second.IsScalar()) {
            reader.add(Severity::Error, base->second, "path", "data_path_bad",
                       {yaml::describe(base->second)},
                       "expected a folder, got " + yaml::describe(base->second),
                       "write the data set's root folder, or leave 'path' out");
            ok = false;
        } else {
            const std::string written = trim(base->second.Scalar());
            config.root = resolveAgainst(yamlFolder, written);
            std::error_code ec;
            const bool relative = fs::path(written).is_relative();
            if (!fs::is_directory(config.root, ec) && relative && !options.datasetsDir.empty()) {
                // Ultralytics' fallback: a relative `path` that is not found names a folder in
                // its datasets folder (coco8.yaml says "path: coco8").
                const std::string fallback = resolveAgainst(options.datasetsDir, written);
                if (fs::is_directory(fallback, ec)) {
                    reader.add(Severity::Note, base->second, "path", "data_path_datasets_dir",
                               {written, fallback, options.datasetsDir},
                               "'" + written + "' is not beside the YAML; used the datasets " +
                                   "folder: " + fallback,
                               "the datasets folder (" + options.datasetsDir +
                                   ") comes from HEADROOM_DATASETS_DIR or Ultralytics' "
                                   "settings.json 'datasets_dir'");
                    config.root = fallback;
                }
            }
            if (!fs::is_directory(config.root, ec)) {
                std::string fix =
                    "a relative path is read against the YAML's folder (" + yamlFolder + ")";
                if (relative)
                    fix += options.datasetsDir.empty()
                               ? ", then against the datasets folder (none set: set "
                                 "HEADROOM_DATASETS_DIR)"
                               : ", then against the datasets folder (" + options.datasetsDir + ")";
                reader.add(Severity::Error, base->second, "path", "data_path_missing",
                           {base->second.Scalar(), config.root, yamlFolder,
                            relative ? options.datasetsDir : std::string(), relative ? "1" : "0"},
                           "folder '" + base->second.Scalar() + "' does not exist (resolved to " +
                               config.root + ")",
                           fix);
                ok = false;
            }
        }
    }

    if (ok) {
        const std::pair<const char*, std::vector<std::string>*> splits[] = {
            {"train", &config.train}, {"val", &config.val}, {"test", &config.test}};
        for (const auto& [key, paths] : splits) {
            const auto* entry = find(key);
            const bool required = std::string(key) != "test";
            if (!entry || entry->second.IsNull()) {
                if (required) {
                    const YAML::Node at = entry ? entry->first : *root;
                    reader.add(Severity::Error, at, key, "data_split_none", {key},
                               std::string("no '") + key + "' images given",
                               std::string("add '") + key + ": images/" + key +
                                   "' (a folder, a .txt list or a list of folders)");
                    ok = false;
                }
                continue;
            }
            ok = reader.readPaths(entry->second, key, config.root, required, *paths) && ok;
        }
    }

    const auto* names = find("names");
    const auto* nc = find("nc");
    long long classCount = 0; // 0: nc not given or unusable
    if (nc) {
        const auto count = yaml::toWhole(nc->second);
        if (!count || *count < 1 || *count > 100000) {
            reader.add(Severity::Error, nc->second, "nc", "nc_bad", {yaml::describe(nc->second)},
                       "expected a number of classes (1 or more), got " +
                           yaml::describe(nc->second),
                       "write the number of classes, or leave nc out and list 'names'");
            ok = false;
        } else {
            classCount = *count;
        }
    }
    if (names) {
        bool namesOk = reader.readNames(names->second, config.names);
        if (namesOk && config.names.empty()) {
            reader.add(Severity::Error, names->second, "names", "names_empty", {},
                       "the list of class names is empty", "write one name per class");
            namesOk = false;
        }
        if (namesOk && classCount > 0 &&
            classCount != static_cast<long long>(config.names.size())) {
            reader.add(Severity::Error, nc->second, "nc", "nc_mismatch",
                       {std::to_string(classCount), std::to_string(config.names.size())},
                       "nc says " + std::to_string(classCount) + " classes but 'names' lists " +
                           std::to_string(config.names.size()),
                       "make nc equal to the number of names, or remove nc");
            namesOk = false;
        }
        ok = ok && namesOk;
    } else if (classCount > 0) {
        for (long long i = 0; i < classCount; ++i)
            config.names.push_back("class" + std::to_string(i));
        reader.add(Severity::Note, nc->first, "nc", "names_from_nc",
                   {std::to_string(classCount - 1)},
                   "no 'names' given; the classes are called class0 .. class" +
                       std::to_string(classCount - 1),
                   "add 'names:' to see real class names in results");
    } else if (!nc) {
        reader.add(Severity::Error, *root, "names", "names_missing", {},
                   "the class names are missing", "add 'names: [first, second, ...]' (or 'nc: N')");
        ok = false;
    }

    if (ok && !hasErrors(out))
        result.config = config;
    return result;
}

bool saveDataConfig(const DataConfig& config, const std::string& path, std::string* error) {
    const std::string yamlFolder = absoluteNormal(fs::path(absoluteNormal(path)).parent_path());
    const std::string root = config.root.empty() ? yamlFolder : absoluteNormal(config.root);
    std::string out = "# Data set description (Ultralytics data.yaml format)\n";
    std::string rootText = relativeInside(root, yamlFolder);
    if (root == yamlFolder)
        rootText = ".";
    out += "path: " + yaml::quoteIfNeeded(rootText) + "\n";
    const std::pair<const char*, const std::vector<std::string>*> splits[] = {
        {"train", &config.train}, {"val", &config.val}, {"test", &config.test}};
    for (const auto& [key, paths] : splits) {
        if (paths->empty())
            continue;
        out += std::string(key) + ":";
        if (paths->size() == 1) {
            out += " " + yaml::quoteIfNeeded(relativeInside(absoluteNormal(paths->front()), root)) +
                   "\n";
        } else {
            out += "\n";
            for (const auto& p : *paths)
                out += "  - " + yaml::quoteIfNeeded(relativeInside(absoluteNormal(p), root)) + "\n";
        }
    }
    out += "nc: " + std::to_string(config.names.size()) + "\n";
    out += "names:\n";
    for (size_t i = 0; i < config.names.size(); ++i)
        out += "  " + std::to_string(i) + ": " + yaml::quoteIfNeeded(config.names[i]) + "\n";
    return writeFileAtomically(path, out, error);
}

} // namespace hr
