// SPDX-License-Identifier: GPL-3.0-or-later
// The scaling rules (width, depth, max_channels) and each module's argument layout follow
// Ultralytics' parse_model, so the same row gives the same module.
#include "model/model_rows.h"

#include "model/blocks.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace hr::model_rows {

namespace {

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
/// One row being built: what the builder for its module needs.
struct Row {
    LayerSpec& spec;
    const Args& args;
    int repeats;
    int nc;
    const Scaling& scaling;
    Network& net;
    bool isLast;
    const std::string& m;
    int64_t c1;
    double inStride;

    int64_t scaledChannels(size_t i) const {
        const long long c = args.positive(i, "output channels");
        if (c == nc)
            return static_cast<int64_t>(c);
        return makeDivisible(std::min(static_cast<double>(c), scaling.maxChannels) * scaling.width,
                             8);
    }
    void single() const {
        if (spec.inputs.size() != 1)
            throw RowError(m + " takes one input, the row has " +
                           std::to_string(spec.inputs.size()));
    }
    // Modules without their own repeat count are stacked n times, like nn.Sequential.
    std::shared_ptr<torch::nn::Module>
    repeated(const std::function<std::shared_ptr<SingleInputBlock>()>& make, int64_t c2) const {
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
    }
    double repeatFactor(double s) const {
        double total = 1.0;
        for (int i = 0; i < repeats; ++i)
            total *= s;
        return total;
    }

    // Conv, RepConv
    std::shared_ptr<torch::nn::Module> conv() {
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
    // C2f
    std::shared_ptr<torch::nn::Module> c2f() {
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
    // Bottleneck
    std::shared_ptr<torch::nn::Module> bottleneck() {
        single();
        args.atMost(3);
        const int64_t c2 = scaledChannels(0);
        const bool shortcut = args.boolean(1, "shortcut", true);
        const int64_t g = args.positive(2, "groups", 1);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2), boolText(shortcut)});
        return repeated([=] { return std::make_shared<BottleneckImpl>(c1, c2, shortcut, g); }, c2);
    }
    // SPPF
    std::shared_ptr<torch::nn::Module> sppf() {
        single();
        args.atMost(2);
        const int64_t c2 = scaledChannels(0);
        const int64_t k = args.positive(1, "pool kernel", 5);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2), std::to_string(k)});
        return repeated([=] { return std::make_shared<SPPFImpl>(c1, c2, k); }, c2);
    }
    // RepNCSPELAN4, ELAN1
    std::shared_ptr<torch::nn::Module> elan() {
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
    // AConv, ADown
    std::shared_ptr<torch::nn::Module> downsample() {
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
    // SPPELAN
    std::shared_ptr<torch::nn::Module> sppelan() {
        single();
        args.atMost(3);
        const int64_t c2 = scaledChannels(0);
        const int64_t c3 = args.positive(1, "hidden channels");
        const int64_t k = args.positive(2, "pool kernel", 5);
        spec.outChannels = static_cast<int>(c2);
        spec.args = joinArgs({std::to_string(c1), std::to_string(c2), std::to_string(c3)});
        return repeated([=] { return std::make_shared<SPPELANImpl>(c1, c2, c3, k); }, c2);
    }
    // Concat
    std::shared_ptr<torch::nn::Module> concat() {
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
    // nn.Upsample
    std::shared_ptr<torch::nn::Module> upsample() {
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
    // Silence, nn.Identity
    std::shared_ptr<torch::nn::Module> identity() {
        single();
        spec.outChannels = static_cast<int>(c1);
        spec.args = "[]";
        return std::make_shared<IdentityImpl>();
    }
    // CBLinear
    std::shared_ptr<torch::nn::Module> cbLinear() {
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
    // CBFuse
    std::shared_ptr<torch::nn::Module> cbFuse() {
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
    // Detect
    std::shared_ptr<torch::nn::Module> detect() {
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
};

using RowBuilder = std::shared_ptr<torch::nn::Module> (Row::*)();

struct ModuleKind {
    RowBuilder build;
    bool repeatable;
};

/// Every module the builder knows, by the name a model YAML uses.
const std::map<std::string, ModuleKind>& moduleKinds() {
    static const std::map<std::string, ModuleKind> kinds{
        {"Conv", {&Row::conv, true}},         {"RepConv", {&Row::conv, true}},
        {"C2f", {&Row::c2f, true}},           {"Bottleneck", {&Row::bottleneck, true}},
        {"SPPF", {&Row::sppf, true}},         {"RepNCSPELAN4", {&Row::elan, true}},
        {"ELAN1", {&Row::elan, true}},        {"AConv", {&Row::downsample, true}},
        {"ADown", {&Row::downsample, true}},  {"SPPELAN", {&Row::sppelan, true}},
        {"Concat", {&Row::concat, false}},    {"nn.Upsample", {&Row::upsample, false}},
        {"Silence", {&Row::identity, false}}, {"nn.Identity", {&Row::identity, false}},
        {"CBLinear", {&Row::cbLinear, true}}, {"CBFuse", {&Row::cbFuse, false}},
        {"Detect", {&Row::detect, false}},
    };
    return kinds;
}

} // namespace

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
std::shared_ptr<torch::nn::Module> buildRow(LayerSpec& spec, const Args& args, int repeats, int nc,
                                            const Scaling& scaling, Network& net, bool isLast) {
    const std::string& m = spec.module;
    const auto kind = moduleKinds().find(m);
    if (kind == moduleKinds().end()) {
        std::vector<std::string> known;
        for (const auto& entry : moduleKinds())
            known.push_back(entry.first);
        std::string message = "unknown module '" + m + "'";
        const std::string near = nearestMatch(m, known);
        if (!near.empty())
            message += " (did you mean '" + near + "'?)";
        throw RowError(message);
    }
    const double inStride = net.strideOf(spec.inputs.front());
    spec.stride = inStride;
    Row row{
        spec,    args, repeats, nc, scaling, net, isLast, m, net.channelsOf(spec.inputs.front()),
        inStride};
    return (row.*(kind->second.build))();
}

bool isKnownModule(const std::string& module) {
    return moduleKinds().count(module) != 0;
}

bool isRepeatable(const std::string& module) {
    const auto kind = moduleKinds().find(module);
    return kind != moduleKinds().end() && kind->second.repeatable;
}

} // namespace hr::model_rows
