// SPDX-License-Identifier: GPL-3.0-or-later
// Ultralytics-format model YAML -> DetectionModel. The scaling rules (width, depth,
// max_channels) and each module's argument layout follow Ultralytics' parse_model, so the same
// file gives the same network.
#include "config/weights_source.h"
#include "model/blocks.h"
#include "model/detection_model.h"
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
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace hr {

namespace {

const std::vector<std::string>& knownModules() {
    static const std::vector<std::string> names{
        "Conv",    "Bottleneck", "C2f",          "SPPF",    "Concat",     "nn.Upsample",
        "Detect",  "RepConv",    "RepNCSPELAN4", "ELAN1",   "AConv",      "ADown",
        "SPPELAN", "CBLinear",   "CBFuse",       "Silence", "nn.Identity"};
    return names;
}

// A problem with one row; caught in the row loop and turned into a Diagnostic.
struct RowError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One evaluated YAML argument (Ultralytics evaluates strings such as "nc" and "None").
struct Arg {
    enum class Kind { None, Bool, Int, Float, String, List } kind = Kind::None;
    bool boolean = false;
    long long integer = 0;
    double real = 0.0;
    std::string text;
    std::vector<Arg> list;

    std::string str() const {
        switch (kind) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return boolean ? "True" : "False";
        case Kind::Int:
            return std::to_string(integer);
        case Kind::Float: {
            std::ostringstream out;
            out << real;
            return out.str();
        }
        case Kind::String:
            return "'" + text + "'";
        case Kind::List: {
            std::string out = "[";
            for (size_t i = 0; i < list.size(); ++i)
                out += (i ? ", " : "") + list[i].str();
            return out + "]";
        }
        }
        return {};
    }
};

Arg parseArg(const YAML::Node& node, int nc) {
    Arg arg;
    if (node.IsSequence()) {
        arg.kind = Arg::Kind::List;
        for (const auto& item : node)
            arg.list.push_back(parseArg(item, nc));
        return arg;
    }
    if (node.IsNull()) {
        arg.kind = Arg::Kind::None;
        return arg;
    }
    if (!node.IsScalar())
        throw RowError("arguments must be numbers, names or lists, not mappings");
    const std::string s = node.Scalar();
    if (node.Tag() == "!") { // quoted: always a string
        arg.kind = Arg::Kind::String;
        arg.text = s;
        return arg;
    }
    if (s == "None" || s == "null" || s == "~") {
        arg.kind = Arg::Kind::None;
    } else if (s == "True" || s == "true" || s == "False" || s == "false") {
        arg.kind = Arg::Kind::Bool;
        arg.boolean = s[0] == 'T' || s[0] == 't';
    } else if (s == "nc") {
        arg.kind = Arg::Kind::Int;
        arg.integer = nc;
    } else {
        size_t used = 0;
        try {
            arg.integer = std::stoll(s, &used);
            if (used == s.size()) {
                arg.kind = Arg::Kind::Int;
                return arg;
            }
            arg.real = std::stod(s, &used);
            if (used == s.size()) {
                arg.kind = Arg::Kind::Float;
                return arg;
            }
        } catch (const std::exception&) {
        }
        arg.kind = Arg::Kind::String;
        arg.text = s;
    }
    return arg;
}

// Typed access to a row's argument list with errors that say which argument is wrong.
class Args {
public:
    Args(std::string module, std::vector<Arg> args)
        : m_module(std::move(module)), m_args(std::move(args)) {}
    size_t size() const { return m_args.size(); }
    bool has(size_t i) const { return i < m_args.size() && m_args[i].kind != Arg::Kind::None; }
    const Arg& at(size_t i) const { return m_args.at(i); }

    long long integer(size_t i, const char* what) const {
        if (i >= m_args.size())
            fail(i, what, "is missing");
        if (m_args[i].kind != Arg::Kind::Int)
            fail(i, what, "must be an integer, got " + m_args[i].str());
        return m_args[i].integer;
    }
    long long integer(size_t i, const char* what, long long fallback) const {
        return has(i) ? integer(i, what) : fallback;
    }
    long long positive(size_t i, const char* what) const {
        const long long v = integer(i, what);
        if (v <= 0)
            fail(i, what, "must be positive, got " + std::to_string(v));
        return v;
    }
    long long positive(size_t i, const char* what, long long fallback) const {
        return has(i) ? positive(i, what) : fallback;
    }
    double real(size_t i, const char* what, double fallback) const {
        if (!has(i))
            return fallback;
        if (m_args[i].kind == Arg::Kind::Int)
            return static_cast<double>(m_args[i].integer);
        if (m_args[i].kind != Arg::Kind::Float)
            fail(i, what, "must be a number, got " + m_args[i].str());
        return m_args[i].real;
    }
    bool boolean(size_t i, const char* what, bool fallback) const {
        if (!has(i))
            return fallback;
        if (m_args[i].kind != Arg::Kind::Bool)
            fail(i, what, "must be True or False, got " + m_args[i].str());
        return m_args[i].boolean;
    }
    std::vector<long long> intList(size_t i, const char* what) const {
        if (i >= m_args.size() || m_args[i].kind != Arg::Kind::List || m_args[i].list.empty())
            fail(i, what, "must be a non-empty list of integers");
        std::vector<long long> out;
        for (const auto& a : m_args[i].list) {
            if (a.kind != Arg::Kind::Int)
                fail(i, what, "must list integers, got " + a.str());
            out.push_back(a.integer);
        }
        return out;
    }
    void atMost(size_t n) const {
        if (m_args.size() > n)
            throw RowError(m_module + " takes at most " + std::to_string(n) + " arguments, got " +
                           std::to_string(m_args.size()));
    }
    [[noreturn]] void fail(size_t i, const char* what, const std::string& problem) const {
        throw RowError(m_module + " argument " + std::to_string(i + 1) + " (" + what + ") " +
                       problem);
    }

private:
    std::string m_module;
    std::vector<Arg> m_args;
};

std::string joinArgs(const std::vector<std::string>& parts) {
    std::string out = "[";
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? ", " : "") + parts[i];
    return out + "]";
}

