// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/detection_model.h"

#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

namespace hr {

/// What wrote a weights file.
enum class WeightsFormat { Headroom, Ultralytics };

/// The architecture and (optionally) the tensors of a weights file, whatever wrote it: a
/// Headroom model or checkpoint, or an Ultralytics checkpoint saved by torch.save (yolov8n.pt,
/// best.pt, last.pt). On failure `error` names the file, says why and how to fix it.
struct WeightsFile {
    WeightsFormat format = WeightsFormat::Headroom;
    std::string yamlText;   ///< model YAML (for Ultralytics rebuilt from the checkpoint's dict)
    std::string sourceName; ///< the YAML's file name as the writer knew it ("yolov8n.yaml")
    std::string scale;      ///< scale letter, empty when the YAML has no scales
    int nc = 0;
    bool fused = false; ///< Conv+BatchNorm folded (and RepConv merged) for inference
    std::vector<std::string> classNames;
    /// float32 tensors under state-dict names (Ultralytics only; empty when read without them).
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    int trainedImgsz = 0; ///< the image size the weights were trained at (0 = not recorded)
    std::string producer; ///< "Ultralytics 8.4.52", "Headroom"
    std::string error;

    bool ok() const { return error.empty(); }
};

/// Reads `path`. `withTensors` false reads only the architecture (cheap for large files).
WeightsFile readWeightsFile(const std::string& path, bool withTensors);

/// How many of the model's tensors a weights file supplied, as Ultralytics reports it.
struct WeightTransfer {
    int transferred = 0;
    int total = 0;
    /// Model tensors left as initialised (missing from the file or of another shape).
    std::vector<std::string> skipped;
    /// "Transferred 349/355 items from yolov8n.pt".
    std::string summary;
    /// The class names the file was trained on (empty when it does not say).
    std::vector<std::string> classNames;
};

/// Copies every tensor of `file` whose name and shape match one of the model's parameters or
/// buffers (Ultralytics' intersect_dicts rule), so a checkpoint made for another class count
/// loads all but the head's class layers. A fused file is unfolded first: each folded conv
/// becomes conv + an identity BatchNorm carrying its bias, a merged RepConv its 3x3 branch
/// with a zero 1x1 branch; the outputs are unchanged and the model stays trainable.
WeightTransfer transferWeights(DetectionModel& model, const WeightsFile& file,
                               const std::string& fileName);

/// The first five class names, comma-separated, with ", ..." when there are more.
std::string classNamesPreview(const std::vector<std::string>& names);

/// A warning when a checkpoint's class names differ from the data set's, else "".
std::string classNamesMismatch(const std::vector<std::string>& checkpoint,
                               const std::vector<std::string>& data);

} // namespace hr
