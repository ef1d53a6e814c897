// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/model_io.h"
#include "model/model_builder.h"
#include "util/user_message.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace hr {

namespace {

constexpr const char* kSection = "detection_model";
constexpr int64_t kFormatVersion = 1;

void setError(std::string* error, const std::string& message) {
    if (error)
        *error = message;
}

// Metadata of a stored model.
struct StoredHeader {
    std::string yaml, source, scale, architectureKey;
    int64_t nc = 0;
    bool fused = false;
    std::vector<std::string> classNames;
};

std::string readString(torch::serialize::InputArchive& archive, const char* key) {
    c10::IValue value;
    if (!archive.try_read(key, value) || !value.isString())
        throw std::runtime_error(std::string("missing entry '") + key + "'");
    return value.toStringRef();
}

StoredHeader readHeader(torch::serialize::InputArchive& section) {
    StoredHeader h;
    c10::IValue version;
    if (!section.try_read("format", version) || !version.isInt())
        throw std::runtime_error("missing format version");
    if (version.toInt() > kFormatVersion)
        throw std::runtime_error("written by a newer Headroom (format " +
                                 std::to_string(version.toInt()) + ")");
    h.yaml = readString(section, "yaml");
    h.source = readString(section, "source");
    h.scale = readString(section, "scale");
    h.architectureKey = readString(section, "architecture");
    c10::IValue nc, fused, names;
    if (!section.try_read("nc", nc) || !nc.isInt())
        throw std::runtime_error("missing entry 'nc'");
    h.nc = nc.toInt();
    if (section.try_read("fused", fused) && fused.isBool())
        h.fused = fused.toBool();
    if (section.try_read("class_names", names) && names.isList())
        for (const auto& n : names.toListRef())
            h.classNames.push_back(n.toStringRef());
    return h;
}

// True when the stored model is the target's architecture built for another class count.
bool differsOnlyInClassCount(const StoredHeader& h, DetectionModel& model) {
    if (h.nc == model->nc())
        return false;
    ModelBuild rebuilt = buildModelFromText(h.yaml, h.source, model->nc(), h.scale);
    if (!rebuilt.model)
        return false;
    if (h.fused)
        rebuilt.model->fuse();
    return rebuilt.model->architectureKey() == model->architectureKey();
}

std::string describe(const StoredHeader& h) {
    std::ostringstream out;
    out << (h.source.empty() ? "model" : h.source);
    if (!h.scale.empty())
        out << " scale " << h.scale;
    out << ", nc " << h.nc;
    if (h.fused)
        out << ", fused";
    return out.str();
}

// Reads parameters and buffers the way Module::save nests them, checking every shape, so a
// mismatch is an error instead of a silently resized tensor.
void readTensors(torch::serialize::InputArchive& archive, torch::nn::Module& module,
                 const std::string& prefix) {
    torch::NoGradGuard noGrad;
    auto readOne = [&](const std::string& name, torch::Tensor& target, bool isBuffer) {
        torch::Tensor stored;
        if (!archive.try_read(name, stored, isBuffer))
            throw std::runtime_error("the file has no tensor '" + prefix + name + "'");
        if (stored.sizes() != target.sizes()) {
            std::ostringstream msg;
            msg << "tensor '" << prefix << name << "' has shape " << stored.sizes()
                << " in the file but " << target.sizes() << " in the model";
            throw std::runtime_error(msg.str());
        }
        target.copy_(stored);
    };
    for (auto& p : module.named_parameters(/*recurse=*/false))
        readOne(p.key(), p.value(), false);
    for (auto& b : module.named_buffers(/*recurse=*/false))
        readOne(b.key(), b.value(), true);
    for (const auto& child : module.named_children()) {
        torch::serialize::InputArchive sub;
        if (!archive.try_read(child.key(), sub))
            throw std::runtime_error("the file has no module '" + prefix + child.key() + "'");
        readTensors(sub, *child.value(), prefix + child.key() + ".");
    }
}

} // namespace

void writeModel(torch::serialize::OutputArchive& archive, DetectionModel& model,
                const std::vector<std::string>& classNames) {
    torch::serialize::OutputArchive section(archive.compilation_unit());
    section.write("format", c10::IValue(kFormatVersion));
    section.write("yaml", c10::IValue(model->yamlText()));
    section.write("source", c10::IValue(model->sourceName()));
    section.write("scale", c10::IValue(model->scale()));
    section.write("architecture", c10::IValue(model->architectureKey()));
    section.write("nc", c10::IValue(static_cast<int64_t>(model->nc())));
    section.write("fused", c10::IValue(model->isFused()));
    c10::List<std::string> names;
    for (const auto& n : classNames)
        names.push_back(n);
    section.write("class_names", c10::IValue(names));
    torch::serialize::OutputArchive weights(archive.compilation_unit());
    model->save(weights);
    section.write("weights", weights);
    archive.write(kSection, section);
}

LoadedModel readModel(torch::serialize::InputArchive& archive) {
    LoadedModel result;
    try {
        torch::serialize::InputArchive section;
        if (!archive.try_read(kSection, section))
            throw std::runtime_error("it holds no Headroom model");
        StoredHeader h = readHeader(section);
        ModelBuild build = buildModelFromText(h.yaml, h.source, static_cast<int>(h.nc), h.scale);
        if (!build.model)
            throw std::runtime_error("its stored model YAML does not build: " +
                                     formatDiagnostics(build.diagnostics));
        if (h.fused)
            build.model->fuse();
        torch::serialize::InputArchive weights;
        if (!section.try_read("weights", weights))
            throw std::runtime_error("it holds no weights");
        readTensors(weights, *build.model, "");
        result.model = build.model;
        result.classNames = std::move(h.classNames);
    } catch (const std::exception& e) {
        result.model = nullptr;
        result.error = userMessage(e);
    }
    return result;
}

