// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX export: the model is traced with LibTorch's tracer (so every block type is covered by
// the code that runs it, not by a second description of it), the traced ATen operations are
// translated one by one into ONNX nodes, and the file is written in protobuf wire format.
#include "deploy/onnx_export.h"

#include "config/weights_source.h"
#include "deploy/opencv_runner.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "util/atomic_file.h"
#include "util/protobuf_writer.h"
#include "util/user_message.h"

#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace hr {

namespace {

namespace jit = torch::jit;

// ONNX enum values used below (onnx.proto).
constexpr int kFloat = 1, kInt64 = 7;
constexpr int kAttrFloat = 1, kAttrInt = 2, kAttrString = 3, kAttrInts = 7;

struct ExportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

ProtobufWriter tensorProto(const std::string& name, const torch::Tensor& value) {
    ProtobufWriter t;
    for (const auto d : value.sizes())
        t.signedVarint(1, d);
    const bool integral = !value.is_floating_point();
    t.varint(2, integral ? kInt64 : kFloat);
    t.bytes(8, name);
    const torch::Tensor data = value.to(integral ? torch::kLong : torch::kFloat).contiguous().cpu();
    t.bytes(9, std::string(static_cast<const char*>(data.data_ptr()),
                           static_cast<size_t>(data.numel()) * data.element_size()));
    return t;
}

ProtobufWriter valueInfo(const std::string& name, const std::vector<std::int64_t>& dims) {
    ProtobufWriter shape;
    for (const auto d : dims) {
        ProtobufWriter dim;
        dim.signedVarint(1, d);
        shape.message(1, dim);
    }
    ProtobufWriter tensorType;
    tensorType.varint(1, kFloat);
    tensorType.message(2, shape);
    ProtobufWriter type;
    type.message(1, tensorType);
    ProtobufWriter info;
    info.bytes(1, name);
    info.message(2, type);
    return info;
}

class Attributes {
public:
    Attributes& i(const std::string& name, std::int64_t v) {
        ProtobufWriter a = start(name, kAttrInt);
        a.signedVarint(3, v);
        m_list.push_back(a);
        return *this;
    }
    Attributes& f(const std::string& name, float v) {
        ProtobufWriter a = start(name, kAttrFloat);
        a.float32(2, v);
        m_list.push_back(a);
        return *this;
    }
    Attributes& s(const std::string& name, const std::string& v) {
        ProtobufWriter a = start(name, kAttrString);
        a.bytes(4, v);
        m_list.push_back(a);
        return *this;
    }
    Attributes& ints(const std::string& name, const std::vector<std::int64_t>& v) {
        ProtobufWriter a = start(name, kAttrInts);
        for (const auto x : v)
            a.signedVarint(8, x);
        m_list.push_back(a);
        return *this;
    }
    const std::vector<ProtobufWriter>& list() const { return m_list; }

private:
    static ProtobufWriter start(const std::string& name, int type) {
        ProtobufWriter a;
        a.bytes(1, name);
        a.varint(20, static_cast<std::uint64_t>(type));
        return a;
    }
    std::vector<ProtobufWriter> m_list;
};

class GraphTranslator {
public:
    GraphTranslator(int opset) : m_opset(opset) {}

    void translate(const jit::Graph& graph) {
        for (const jit::Node* node : graph.nodes())
            translateNode(node);
    }

    std::string nameOf(const jit::Value* v) {
        auto found = m_names.find(v);
        if (found != m_names.end())
            return found->second;
        if (auto constant = jit::toIValue(v); constant && constant->isTensor())
            return m_names[v] = initializer(constant->toTensor());
        return m_names[v] = "v" + std::to_string(m_names.size());
    }

    void setName(const jit::Value* v, const std::string& name) { m_names[v] = name; }
    ProtobufWriter& graph() { return m_graph; }

private:
    std::string initializer(const torch::Tensor& value) {
        const std::string name = "c" + std::to_string(m_initializers++);
        m_graph.message(5, tensorProto(name, value));
        return name;
    }
    std::string int64s(const std::vector<std::int64_t>& values) {
        return initializer(torch::tensor(values, torch::kLong));
    }
    std::string scalar(double value) {
        return initializer(torch::tensor({static_cast<float>(value)}).reshape({}));
    }
    std::string fresh() { return "t" + std::to_string(m_temporaries++); }

    void emit(const std::string& op, const std::vector<std::string>& inputs,
              const std::vector<std::string>& outputs, const Attributes& attributes = {}) {
        ProtobufWriter node;
        for (const auto& in : inputs)
            node.bytes(1, in);
        for (const auto& out : outputs)
            node.bytes(2, out);
        node.bytes(3, op + "_" + std::to_string(m_nodes++));
        node.bytes(4, op);
        for (const auto& a : attributes.list())
            node.message(5, a);
        m_graph.message(1, node);
    }

