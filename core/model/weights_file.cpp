// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/weights_file.h"

#include "config/model_name.h"
#include "model/model_io.h"
#include "model/pickle_reader.h"
#include "util/text.h"
#include "util/user_message.h"
#include "util/zip_check.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace hr {

namespace {

using pickle::Value;
using pickle::ValuePtr;

torch::Dtype storageDtype(const std::string& type) {
    static const std::map<std::string, torch::Dtype> types{
        {"torch.HalfStorage", torch::kHalf},     {"torch.FloatStorage", torch::kFloat},
        {"torch.DoubleStorage", torch::kDouble}, {"torch.BFloat16Storage", torch::kBFloat16},
        {"torch.LongStorage", torch::kLong},     {"torch.IntStorage", torch::kInt},
        {"torch.ShortStorage", torch::kShort},   {"torch.CharStorage", torch::kChar},
        {"torch.ByteStorage", torch::kByte},     {"torch.BoolStorage", torch::kBool},
        {"torch.UntypedStorage", torch::kByte}};
    auto it = types.find(type);
    if (it == types.end())
        throw std::runtime_error("a tensor storage of unsupported type " + type);
    return it->second;
}

// The first bytes tell a zip archive (torch.save since PyTorch 1.6) from the legacy format (a
// bare pickle stream that starts with the protocol opcode 0x80) and from anything else.
enum class FileKind { Missing, Zip, LegacyPickle, Other };

FileKind sniff(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return FileKind::Missing;
    char magic[4] = {};
    in.read(magic, 4);
    if (in.gcount() == 4 && std::memcmp(magic, "PK\x03\x04", 4) == 0)
        return FileKind::Zip;
    if (in.gcount() >= 2 && static_cast<unsigned char>(magic[0]) == 0x80 &&
        static_cast<unsigned char>(magic[1]) <= 5)
        return FileKind::LegacyPickle;
    return FileKind::Other;
}

std::string legacyMessage(const std::string& path) {
    const std::string stem = std::filesystem::path(path).stem().string();
    return "it is in PyTorch's legacy (pre-1.6) format, which Headroom does not read. Convert "
           "it once, in a Python that has torch and ultralytics: python3 -c \"import torch; "
           "torch.save(torch.load('" +
           path + "', map_location='cpu'), '" + stem + "-zip.pt')\" and use " + stem + "-zip.pt";
}

// Emits a pickled YAML dict back as YAML text the model builder reads. Strings are written
// plain where YAML would read them back as the same text, so "None", "nc" and module names
// keep the meaning they had in the original file.
void emit(YAML::Emitter& out, const ValuePtr& v) {
    if (!v || v->kind == Value::Kind::None) {
        out << YAML::Null;
        return;
    }
    switch (v->kind) {
    case Value::Kind::Bool:
        out << (v->boolean ? "True" : "False");
        break;
    case Value::Kind::Int:
        out << v->integer;
        break;
    case Value::Kind::Float: {
        // The shortest text that reads back as the same double.
        std::string text;
        for (int digits = 6; digits <= 17; ++digits) {
            std::ostringstream s;
            s.precision(digits);
            s << v->real;
            text = s.str();
            if (std::stod(text) == v->real)
                break;
        }
        if (text.find_first_of(".eE") == std::string::npos)
            text += ".0";
        out << text;
        break;
    }
    case Value::Kind::String:
        out << v->text;
        break;
    case Value::Kind::List:
    case Value::Kind::Tuple: {
        const bool row = std::none_of(v->items.begin(), v->items.end(), [](const ValuePtr& i) {
            return i && (i->kind == Value::Kind::Dict ||
                         (i->kind == Value::Kind::List && !i->items.empty() && i->items[0] &&
                          i->items[0]->kind == Value::Kind::List &&
                          i->items.size() > 3 /* a list of rows */));
        });
        out << (row ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
        for (const auto& item : v->items)
            emit(out, item);
        out << YAML::EndSeq;
        break;
    }
    case Value::Kind::Dict:
        out << YAML::BeginMap;
        for (const auto& [key, value] : v->entries) {
            if (!key)
                continue;
            out << YAML::Key;
            emit(out, key);
            out << YAML::Value;
            emit(out, value);
        }
        out << YAML::EndMap;
        break;
    default:
        out << YAML::Null; // objects inside a model YAML: nothing the builder reads
    }
}

// Rows of backbone/head in block style (one row per line), everything else as it comes.
std::string yamlFromDict(const ValuePtr& dict) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    for (const auto& [key, value] : dict->entries) {
        if (!key || key->kind != Value::Kind::String)
            continue;
        out << YAML::Key << key->text << YAML::Value;
        if ((key->text == "backbone" || key->text == "head") && value &&
            value->kind == Value::Kind::List) {
            out << YAML::BeginSeq;
            for (const auto& row : value->items) {
                out << YAML::Flow;
                emit(out, row);
            }
            out << YAML::EndSeq;
        } else {
            emit(out, value);
        }
    }
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

std::vector<std::string> classNamesOf(const ValuePtr& names) {
    std::vector<std::string> out;
    if (!names)
        return out;
    if (names->kind == Value::Kind::List || names->kind == Value::Kind::Tuple) {
        for (const auto& n : names->items)
            out.push_back(n ? n->str() : std::string());
        return out;
    }
    std::map<std::int64_t, std::string> byIndex;
    for (const auto& [k, v] : names->entries)
        if (k && k->kind == Value::Kind::Int && v)
            byIndex[k->integer] = v->str();
    for (const auto& [index, name] : byIndex) {
        if (index != static_cast<std::int64_t>(out.size()))
            break;
        out.push_back(name);
    }
    return out;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Ultralytics' guess from a YAML file name ("yolov8n.yaml" -> n, "yolov9c.yaml" -> c).
std::string scaleFromYamlName(const std::string& name) {
    const char scale = parseModelName(std::filesystem::path(name).stem().string()).scale;
    return scale != 0 ? std::string(1, scale) : std::string();
}

bool hasTensor(const std::map<std::string, torch::Tensor>& tensors, const std::string& name) {
    return tensors.count(name) != 0;
}

void readUltralytics(const std::string& path, bool withTensors, WeightsFile& result) {
    std::unique_ptr<caffe2::serialize::PyTorchStreamReader> zip;
    try {
        zip = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
    } catch (const std::exception&) {
        throw std::runtime_error("it is a zip file but not a PyTorch archive (no data.pkl)");
    }
    if (!zip->hasRecord("data.pkl"))
        throw std::runtime_error("it is a zip file but not a PyTorch archive (no data.pkl)");
    at::DataPtr pklData;
    size_t pklSize = 0;
    std::tie(pklData, pklSize) = zip->getRecord("data.pkl");

    std::map<std::string, ValuePtr> storages;
    std::error_code sizeError;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);
    auto persistentLoad = [&](const ValuePtr& pid) -> ValuePtr {
        if (!pid || pid->kind != Value::Kind::Tuple || pid->items.size() < 5 ||
            pid->items[0]->str() != "storage")
            throw std::runtime_error("a persistent id that is not a tensor storage");
        const std::string key = pid->items[2]->str();
        auto found = storages.find(key);
        if (found != storages.end())
            return found->second;
        auto storage = std::make_shared<Value>();
        storage->kind = Value::Kind::Storage;
        const torch::Dtype dtype = storageDtype(pid->items[1]->text);
        const std::int64_t numel = pid->items[4]->integer;
        // Stored data cannot exceed the file: check before allocating what the pickle says.
        if (!pid->items[4] || pid->items[4]->kind != Value::Kind::Int || numel < 0 ||
            static_cast<std::uint64_t>(numel) >
                fileBytes / static_cast<std::uint64_t>(c10::elementSize(dtype)))
            throw std::runtime_error("a tensor storage of " + std::to_string(numel) +
                                     " elements, more than the file holds");
        if (withTensors) {
            const std::string record = "data/" + key;
            if (!zip->hasRecord(record))
                throw std::runtime_error("the archive lacks the tensor data " + record);
            at::DataPtr bytes;
            size_t size = 0;
            std::tie(bytes, size) = zip->getRecord(record);
            torch::Tensor t = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
            const size_t need = static_cast<size_t>(numel) * t.element_size();
            if (size < need)
                throw std::runtime_error("tensor data " + record + " is shorter than its size");
            std::memcpy(t.data_ptr(), bytes.get(), need);
            storage->tensor = t;
        } else {
            storage->tensor =
                torch::empty({numel}, torch::TensorOptions().dtype(dtype).device(torch::kMeta));
        }
        storages[key] = storage;
        return storage;
    };
    const ValuePtr root =
        pickle::unpickle(static_cast<const char*>(pklData.get()), pklSize, persistentLoad);
    if (!root || root->kind != Value::Kind::Dict)
        throw std::runtime_error("it holds no checkpoint dict (torch.save of something else)");

    // Ultralytics prefers the EMA weights; release files keep them under 'model'.
    ValuePtr model = root->get("ema");
    if (!model || model->kind != Value::Kind::Object)
        model = root->get("model");
    if (!model || model->isNone())
        throw std::runtime_error("it holds neither 'model' nor 'ema' (not an Ultralytics "
                                 "checkpoint)");
    if (model->kind == Value::Kind::Dict) { // a bare state dict
        for (const auto& [k, v] : model->entries)
            if (k && k->kind == Value::Kind::String && v && v->kind == Value::Kind::Tensor)
                result.tensors.emplace_back(k->text, v->tensor);
    } else {
        result.tensors = pickle::moduleTensors(model);
    }
    if (result.tensors.empty())
        throw std::runtime_error("its model holds no tensors");

    if (ValuePtr yaml = model->get("yaml"); yaml && yaml->kind == Value::Kind::Dict) {
        result.yamlText = yamlFromDict(yaml);
        result.sourceName = yaml->get("yaml_file") ? yaml->get("yaml_file")->str() : "";
        if (ValuePtr scale = yaml->get("scale"))
            result.scale = scale->str();
        if (result.scale.empty() && yaml->get("scales"))
            result.scale = scaleFromYamlName(result.sourceName);
        if (ValuePtr nc = yaml->get("nc"); nc && nc->kind == Value::Kind::Int)
            result.nc = static_cast<int>(nc->integer);
    }
    if (result.sourceName.empty())
        result.sourceName = std::filesystem::path(path).filename().string();
    result.classNames = classNamesOf(model->get("names"));
    if (result.nc <= 0)
        result.nc = static_cast<int>(result.classNames.size());
    if (ValuePtr args = root->get("train_args"))
        if (ValuePtr imgsz = args->get("imgsz"); imgsz && imgsz->kind == Value::Kind::Int)
            result.trainedImgsz = static_cast<int>(imgsz->integer);
    if (ValuePtr version = root->get("version"))
        result.producer = "Ultralytics " + version->str("(unknown version)");
    else
        result.producer = "Ultralytics";

    std::map<std::string, torch::Tensor> byName(result.tensors.begin(), result.tensors.end());
    for (const auto& [name, tensor] : result.tensors)
        if (endsWith(name, ".conv.bias") &&
            !hasTensor(byName, name.substr(0, name.size() - 10) + ".bn.weight"))
            result.fused = true;
    if (withTensors)
        for (auto& [name, tensor] : result.tensors)
            tensor = tensor.is_floating_point() ? tensor.to(torch::kFloat).contiguous().clone()
                                                : tensor.clone();
    else
        result.tensors.clear();
}

} // namespace

WeightsFile readWeightsFile(const std::string& path, bool withTensors) {
    WeightsFile result;
    const auto fail = [&](const std::string& why) {
        result.error = "cannot read weights file " + path + ": " + why;
        return result;
    };
    switch (sniff(path)) {
    case FileKind::Missing:
        return fail(std::filesystem::exists(path) ? "it cannot be opened (permissions?)"
                                                  : "no such file (check the path)");
    case FileKind::LegacyPickle:
        return fail(legacyMessage(path));
    case FileKind::Other:
        // Not "zip archive": userText() reads those words as a damaged checkpoint of a run.
        return fail("it is not a PyTorch checkpoint (torch.save writes a zip file, this is "
                    "something else); give a .pt file "
                    "written by Headroom or Ultralytics");
    case FileKind::Zip:
        break;
    }
    if (std::string damaged; !checkZipArchive(path, &damaged)) {
        // A file that asks to run code is named as such, not as a damaged one.
        const size_t at = damaged.find(" is damaged: ");
        return fail(at == std::string::npos ? damaged
                                            : damaged.substr(at + 13) +
                                                  " (the file is damaged, or is not a checkpoint)");
    }
    std::string headroomError;
    if (readHeadroomHeader(path, result, &headroomError)) {
        result.format = WeightsFormat::Headroom;
        result.producer = "Headroom";
        return result;
    }
    result = WeightsFile{};
    result.format = WeightsFormat::Ultralytics;
    try {
        readUltralytics(path, withTensors, result);
    } catch (const std::exception& e) { // c10::Error too: exceptionText drops its backtrace
        return fail(exceptionText(e));
    }
    if (result.yamlText.empty() && result.nc <= 0)
        result.error.clear(); // weights only: usable with pretrained= on a YAML model
    return result;
}

namespace {

// The file's tensors renamed and, for a fused file, unfolded to the model's unfused layout.
std::map<std::string, torch::Tensor> unfoldedTensors(DetectionModel& model,
                                                     const WeightsFile& file) {
    std::map<std::string, torch::Tensor> source(file.tensors.begin(), file.tensors.end());
    if (!file.fused)
        return source;
    double eps = 1e-3;
    for (const auto& m : model->modules())
        if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.get())) {
            eps = bn->options.eps();
            break;
        }
    std::set<std::string> modelNames;
    for (const auto& p : model->named_parameters())
        modelNames.insert(p.key());
    auto identityBatchNorm = [&](const std::string& prefix, const torch::Tensor& bias) {
        const auto n = bias.size(0);
        source[prefix + ".bn.weight"] = torch::ones({n});
        source[prefix + ".bn.bias"] = bias;
        source[prefix + ".bn.running_mean"] = torch::zeros({n});
        source[prefix + ".bn.running_var"] = torch::full({n}, 1.0 - eps);
        source[prefix + ".bn.num_batches_tracked"] = torch::zeros({}, torch::kLong);
    };
    for (const auto& [name, tensor] : file.tensors) {
        if (!endsWith(name, ".conv.bias"))
            continue;
        const std::string prefix = name.substr(0, name.size() - 10);
        if (source.count(prefix + ".bn.weight"))
            continue;
        const torch::Tensor weight = source[prefix + ".conv.weight"];
        if (modelNames.count(prefix + ".bn.weight")) { // Conv: conv + identity BatchNorm
            identityBatchNorm(prefix, tensor);
            source.erase(name);
        } else if (modelNames.count(prefix + ".conv1.conv.weight")) { // merged RepConv
            source[prefix + ".conv1.conv.weight"] = weight;
            identityBatchNorm(prefix + ".conv1", tensor);
            source[prefix + ".conv2.conv.weight"] =
                torch::zeros({weight.size(0), weight.size(1), 1, 1});
            identityBatchNorm(prefix + ".conv2", torch::zeros_like(tensor));
            source.erase(name);
            source.erase(prefix + ".conv.weight");
        }
    }
    return source;
}

} // namespace