bool saveModel(const std::string& path, DetectionModel& model,
               const std::vector<std::string>& classNames, std::string* error) {
    namespace fs = std::filesystem;
    const std::string temporary = path + ".partial";
    try {
        torch::serialize::OutputArchive archive;
        writeModel(archive, model, classNames);
        archive.save_to(temporary);
        fs::rename(temporary, path);
    } catch (const std::exception& e) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        setError(error, "cannot write model file " + path + ": " + userMessage(e, path));
        return false;
    }
    return true;
}

bool readHeadroomHeader(const std::string& path, WeightsFile& out, std::string* error) {
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(path);
        torch::serialize::InputArchive section;
        if (!archive.try_read(kSection, section))
            throw std::runtime_error("it holds no Headroom model");
        const StoredHeader h = readHeader(section);
        out.yamlText = h.yaml;
        out.sourceName = h.source;
        out.scale = h.scale;
        out.nc = static_cast<int>(h.nc);
        out.fused = h.fused;
        out.classNames = h.classNames;
    } catch (const std::exception& e) {
        setError(error, e.what());
        return false;
    }
    return true;
}

namespace {

// An Ultralytics checkpoint as a model of its own architecture and class count.
LoadedModel loadUltralytics(const std::string& path) {
    LoadedModel result;
    const WeightsFile file = readWeightsFile(path, /*withTensors=*/true);
    if (!file.ok()) {
        result.error = file.error;
        return result;
    }
    if (file.yamlText.empty()) {
        result.error = "cannot load model file " + path +
                       ": it holds weights but no model YAML; give the YAML as model= and this "
                       "file as weights=";
        return result;
    }
    ModelBuild build = buildModelFromText(file.yamlText, file.sourceName, file.nc, file.scale);
    if (!build.model) {
        result.error =
            "cannot load model file " + path + " (" + file.producer +
            "): its model YAML does not build here: " + formatDiagnostics(build.diagnostics);
        return result;
    }
    const WeightTransfer transfer = transferWeights(build.model, file, path);
    if (transfer.transferred != transfer.total) {
        result.error = "cannot load model file " + path + ": " + transfer.summary +
                       "; first missing: " + transfer.skipped.front();
        return result;
    }
    result.model = build.model;
    result.classNames = file.classNames;
    if (file.trainedImgsz > 0) // the one training setting its readers need
        result.trainingConfigYaml = "imgsz: " + std::to_string(file.trainedImgsz) + "\n";
    return result;
}

} // namespace

LoadedModel loadModel(const std::string& path) {
    LoadedModel result;
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path);
    } catch (const std::exception&) {
        return loadUltralytics(path);
    }
    result = readModel(archive);
    if (!result.error.empty()) {
        result.error = "cannot load model file " + path + ": " + result.error;
        return result;
    }
    c10::IValue config;
    if (archive.try_read("config_yaml", config) && config.isString())
        result.trainingConfigYaml = config.toStringRef();
    return result;
}

bool loadWeightsInto(DetectionModel& model, const std::string& path, std::string* error,
                     WeightTransfer* transfer) {
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path);
    } catch (const std::exception&) {
        const WeightsFile file = readWeightsFile(path, /*withTensors=*/true);
        if (!file.ok()) {
            setError(error, file.error);
            return false;
        }
        WeightTransfer report = transferWeights(model, file, path);
        if (report.transferred == 0) {
            setError(error, "weights file " + path + " (" + file.producer +
                                ") shares no tensor of matching name and shape with " +
                                model->architectureName() +
                                " (start from a file made for this model family)");
            return false;
        }
        if (transfer)
            *transfer = std::move(report);
        return true;
    }
    try {
        torch::serialize::InputArchive section;
        if (!archive.try_read(kSection, section))
            throw std::runtime_error("it holds no Headroom model");
        const StoredHeader h = readHeader(section);
        if (h.architectureKey != model->architectureKey() && !differsOnlyInClassCount(h, model)) {
            setError(error, "weights file " + path + " was made for " + describe(h) +
                                " but the model is " + model->architectureName() +
                                ": the architectures differ (start from a file made for this "
                                "model, or build the model the file names)");
            return false;
        }
        // Read into a model of the file's own class count first, so a failure half-way leaves
        // the model untouched; then transfer by name and shape, which with another nc leaves
        // the head's class layers as initialised (Ultralytics' rule, as for its files).
        LoadedModel staged = readModel(archive);
        if (!staged.model)
            throw std::runtime_error(staged.error);
        WeightsFile file;
        file.format = WeightsFormat::Headroom;
        file.classNames = staged.classNames;
        for (const auto& p : staged.model->named_parameters())
            file.tensors.emplace_back(p.key(), p.value());
        for (const auto& b : staged.model->named_buffers())
            file.tensors.emplace_back(b.key(), b.value());
        WeightTransfer report = transferWeights(model, file, path);
        if (transfer)
            *transfer = std::move(report);
    } catch (const std::exception& e) {
        setError(error, "cannot load weights from " + path + ": " + userMessage(e, path));
        return false;
    }
    return true;
}

} // namespace hr