    static c10::IValue constant(const jit::Value* v, const char* what) {
        auto value = jit::toIValue(v);
        if (!value)
            throw ExportError(std::string("the ") + what + " of an operation is not constant");
        return *value;
    }
    static std::int64_t constInt(const jit::Value* v, const char* what) {
        const c10::IValue value = constant(v, what);
        if (value.isNone())
            return std::numeric_limits<std::int64_t>::max();
        return value.toInt();
    }
    static std::vector<std::int64_t> constInts(const jit::Value* v, const char* what) {
        if (v->node()->kind() == c10::prim::ListConstruct) {
            std::vector<std::int64_t> out;
            for (const jit::Value* item : v->node()->inputs())
                out.push_back(constInt(item, what));
            return out;
        }
        return constant(v, what).toIntVector();
    }
    static std::vector<std::int64_t> sizesOf(const jit::Value* v) {
        auto type = v->type()->cast<c10::TensorType>();
        auto sizes = type ? type->sizes().concrete_sizes() : c10::nullopt;
        if (!sizes)
            throw ExportError("a traced value has no known shape");
        return *sizes;
    }
    static std::int64_t axis(std::int64_t dim, const jit::Value* v) {
        return dim < 0 ? dim + static_cast<std::int64_t>(sizesOf(v).size()) : dim;
    }

    // A Tensor or Scalar operand: scalars become constant initializers.
    std::string operand(const jit::Value* v) {
        if (v->type()->cast<c10::TensorType>())
            return nameOf(v);
        return scalar(constant(v, "scalar operand").toScalar().toDouble());
    }

    void split(const jit::Node* node, const std::vector<std::int64_t>& sizes, std::int64_t dim) {
        std::vector<std::string> outputs;
        const jit::Value* list = node->output();
        const jit::Node* unpack = nullptr;
        for (const jit::Use& use : list->uses())
            if (use.user->kind() == c10::prim::ListUnpack)
                unpack = use.user;
        if (!unpack)
            throw ExportError("a split whose parts are not unpacked");
        for (const jit::Value* out : unpack->outputs())
            outputs.push_back(nameOf(out));
        if (m_opset >= 13)
            emit("Split", {nameOf(node->input(0)), int64s(sizes)}, outputs,
                 Attributes().i("axis", dim));
        else
            emit("Split", {nameOf(node->input(0))}, outputs,
                 Attributes().i("axis", dim).ints("split", sizes));
    }

