// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/diagnostic.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hr {

/// The annotation formats Headroom turns into a YOLO data set.
enum class SourceFormat {
    Coco,            ///< COCO JSON (instances_*.json, Roboflow's _annotations.coco.json)
    Voc,             ///< Pascal VOC XML (Annotations/*.xml, or XML files beside the images)
    CvatYolo,        ///< CVAT "YOLO 1.1" export: obj.names, obj.data, train.txt, obj_*_data/
    LabelStudioYolo, ///< Label Studio "YOLO" export: classes.txt, notes.json, images/, labels/
    Folder,          ///< images/ and labels/ (or labels beside the images) without a data.yaml
};

/// "coco", "voc", "cvat-yolo", "labelstudio-yolo", "folder".
const char* toString(SourceFormat format);
std::optional<SourceFormat> parseSourceFormat(const std::string& text);
/// In words, e.g. "COCO JSON".
std::string describe(SourceFormat format);

/// Bounds of one COCO annotation file: its size, and the JSON values kept from it (masks'
/// "segmentation" lists are skipped, not kept). COCO's instances_train2017.json is 450 MB with
/// about 11 million values kept, which a DOM holds in about 1 GB.
inline constexpr std::uint64_t kMostCocoBytes = std::uint64_t(4) << 30;
inline constexpr std::uint64_t kMostCocoValues = 40'000'000;

struct ConvertOptions {
    bool skipDifficult = false; ///< VOC: leave out objects marked <difficult>1</difficult>
    /// Share of the images that go to val when the source has no validation split
    /// (Ultralytics' autosplit rule; 0.1 is its 90/10 default).
    double valFraction = 0.1;
    /// Folder: the class names (empty: classes.txt, else class0.. up to the largest id used).
    std::vector<std::string> names;
    /// Folders besides the input's that images may be read from (`convert --image-root`). By
    /// default an image entry that resolves outside the input folder is refused.
    std::vector<std::string> imageRoots;
    /// COCO: the largest annotation file read, and the most JSON values kept from one
    /// (kMostCocoBytes, kMostCocoValues; docs/decisions.md says why these).
    std::uint64_t mostJsonBytes = kMostCocoBytes;
    std::uint64_t mostJsonValues = kMostCocoValues;
    /// Called now and then with (images done, total); return false to cancel.
    std::function<bool(int done, int total)> progress;
};

/// What a conversion wrote and what it left out. On a fatal error (`error` set) nothing was
/// written: the output is assembled in a temporary folder and renamed into place at the end.
struct ConvertReport {
    /// What one split of the result holds.
    struct SplitCount {
        std::string split; ///< "train", "val", "test"
        int images = 0;
        int objects = -1;     ///< -1: not counted (the folder door lists images only)
        int backgrounds = -1; ///< -1: not counted
        std::string list;     ///< the folder door: the autosplit_*.txt written
    };

    std::string dataYaml;           ///< the data.yaml written ("" on failure)
    std::vector<SplitCount> splits; ///< in order train, val, test
    bool autosplit = false;         ///< val was drawn by autosplitAssignment
    double valFraction = 0.1;       ///< the share it drew with
    int classes = 0;                ///< classes in the data.yaml
    bool numberedNames = false;     ///< names are class0.. (no names were found or given)
    int labelledImages = -1;        ///< the folder door: images with a label file
    /// Every entry left out or changed, with its file and entry (annotation id, object
    /// number, line) and why; Notes for changes, Warnings for entries left out.
    Diagnostics problems;
    /// Counts of entries left out (or changed) by reason, e.g. {"crowd box (iscrowd 1)", 12}.
    std::vector<std::pair<std::string, int>> skipped;
    std::string error; ///< why nothing was written

    bool ok() const { return error.empty() && !dataYaml.empty(); }
    /// The report as text for `headroom-cli convert`: the splits written, skipped counts, then the
    /// first `maxProblems` problems.
    std::string format(size_t maxProblems = 20) const;
};

/// Converts `input` (a folder, or for COCO a JSON file) to a YOLO data set in `output`:
/// images/<split>/, labels/<split>/ and data.yaml (class ids 0..n-1; images are hard-linked
/// where the file system allows, else copied). A source without a validation split is split by
/// autosplitAssignment. `output` must be new, empty, or an earlier conversion (replaced whole).
/// Folder writes into `input` itself (see writeFolderDataYaml) and ignores `output`.
ConvertReport convertDataset(SourceFormat from, const std::string& input, const std::string& output,
                             const ConvertOptions& options = {});

/// The "open a folder without data.yaml" door: writes autosplit_train.txt and
/// autosplit_val.txt (Ultralytics' names and entry format, "./images/a.jpg") and a data.yaml
/// naming them into `folder`. Classes: options.names, else classes.txt (in the folder or its
/// labels/), else class0.. up to the largest class id in the label files.
ConvertReport writeFolderDataYaml(const std::string& folder, const ConvertOptions& options = {});

/// What a folder (or file) holds, as Open folder sees it.
struct FolderLayout {
    enum class Kind { DataYaml, Convertible, ImagesAndLabels, Nothing };
    Kind kind = Kind::Nothing;
    std::string dataYaml;               ///< DataYaml: the file to open
    std::optional<SourceFormat> format; ///< Convertible and ImagesAndLabels (Folder)
    std::string input;                  ///< what to convert (a folder, or a COCO JSON file)
    std::string description; ///< in words (English, for the CLI), e.g. "a Roboflow export"
    /// The annotation files found, relative to the folder (COCO: the JSON files; VOC: the
    /// annotations folder), for a GUI to word the description itself.
    std::vector<std::string> files;
    bool roboflow = false;          ///< DataYaml: its data.yaml has a `roboflow:` block
    bool labelStudio = false;       ///< ImagesAndLabels: classes.txt and notes.json beside them
    bool labelsBeside = false;      ///< ImagesAndLabels: labels next to the images, no labels/
    int images = 0;                 ///< images found (Convertible: annotated entries)
    std::vector<std::string> names; ///< class names found (ImagesAndLabels: suggested)
};

/// Looks at `path` and says which layout or format it holds. Reads names, counts images and
/// parses COCO/VOC headers only as far as needed; grows with the folder's size, so callers in a
/// GUI run it off the GUI thread.
FolderLayout detectLayout(const std::string& path);

/// The folder a conversion of `input` is written to by default: "<input>-yolo" beside it
/// (for a COCO JSON file: beside its folder).
std::string defaultConvertOutput(const std::string& input);

} // namespace hr