std::string boolText(bool b) {
    return b ? "True" : "False";
}

int64_t makeDivisible(double x, int64_t divisor) {
    return static_cast<int64_t>(std::ceil(x / static_cast<double>(divisor))) * divisor;
}

struct Scaling {
    double depth = 1.0, width = 1.0;
    double maxChannels = std::numeric_limits<double>::infinity();
};

// Everything known about the rows built so far.
struct Network {
    std::vector<LayerSpec> specs;
    std::vector<std::shared_ptr<torch::nn::Module>> layers;
    std::vector<int64_t> channels;           ///< output channels per row
    std::vector<std::vector<int64_t>> parts; ///< CBLinear output parts per row
    int64_t inputChannels = 3;

    int64_t channelsOf(int index) const { return index < 0 ? inputChannels : channels[index]; }
    double strideOf(int index) const { return index < 0 ? 1.0 : specs[index].stride; }
};

// Builds the module of one row; fills spec.args/outChannels/stride/repeats.
std::shared_ptr<torch::nn::Module> buildRow(LayerSpec& spec, const Args& args, int repeats, int nc,
                                            const Scaling& scaling, Network& net, bool isLast) {
    const std::string& m = spec.module;
    const int64_t c1 = net.channelsOf(spec.inputs.front());
    const double inStride = net.strideOf(spec.inputs.front());
    spec.stride = inStride;
    auto scaledChannels = [&](size_t i) {
        const long long c = args.positive(i, "output channels");
        if (c == nc)
            return static_cast<int64_t>(c);
        return makeDivisible(std::min(static_cast<double>(c), scaling.maxChannels) * scaling.width,
                             8);
    };
    auto single = [&]() {
        if (spec.inputs.size() != 1)
            throw RowError(m + " takes one input, the row has " +
                           std::to_string(spec.inputs.size()));
    };
    // Modules without their own repeat count are stacked n times, like nn.Sequential.
    auto repeated = [&](const std::function<std::shared_ptr<SingleInputBlock>()>& make,
                        int64_t c2) -> std::shared_ptr<torch::nn::Module> {
        if (repeats == 1)
            return make();
        if (c1 != c2)
            throw RowError("repeating " + m + " " + std::to_string(repeats) +
                           " times needs equal input and output channels (" + std::to_string(c1) +
                           " vs " + std::to_string(c2) + ")");
        std::vector<std::shared_ptr<SingleInputBlock>> blocks;
        for (int i = 0; i < repeats; ++i)
            blocks.push_back(make());
        return std::make_shared<RepeatImpl>(std::move(blocks));
    };
    auto repeatFactor = [&](double s) {
        double total = 1.0;
        for (int i = 0; i < repeats; ++i)
            total *= s;
        return total;
    };

    if (m == "Conv" || m == "RepConv") {
        single();
        args.atMost(m == "Conv" ? 7 : 5);
        const int64_t c2 = scaledChannels(0);
        const int64_t k = args.positive(1, "kernel", m == "Conv" ? 1 : 3);
        const int64_t s = args.positive(2, "stride", 1);
        const int64_t p = args.integer(3, "padding", m == "Conv" ? -1 : 1);
        const int64_t g = args.positive(4, "groups", 1);
        if (c1 % g || c2 % g)
            throw RowError(m + " groups " + std::to_string(g) + " must divide " +
                           std::to_string(c1) + " and " + std::to_string(c2));
        spec.outChannels = static_cast<int>(c2);
        spec.stride = inStride * repeatFactor(static_cast<double>(s));
        if (m == "Conv") {
            const int64_t d = args.positive(5, "dilation", 1);
            const bool act = args.boolean(6, "activation", true);
            spec.args = joinArgs(
                {std::to_string(c1), std::to_string(c2), std::to_string(k), std::to_string(s)});
            return repeated([=] { return std::make_shared<ConvImpl>(c1, c2, k, s, p, g, d, act); },
                            c2);
        }
        if (k != 3 || p != 1)
            throw RowError("RepConv supports kernel 3 with padding 1");
        spec.args = joinArgs(
            {std::to_string(c1), std::to_string(c2), std::to_string(k), std::to_string(s)});
        return repeated([=] { return std::make_shared<RepConvImpl>(c1, c2, k, s, p, g); }, c2);
    }
    if (m == "C2f") {
        single();
        args.atMost(4);
        const int64_t c2 = scaledChannels(0);
        const bool shortcut = args.boolean(1, "shortcut", false);
        const int64_t g = args.positive(2, "groups", 1);
        const double e = args.real(3, "expansion", 0.5);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs(
            {std::to_string(c1), std::to_string(c2), std::to_string(repeats), boolText(shortcut)});
        return std::make_shared<C2fImpl>(c1, c2, repeats, shortcut, g, e);
    }
    if (m == "Bottleneck") {
        single();
        args.atMost(3);
        const int64_t c2 = scaledChannels(0);
        const bool shortcut = args.boolean(1, "shortcut", true);
        const int64_t g = args.positive(2, "groups", 1);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2), boolText(shortcut)});
        return repeated([=] { return std::make_shared<BottleneckImpl>(c1, c2, shortcut, g); }, c2);
    }
    if (m == "SPPF") {
        single();
        args.atMost(2);
        const int64_t c2 = scaledChannels(0);
        const int64_t k = args.positive(1, "pool kernel", 5);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2), std::to_string(k)});
        return repeated([=] { return std::make_shared<SPPFImpl>(c1, c2, k); }, c2);
    }
    if (m == "RepNCSPELAN4" || m == "ELAN1") {
        single();
        const bool elan1 = m == "ELAN1";
        args.atMost(elan1 ? 3 : 4);
        const int64_t c2 = scaledChannels(0);
        const int64_t c3 = args.positive(1, "hidden channels");
        const int64_t c4 = args.positive(2, "branch channels");
        const int64_t n = elan1 ? 1 : args.positive(3, "repeats", 1);
        if (c3 % 2)
            throw RowError(m + " hidden channels must be even, got " + std::to_string(c3));
        spec.outChannels = static_cast<int>(c2);
        std::vector<std::string> text{std::to_string(c1), std::to_string(c2), std::to_string(c3),
                                      std::to_string(c4)};
        if (!elan1)
            text.push_back(std::to_string(n));
        spec.args = joinArgs(text);
        return repeated(
            [=] { return std::make_shared<RepNCSPELAN4Impl>(c1, c2, c3, c4, n, elan1); }, c2);
    }
    if (m == "AConv" || m == "ADown") {
        single();
        args.atMost(1);
        const int64_t c2 = scaledChannels(0);
        if (m == "ADown" && (c1 % 2 || c2 % 2))
            throw RowError("ADown needs even input and output channels, got " + std::to_string(c1) +
                           " and " + std::to_string(c2));
        spec.outChannels = static_cast<int>(c2);
        spec.stride = inStride * repeatFactor(2.0);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2)});
        if (m == "AConv")
            return repeated([=] { return std::make_shared<AConvImpl>(c1, c2); }, c2);
        return repeated([=] { return std::make_shared<ADownImpl>(c1, c2); }, c2);
    }
    if (m == "SPPELAN") {
        single();
        args.atMost(3);
        const int64_t c2 = scaledChannels(0);
        const int64_t c3 = args.positive(1, "hidden channels");
        const int64_t k = args.positive(2, "pool kernel", 5);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2), std::to_string(c3)});
        return repeated([=] { return std::make_shared<SPPELANImpl>(c1, c2, c3, k); }, c2);
    }
    if (m == "Concat") {
        args.atMost(1);
        const long long dim = args.integer(0, "dimension", 1);
        if (dim != 1)
            throw RowError("Concat supports dimension 1 (channels) only, got " +
                           std::to_string(dim));
        int64_t c2 = 0;
        for (int from : spec.inputs) {
            c2 += net.channelsOf(from);
            if (net.strideOf(from) != inStride)
                throw RowError("Concat inputs have different strides (layer " +
                               std::to_string(spec.inputs.front()) + " vs layer " +
                               std::to_string(from) + ")");
        }
        spec.outChannels = static_cast<int>(c2);
        spec.args = "[1]";
        return std::make_shared<ConcatImpl>();
    }
    if (m == "nn.Upsample") {
        single();
        args.atMost(3);
        if (args.has(0))
            throw RowError("nn.Upsample supports a scale factor, not a fixed size (use None)");
        const double factor = args.real(1, "scale factor", 2.0);
        if (factor <= 0 || factor != std::floor(factor))
            throw RowError("nn.Upsample scale factor must be a positive integer");
        if (args.size() > 2 &&
            (args.at(2).kind != Arg::Kind::String || args.at(2).text != "nearest"))
            throw RowError("nn.Upsample supports mode 'nearest' only, got " + args.at(2).str());
        spec.outChannels = static_cast<int>(c1);
        spec.stride = inStride / factor;
        spec.args = "[None, " + std::to_string(static_cast<int>(factor)) + ", 'nearest']";
        return std::make_shared<UpsampleImpl>(factor);
    }
    if (m == "Silence" || m == "nn.Identity") {
        single();
        spec.outChannels = static_cast<int>(c1);
        spec.args = "[]";
        return std::make_shared<IdentityImpl>();
    }
    if (m == "CBLinear") {
        single();
        args.atMost(5);
        std::vector<int64_t> parts;
        for (long long c : args.intList(0, "output channel parts")) {
            if (c <= 0)
                throw RowError("CBLinear channel parts must be positive");
            parts.push_back(c);
        }
        const int64_t k = args.positive(1, "kernel", 1);
        const int64_t s = args.positive(2, "stride", 1);
        const int64_t p = args.integer(3, "padding", -1);
        const int64_t g = args.positive(4, "groups", 1);
        int64_t total = 0;
        std::vector<std::string> partText;
        for (int64_t c : parts) {
            total += c;
            partText.push_back(std::to_string(c));
        }
        spec.outChannels = static_cast<int>(total);
        spec.stride = inStride * s;
        spec.args = joinArgs({std::to_string(c1), joinArgs(partText)});
        net.parts[spec.index] = parts;
        if (repeats != 1)
            throw RowError("CBLinear cannot be repeated");
        return std::make_shared<CBLinearImpl>(c1, parts, k, s, p, g);
    }
    if (m == "CBFuse") {
        args.atMost(1);
        const std::vector<long long> idx = args.intList(0, "part indices");
        if (idx.size() + 1 != spec.inputs.size())
            throw RowError("CBFuse lists " + std::to_string(idx.size()) + " part indices for " +
                           std::to_string(spec.inputs.size() - 1) +
                           " CBLinear inputs (every input but the last needs one)");
        std::vector<std::pair<int64_t, int64_t>> slices;
        const int target = spec.inputs.back();
        const int64_t c2 = net.channelsOf(target);
        std::vector<std::string> idxText;
        for (size_t i = 0; i < idx.size(); ++i) {
            const int from = spec.inputs[i];
            if (from < 0 || net.parts[from].empty())
                throw RowError("CBFuse input " + std::to_string(from) + " is not a CBLinear row");
            const auto& parts = net.parts[from];
            if (idx[i] < 0 || idx[i] >= static_cast<long long>(parts.size()))
                throw RowError("CBFuse part index " + std::to_string(idx[i]) + " is out of range" +
                               " for layer " + std::to_string(from) + " (it has " +
                               std::to_string(parts.size()) + " parts)");
            int64_t offset = 0;
            for (long long j = 0; j < idx[i]; ++j)
                offset += parts[j];
            if (parts[idx[i]] != c2)
                throw RowError("CBFuse part " + std::to_string(idx[i]) + " of layer " +
                               std::to_string(from) + " has " + std::to_string(parts[idx[i]]) +
                               " channels but layer " + std::to_string(target) + " has " +
                               std::to_string(c2));
            slices.emplace_back(offset, parts[idx[i]]);
            idxText.push_back(std::to_string(idx[i]));
        }
        spec.outChannels = static_cast<int>(c2);
        spec.stride = net.strideOf(target);
        spec.args = joinArgs({joinArgs(idxText)});
        return std::make_shared<CBFuseImpl>(std::move(slices));
    }
    if (m == "Detect") {
        if (!isLast)
            throw RowError("Detect must be the last row of the head");
        args.atMost(1);
        const long long classes = args.positive(0, "number of classes", nc);
        std::vector<int64_t> channels;
        std::vector<int64_t> strides;
        std::vector<std::string> chText;
        for (int from : spec.inputs) {
            channels.push_back(net.channelsOf(from));
            chText.push_back(std::to_string(net.channelsOf(from)));
            const double s = net.strideOf(from);
            if (s < 1.0 || s != std::floor(s))
                throw RowError("Detect input layer " + std::to_string(from) +
                               " has a fractional stride");
            strides.push_back(static_cast<int64_t>(s));
        }
        auto detect = std::make_shared<DetectImpl>(classes, channels, 16);
        detect->setStrides(strides);
        detect->initBiases();
        spec.outChannels = static_cast<int>(4 * 16 + classes);
        spec.args = joinArgs({std::to_string(classes), joinArgs(chText)});
        return detect;
    }
    std::string message = "unknown module '" + m + "'";
    const std::string near = nearestMatch(m, knownModules());
    if (!near.empty())
        message += " (did you mean '" + near + "'?)";
    throw RowError(message);
}

