// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hr {

/// What to do when a step runs out of device memory.
enum class OomPolicy { Ask, Auto, Stop };

/// Which blocks recompute their activations in backward instead of keeping them.
enum class Checkpointing { None, Backbone, All };

/// Every setting of a training run, as a value. Names and defaults follow Ultralytics' train
/// arguments where the concept is the same, so an existing Ultralytics YAML loads unchanged.
/// The YAML key of each field is its name; Headroom's own keys are marked. What each one means,
/// its range, its check and its effects are its row in config/settings_table.h.
struct TrainConfig {
    // --- task -------------------------------------------------------------------------------
    std::string model = "yolov8n.yaml"; ///< model YAML (path, or a name under resources/models)
    std::string data;                   ///< data.yaml path; empty = the built-in sample
    std::string model_scale; ///< Headroom: scale letter (n/s/m/l/x, t/c/e); empty = file name
    std::string weights;     ///< Headroom: start from these weights (a .pt written by Headroom)
    int epochs = 100;
    int patience = 100;          ///< epochs without fitness improvement before stopping early
    int batch = 16;              ///< images per step; -1 = auto-fit to the memory budget
    int imgsz = 640;             ///< training and validation image size, a multiple of 32
    std::string device = "auto"; ///< "auto", "cpu", "cuda", "cuda:N"
    int workers = 8;             ///< loader threads
    int threads = 0;             ///< Headroom: intra-op threads for LibTorch; 0 = all cores
    std::string project = "runs";
    std::string name = "train";
    bool exist_ok = false;
    bool resume = false;
    int seed = 0;
    bool deterministic = true;
    double fraction = 1.0; ///< fraction of the training set to use
    int save_period = -1;

    // --- optimisation ------------------------------------------------------------------------
    std::string optimizer = "auto"; ///< SGD, Adam, AdamW or auto
    double lr0 = 0.01;
    double lrf = 0.01;
    double momentum = 0.937;
    double weight_decay = 0.0005;
    double warmup_epochs = 3.0;
    double warmup_momentum = 0.8;
    double warmup_bias_lr = 0.1;
    bool cos_lr = false;
    int nbs = 64; ///< nominal batch size; accumulate = max(round(nbs / batch), 1)
    double box = 7.5;
    double cls = 0.5;
    double dfl = 1.5;
    bool amp = true;
    std::vector<int> freeze; ///< layer indices to freeze; YAML accepts an int N (= first N)
    bool single_cls = false;

    // --- augmentation ------------------------------------------------------------------------
    double hsv_h = 0.015;
    double hsv_s = 0.7;
    double hsv_v = 0.4;
    double degrees = 0.0;
    double translate = 0.1;
    double scale = 0.5; ///< augmentation zoom gain (a letter as `scale` sets model_scale)
    double shear = 0.0;
    double perspective = 0.0;
    double flipud = 0.0;
    double fliplr = 0.5;
    double mosaic = 1.0;
    double mixup = 0.0;
    int close_mosaic = 10;
    std::string cache = "none"; ///< none | ram | disk (YAML also accepts true/false)
    bool rect = false;

    // --- validation --------------------------------------------------------------------------
    bool val = true;
    double conf = 0.001;
    double iou = 0.7;
    int max_det = 300;
    int val_batch = 0; ///< Headroom: validation batch; 0 = the training batch

    // --- Headroom: memory --------------------------------------------------------------------
    std::int64_t memory_budget = 0; ///< bytes the device may use; 0 = no budget
    Checkpointing checkpointing = Checkpointing::None;
    OomPolicy on_oom = OomPolicy::Ask;
    bool optimizer_offload = false; ///< keep optimizer state in host memory
    /// Ground-truth boxes per slice of the label assigner; 0 = automatic (slices of about 4 M
    /// batch x boxes x anchors values). Lower bounds the assignment's temporaries on crowded
    /// images; the targets are the same.
    int assign_chunk = 0;
    double memory_sample_hz = 20.0;

    // --- Headroom: distributed ---------------------------------------------------------------
    int nproc = 1;
    int zero = 0; ///< 1 = shard optimizer state across ranks
    bool sync_bn = false;

    bool operator==(const TrainConfig& other) const;
    bool operator!=(const TrainConfig& other) const { return !(*this == other); }
};

/// Result of parsing a config: the value (when usable) plus what was found wrong with it.
struct TrainConfigResult {
    std::optional<TrainConfig> config; ///< empty when any error was found
    Diagnostics diagnostics;           ///< warnings (unknown keys ...) and errors
};

/// Reads a train config YAML. Unknown keys are warnings naming the nearest known key; wrong
/// types and impossible values are errors naming the file, line and key.
TrainConfigResult loadTrainConfig(const std::string& path);

/// Parses YAML text; `sourceName` is used as the file name in diagnostics.
TrainConfigResult parseTrainConfig(const std::string& yamlText, const std::string& sourceName,
                                   const TrainConfig& base = TrainConfig{});

/// Applies one `key=value` override (command line / GUI) onto `config`. The value is read as a
/// YAML scalar or flow list ("true", "3GiB", "[0, 1]"); `-` in keys is read as `_`. Returns the
/// problems (file and line empty); an unknown key is an error here, an ignored Ultralytics key
/// a note. `config` is unchanged when there is an error.
Diagnostics applyOverride(TrainConfig& config, const std::string& key, const std::string& value);

/// Checks ranges and combinations (batch >= 1 or -1, imgsz a multiple of 32, lr0 > 0 ...).
Diagnostics validate(const TrainConfig& config, const std::string& sourceName = "");

/// The config as YAML text, every key written, in a stable order.
std::string toYaml(const TrainConfig& config);

/// Writes toYaml() atomically. Returns false and fills `error` on failure.
bool saveTrainConfig(const TrainConfig& config, const std::string& path, std::string* error);

/// Every YAML key a TrainConfig understands, in the order toYaml() writes them: each field's
/// name. On input `scale_aug` (the C++ name of `scale` before) is read as `scale`, and a
/// letter given as `scale` sets `model_scale`, as Ultralytics users write it.
const std::vector<std::string>& trainConfigKeys();

const char* toString(OomPolicy policy);
const char* toString(Checkpointing mode);

/// assign_chunk 0 (automatic): the label assigner slices the boxes so that no intermediate holds
/// more than about this many batch x boxes x anchors values (~100 MB of temporaries).
constexpr std::int64_t kAutoAssignChunkElements = std::int64_t(1) << 22;

/// Ground-truth boxes per assigner slice for `objects` boxes per image, `images` images per
/// step and `anchors` anchors per image: assign_chunk when set, else the automatic slice;
/// never more than `objects`, at least 1.
std::int64_t assignerBoxesPerSlice(int assignChunk, std::int64_t images, std::int64_t objects,
                                   std::int64_t anchors);

/// "ask" / "auto" / "stop" (any case); nothing for other text.
std::optional<OomPolicy> parseOomPolicy(const std::string& text);

/// "none" / "backbone" / "all" (also true = all, false = none); nothing for other text.
std::optional<Checkpointing> parseCheckpointing(const std::string& text);

} // namespace hr
