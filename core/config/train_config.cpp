// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/train_config.h"
#include "config/weights_source.h"

#include "config/yaml_read.h"
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <variant>

namespace hr {

namespace {

using Severity = Diagnostic::Severity;

// Every setting is one row: its YAML key and the member it fills. The table drives parsing,
// validation, writing and comparison, so a new field needs one line here and nothing else.
using Member = std::variant<int TrainConfig::*, double TrainConfig::*, bool TrainConfig::*,
                            std::string TrainConfig::*, std::int64_t TrainConfig::*,
                            std::vector<int> TrainConfig::*, Checkpointing TrainConfig::*,
                            OomPolicy TrainConfig::*>;

struct Field {
    const char* key;
    Member member;
    const char* section = nullptr; ///< comment written before the first field of a section
};

const std::vector<Field>& fields() {
    static const std::vector<Field> table = {
        {"model", &TrainConfig::model, "task"},
        {"data", &TrainConfig::data},
        {"model_scale", &TrainConfig::scale},
        {"weights", &TrainConfig::weights},
        {"epochs", &TrainConfig::epochs},
        {"patience", &TrainConfig::patience},
        {"batch", &TrainConfig::batch},
        {"imgsz", &TrainConfig::imgsz},
        {"device", &TrainConfig::device},
        {"workers", &TrainConfig::workers},
        {"threads", &TrainConfig::threads},
        {"project", &TrainConfig::project},
        {"name", &TrainConfig::name},
        {"exist_ok", &TrainConfig::exist_ok},
        {"resume", &TrainConfig::resume},
        {"seed", &TrainConfig::seed},
        {"deterministic", &TrainConfig::deterministic},
        {"fraction", &TrainConfig::fraction},
        {"save_period", &TrainConfig::save_period},
        {"optimizer", &TrainConfig::optimizer, "optimisation"},
        {"lr0", &TrainConfig::lr0},
        {"lrf", &TrainConfig::lrf},
        {"momentum", &TrainConfig::momentum},
        {"weight_decay", &TrainConfig::weight_decay},
        {"warmup_epochs", &TrainConfig::warmup_epochs},
        {"warmup_momentum", &TrainConfig::warmup_momentum},
        {"warmup_bias_lr", &TrainConfig::warmup_bias_lr},
        {"cos_lr", &TrainConfig::cos_lr},
        {"nbs", &TrainConfig::nbs},
        {"box", &TrainConfig::box},
        {"cls", &TrainConfig::cls},
        {"dfl", &TrainConfig::dfl},
        {"amp", &TrainConfig::amp},
        {"freeze", &TrainConfig::freeze},
        {"single_cls", &TrainConfig::single_cls},
        {"hsv_h", &TrainConfig::hsv_h, "augmentation"},
        {"hsv_s", &TrainConfig::hsv_s},
        {"hsv_v", &TrainConfig::hsv_v},
        {"degrees", &TrainConfig::degrees},
        {"translate", &TrainConfig::translate},
        {"scale", &TrainConfig::scale_aug},
        {"shear", &TrainConfig::shear},
        {"perspective", &TrainConfig::perspective},
        {"flipud", &TrainConfig::flipud},
        {"fliplr", &TrainConfig::fliplr},
        {"mosaic", &TrainConfig::mosaic},
        {"mixup", &TrainConfig::mixup},
        {"close_mosaic", &TrainConfig::close_mosaic},
        {"cache", &TrainConfig::cache},
        {"rect", &TrainConfig::rect},
        {"val", &TrainConfig::val, "validation"},
        {"conf", &TrainConfig::conf},
        {"iou", &TrainConfig::iou},
        {"max_det", &TrainConfig::max_det},
        {"val_batch", &TrainConfig::val_batch},
        {"memory_budget", &TrainConfig::memory_budget, "memory (Headroom)"},
        {"checkpointing", &TrainConfig::checkpointing},
        {"on_oom", &TrainConfig::on_oom},
        {"optimizer_offload", &TrainConfig::optimizer_offload},
        {"assign_chunk", &TrainConfig::assign_chunk},
        {"memory_sample_hz", &TrainConfig::memory_sample_hz},
        {"nproc", &TrainConfig::nproc, "distributed (Headroom)"},
        {"zero", &TrainConfig::zero},
        {"sync_bn", &TrainConfig::sync_bn},
    };
    return table;
}

const Field* findField(const std::string& key) {
    for (const Field& field : fields())
        if (key == field.key)
            return &field;
    return nullptr;
}

// Other spellings Headroom accepts for its own keys.
std::string canonicalKey(const std::string& key) {
    if (key == "scale_aug")
        return "scale";
    return key;
}

// Ultralytics train/val/predict/export arguments that have no meaning in Headroom. A user's
// args.yaml contains them, so they load with a note instead of an "unknown key" warning.
const std::set<std::string>& ignoredUltralyticsKeys() {
    static const std::set<std::string> keys = {
        "agnostic_nms",
        "augment",
        "auto_augment",
        "bgr",
        "boxes",
        "cfg",
        "classes",
        "copy_paste",
        "copy_paste_mode",
        "crop_fraction",
        "dnn",
        "dropout",
        "dynamic",
        "embed",
        "erasing",
        "fl_gamma",
        "format",
        "half",
        "hide_conf",
        "hide_labels",
        "int8",
        "keras",
        "kobj",
        "label_smoothing",
        "line_thickness",
        "line_width",
        "mask_ratio",
        "mode",
        "multi_scale",
        "nms",
        "opset",
        "optimize",
        "overlap_mask",
        "plots",
        "pose",
        "pretrained",
        "profile",
        "retina_masks",
        "save",
        "save_conf",
        "save_crop",
        "save_dir",
        "save_frames",
        "save_hybrid",
        "save_json",
        "save_txt",
        "show",
        "show_boxes",
        "show_conf",
        "show_labels",
        "simplify",
        "source",
        "split",
        "stream_buffer",
        "task",
        "time",
        "tracker",
        "v5loader",
        "verbose",
        "vid_stride",
        "visualize",
        "workspace",
    };
    return keys;
}

const std::vector<std::string>& optimizerNames() {
    static const std::vector<std::string> names = {"SGD", "Adam", "AdamW", "auto"};
    return names;
}

const std::string kScaleLetters = "nsmlxtce";

std::optional<OomPolicy> oomPolicyFromText(const std::string& text) {
    const std::string t = toLower(trim(text));
    if (t == "ask")
        return OomPolicy::Ask;
    if (t == "auto")
        return OomPolicy::Auto;
    if (t == "stop")
        return OomPolicy::Stop;
    return std::nullopt;
}

std::optional<Checkpointing> checkpointingFromText(const std::string& text) {
    const std::string t = toLower(trim(text));
    if (t == "none" || t == "false" || t == "off" || t == "no")
        return Checkpointing::None;
    if (t == "backbone")
        return Checkpointing::Backbone;
    if (t == "all" || t == "true" || t == "on" || t == "yes")
        return Checkpointing::All;
    return std::nullopt;
}

// "3GiB" when the value is a whole number of GiB/MiB/KiB, plain bytes otherwise.
std::string budgetText(std::int64_t bytes) {
    if (bytes == 0)
        return "none";
    const std::pair<std::int64_t, const char*> units[] = {
        {1LL << 40, "TiB"}, {1LL << 30, "GiB"}, {1LL << 20, "MiB"}, {1LL << 10, "KiB"}};
    for (const auto& [size, unit] : units)
        if (bytes % size == 0)
            return std::to_string(bytes / size) + unit;
    return std::to_string(bytes);
}

std::string scalarText(const YAML::Node& node) {
    return node.IsScalar() ? node.Scalar() : "";
}

// What went wrong with one value, before file/line/key are attached.
struct Problem {
    Problem(std::string message_, std::string fix_, std::string code_ = {},
            std::vector<std::string> args_ = {})
        : message(std::move(message_)), fix(std::move(fix_)), code(std::move(code_)),
          args(std::move(args_)) {}
    std::string message;
    std::string fix;
    std::string code;              ///< Diagnostic::code
    std::vector<std::string> args; ///< Diagnostic::args
};

// Reads `value` into `field` of `config`. Null restores the default (Ultralytics writes
// `conf: null`, `device: null` ... for "not set").
std::optional<Problem> readValue(TrainConfig& config, const Field& field, const std::string& key,
                                 const YAML::Node& value) {
    static const TrainConfig defaults;
    const bool isNull = !value.IsDefined() || value.IsNull();
    return std::visit(
        [&](auto member) -> std::optional<Problem> {
            using T = std::decay_t<decltype(config.*member)>;
            if (isNull) {
                config.*member = defaults.*member;
                return std::nullopt;
            }
            if constexpr (std::is_same_v<T, int>) {
                const auto whole = yaml::toWhole(value);
                if (!whole) {
                    const auto number = yaml::toNumber(value);
                    if (key == "batch" && number && *number > 0 && *number < 1)
                        return Problem{"expected a whole number, got " + yaml::describe(value) +
                                           " (Ultralytics' fraction of GPU memory)",
                                       "use batch: -1 to fit the batch to memory_budget",
                                       "batch_fraction",
                                       {yaml::describe(value)}};
                    return Problem{"expected a whole number, got " + yaml::describe(value),
                                   "write a number like " + std::to_string(defaults.*member),
                                   "expected_whole",
                                   {yaml::describe(value), std::to_string(defaults.*member)}};
                }
                if (*whole < -2147483647LL || *whole > 2147483647LL)
                    return Problem{"the number " + std::to_string(*whole) + " is too large",
                                   "",
                                   "too_large",
                                   {std::to_string(*whole)}};
                config.*member = static_cast<int>(*whole);
            } else if constexpr (std::is_same_v<T, double>) {
                const auto number = yaml::toNumber(value);
                if (!number)
                    return Problem{"expected a number, got " + yaml::describe(value),
                                   "write a number like " + yaml::formatNumber(defaults.*member),
                                   "expected_number",
                                   {yaml::describe(value), yaml::formatNumber(defaults.*member)}};
                config.*member = *number;
            } else if constexpr (std::is_same_v<T, bool>) {
                const auto flag = yaml::toBool(value);
                if (!flag)
                    return Problem{"expected true or false, got " + yaml::describe(value),
                                   "write true or false",
                                   "expected_bool",
                                   {yaml::describe(value)}};
                config.*member = *flag;
            } else if constexpr (std::is_same_v<T, std::string>) {
                if (!value.IsScalar())
                    return Problem{"expected text, got " + yaml::describe(value),
                                   "write a single value",
                                   "expected_text",
                                   {yaml::describe(value)}};
                std::string text = trim(value.Scalar());
                if (key == "cache") {
                    // Ultralytics: cache: true means RAM, false means no cache.
                    if (const auto flag = yaml::toBool(value))
                        text = *flag ? "ram" : "none";
                    text = toLower(text);
                } else if (key == "optimizer") {
                    for (const auto& name : optimizerNames())
                        if (toLower(name) == toLower(text))
                            text = name;
                } else if (key == "model_scale") {
                    text = toLower(text);
                } else if (key == "device") {
                    text = toLower(text);
                    // Ultralytics' `device: 0` is the first CUDA device.
                    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
                        text = "cuda:" + text;
                }
                config.*member = text;
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                const std::string text = toLower(trim(scalarText(value)));
                if (text == "none" || text == "0" || text == "false" || text == "off") {
                    config.*member = 0;
                    return std::nullopt;
                }
                const auto bytes = value.IsScalar() ? parseByteSize(text) : std::nullopt;
                if (!bytes)
                    return Problem{"expected a size like 3GiB, 512MiB or 1.5GB, got " +
                                       yaml::describe(value),
                                   "write a size with a unit (KiB, MiB, GiB, KB, MB, GB), "
                                   "plain bytes, or none for no budget",
                                   "expected_size",
                                   {yaml::describe(value)}};
                config.*member = *bytes;
            } else if constexpr (std::is_same_v<T, std::vector<int>>) {
                std::vector<int> layers;
                if (value.IsScalar() && toLower(trim(value.Scalar())) == "none") {
                    // Python's None, as Ultralytics users write it on the command line.
                } else if (value.IsSequence()) {
                    for (const auto& item : value) {
                        const auto index = yaml::toWhole(item);
                        if (!index || *index < 0 || *index > 100000)
                            return Problem{"expected layer indices (whole numbers >= 0), got " +
                                               yaml::describe(item),
                                           "write a number N (freezes layers 0..N-1) or a "
                                           "list like [0, 1, 2]",
                                           "expected_layers",
                                           {yaml::describe(item)}};
                        layers.push_back(static_cast<int>(*index));
                    }
                } else {
                    const auto count = yaml::toWhole(value);
                    if (!count || *count < 0 || *count > 100000)
                        return Problem{"expected a number of layers or a list of layer "
                                       "indices, got " +
                                           yaml::describe(value),
                                       "write a number N (freezes layers 0..N-1) or a list "
                                       "like [0, 1, 2]",
                                       "expected_layers",
                                       {yaml::describe(value)}};
                    for (int i = 0; i < *count; ++i)
                        layers.push_back(i);
                }
                config.*member = layers;
            } else if constexpr (std::is_same_v<T, Checkpointing>) {
                const auto mode = checkpointingFromText(scalarText(value));
                if (!mode)
                    return Problem{"expected none, backbone or all, got " + yaml::describe(value),
                                   "write none, backbone or all",
                                   "unknown_choice",
                                   {yaml::describe(value), "none, backbone, all"}};
                config.*member = *mode;
            } else if constexpr (std::is_same_v<T, OomPolicy>) {
                const auto policy = oomPolicyFromText(scalarText(value));
                if (!policy) {
                    const std::string near =
                        nearestMatch(scalarText(value), {"ask", "auto", "stop"});
                    return Problem{"expected ask, auto or stop, got " + yaml::describe(value),
                                   near.empty() ? "write ask, auto or stop"
                                                : "did you mean '" + near + "'?",
                                   "unknown_choice",
                                   {yaml::describe(value), "ask, auto, stop", near}};
                }
                config.*member = *policy;
            }
            return std::nullopt;
        },
        field.member);
}

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

// The range check for one key of an already-read config.
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
        (c.scale.size() != 1 || kScaleLetters.find(c.scale[0]) == std::string::npos))
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
    Diagnostic d =
        yaml::makeDiagnostic(Severity::Error, file, line, key, problem.message, problem.fix);
    d.code = problem.code;
    d.args = problem.args;
    return d;
}

