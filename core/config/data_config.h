// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace hr {

/// A data set description as Ultralytics users write `data.yaml`.
/// All paths are absolute after loading: `path` is resolved against the YAML's folder and
/// `train`/`val`/`test` against `path`.
struct DataConfig {
    std::string yamlPath;           ///< where it was read from (empty when built in code)
    std::string root;               ///< resolved `path`
    std::vector<std::string> train; ///< folders of images or .txt lists of images
    std::vector<std::string> val;
    std::vector<std::string> test;
    std::vector<std::string> names; ///< class names, index = class id

    int nc() const { return static_cast<int>(names.size()); }
    /// Same data set: root, splits and names; `yamlPath` (where it was read from) is ignored.
    bool operator==(const DataConfig& other) const;
    bool operator!=(const DataConfig& other) const { return !(*this == other); }
};

struct DataConfigResult {
    std::optional<DataConfig> config;
    Diagnostics diagnostics;
};

/// Where data.yaml is looked for besides its own folder.
struct DataConfigOptions {
    /// Ultralytics' datasets folder: a relative `path` not found beside the YAML is read against
    /// it (with a note naming the folder). Empty: no fallback.
    std::string datasetsDir;
};

/// The datasets folder Headroom uses by default: $HEADROOM_DATASETS_DIR, else the
/// `datasets_dir` of Ultralytics' settings.json ($YOLO_CONFIG_DIR or ~/.config/Ultralytics),
/// else "" (none).
std::string defaultDatasetsDir();

/// Reads data.yaml: `path` (relative: against the YAML's folder; absent: that folder),
/// `train`/`val`/`test` (a folder, a .txt list or a list of those, relative to `path`),
/// `names` (list or {id: name} map), `nc` (alone: names class0..). Missing train/val key or
/// path, nc != len(names), a names map with gaps ... are errors naming file, line and key; a
/// missing test path is a warning; `download` and unknown keys are a note / a warning.
/// A single relative split path starting with "../" that does not exist is retried without
/// that prefix (Roboflow exports; Ultralytics does the same), and `validation` is read as
/// `val`. `config` is empty when any error was found. Uses defaultDatasetsDir().
DataConfigResult loadDataConfig(const std::string& path);
DataConfigResult loadDataConfig(const std::string& path, const DataConfigOptions& options);

/// Writes a data.yaml (atomically) with train/val/test relative to `root` where they lie inside
/// it; `path` is "." when the file is written into `root`, else absolute. Returns false and
/// fills `error` on failure.
bool saveDataConfig(const DataConfig& config, const std::string& path, std::string* error);

} // namespace hr
