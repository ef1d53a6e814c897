// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>

namespace hr {

/// What a model's file name says about it, as Ultralytics' guess_model_scale reads it: the
/// family number after "yolo"/"yolov"/"yoloe-v" and the scale letter right after it
/// ("yolov8n.yaml": family 8, scale n; "yolov9c.pt": 9, c; "yolo11s": 11, s).
struct ModelName {
    int family = 0;                           ///< 0: the name has no "yolo<digits>"
    char scale = 0;                           ///< 0: no scale letter after the family
    std::size_t scalePos = std::string::npos; ///< where the letter sits in the name given
};

/// Reads the last path component of `name` (any case). Letters: n s m l x (YOLOv8, YOLO11) and
/// t c e (YOLOv9).
ModelName parseModelName(const std::string& name);

/// The scale letters that exist, smallest first within a family: "nsmlx" (YOLOv8) or
/// "tsmce" (YOLOv9); empty for a family Headroom has no scales of.
std::string scaleLettersOf(int family);

/// True for a letter some family uses as a scale (n s m l x t c e).
bool isScaleLetter(char letter);

/// "yolov8s.yaml" -> "yolov8.yaml" (and "yolov8s" -> "yolov8.yaml"): the unscaled file a scaled
/// name refers to, when the scale letter ends the name before an optional .yaml/.yml.
/// Empty when `name` is not of that form.
std::string unscaledModelFile(const std::string& name);

/// The model YAML that `name` (a name or a path) stands for: findModelFile(name), else the
/// unscaled file of a scaled name ("yolov8s.yaml": yolov8.yaml at scale 's').
struct ModelFileLookup {
    std::string path; ///< empty when no file matches
    char scale = 0;   ///< the scale the name asked for when the unscaled file was taken, else 0
};
ModelFileLookup lookUpModelFile(const std::string& name);

} // namespace hr