std::vector<std::string> allKnownKeys() {
    std::vector<std::string> keys = trainConfigKeys();
    keys.insert(keys.end(), ignoredUltralyticsKeys().begin(), ignoredUltralyticsKeys().end());
    return keys;
}

// Applies one key: value pair to `config`. `unknownSeverity` is Warning for files (the rest of
// the file still loads) and Error on the command line (a typo there must not go unnoticed).
void applyEntry(TrainConfig& config, const std::string& rawKey, const YAML::Node& value,
                const std::string& file, int keyLine, Severity unknownSeverity, Diagnostics& out) {
    const std::string key = canonicalKey(rawKey);
    // keyLine 0: the pair did not come from a file (command line, GUI); report no line.
    const int valueLine =
        keyLine == 0 ? 0 : (yaml::lineOf(value) > 0 ? yaml::lineOf(value) : keyLine);
    // Ultralytics' pretrained=<file> starts from that file; true/false stay ignored.
    if (key == "pretrained" && value.IsScalar() && isWeightsFileName(value.Scalar())) {
        applyEntry(config, "weights", value, file, keyLine, unknownSeverity, out);
        return;
    }
    if (ignoredUltralyticsKeys().count(key)) {
        out.push_back(yaml::makeDiagnostic(Severity::Note, file, keyLine, rawKey,
                                           "Ultralytics setting; Headroom ignores it"));
        if (key == "task" && value.IsScalar() && toLower(value.Scalar()) != "detect")
            out.push_back(yaml::makeDiagnostic(Severity::Warning, file, valueLine, rawKey,
                                               "Headroom trains detection models only, not '" +
                                                   value.Scalar() + "'",
                                               "use a detection data set and model"));
        return;
    }
    const Field* field = findField(key);
    if (!field) {
        const std::string near = nearestMatch(key, allKnownKeys());
        out.push_back(yaml::makeDiagnostic(unknownSeverity, file, keyLine, rawKey,
                                           "unknown setting",
                                           near.empty() ? "see `headroom-cli train --help` for "
                                                          "the settings"
                                                        : "did you mean '" + near + "'?"));
        out.back().code = "unknown_key";
        out.back().args = {rawKey, near};
        return;
    }
    TrainConfig updated = config;
    std::optional<Problem> problem;
    // `scale` is Ultralytics' augmentation gain when numeric; a letter is the model scale.
    if (key == "scale" && value.IsScalar() && !yaml::toNumber(value)) {
        const Field* scaleField = findField("model_scale");
        problem = readValue(updated, *scaleField, "model_scale", value);
        if (!problem)
            problem = checkValue(updated, "model_scale");
        if (problem) {
            problem->message = "expected an augmentation gain (a number like 0.5) or a model "
                               "scale letter, got " +
                               yaml::describe(value);
            problem->code = "scale_value";
            problem->args = {yaml::describe(value)};
        }
    } else {
        problem = readValue(updated, *field, key, value);
        if (!problem)
            problem = checkValue(updated, key);
    }
    if (problem) {
        out.push_back(problemDiagnostic(*problem, file, valueLine, rawKey));
        return;
    }
    config = updated;
}

} // namespace