    void translateNode(const jit::Node* node) {
        const auto kind = node->kind();
        const std::string op = kind.toQualString();
        if (kind == c10::prim::Constant || kind == c10::prim::ListConstruct ||
            kind == c10::prim::ListUnpack)
            return; // read where they are used
        auto in = [&](size_t i) { return nameOf(node->input(i)); };
        auto out = [&]() { return nameOf(node->output()); };
        if (op == "aten::_convolution" || op == "aten::conv2d") {
            const bool full = op == "aten::_convolution";
            const auto stride = constInts(node->input(3), "stride");
            auto padding = constInts(node->input(4), "padding");
            const auto dilation = constInts(node->input(5), "dilation");
            const std::int64_t groups = constInt(node->input(full ? 8 : 6), "groups");
            if (full && constant(node->input(6), "transposed").toBool())
                throw ExportError("transposed convolutions");
            const auto weight = sizesOf(node->input(1));
            std::vector<std::string> inputs{in(0), in(1)};
            if (const auto bias = jit::toIValue(node->input(2)); !bias || !bias->isNone())
                inputs.push_back(in(2));
            padding.insert(padding.end(), padding.begin(), padding.end());
            emit("Conv", inputs, {out()},
                 Attributes()
                     .ints("kernel_shape", {weight[2], weight[3]})
                     .ints("strides", stride)
                     .ints("pads", padding)
                     .ints("dilations", dilation)
                     .i("group", groups));
        } else if (op == "aten::silu") {
            const std::string s = fresh();
            emit("Sigmoid", {in(0)}, {s});
            emit("Mul", {in(0), s}, {out()});
        } else if (op == "aten::sigmoid") {
            emit("Sigmoid", {in(0)}, {out()});
        } else if (op == "aten::add" || op == "aten::sub") {
            if (node->inputs().size() > 2 &&
                constant(node->input(2), "alpha").toScalar().toDouble() != 1.0)
                throw ExportError(op + " with alpha other than 1");
            emit(op == "aten::add" ? "Add" : "Sub",
                 {operand(node->input(0)), operand(node->input(1))}, {out()});
        } else if (op == "aten::mul" || op == "aten::div") {
            emit(op == "aten::mul" ? "Mul" : "Div",
                 {operand(node->input(0)), operand(node->input(1))}, {out()});
        } else if (op == "aten::cat") {
            const jit::Node* list = node->input(0)->node();
            if (list->kind() != c10::prim::ListConstruct)
                throw ExportError("a concatenation of a non-literal list");
            std::vector<std::string> inputs;
            for (const jit::Value* v : list->inputs())
                inputs.push_back(nameOf(v));
            emit("Concat", inputs, {out()},
                 Attributes().i("axis", axis(constInt(node->input(1), "dim"), node->output())));
        } else if (op == "aten::split" || op == "aten::split_with_sizes" || op == "aten::chunk") {
            const jit::Value* x = node->input(0);
            const std::int64_t dim = axis(constInt(node->input(2), "dim"), x);
            const std::int64_t total = sizesOf(x)[static_cast<size_t>(dim)];
            std::vector<std::int64_t> sizes;
            if (op == "aten::split_with_sizes") {
                sizes = constInts(node->input(1), "split sizes");
            } else {
                const std::int64_t n = constInt(node->input(1), "split size");
                const std::int64_t each = op == "aten::chunk" ? (total + n - 1) / n : n;
                for (std::int64_t done = 0; done < total; done += each)
                    sizes.push_back(std::min(each, total - done));
            }
            split(node, sizes, dim);
        } else if (op == "aten::slice" || op == "aten::narrow") {
            const jit::Value* x = node->input(0);
            const std::int64_t dim = axis(constInt(node->input(1), "dim"), x);
            const std::int64_t size = sizesOf(x)[static_cast<size_t>(dim)];
            std::int64_t start = constInt(node->input(2), "start"), end = 0, step = 1;
            if (op == "aten::narrow") {
                end = start + constInt(node->input(3), "length");
            } else {
                end = std::min(constInt(node->input(3), "end"), size);
                step = constInt(node->input(4), "step");
            }
            emit("Slice", {in(0), int64s({start}), int64s({end}), int64s({dim}), int64s({step})},
                 {out()});
        } else if (op == "aten::view" || op == "aten::reshape" || op == "aten::flatten") {
            emit("Reshape", {in(0), int64s(sizesOf(node->output()))}, {out()});
        } else if (op == "aten::unsqueeze") {
            emit("Reshape", {in(0), int64s(sizesOf(node->output()))}, {out()});
        } else if (op == "aten::transpose" || op == "aten::permute") {
            const auto rank = static_cast<std::int64_t>(sizesOf(node->input(0)).size());
            std::vector<std::int64_t> perm(static_cast<size_t>(rank));
            for (std::int64_t i = 0; i < rank; ++i)
                perm[static_cast<size_t>(i)] = i;
            if (op == "aten::transpose") {
                std::swap(perm[static_cast<size_t>(
                              axis(constInt(node->input(1), "dim"), node->input(0)))],
                          perm[static_cast<size_t>(
                              axis(constInt(node->input(2), "dim"), node->input(0)))]);
            } else {
                perm = constInts(node->input(1), "permutation");
                for (auto& p : perm)
                    p = p < 0 ? p + rank : p;
            }
            emit("Transpose", {in(0)}, {out()}, Attributes().ints("perm", perm));
        } else if (op == "aten::softmax") {
            // Before opset 13 Softmax flattens from `axis` on; move the axis last so every
            // opset (and OpenCV) computes the same thing.
            const jit::Value* x = node->input(0);
            const auto rank = static_cast<std::int64_t>(sizesOf(x).size());
            const std::int64_t dim = axis(constInt(node->input(1), "dim"), x);
            std::vector<std::int64_t> perm;
            for (std::int64_t i = 0; i < rank; ++i)
                perm.push_back(i);
            std::swap(perm[static_cast<size_t>(dim)], perm.back());
            const std::string moved = fresh(), soft = fresh();
            emit("Transpose", {in(0)}, {moved}, Attributes().ints("perm", perm));
            emit("Softmax", {moved}, {soft}, Attributes().i("axis", rank - 1));
            emit("Transpose", {soft}, {out()}, Attributes().ints("perm", perm));
        } else if (op == "aten::max_pool2d" || op == "aten::avg_pool2d") {
            const auto kernel = constInts(node->input(1), "kernel");
            auto stride = constInts(node->input(2), "stride");
            if (stride.empty())
                stride = kernel;
            auto padding = constInts(node->input(3), "padding");
            if (padding.size() == 1)
                padding.push_back(padding[0]);
            padding.insert(padding.end(), padding.begin(), padding.end());
            Attributes a;
            a.ints("kernel_shape", kernel).ints("strides", stride).ints("pads", padding);
            if (op == "aten::max_pool2d") {
                if (constant(node->input(5), "ceil_mode").toBool())
                    throw ExportError("max pooling with ceil_mode");
                emit("MaxPool", {in(0)}, {out()}, a);
            } else {
                if (constant(node->input(4), "ceil_mode").toBool())
                    throw ExportError("average pooling with ceil_mode");
                a.i("count_include_pad", constant(node->input(5), "count_include_pad").toBool());
                emit("AveragePool", {in(0)}, {out()}, a);
            }
        } else if (op == "aten::upsample_nearest2d") {
            const auto from = sizesOf(node->input(0)), to = sizesOf(node->output());
            const std::string scales =
                initializer(torch::tensor({1.0f, 1.0f, static_cast<float>(to[2]) / from[2],
                                           static_cast<float>(to[3]) / from[3]}));
            const std::string roi = initializer(torch::zeros({0}));
            emit("Resize", {in(0), roi, scales}, {out()},
                 Attributes()
                     .s("mode", "nearest")
                     .s("coordinate_transformation_mode", "asymmetric")
                     .s("nearest_mode", "floor"));
        } else if (op == "aten::contiguous" || op == "aten::clone" || op == "aten::detach" ||
                   op == "aten::to" || op == "aten::type_as" || op == "aten::alias" ||
                   op == "aten::dropout") {
            m_names[node->output()] = in(0);
        } else {
            throw ExportError("the operation " + op);
        }
    }

