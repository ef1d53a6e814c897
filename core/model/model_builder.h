// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/detection_model.h"
#include "util/diagnostic.h"

#include <string>

namespace hr {

/// A built model plus what the builder had to say; `model` is null when any error was found.
struct ModelBuild {
    DetectionModel model{nullptr};
    Diagnostics diagnostics;
};

/// Builds a detector from a model YAML. `yamlPathOrName` is a path or a name resolved with
/// findModelFile(); "yolov8s.yaml" picks scale s of yolov8.yaml. `nc` <= 0 keeps the YAML's
/// nc; an explicit `scale` wins over the file name. Problems (missing file, unknown module,
/// malformed row) come back as diagnostics naming the file and line.
ModelBuild buildModel(const std::string& yamlPathOrName, int nc, const std::string& scale = "");

/// Same from YAML text; `sourceName` is the file name used in diagnostics and in
/// architectureName().
ModelBuild buildModelFromText(const std::string& yamlText, const std::string& sourceName, int nc,
                              const std::string& scale);

/// Rows in the backbone of the model `yamlPathOrName` names (resolved as buildModel() does,
/// "yolov8s.yaml" being yolov8.yaml), read from the YAML's `backbone:` list without building
/// the model. 0 when the file cannot be found or read, or has no such list.
int backboneRows(const std::string& yamlPathOrName);

} // namespace hr
