// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

struct TrainConfig;

/// True when `path` names a weights file (".pt", ".pth") rather than a model YAML.
bool isWeightsFileName(const std::string& path);

/// The weights a new run starts from: `weights` (which Ultralytics' pretrained=<file> also
/// sets), else `model` when it names a weights file (model=yolov8n.pt means that architecture
/// and its weights, as in Ultralytics); empty = random weights.
std::string startingWeights(const TrainConfig& config);

/// The image size weights were trained at, read from the training settings a checkpoint
/// carries (`trainingConfigYaml` of LoadedModel); 0 when the file has none.
int trainedImageSize(const std::string& trainingConfigYaml);

} // namespace hr