    int m_opset;
    ProtobufWriter m_graph;
    std::map<const jit::Value*, std::string> m_names;
    int m_initializers = 0, m_temporaries = 0, m_nodes = 0;
};

// A separate model with the same weights, Conv+BatchNorm folded: the traced graph then holds
// no BatchNorm, and the caller's model (maybe in training) is not touched.
DetectionModel foldedCopy(const DetectionModel& model) {
    ModelBuild build =
        buildModelFromText(model->yamlText(), model->sourceName(), model->nc(), model->scale());
    if (!build.model)
        throw ExportError("the model's YAML does not rebuild: " +
                          formatDiagnostics(build.diagnostics));
    DetectionModel copy = build.model;
    if (model->isFused())
        copy->fuse();
    torch::NoGradGuard noGrad;
    auto params = model->named_parameters();
    for (auto& p : copy->named_parameters())
        p.value().copy_(params[p.key()].to(torch::kCPU, torch::kFloat));
    auto buffers = model->named_buffers();
    for (auto& b : copy->named_buffers())
        b.value().copy_(buffers[b.key()].to(torch::kCPU));
    copy->fuse();
    copy->eval();
    return copy;
}

} // namespace

bool exportOnnx(const DetectionModel& model, const std::vector<std::string>& classNames,
                const std::string& path, const OnnxExportOptions& options, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error)
            *error = "cannot export " + path + ": " + why;
        return false;
    };
    if (options.opset < 11 || options.opset > 17)
        return fail("opset " + std::to_string(options.opset) + " is not supported (use 11 to 17)");
    const std::int64_t largestStride = model->strides().empty() ? 32 : model->strides().back();
    if (options.imgsz <= 0 || options.imgsz % largestStride != 0)
        return fail("imgsz " + std::to_string(options.imgsz) + " is not a multiple of " +
                    std::to_string(largestStride));
    std::string bytes;
    try {
        DetectionModel copy = foldedCopy(model);
        torch::NoGradGuard noGrad;
        const torch::Tensor example = torch::zeros({1, 3, options.imgsz, options.imgsz});
        auto traced = [&](jit::Stack inputs) -> jit::Stack {
            const torch::Tensor y = copy->predict(inputs.at(0).toTensor());
            // Ultralytics' export gives centre x, y, width, height; decode() gives corners.
            const torch::Tensor lo = y.slice(1, 0, 2), hi = y.slice(1, 2, 4);
            return {torch::cat({(lo + hi) / 2, hi - lo, y.slice(1, 4)}, 1)};
        };
        auto [state, outputs] = jit::tracer::trace(
            {example}, traced, [](const torch::autograd::Variable&) { return std::string(); },
            /*strict=*/false);
        std::shared_ptr<jit::Graph> graph = state->graph;
        jit::Inline(*graph);
        jit::ConstantPropagation(graph);
        jit::EliminateDeadCode(graph);

        GraphTranslator translator(options.opset);
        translator.setName(graph->inputs().at(0), "images"); // Ultralytics' input name
        translator.translate(*graph);
        const torch::Tensor result = outputs.at(0).toTensor();
        ProtobufWriter& g = translator.graph();
        g.bytes(2, "headroom");
        g.message(11, valueInfo(translator.nameOf(graph->inputs().at(0)),
                                {1, 3, options.imgsz, options.imgsz}));
        // The graph output keeps Ultralytics' name: tools look for "output0".
        const std::string last = translator.nameOf(graph->outputs().at(0));
        ProtobufWriter rename;
        rename.bytes(1, last);
        rename.bytes(2, "output0");
        rename.bytes(3, "output_identity");
        rename.bytes(4, "Identity");
        g.message(1, rename);
        g.message(12, valueInfo("output0", result.sizes().vec()));

        ProtobufWriter modelProto;
        modelProto.varint(1, options.opset <= 14 ? 7 : 8); // ir_version
        modelProto.bytes(2, "headroom");
        modelProto.bytes(3, "1");
        modelProto.message(7, g);
        ProtobufWriter opset;
        opset.bytes(1, "");
        opset.varint(2, static_cast<std::uint64_t>(options.opset));
        modelProto.message(8, opset);
        // Ultralytics' metadata keys, so its readers find the class names and stride.
        std::ostringstream names;
        names << "{";
        for (size_t i = 0; i < classNames.size(); ++i)
            names << (i ? ", " : "") << i << ": '" << classNames[i] << "'";
        names << "}";
        const std::pair<std::string, std::string> metadata[] = {
            {"description", "Headroom " + model->architectureName()},
            {"task", "detect"},
            {"stride", std::to_string(largestStride)},
            {"imgsz",
             "[" + std::to_string(options.imgsz) + ", " + std::to_string(options.imgsz) + "]"},
            {"names", names.str()}};
        for (const auto& [key, value] : metadata) {
            ProtobufWriter entry;
            entry.bytes(1, key);
            entry.bytes(2, value);
            modelProto.message(14, entry);
        }
        bytes = modelProto.data();
    } catch (const ExportError& e) {
        return fail(std::string("the ONNX writer does not handle ") + e.what());
    } catch (const std::exception& e) { // c10::Error too: userMessage drops its backtrace
        return fail(userMessage(e));
    }
    std::string writeError;
    if (!writeFileAtomically(path, bytes, &writeError))
        return fail(writeError);
    return true;
}

