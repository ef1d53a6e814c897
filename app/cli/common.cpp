// SPDX-License-Identifier: GPL-3.0-or-later
#include "common.h"

#include "config/data_config.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "model/weights_file.h"

#include <ctime>
#include <iostream>

namespace hr::cli {

std::vector<OptionSpec> trainConfigOptions(std::vector<OptionSpec> extra) {
    std::vector<OptionSpec> options = {
        {"--config", "FILE", "training settings YAML (Ultralytics names); options override it"},
        {"--data", "FILE", "data.yaml of the data set (default: the built-in sample)"},
        {"--model", "FILE", "model YAML (yolov8n.yaml, a path) or a weights file (yolov8n.pt)"},
        {"--weights", "FILE", "start from these weights: a .pt from Headroom or Ultralytics"},
        {"--epochs", "N", "number of epochs"},
        {"--budget", "SIZE", "device memory budget, e.g. 3GiB (same as memory_budget=)"},
    };
    options.insert(options.end(), extra.begin(), extra.end());
    return options;
}

OptionSpec jsonOption() {
    return {"--json", "", "print one JSON object"};
}

bool IntegerOptionReader::operator()(const ParsedArgs& args, const char* name, long long minimum,
                                     long long& value) const {
    if (!args.has(name))
        return true;
    std::string error;
    const auto parsed = args.integer(name, &error);
    if (!parsed || *parsed < minimum) {
        std::cerr << command << ": " << name << " must be an integer >= " << minimum << "\n";
        return false;
    }
    value = *parsed;
    return true;
}

bool buildTrainConfig(const ParsedArgs& args, TrainConfig& config) {
    Diagnostics all;
    if (args.has("--config")) {
        TrainConfigResult loaded = loadTrainConfig(args.value("--config"));
        all.insert(all.end(), loaded.diagnostics.begin(), loaded.diagnostics.end());
        if (!loaded.config) {
            std::cerr << formatDiagnostics(all);
            return false;
        }
        config = *loaded.config;
    }
    const std::pair<const char*, const char*> named[] = {
        {"--data", "data"},     {"--model", "model"},          {"--weights", "weights"},
        {"--epochs", "epochs"}, {"--budget", "memory_budget"}, {"--nproc", "nproc"}};
    std::vector<std::pair<std::string, std::string>> settings;
    for (const auto& [option, key] : named)
        if (args.has(option))
            settings.emplace_back(key, args.value(option));
    settings.insert(settings.end(), args.overrides().begin(), args.overrides().end());
    for (const auto& [key, value] : settings) {
        Diagnostics d = applyOverride(config, key, value);
        all.insert(all.end(), d.begin(), d.end());
    }
    Diagnostics checked = validate(config, "command line");
    all.insert(all.end(), checked.begin(), checked.end());
    // The starting weights are read only when a run starts: estimate, fit and compare would
    // otherwise answer for a file that is not there. The architecture part is cheap to read.
    if (!config.weights.empty() && !config.resume && config.weights != config.model)
        if (const WeightsFile file = readWeightsFile(config.weights, /*withTensors=*/false);
            !file.ok()) {
            Diagnostic d;
            d.key = "weights";
            d.message = file.error;
            all.push_back(d);
        }
    std::cerr << formatDiagnostics(all);
    return !hasErrors(all);
}

std::shared_ptr<DatasetReport> scanTrainSplit(const std::string& dataYaml,
                                              const std::string& command,
                                              bool largeScanConfirmed) {
    std::string yaml = dataYaml;
    if (yaml.empty()) {
        std::string error;
        yaml = ensureBuiltinDataset(&error);
        if (yaml.empty()) {
            std::cerr << command << ": " << error << "\n";
            return nullptr;
        }
    }
    const DataConfigResult loaded = loadDataConfig(yaml);
    std::cerr << formatDiagnostics(loaded.diagnostics);
    if (!loaded.config)
        return nullptr;
    ScanOptions options;
    options.largeScanConfirmed = largeScanConfirmed;
    auto report =
        std::make_shared<DatasetReport>(scanDataset(*loaded.config, Split::Train, options));
    if (!report->usable()) {
        std::cerr << formatReport(*report);
        return nullptr;
    }
    return report;
}

OptionSpec largeScanOption() {
    return {"--yes", "",
            "scan the data set even when its folders hold more than " +
                std::to_string(kLargeScanFiles) + " files (path: /)"};
}

} // namespace hr::cli