const std::vector<std::string>& trainConfigKeys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> out;
        for (const Field& field : fields())
            out.push_back(field.key);
        return out;
    }();
    return keys;
}

bool TrainConfig::operator==(const TrainConfig& other) const {
    for (const Field& field : fields()) {
        const bool same =
            std::visit([&](auto member) { return this->*member == other.*member; }, field.member);
        if (!same)
            return false;
    }
    return true;
}

const char* toString(OomPolicy policy) {
    switch (policy) {
    case OomPolicy::Ask:
        return "ask";
    case OomPolicy::Auto:
        return "auto";
    case OomPolicy::Stop:
        return "stop";
    }
    return "ask";
}

const char* toString(Checkpointing mode) {
    switch (mode) {
    case Checkpointing::None:
        return "none";
    case Checkpointing::Backbone:
        return "backbone";
    case Checkpointing::All:
        return "all";
    }
    return "none";
}

std::optional<OomPolicy> parseOomPolicy(const std::string& text) {
    return oomPolicyFromText(text);
}

std::optional<Checkpointing> parseCheckpointing(const std::string& text) {
    return checkpointingFromText(text);
}

std::int64_t assignerBoxesPerSlice(int assignChunk, std::int64_t images, std::int64_t objects,
                                   std::int64_t anchors) {
    const std::int64_t perBox = std::max<std::int64_t>(images * anchors, 1);
    std::int64_t boxes = kAutoAssignChunkElements / perBox;
    if (assignChunk > 0)
        boxes = std::min<std::int64_t>(boxes, assignChunk);
    return std::clamp<std::int64_t>(boxes, 1, std::max<std::int64_t>(objects, 1));
}

