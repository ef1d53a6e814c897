// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/weights_source.h"

#include "config/train_config.h"
#include "util/text.h"

namespace hr {

bool isWeightsFileName(const std::string& path) {
    const std::string lower = toLower(path);
    auto endsWith = [&](const std::string& tail) {
        return lower.size() >= tail.size() &&
               lower.compare(lower.size() - tail.size(), tail.size(), tail) == 0;
    };
    return endsWith(".pt") || endsWith(".pth");
}

std::string startingWeights(const TrainConfig& config) {
    if (!config.weights.empty())
        return config.weights;
    return isWeightsFileName(config.model) ? config.model : std::string();
}

int trainedImageSize(const std::string& trainingConfigYaml) {
    if (trainingConfigYaml.empty())
        return 0;
    const TrainConfigResult stored = parseTrainConfig(trainingConfigYaml, "weights");
    return stored.config ? stored.config->imgsz : 0;
}

} // namespace hr
