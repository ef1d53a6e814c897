// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/train_config_check.h"

#include "config/model_name.h"
#include "config/yaml_read.h"
#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>

namespace hr {

namespace settings_check {

namespace {

using Severity = Diagnostic::Severity;

std::string nearestMultiplesOf32(int value) {
    const int below = std::max(32, value / 32 * 32);
    const int above = std::max(32, (value + 31) / 32 * 32);
    if (below == above)
        return std::to_string(below);
    return std::to_string(below) + " or " + std::to_string(above);
}

std::optional<Problem> outsideUnit(const char* what, double value, bool includeOne) {
    if (value >= 0 && (includeOne ? value <= 1 : value < 1))
        return std::nullopt;
    return Problem{std::string(what) + " must be between 0 and 1" +
                       (includeOne ? "" : " (1 excluded)") + ", got " + yaml::formatNumber(value),
                   includeOne ? "write a value from 0 to 1" : "write a value from 0 to 0.99",
                   includeOne ? "range" : "range_below",
                   {"0", "1", yaml::formatNumber(value)}};
}

} // namespace

const std::vector<std::string>& optimizerNames() {
    static const std::vector<std::string> names = {"SGD", "Adam", "AdamW", "auto"};
    return names;
}

std::optional<Problem> checkValue(const TrainConfig& c, const std::string& key) {
    auto number = [](double v) { return yaml::formatNumber(v); };
    // The codes of the range checks (Diagnostic::code) and their values.
    auto coded = [](Problem p, const char* code, std::vector<std::string> args) {
        p.code = code;
        p.args = std::move(args);
        return p;
    };
    auto negative = [&](Problem p, const std::string& got) {
        return coded(std::move(p), "not_negative", {got});
    };
    if (key == "epochs" && c.epochs < 1)
        return coded({"at least one epoch is needed, got " + std::to_string(c.epochs),
                      "write epochs: 1 or more"},
                     "at_least", {"1", std::to_string(c.epochs)});
    if (key == "patience" && c.patience < 0)
        return negative({"patience cannot be negative, got " + std::to_string(c.patience),
                         "write 0 or more epochs"},
                        std::to_string(c.patience));
    if (key == "batch" && (c.batch == 0 || c.batch < -1))
        return coded({"batch must be a positive number of images or -1 (fit to memory), got " +
                          std::to_string(c.batch),
                      "write e.g. batch: 16, or batch: -1 to fit it to memory_budget"},
                     "batch_value", {std::to_string(c.batch)});
    if (key == "imgsz" && (c.imgsz < 32 || c.imgsz % 32 != 0))
        return coded({"image size must be a positive multiple of 32 (the largest stride), got " +
                          std::to_string(c.imgsz),
                      "use " + nearestMultiplesOf32(std::max(c.imgsz, 32))},
                     "multiple_of_32",
                     {std::to_string(c.imgsz), std::to_string(std::max(32, c.imgsz / 32 * 32)),
                      std::to_string(std::max(32, (c.imgsz + 31) / 32 * 32))});
    if (key == "device") {
        const std::string& d = c.device;
        bool ok = d == "auto" || d == "cpu" || d == "cuda";
        if (d.rfind("cuda:", 0) == 0 && d.size() > 5)
            ok = d.find_first_not_of("0123456789", 5) == std::string::npos;
        if (!ok)
            return coded({"unknown device '" + d + "'",
                          d.find(',') != std::string::npos
                              ? "for several GPUs write device: cuda:0 and nproc: N"
                              : "write auto, cpu, cuda or cuda:N"},
                         d.find(',') != std::string::npos ? "device_list" : "unknown_choice",
                         {"'" + d + "'", "auto, cpu, cuda, cuda:N"});
    }
    if (key == "workers" && c.workers < 0)
        return negative({"workers cannot be negative, got " + std::to_string(c.workers),
                         "write 0 (load in the training thread) or more"},
                        std::to_string(c.workers));
    if (key == "threads" && c.threads < 0)
        return negative({"threads cannot be negative, got " + std::to_string(c.threads),
                         "write 0 (all cores) or a number of threads"},
                        std::to_string(c.threads));
    if (key == "project" && c.project.empty())
        return coded({"the project folder name is empty", "write e.g. project: runs"}, "empty", {});
    if (key == "name" && c.name.empty())
        return coded({"the run name is empty", "write e.g. name: train"}, "empty", {});
    if (key == "fraction" && !(c.fraction > 0 && c.fraction <= 1))
        return coded({"fraction must be in (0, 1], got " + number(c.fraction),
                      "write 1.0 to use the whole training set"},
                     "range_above", {"0", "1", number(c.fraction)});
    if (key == "model" && c.model.empty())
        return coded({"no model given", "write e.g. model: yolov8n.yaml"}, "empty", {});
    if (key == "model_scale" && !c.scale.empty() &&
        (c.scale.size() != 1 || !isScaleLetter(c.scale[0])))
        return coded({"unknown model scale '" + c.scale + "'",
                      "write one of n, s, m, l, x (YOLOv8) or t, s, m, c, e (YOLOv9)"},
                     "unknown_choice", {"'" + c.scale + "'", "n, s, m, l, x / t, s, m, c, e"});
    if (key == "optimizer" && std::find(optimizerNames().begin(), optimizerNames().end(),
                                        c.optimizer) == optimizerNames().end()) {
        const std::string near = nearestMatch(c.optimizer, optimizerNames());
        return coded(
            {"unknown optimizer '" + c.optimizer +
                 "'; Headroom has SGD, Adam, AdamW "
                 "and auto",
             near.empty() ? "write SGD, Adam, AdamW or auto" : "did you mean '" + near + "'?"},
            "unknown_choice", {"'" + c.optimizer + "'", "SGD, Adam, AdamW, auto", near});
    }
    if (key == "lr0" && !(c.lr0 > 0))
        return coded({"the initial learning rate must be above 0, got " + number(c.lr0),
                      "write e.g. lr0: 0.01 (SGD) or 0.001 (Adam)"},
                     "above", {"0", number(c.lr0)});
    if (key == "lrf" && !(c.lrf > 0 && c.lrf <= 1))
        return coded({"the final learning rate fraction must be in (0, 1], got " + number(c.lrf),
                      "write e.g. lrf: 0.01 (final lr = lr0 x lrf)"},
                     "range_above", {"0", "1", number(c.lrf)});
    if (key == "momentum")
        return outsideUnit("momentum", c.momentum, false);
    if (key == "warmup_momentum")
        return outsideUnit("warmup momentum", c.warmup_momentum, false);
    if (key == "weight_decay" && c.weight_decay < 0)
        return negative(
            {"weight decay cannot be negative, got " + number(c.weight_decay), "write e.g. 0.0005"},
            number(c.weight_decay));
    if (key == "warmup_epochs" && c.warmup_epochs < 0)
        return negative({"warmup epochs cannot be negative, got " + number(c.warmup_epochs),
                         "write 0 for no warmup"},
                        number(c.warmup_epochs));
    if (key == "warmup_bias_lr" && c.warmup_bias_lr < 0)
        return negative(
            {"the warmup bias learning rate cannot be negative, got " + number(c.warmup_bias_lr),
             "write e.g. 0.1"},
            number(c.warmup_bias_lr));
    if (key == "nbs" && c.nbs < 1)
        return coded({"the nominal batch size must be at least 1, got " + std::to_string(c.nbs),
                      "write e.g. nbs: 64"},
                     "at_least", {"1", std::to_string(c.nbs)});
    for (const auto& [name, gain] :
         {std::pair<const char*, double>{"box", c.box}, {"cls", c.cls}, {"dfl", c.dfl}})
        if (key == name && gain < 0)
            return negative({"a loss gain cannot be negative, got " + number(gain),
                             "write 0 to switch this loss term off"},
                            number(gain));
    if (key == "hsv_h")
        return outsideUnit("the hue gain", c.hsv_h, true);
    if (key == "hsv_s")
        return outsideUnit("the saturation gain", c.hsv_s, true);
    if (key == "hsv_v")
        return outsideUnit("the value gain", c.hsv_v, true);
    if (key == "translate")
        return outsideUnit("translate", c.translate, true);
    if (key == "scale" && c.scale_aug < 0)
        return negative({"the scale gain cannot be negative, got " + number(c.scale_aug),
                         "write e.g. scale: 0.5 (random zoom 0.5x..1.5x)"},
                        number(c.scale_aug));
    if (key == "perspective" && !(c.perspective >= 0 && c.perspective <= 0.001))
        return coded({"perspective must be between 0 and 0.001, got " + number(c.perspective),
                      "write 0, or a small value like 0.0001"},
                     "range", {"0", "0.001", number(c.perspective)});
    if (key == "flipud")
        return outsideUnit("the up-down flip probability", c.flipud, true);
    if (key == "fliplr")
        return outsideUnit("the left-right flip probability", c.fliplr, true);
    if (key == "mosaic")
        return outsideUnit("the mosaic probability", c.mosaic, true);
    if (key == "mixup")
        return outsideUnit("the mixup probability", c.mixup, true);
    if (key == "close_mosaic" && c.close_mosaic < 0)
        return negative({"close_mosaic cannot be negative, got " + std::to_string(c.close_mosaic),
                         "write 0 to keep mosaic to the end"},
                        std::to_string(c.close_mosaic));
    if (key == "cache" && c.cache != "none" && c.cache != "ram" && c.cache != "disk")
        return coded(
            {"unknown cache mode '" + c.cache + "'", "write none, ram or disk (true means ram)"},
            "unknown_choice", {"'" + c.cache + "'", "none, ram, disk"});
    if (key == "conf")
        return outsideUnit("the confidence threshold", c.conf, true);
    if (key == "iou" && !(c.iou > 0 && c.iou <= 1))
        return coded({"the NMS IoU threshold must be in (0, 1], got " + number(c.iou),
                      "write e.g. iou: 0.7"},
                     "range_above", {"0", "1", number(c.iou)});
    if (key == "max_det" && c.max_det < 1)
        return coded({"max_det must be at least 1, got " + std::to_string(c.max_det),
                      "write e.g. max_det: 300"},
                     "at_least", {"1", std::to_string(c.max_det)});
    if (key == "val_batch" && c.val_batch < 0)
        return negative({"val_batch cannot be negative, got " + std::to_string(c.val_batch),
                         "write 0 (twice the training batch) or a number of images"},
                        std::to_string(c.val_batch));
    if (key == "memory_budget" && c.memory_budget != 0 && c.memory_budget < (64LL << 20))
        return coded({"a budget of " + formatBytes(c.memory_budget) +
                          " cannot hold even the smallest model and one image",
                      "give at least 64MiB, or none for no budget"},
                     "budget_too_small", {formatBytes(c.memory_budget), "64MiB"});
    if (key == "memory_budget" && c.memory_budget < 0)
        return negative({"the budget cannot be negative", "write a size like 3GiB"},
                        std::to_string(c.memory_budget));
    if (key == "assign_chunk" && c.assign_chunk < 0)
        return negative({"assign_chunk cannot be negative, got " + std::to_string(c.assign_chunk),
                         "write 0 (automatic) or the number of boxes the assigner takes at once"},
                        std::to_string(c.assign_chunk));
    if (key == "memory_sample_hz" && !(c.memory_sample_hz > 0 && c.memory_sample_hz <= 1000))
        return coded({"memory_sample_hz must be in (0, 1000], got " + number(c.memory_sample_hz),
                      "write e.g. 20"},
                     "range_above", {"0", "1000", number(c.memory_sample_hz)});
    if (key == "nproc" && c.nproc < 1)
        return coded({"nproc must be at least 1, got " + std::to_string(c.nproc),
                      "write 1 for a single process"},
                     "at_least", {"1", std::to_string(c.nproc)});
    if (key == "zero" && c.zero != 0 && c.zero != 1)
        return coded({"zero must be 0 or 1, got " + std::to_string(c.zero),
                      "write 1 to shard optimizer state across processes, 0 otherwise"},
                     "unknown_choice", {std::to_string(c.zero), "0, 1"});
    return std::nullopt;
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
    for (const std::string& key : trainConfigKeys())
        if (const auto problem = settings_check::checkValue(config, key))
            out.push_back(settings_check::problemDiagnostic(*problem, sourceName, 0, key));
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