int accumulateSteps(const TrainConfig& config) {
    if (config.batch <= 0 || config.nbs <= 0)
        return 1;
    // Python's round() rounds halves to even; nearbyint does the same in the default mode.
    const double steps = std::nearbyint(static_cast<double>(config.nbs) / config.batch);
    return std::max(static_cast<int>(steps), 1);
}

TrainConfigResult parseTrainConfig(const std::string& yamlText, const std::string& sourceName,
                                   const TrainConfig& base) {
    TrainConfigResult result;
    const std::optional<YAML::Node> root =
        yaml::parseDocument(yamlText, sourceName, result.diagnostics);
    if (!root)
        return result;
    TrainConfig config = base;
    if (root->IsNull()) {
        result.config = config;
        return result;
    }
    if (!root->IsMap()) {
        result.diagnostics.push_back(yaml::makeDiagnostic(
            Severity::Error, sourceName, std::max(1, yaml::lineOf(*root)), {},
            "the file must be a map of settings (key: value lines), got " + yaml::describe(*root),
            "write one setting per line, e.g. 'epochs: 100'"));
        return result;
    }
    std::set<std::string> seen;
    for (const auto& entry : *root) {
        const int keyLine = yaml::lineOf(entry.first);
        if (!entry.first.IsScalar()) {
            result.diagnostics.push_back(yaml::makeDiagnostic(
                Severity::Error, sourceName, keyLine, {},
                "a setting name must be a word, got " + yaml::describe(entry.first),
                "write 'key: value'"));
            continue;
        }
        const std::string key = entry.first.Scalar();
        if (!seen.insert(canonicalKey(key)).second)
            result.diagnostics.push_back(yaml::makeDiagnostic(
                Severity::Warning, sourceName, keyLine, key,
                "set more than once; the last value is used", "remove the other line"));
        applyEntry(config, key, entry.second, sourceName, keyLine, Severity::Warning,
                   result.diagnostics);
    }
    if (!hasErrors(result.diagnostics))
        result.config = config;
    return result;
}

