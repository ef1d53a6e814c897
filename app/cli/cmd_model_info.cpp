// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli model-info: layers, parameters, gradients and GFLOPs of a model YAML or file.
#include "command.h"

#include "model/detection_model.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "model/model_summary.h"
#include "train/compute_threads.h"

#include <torch/torch.h>

#include <iostream>

namespace hr::cli {
namespace {

int runModelInfo(const ParsedArgs& args) {
    if (!args.has("--model")) {
        std::cerr << "model-info: --model FILE is required (e.g. --model yolov8n.yaml)\n";
        return ExitUsage;
    }
    std::string error;
    int nc = 0;
    if (args.has("--nc")) {
        const auto value = args.integer("--nc", &error);
        if (!value || *value < 1) {
            std::cerr << "model-info: --nc must be a positive integer\n";
            return ExitUsage;
        }
        nc = static_cast<int>(*value);
    }
    int imgsz = 640;
    if (args.has("--imgsz")) {
        const auto value = args.integer("--imgsz", &error);
        if (!value || *value < 32 || *value % 32 != 0) {
            std::cerr << "model-info: --imgsz must be a positive multiple of 32\n";
            return ExitUsage;
        }
        imgsz = static_cast<int>(*value);
    }
    useComputeThreads(0); // no threads setting here: all cores

    const std::string file = args.value("--model");
    DetectionModel model{nullptr};
    const bool isWeights = file.size() > 3 && file.compare(file.size() - 3, 3, ".pt") == 0;
    if (isWeights) {
        if (args.has("--scale") || args.has("--nc"))
            std::cerr << "model-info: --scale and --nc are ignored for a weights file\n";
        LoadedModel loaded = loadModel(file);
        if (!loaded.model) {
            std::cerr << loaded.error << "\n";
            return ExitFailure;
        }
        model = loaded.model;
    } else {
        ModelBuild build = buildModel(file, nc, args.value("--scale"));
        std::cerr << formatDiagnostics(build.diagnostics);
        if (!build.model)
            return ExitFailure;
        model = build.model;
    }
    std::cout << formatSummary(summarize(model, imgsz), args.has("--verbose"));
    return ExitOk;
}

Command makeModelInfoCommand() {
    Command c(
        "model-info", runModelInfo, "Show a model's layers, parameters, gradients and GFLOPs",
        "headroom-cli model-info --model FILE [--scale S] [--nc N] [--imgsz S] [--verbose]",
        "FILE is a model YAML (a path, or a shipped name such as yolov8n.yaml, yolov9c.yaml) or "
        "a weights file written by Headroom (.pt). A name like yolov8s.yaml picks scale s of "
        "yolov8.yaml. GFLOPs are counted for one image of SxS pixels.");
    c.options = {{"--model", "FILE", "model YAML or Headroom weights file"},
                 {"--scale", "S", "scale letter of a YAML with scales (n, s, m, l, x)"},
                 {"--nc", "N", "number of classes (default: the YAML's nc)"},
                 {"--imgsz", "S", "image size for GFLOPs and output shapes (default 640)"},
                 {"--verbose", "", "print a per-layer table"}};
    return c;
}

} // namespace
} // namespace hr::cli

HEADROOM_REGISTER_COMMAND(hr::cli::makeModelInfoCommand);
