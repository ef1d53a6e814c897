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
    std::string yamlPath;            ///< where it was read from (empty when built in code)
    std::string root;                ///< resolved `path`
    std::vector<std::string> train;  ///< folders of images or .txt lists of images
    std::vector<std::string> val;
    std::vector<std::string> test;
    std::vector<std::string> names;  ///< class names, index = class id

    int nc() const { return static_cast<int>(names.size()); }
    bool operator==(const DataConfig& other) const;
};

struct DataConfigResult {
    std::optional<DataConfig> config;
    Diagnostics diagnostics;
};

/// Reads data.yaml: `path`, `train`/`val`/`test` (a folder, a .txt list or a list of those),
/// `names` (list or {id: name} map), `nc`. Missing train folder, nc != len(names), a names map
/// with gaps ... are errors naming file, line and key.
DataConfigResult loadDataConfig(const std::string& path);

/// Writes a data.yaml with paths relative to `root` where possible.
bool saveDataConfig(const DataConfig& config, const std::string& path, std::string* error);

} // namespace hr