TrainConfigResult loadTrainConfig(const std::string& path) {
    std::string text, error;
    if (!readFile(path, text, &error)) {
        TrainConfigResult result;
        result.diagnostics.push_back(yaml::makeDiagnostic(
            Severity::Error, path, 0, {}, "cannot read the file: " + error, "check the path"));
        return result;
    }
    return parseTrainConfig(text, path);
}

Diagnostics applyOverride(TrainConfig& config, const std::string& key, const std::string& value) {
    Diagnostics out;
    std::string name = trim(key);
    std::replace(name.begin(), name.end(), '-', '_');
    YAML::Node node;
    try {
        node = YAML::Load(value);
    } catch (const YAML::Exception& e) {
        out.push_back(yaml::makeDiagnostic(Severity::Error, {}, 0, name,
                                           "cannot read the value '" + value + "': " + e.msg,
                                           "quote the value or fix its brackets"));
        out.back().code = "unreadable_value";
        out.back().args = {"'" + value + "'"};
        return out;
    }
    applyEntry(config, name, node, {}, 0, Severity::Error, out);
    return out;
}

Diagnostics validate(const TrainConfig& config, const std::string& sourceName) {
    Diagnostics out;
    for (const std::string& key : trainConfigKeys())
        if (const auto problem = checkValue(config, key))
            out.push_back(problemDiagnostic(*problem, sourceName, 0, key));
    for (const int layer : config.freeze)
        if (layer < 0) {
            out.push_back(
                yaml::makeDiagnostic(Severity::Error, sourceName, 0, "freeze",
                                     "layer index " + std::to_string(layer) + " is negative",
                                     "list layer indices from 0"));
            out.back().code = "not_negative";
            out.back().args = {std::to_string(layer)};
            break;
        }
    if (config.zero == 1 && config.nproc == 1) {
        out.push_back(yaml::makeDiagnostic(Severity::Warning, sourceName, 0, "zero",
                                           "sharding optimizer state needs several processes; "
                                           "with nproc 1 it has no effect",
                                           "set nproc to the number of devices"));
        out.back().code = "zero_needs_nproc";
    }
    return out;
}