Diagnostic error(const std::string& file, int line, const std::string& key,
                 const std::string& message, const std::string& fix = {}) {
    Diagnostic d;
    d.severity = Diagnostic::Severity::Error;
    d.file = file;
    d.line = line;
    d.key = key;
    d.message = message;
    d.fix = fix;
    return d;
}

int lineOf(const YAML::Node& node) {
    return node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

// Ultralytics' guess_model_scale: the letter after "yolov8"/"yolo11" in a file name.
std::string scaleFromName(const std::string& stem) {
    static const std::regex re(R"(yolo(?:e-)?v?\d+([nslmx]))");
    std::smatch m;
    if (std::regex_search(stem, m, re))
        return m[1];
    return {};
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
            static const std::set<std::string> repeatable{
                "Conv",  "RepConv", "C2f",   "Bottleneck",   "SPPF",    "AConv",
                "ADown", "SPPELAN", "ELAN1", "RepNCSPELAN4", "CBLinear"};
            if (spec.repeats != 1 && repeatable.count(spec.module) == 0 &&
                std::find(knownModules().begin(), knownModules().end(), spec.module) !=
                    knownModules().end())
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
    std::string path = findModelFile(yamlPathOrName);
    std::string chosenScale = scale;
    bool scaleExplicit = !scale.empty();
    if (path.empty()) {
        // "yolov8s.yaml" -> scale s of "yolov8.yaml"
        static const std::regex re(R"(^(.*\d)([nslmx])(\.ya?ml)?$)");
        std::smatch m;
        if (std::regex_match(yamlPathOrName, m, re)) {
            path = findModelFile(m[1].str() + (m[3].matched ? m[3].str() : ".yaml"));
            if (!path.empty() && chosenScale.empty()) {
                chosenScale = m[2];
                scaleExplicit = true; // the name asked for it: an unknown scale is an error
            }
        }
    }
    if (path.empty()) {
        ModelBuild result;
        result.diagnostics.push_back(
            error(yamlPathOrName, 0, "model", "model file not found",
                  "give a path or a shipped name such as yolov8n.yaml or yolov9c.yaml"));
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

} // namespace hr
