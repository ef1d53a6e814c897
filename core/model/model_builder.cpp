// SPDX-License-Identifier: GPL-3.0-or-later
// Ultralytics-format model YAML -> DetectionModel: the file's sections, scales and rows; each
// row's module comes from model_rows. Follows Ultralytics' parse_model, so the same file gives
// the same network.
#include "model/model_builder.h"

#include "config/model_name.h"
#include "config/train_config_check.h"
#include "config/weights_source.h"
#include "config/yaml_read.h"
#include "model/detection_model.h"
#include "model/model_rows.h"
#include "model/weights_file.h"
#include "util/user_message.h"

#include "util/atomic_file.h"
#include "util/resources.h"
#include "util/text.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace hr {

namespace {

using namespace model_rows;

Diagnostic error(const std::string& file, int line, const std::string& key,
                 const std::string& message, const std::string& fix = {}) {
    return makeDiagnostic(Diagnostic::Severity::Error, file, line, key, message, fix);
}

int lineOf(const YAML::Node& node) {
    return node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

// Ultralytics' guess_model_scale: the letter after "yolov8"/"yolo11" in a file name.
std::string scaleFromName(const std::string& stem) {
    const char scale = parseModelName(stem).scale;
    return scale != 0 ? std::string(1, scale) : std::string();
}

} // namespace

namespace {

// `file` names the YAML in diagnostics; `displayName` is what the model calls itself.
// A scale guessed from a file name is dropped silently when the file has no scales.
ModelBuild buildFromText(const std::string& yamlText, const std::string& file,
                         const std::string& displayName, int nc, const std::string& scale,
                         bool scaleExplicit) {
    ModelBuild result;
    Diagnostics& diags = result.diagnostics;
    YAML::Node root;
    if (const std::string why = yaml::tooLarge(yamlText); !why.empty()) {
        diags.push_back(error(file, 0, "", why));
        return result;
    }
    try {
        root = YAML::Load(yamlText);
    } catch (const YAML::Exception& e) {
        diags.push_back(
            error(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "not valid YAML: " + e.msg));
        return result;
    }
    if (!root.IsMap()) {
        diags.push_back(error(file, 0, "", "a model YAML must be a mapping with backbone/head",
                              "start from resources/models/yolov8.yaml"));
        return result;
    }

    // Classes.
    int classes = nc;
    if (classes <= 0) {
        const YAML::Node n = root["nc"];
        try {
            classes = n ? n.as<int>() : 0;
        } catch (const YAML::Exception&) {
            classes = 0;
        }
        if (classes <= 0) {
            diags.push_back(error(file, n ? lineOf(n) : 0, "nc",
                                  "no valid class count: the YAML needs 'nc: N' (N >= 1)",
                                  "add nc or pass the data set's class count"));
            return result;
        }
    }

    // Scaling.
    Scaling scaling;
    std::string chosenScale = scale;
    try {
        if (root["depth_multiple"])
            scaling.depth = root["depth_multiple"].as<double>();
        if (root["width_multiple"])
            scaling.width = root["width_multiple"].as<double>();
    } catch (const YAML::Exception& e) {
        diags.push_back(error(file, e.mark.line + 1, "depth_multiple",
                              "depth_multiple/width_multiple must be numbers"));
        return result;
    }
    const YAML::Node scales = root["scales"];
    if (scales && scales.IsMap() && scales.size() > 0) {
        std::vector<std::string> names;
        for (const auto& kv : scales)
            names.push_back(kv.first.as<std::string>());
        if (chosenScale.empty()) {
            chosenScale = names.front();
            Diagnostic w = error(file, lineOf(scales), "scales",
                                 "no scale chosen; using the first one, '" + chosenScale + "'",
                                 "pass a scale (e.g. --scale n) or use a name like yolov8n.yaml");
            w.severity = Diagnostic::Severity::Warning;
            diags.push_back(w);
        }
        const YAML::Node row = scales[chosenScale];
        if (!row) {
            std::string list;
            for (const auto& n : names)
                list += (list.empty() ? "" : ", ") + n;
            diags.push_back(error(file, lineOf(scales), "scales",
                                  "scale '" + chosenScale + "' is not defined",
                                  "choose one of: " + list));
            return result;
        }
        try {
            if (!row.IsSequence() || row.size() != 3)
                throw YAML::Exception(row.Mark(), "expected [depth, width, max_channels]");
            scaling.depth = row[0].as<double>();
            scaling.width = row[1].as<double>();
            scaling.maxChannels = row[2].as<double>();
        } catch (const YAML::Exception&) {
            diags.push_back(error(file, lineOf(row), "scales." + chosenScale,
                                  "a scale must be [depth, width, max_channels] numbers"));
            return result;
        }
    } else if (!chosenScale.empty() && !scaleExplicit) {
        chosenScale.clear();
    } else if (!chosenScale.empty()) {
        Diagnostic w = error(file, 0, "scales",
                             "scale '" + chosenScale + "' ignored: the file defines no scales");
        w.severity = Diagnostic::Severity::Warning;
        diags.push_back(w);
        chosenScale.clear();
    }

    // Rows.
    struct RowRef {
        YAML::Node node;
        std::string key;
    };
    std::vector<RowRef> rows;
    int backboneLength = 0;
    for (const char* section : {"backbone", "head"}) {
        const YAML::Node list = root[section];
        if (!list) {
            if (std::string(section) == "backbone") {
                diags.push_back(error(file, 0, section, "the model YAML has no 'backbone:' list"));
                return result;
            }
            continue;
        }
        if (!list.IsSequence()) {
            diags.push_back(error(file, lineOf(list), section,
                                  std::string("'") + section + "' must be a list of rows"));
            return result;
        }
        for (size_t i = 0; i < list.size(); ++i)
            rows.push_back({list[i], std::string(section) + "[" + std::to_string(i) + "]"});
        if (std::string(section) == "backbone")
            backboneLength = static_cast<int>(list.size());
    }
    if (rows.empty()) {
        diags.push_back(error(file, 0, "backbone", "the model has no rows"));
        return result;
    }

    Network net;
    if (root["ch"] || root["channels"]) {
        try {
            net.inputChannels = (root["ch"] ? root["ch"] : root["channels"]).as<int>();
        } catch (const YAML::Exception&) {
            net.inputChannels = 0;
        }
        if (net.inputChannels <= 0) {
            diags.push_back(error(file, 0, "ch", "input channels must be a positive integer"));
            return result;
        }
    }
    net.parts.resize(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        const YAML::Node& node = rows[i].node;
        LayerSpec spec;
        spec.index = static_cast<int>(i);
        spec.line = lineOf(node);
        const std::string where = "layer " + std::to_string(i) + ": ";
        try {
            if (!node.IsSequence() || node.size() != 4)
                throw RowError("a row must be [from, repeats, module, args]");
            // from
            const YAML::Node from = node[0];
            std::vector<YAML::Node> froms;
            if (from.IsSequence()) {
                for (const auto& f : from)
                    froms.push_back(f);
            } else {
                froms.push_back(from);
            }
            if (froms.empty())
                throw RowError("'from' lists no input");
            for (const auto& f : froms) {
                int v = 0;
                try {
                    v = f.as<int>();
                } catch (const YAML::Exception&) {
                    throw RowError("'from' must be a layer index or a list of them, got '" +
                                   (f.IsScalar() ? f.Scalar() : std::string("a list")) + "'");
                }
                const int absolute = v < 0 ? static_cast<int>(i) + v : v;
                const bool image = i == 0 && v == -1;
                if (!image && (absolute < 0 || absolute >= static_cast<int>(i)))
                    throw RowError("'from' " + std::to_string(v) +
                                   " does not name an earlier layer");
                spec.from.push_back(v);
                spec.inputs.push_back(image ? -1 : absolute);
            }
            // repeats
            int repeats = 0;
            try {
                repeats = node[1].as<int>();
            } catch (const YAML::Exception&) {
                throw RowError("repeats must be an integer");
            }
            if (repeats < 1)
                throw RowError("repeats must be at least 1, got " + std::to_string(repeats));
            if (repeats > 1) // Ultralytics: max(round(n * depth), 1); round() ties to even
                repeats = std::max(static_cast<int>(std::nearbyint(repeats * scaling.depth)), 1);
            spec.repeats = repeats;
            // module
            if (!node[2].IsScalar())
                throw RowError("the module must be a name such as Conv");
            spec.module = node[2].Scalar();
            // args
            const YAML::Node argsNode = node[3];
            std::vector<Arg> argList;
            if (argsNode.IsSequence()) {
                for (const auto& a : argsNode)
                    argList.push_back(parseArg(a, classes));
            } else if (!argsNode.IsNull()) {
                throw RowError("args must be a list, e.g. [64, 3, 2]");
            }
            if (spec.repeats != 1 && isKnownModule(spec.module) && !isRepeatable(spec.module))
                throw RowError(spec.module + " cannot be repeated (repeats must be 1)");
            auto module = buildRow(spec, Args(spec.module, std::move(argList)), spec.repeats,
                                   classes, scaling, net, i + 1 == rows.size());
            net.channels.push_back(spec.outChannels);
            net.specs.push_back(spec);
            net.layers.push_back(module);
        } catch (const RowError& e) {
            diags.push_back(error(file, spec.line, rows[i].key, where + userMessage(e),
                                  "see resources/models/yolov8.yaml for the row format"));
            return result;
        } catch (const c10::Error& e) {
            diags.push_back(error(file, spec.line, rows[i].key,
                                  where + "cannot build it: " + e.what_without_backtrace()));
            return result;
        }
    }
    if (net.specs.back().module != "Detect") {
        diags.push_back(error(file, net.specs.back().line, rows.back().key,
                              "the last row must be Detect (this builder makes detectors)"));
        return result;
    }
    result.model = DetectionModel(std::move(net.specs), std::move(net.layers), backboneLength,
                                  yamlText, displayName, chosenScale);
    return result;
}

} // namespace

ModelBuild buildModelFromText(const std::string& yamlText, const std::string& sourceName, int nc,
                              const std::string& scale) {
    return buildFromText(yamlText, sourceName, sourceName, nc, scale, !scale.empty());
}

ModelBuild buildModel(const std::string& yamlPathOrName, int nc, const std::string& scale) {
    namespace fs = std::filesystem;
    if (isWeightsFileName(yamlPathOrName)) { // the architecture a weights file was made for
        const WeightsFile file = readWeightsFile(yamlPathOrName, /*withTensors=*/false);
        ModelBuild result;
        if (!file.ok() || file.yamlText.empty()) {
            result.diagnostics.push_back(
                file.ok()
                    ? error(yamlPathOrName, 0, "model", "the weights file holds no model YAML",
                            "give a model YAML as model= and the weights as weights=")
                    : error(yamlPathOrName, 0, "model", file.error));
            return result;
        }
        ModelBuild built = buildFromText(file.yamlText, yamlPathOrName, file.sourceName,
                                         nc > 0 ? nc : file.nc, scale.empty() ? file.scale : scale,
                                         !scale.empty() || !file.scale.empty());
        // The YAML is the file's writer's (WongKinYiu/yolov9's DDetect, say), not one to edit:
        // the way in is a model Headroom builds, taking the tensors that match.
        for (Diagnostic& d : built.diagnostics)
            if (d.severity == Diagnostic::Severity::Error)
                d.fix = "the file's own model does not build here; give a model Headroom builds "
                        "as model= (e.g. yolov9t.yaml) and this file as pretrained=, which "
                        "transfers the tensors that match by name and shape";
        return built;
    }
    const ModelFileLookup found = lookUpModelFile(yamlPathOrName);
    const std::string& path = found.path;
    std::string chosenScale = scale;
    bool scaleExplicit = !scale.empty();
    if (found.scale && chosenScale.empty()) { // "yolov8s.yaml" -> scale s of "yolov8.yaml"
        chosenScale = std::string(1, found.scale);
        scaleExplicit = true; // the name asked for it: an unknown scale is an error
    }
    if (path.empty()) {
        ModelBuild result;
        result.diagnostics.push_back(settings_check::problemDiagnostic(
            settings_check::modelNotFound(yamlPathOrName), yamlPathOrName, 0, "model"));
        return result;
    }
    std::string text, readError;
    if (!readFile(path, text, &readError)) {
        ModelBuild result;
        result.diagnostics.push_back(error(path, 0, "model", "cannot read: " + readError));
        return result;
    }
    if (chosenScale.empty())
        chosenScale = scaleFromName(fs::path(path).stem().string());
    return buildFromText(text, path, fs::path(path).filename().string(), nc, chosenScale,
                         scaleExplicit);
}

int backboneRows(const std::string& yamlPathOrName) {
    std::string path = findModelFile(yamlPathOrName);
    if (path.empty()) {
        const std::string unscaled = unscaledModelFile(yamlPathOrName);
        if (!unscaled.empty())
            path = findModelFile(unscaled);
    }
    if (path.empty())
        return 0;
    try {
        const YAML::Node backbone = YAML::LoadFile(path)["backbone"];
        return backbone && backbone.IsSequence() ? static_cast<int>(backbone.size()) : 0;
    } catch (const YAML::Exception&) {
        return 0;
    }
}

} // namespace hr