std::string toYaml(const TrainConfig& config) {
    std::string out = "# Headroom training settings (Ultralytics names where they match)\n";
    bool firstSection = true;
    for (const Field& field : fields()) {
        if (field.section) {
            out += std::string(firstSection ? "" : "\n") + "# --- " + field.section + "\n";
            firstSection = false;
        }
        const std::string value = std::visit(
            [&](auto member) -> std::string {
                using T = std::decay_t<decltype(config.*member)>;
                const T& v = config.*member;
                if constexpr (std::is_same_v<T, int>)
                    return std::to_string(v);
                else if constexpr (std::is_same_v<T, double>)
                    return yaml::formatNumber(v);
                else if constexpr (std::is_same_v<T, bool>)
                    return v ? "true" : "false";
                else if constexpr (std::is_same_v<T, std::string>)
                    return yaml::quoteIfNeeded(v);
                else if constexpr (std::is_same_v<T, std::int64_t>)
                    return budgetText(v);
                else if constexpr (std::is_same_v<T, std::vector<int>>) {
                    std::string list = "[";
                    for (size_t i = 0; i < v.size(); ++i)
                        list += (i ? ", " : "") + std::to_string(v[i]);
                    return list + "]";
                } else
                    return toString(v);
            },
            field.member);
        out += std::string(field.key) + ": " + value + "\n";
    }
    return out;
}

bool saveTrainConfig(const TrainConfig& config, const std::string& path, std::string* error) {
    return writeFileAtomically(path, toYaml(config), error);
}

} // namespace hr