ExportResult exportWeightsFile(const std::string& weights, const std::string& out, int imgsz,
                               int opset) {
    ExportResult result;
    result.path =
        out.empty() ? std::filesystem::path(weights).replace_extension(".onnx").string() : out;
    LoadedModel loaded = loadModel(weights);
    if (!loaded.model) {
        result.message = loaded.error;
        return result;
    }
    OnnxExportOptions options;
    options.opset = opset;
    options.imgsz = imgsz > 0 ? imgsz : trainedImageSize(loaded.trainingConfigYaml);
    if (options.imgsz <= 0)
        options.imgsz = 640;
    if (!exportOnnx(loaded.model, loaded.classNames, result.path, options, &result.message))
        return result;
    // Read it back with an independent ONNX reader before calling it done.
    OpenCvRunner runner;
    std::string error;
    if (!runner.load(result.path, &error)) {
        result.message = "wrote " + result.path + " but " + error;
        return result;
    }
    double difference = 0;
    std::vector<std::int64_t> shape;
    try {
        torch::NoGradGuard noGrad;
        loaded.model->eval();
        const torch::Tensor probe = torch::rand({1, 3, options.imgsz, options.imgsz});
        const torch::Tensor want = loaded.model->predict(probe);
        difference = (runner.predict(probe) - want).abs().max().item<double>();
        shape = want.sizes().vec();
    } catch (const std::exception& e) {
        result.message = "wrote " + result.path + " but " + e.what();
        return result;
    }
    std::ostringstream message;
    message << "wrote " << result.path << " (" << std::filesystem::file_size(result.path) / 1024
            << " KiB): input images [1, 3, " << options.imgsz << ", " << options.imgsz
            << "], output output0 [1, " << shape.at(1) << ", " << shape.at(2) << "], opset "
            << options.opset << "; OpenCV DNN runs it, largest difference to LibTorch "
            << difference;
    if (difference > 1e-3) {
        result.message = message.str() + ", more than the 1e-3 allowed: do not deploy it";
        return result;
    }
    result.message = message.str();
    result.ok = true;
    return result;
}

} // namespace hr
