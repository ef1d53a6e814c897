// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/train_config.h"
#include "config/weights_source.h"

#include "config/settings_table.h"
#include "config/train_config_check.h"

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

using namespace settings_check;
using Severity = Diagnostic::Severity;

// The key a row is written as (aliases read as their row's key).
std::string canonicalKey(const std::string& key) {
    const SettingRow* row = findSettingRow(key);
    return row ? row->key : key;
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

std::string scalarText(const YAML::Node& node) {
    return node.IsScalar() ? node.Scalar() : "";
}

// Reads `value` into `field` of `config`. Null restores the default (Ultralytics writes
// `conf: null`, `device: null` ... for "not set").
std::optional<Problem> readValue(TrainConfig& config, const SettingRow& field,
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
                    if (field.readHint)
                        if (auto hint = field.readHint(value))
                            return hint;
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
                if (field.normalise)
                    text = field.normalise(text);
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
        out.push_back(makeDiagnostic(Severity::Note, file, keyLine, rawKey,
                                     "Ultralytics setting; Headroom ignores it"));
        if (key == "task" && value.IsScalar() && toLower(value.Scalar()) != "detect")
            out.push_back(makeDiagnostic(Severity::Warning, file, valueLine, rawKey,
                                         "Headroom trains detection models only, not '" +
                                             value.Scalar() + "'",
                                         "use a detection data set and model"));
        return;
    }
    const SettingRow* field = findSettingRow(key);
    if (!field) {
        const std::string near = nearestMatch(key, allKnownKeys());
        out.push_back(makeDiagnostic(unknownSeverity, file, keyLine, rawKey, "unknown setting",
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
        const SettingRow* scaleField = findSettingRow("model_scale");
        problem = readValue(updated, *scaleField, value);
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
        problem = readValue(updated, *field, value);
        if (!problem)
            problem = checkValue(updated, *field);
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
        for (const SettingRow& row : settingRows())
            out.push_back(row.key);
        return out;
    }();
    return keys;
}

bool TrainConfig::operator==(const TrainConfig& other) const {
    for (const SettingRow& row : settingRows())
        if (!std::visit([&](auto member) { return this->*member == other.*member; }, row.member))
            return false;
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
        result.diagnostics.push_back(makeDiagnostic(
            Severity::Error, sourceName, std::max(1, yaml::lineOf(*root)), {},
            "the file must be a map of settings (key: value lines), got " + yaml::describe(*root),
            "write one setting per line, e.g. 'epochs: 100'"));
        return result;
    }
    std::set<std::string> seen;
    for (const auto& entry : *root) {
        const int keyLine = yaml::lineOf(entry.first);
        if (!entry.first.IsScalar()) {
            result.diagnostics.push_back(
                makeDiagnostic(Severity::Error, sourceName, keyLine, {},
                               "a setting name must be a word, got " + yaml::describe(entry.first),
                               "write 'key: value'"));
            continue;
        }
        const std::string key = entry.first.Scalar();
        if (!seen.insert(canonicalKey(key)).second)
            result.diagnostics.push_back(makeDiagnostic(
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
        result.diagnostics.push_back(makeDiagnostic(
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
        out.push_back(makeDiagnostic(Severity::Error, {}, 0, name,
                                     "cannot read the value '" + value + "': " + e.msg,
                                     "quote the value or fix its brackets"));
        out.back().code = "unreadable_value";
        out.back().args = {"'" + value + "'"};
        return out;
    }
    applyEntry(config, name, node, {}, 0, Severity::Error, out);
    return out;
}

std::string toYaml(const TrainConfig& config) {
    std::string out = "# Headroom training settings (Ultralytics names where they match)\n";
    bool firstSection = true;
    for (const SettingRow& row : settingRows()) {
        if (row.section) {
            out += std::string(firstSection ? "" : "\n") + "# --- " + row.section + "\n";
            firstSection = false;
        }
        out += std::string(row.key) + ": " + settingText(config, row) + "\n";
    }
    return out;
}

bool saveTrainConfig(const TrainConfig& config, const std::string& path, std::string* error) {
    return writeFileAtomically(path, toYaml(config), error);
}

} // namespace hr
