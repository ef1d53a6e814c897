// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One row of an Ultralytics model YAML ([from, repeats, module, args]) turned into a module:
// the arguments as Ultralytics evaluates them, and a builder per module name. Internal to the
// model builder (model_builder.cpp).

#include "model/detection_model.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hr::model_rows {

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
/// Evaluates one argument as Ultralytics does ("nc" is the class count, None/True/False,
/// numbers, anything else a string). Throws RowError for a mapping.
Arg parseArg(const YAML::Node& node, int nc);

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
/// Builds the module of one row; fills spec.args/outChannels/stride. Throws RowError for an
/// unknown module (naming the nearest known one) or arguments it cannot take.
std::shared_ptr<torch::nn::Module> buildRow(LayerSpec& spec, const Args& args, int repeats, int nc,
                                            const Scaling& scaling, Network& net, bool isLast);

/// Whether `module` names a module the builder knows.
bool isKnownModule(const std::string& module);

/// Whether a row of `module` may have repeats > 1 (stacked, or its own repeat count).
bool isRepeatable(const std::string& module);

} // namespace hr::model_rows
