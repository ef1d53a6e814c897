// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/detection_model.h"
#include "model/weights_file.h"

#include <string>
#include <vector>

namespace torch::serialize {
class InputArchive;
class OutputArchive;
} // namespace torch::serialize

namespace hr {

/// Writes a model file (torch::save format): the YAML text, scale, source name, nc, the class
/// names and every parameter and buffer. Written through a temporary file and a rename.
/// Returns false and fills `error` (when given) on failure.
bool saveModel(const std::string& path, DetectionModel& model,
               const std::vector<std::string>& classNames, std::string* error);

/// A model read back from a file; `model` is null and `error` says why on failure.
struct LoadedModel {
    DetectionModel model{nullptr};
    std::vector<std::string> classNames;
    /// The training settings a trainer checkpoint (last.pt, best.pt) carries as YAML text;
    /// empty for a plain model file.
    std::string trainingConfigYaml;
    std::string error;
};

/// Rebuilds the model from the stored YAML text + scale + nc and loads its weights.
LoadedModel loadModel(const std::string& path);

/// For the trainer's checkpoints (which add optimizer state, EMA, epoch ...): writes the model
/// part under the key "detection_model" of `archive`.
void writeModel(torch::serialize::OutputArchive& archive, DetectionModel& model,
                const std::vector<std::string>& classNames);
/// Reads what writeModel() wrote; `error` set and `model` null on failure.
LoadedModel readModel(torch::serialize::InputArchive& archive);

/// Loads the weights of a model file into an existing model. A Headroom file made for a
/// different YAML or scale is refused (false + an `error` naming both architectures). A file
/// of the same architecture with another nc, and any Ultralytics checkpoint, transfers every
/// tensor whose name and shape match (another nc loses only the head's class layers, which
/// keep their initialisation); `transfer`, when given, receives the counts.
bool loadWeightsInto(DetectionModel& model, const std::string& path, std::string* error,
                     WeightTransfer* transfer = nullptr);

/// Fills the architecture fields of `out` (YAML, source, scale, nc, fused, class names) from a
/// Headroom model or checkpoint file. False (and `error`) when `path` is not one.
bool readHeadroomHeader(const std::string& path, WeightsFile& out, std::string* error);

} // namespace hr