WeightTransfer transferWeights(DetectionModel& model, const WeightsFile& file,
                               const std::string& fileName) {
    WeightTransfer report;
    const auto source = unfoldedTensors(model, file);
    torch::NoGradGuard noGrad;
    auto copyMatching = [&](const std::string& name, torch::Tensor& target) {
        ++report.total;
        auto it = source.find(name);
        if (it == source.end() || it->second.sizes() != target.sizes()) {
            report.skipped.push_back(name);
            return;
        }
        target.copy_(it->second);
        ++report.transferred;
    };
    for (auto& p : model->named_parameters())
        copyMatching(p.key(), p.value());
    for (auto& b : model->named_buffers())
        copyMatching(b.key(), b.value());
    report.summary = "Transferred " + std::to_string(report.transferred) + "/" +
                     std::to_string(report.total) + " items from " +
                     std::filesystem::path(fileName).filename().string();
    report.classNames = file.classNames;
    return report;
}

std::string classNamesPreview(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size() && i < 5; ++i)
        out += (i ? ", " : "") + names[i];
    if (names.size() > 5)
        out += ", ...";
    return out;
}

std::string classNamesMismatch(const std::vector<std::string>& checkpoint,
                               const std::vector<std::string>& data) {
    if (checkpoint.empty() || checkpoint == data)
        return {};
    auto preview = [](const std::vector<std::string>& names) {
        std::string out = classNamesPreview(names);
        if (names.size() > 5)
            out += " (" + std::to_string(names.size()) + " in all)";
        return out;
    };
    return "the weights were trained on other classes (" + preview(checkpoint) +
           ") than the data set's (" + preview(data) + ")";
}

} // namespace hr
