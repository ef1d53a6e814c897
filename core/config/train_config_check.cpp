// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/train_config_check.h"

#include "config/model_name.h"
#include "config/settings_table.h"
#include "config/weights_source.h"
#include "config/yaml_read.h"
#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace hr {

namespace settings_check {

namespace {

using Severity = Diagnostic::Severity;

Problem coded(Problem p, const char* code, std::vector<std::string> args) {
    p.code = code;
    p.args = std::move(args);
    return p;
}

std::string nearestMultiplesOf32(int value) {
    const int below = std::max(32, value / 32 * 32);
    const int above = std::max(32, (value + 31) / 32 * 32);
    if (below == above)
        return std::to_string(below);
    return std::to_string(below) + " or " + std::to_string(above);
}

// The row's bound against its value; numbers as the messages write them.
std::optional<Problem> checkBound(const TrainConfig& c, const SettingRow& row) {
    double value = 0;
    std::string got;
    const std::string* text = nullptr;
    if (const auto* m = std::get_if<int TrainConfig::*>(&row.member)) {
        value = c.**m;
        got = std::to_string(c.**m);
    } else if (const auto* d = std::get_if<double TrainConfig::*>(&row.member)) {
        value = c.**d;
        got = yaml::formatNumber(c.**d);
    } else if (const auto* s = std::get_if<std::string TrainConfig::*>(&row.member)) {
        text = &(c.**s);
    }
    const std::string lo = boundText(row.lo);
    const std::string hi = boundText(row.hi);
    const std::string what = row.what;
    switch (row.bound) {
    case SettingBound::None:
    case SettingBound::Custom:
        return std::nullopt;
    case SettingBound::AtLeast:
        if (value >= row.lo)
            return std::nullopt;
        return coded({what + " must be at least " + lo + ", got " + got, row.fix}, "at_least",
                     {lo, got});
    case SettingBound::NotNegative:
        if (value >= 0)
            return std::nullopt;
        return coded({what + " cannot be negative, got " + got, row.fix}, "not_negative", {got});
    case SettingBound::Above:
        if (value > row.lo)
            return std::nullopt;
        return coded({what + " must be above " + lo + ", got " + got, row.fix}, "above", {lo, got});
    case SettingBound::Closed:
        if (value >= row.lo && value <= row.hi)
            return std::nullopt;
        return coded({what + " must be between " + lo + " and " + hi + ", got " + got, row.fix},
                     "range", {lo, hi, got});
    case SettingBound::ClosedOpen:
        if (value >= row.lo && value < row.hi)
            return std::nullopt;
        return coded(
            {what + " must be between " + lo + " and " + hi + " (" + hi + " excluded), got " + got,
             row.fix},
            "range_below", {lo, hi, got});
    case SettingBound::OpenClosed:
        if (value > row.lo && value <= row.hi)
            return std::nullopt;
        return coded({what + " must be in (" + lo + ", " + hi + "], got " + got, row.fix},
                     "range_above", {lo, hi, got});
    case SettingBound::NotEmpty:
        // `what` is the whole message here ("the run name is empty").
        if (!text || !text->empty())
            return std::nullopt;
        return coded({what, row.fix}, "empty", {});
    case SettingBound::OneOf: {
        std::string values;
        for (const SettingChoice& choice : row.choices) {
            if (text && *text == choice.value)
                return std::nullopt;
            values += std::string(values.empty() ? "" : ", ") + choice.value;
        }
        const std::string shown = "'" + (text ? *text : std::string()) + "'";
        return coded({"unknown " + what + " " + shown, row.fix}, "unknown_choice", {shown, values});
    }
    }
    return std::nullopt;
}

} // namespace

std::string boundText(double value) {
    if (value == std::floor(value) && std::abs(value) < 1e15)
        return std::to_string(static_cast<long long>(value));
    return yaml::formatNumber(value);
}

const std::vector<std::string>& optimizerNames() {
    static const std::vector<std::string> names = {"SGD", "Adam", "AdamW", "auto"};
    return names;
}

std::optional<Problem> checkValue(const TrainConfig& c, const SettingRow& row) {
    if (row.check)
        return row.check(c);
    return checkBound(c, row);
}

std::optional<Problem> checkValue(const TrainConfig& c, const std::string& key) {
    const SettingRow* row = findSettingRow(key);
    return row ? checkValue(c, *row) : std::nullopt;
}

std::optional<Problem> checkEpochs(const TrainConfig& c) {
    if (c.epochs >= 1)
        return std::nullopt;
    return coded({"at least one epoch is needed, got " + std::to_string(c.epochs),
                  "write epochs: 1 or more"},
                 "at_least", {"1", std::to_string(c.epochs)});
}

std::optional<Problem> checkBatch(const TrainConfig& c) {
    if (c.batch != 0 && c.batch >= -1)
        return std::nullopt;
    return coded({"batch must be a positive number of images or -1 (fit to memory), got " +
                      std::to_string(c.batch),
                  "write e.g. batch: 16, or batch: -1 to fit it to memory_budget"},
                 "batch_value", {std::to_string(c.batch)});
}

std::optional<Problem> checkImgsz(const TrainConfig& c) {
    // Past this a side's pixel count overflows 32-bit sizes in the image code, and one image
    // (3 x 16384^2 floats, 3 GiB) is beyond any machine Headroom trains on.
    constexpr int kLargest = 16384;
    if (c.imgsz > kLargest)
        return coded({"image size must be at most " + std::to_string(kLargest) + ", got " +
                          std::to_string(c.imgsz),
                      "use e.g. 640 or 1280"},
                     "at_most", {std::to_string(kLargest), std::to_string(c.imgsz)});
    if (c.imgsz >= 32 && c.imgsz % 32 == 0)
        return std::nullopt;
    return coded({"image size must be a positive multiple of 32 (the largest stride), got " +
                      std::to_string(c.imgsz),
                  "use " + nearestMultiplesOf32(std::max(c.imgsz, 32))},
                 "multiple_of_32",
                 {std::to_string(c.imgsz), std::to_string(std::max(32, c.imgsz / 32 * 32)),
                  std::to_string(std::max(32, (c.imgsz + 31) / 32 * 32))});
}

std::optional<Problem> checkDevice(const TrainConfig& c) {
    const std::string& d = c.device;
    bool ok = d == "auto" || d == "cpu" || d == "cuda";
    if (d.rfind("cuda:", 0) == 0 && d.size() > 5)
        ok = d.find_first_not_of("0123456789", 5) == std::string::npos;
    if (ok)
        return std::nullopt;
    const bool list = d.find(',') != std::string::npos;
    return coded({"unknown device '" + d + "'", list ? "for several GPUs write device: cuda:0 and "
                                                       "nproc: N"
                                                     : "write auto, cpu, cuda or cuda:N"},
                 list ? "device_list" : "unknown_choice",
                 {"'" + d + "'", "auto, cpu, cuda, cuda:N"});
}

Problem modelNotFound(const std::string& name) {
    return coded({"model file '" + name + "' not found",
                  "give a path or a shipped name such as yolov8n.yaml or yolov9c.yaml"},
                 "model_not_found", {name});
}

std::optional<Problem> checkModel(const TrainConfig& c) {
    if (c.model.empty())
        return coded({"no model given", "write e.g. model: yolov8n.yaml"}, "empty", {});
    std::error_code ec;
    const bool found = isWeightsFileName(c.model) ? std::filesystem::is_regular_file(c.model, ec)
                                                  : !lookUpModelFile(c.model).path.empty();
    if (found)
        return std::nullopt;
    return modelNotFound(c.model);
}

std::optional<Problem> checkModelScale(const TrainConfig& c) {
    const std::string& s = c.model_scale;
    if (s.empty() || (s.size() == 1 && isScaleLetter(s[0])))
        return std::nullopt;
    return coded({"unknown model scale '" + s + "'",
                  "write one of n, s, m, l, x (YOLOv8) or t, s, m, c, e (YOLOv9)"},
                 "unknown_choice", {"'" + s + "'", "n, s, m, l, x / t, s, m, c, e"});
}

std::optional<Problem> checkOptimizer(const TrainConfig& c) {
    const auto& names = optimizerNames();
    if (std::find(names.begin(), names.end(), c.optimizer) != names.end())
        return std::nullopt;
    const std::string near = nearestMatch(c.optimizer, names);
    return coded({"unknown optimizer '" + c.optimizer + "'; Headroom has SGD, Adam, AdamW and auto",
                  near.empty() ? "write SGD, Adam, AdamW or auto" : "did you mean '" + near + "'?"},
                 "unknown_choice", {"'" + c.optimizer + "'", "SGD, Adam, AdamW, auto", near});
}

std::optional<Problem> checkBudget(const TrainConfig& c) {
    if (c.memory_budget != 0 && c.memory_budget < (64LL << 20))
        return coded({"a budget of " + formatBytes(c.memory_budget) +
                          " cannot hold even the smallest model and one image",
                      "give at least 64MiB, or none for no budget"},
                     "budget_too_small", {formatBytes(c.memory_budget), "64MiB"});
    return std::nullopt;
}

std::optional<Problem> checkZero(const TrainConfig& c) {
    if (c.zero == 0 || c.zero == 1)
        return std::nullopt;
    return coded({"zero must be 0 or 1, got " + std::to_string(c.zero),
                  "write 1 to shard optimizer state across processes, 0 otherwise"},
                 "unknown_choice", {std::to_string(c.zero), "0, 1"});
}

std::optional<Problem> batchFractionHint(const YAML::Node& value) {
    const auto number = yaml::toNumber(value);
    if (!number || *number <= 0 || *number >= 1)
        return std::nullopt;
    return Problem{"expected a whole number, got " + yaml::describe(value) +
                       " (Ultralytics' fraction of GPU memory)",
                   "use batch: -1 to fit the batch to memory_budget",
                   "batch_fraction",
                   {yaml::describe(value)}};
}

std::string lowerCase(const std::string& text) {
    return toLower(text);
}

std::string deviceName(const std::string& text) {
    const std::string lower = toLower(text);
    if (!lower.empty() && lower.find_first_not_of("0123456789") == std::string::npos)
        return "cuda:" + lower;
    return lower;
}

std::string optimizerName(const std::string& text) {
    for (const auto& name : optimizerNames())
        if (toLower(name) == toLower(text))
            return name;
    return text;
}

std::string cacheMode(const std::string& text) {
    if (const auto flag = yaml::toBool(YAML::Node(text)))
        return *flag ? "ram" : "none";
    return toLower(text);
}

Diagnostic problemDiagnostic(const Problem& problem, const std::string& file, int line,
                             const std::string& key) {
    Diagnostic d = makeDiagnostic(Severity::Error, file, line, key, problem.message, problem.fix);
    d.code = problem.code;
    d.args = problem.args;
    return d;
}

} // namespace settings_check

Diagnostics validate(const TrainConfig& config, const std::string& sourceName) {
    Diagnostics out;
    for (const SettingRow& row : settingRows())
        if (const auto problem = settings_check::checkValue(config, row))
            out.push_back(settings_check::problemDiagnostic(*problem, sourceName, 0, row.key));
    for (const int layer : config.freeze)
        if (layer < 0) {
            out.push_back(makeDiagnostic(Diagnostic::Severity::Error, sourceName, 0, "freeze",
                                         "layer index " + std::to_string(layer) + " is negative",
                                         "list layer indices from 0"));
            out.back().code = "not_negative";
            out.back().args = {std::to_string(layer)};
            break;
        }
    if (config.zero == 1 && config.nproc == 1) {
        out.push_back(makeDiagnostic(Diagnostic::Severity::Warning, sourceName, 0, "zero",
                                     "sharding optimizer state needs several processes; "
                                     "with nproc 1 it has no effect",
                                     "set nproc to the number of devices"));
        out.back().code = "zero_needs_nproc";
    }
    return out;
}

} // namespace hr
