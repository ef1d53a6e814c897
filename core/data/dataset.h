// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/data_config.h"
#include "data/label.h"
#include "util/diagnostic.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hr {

enum class Split { Train, Val, Test };

/// "train", "val" or "test".
const char* toString(Split split);

/// One usable image of a data set, after validation.
struct ImageRecord {
    std::string imagePath;
    std::string labelPath; ///< where its label file is (or would be: missing = background)
    int width = 0;         ///< after EXIF orientation
    int height = 0;
    std::vector<LabelBox> labels; ///< checked, clipped and de-duplicated
};

/// What a split holds. Histogram bins are documented next to each field.
struct DatasetStats {
    int images = 0;      ///< usable images
    int backgrounds = 0; ///< usable images without any object
    int skipped = 0;     ///< images left out because they could not be read
    int instances = 0;   ///< objects in all usable images
    std::vector<int> instancesPerClass;
    std::vector<int> imagesPerClass; ///< images holding at least one object of the class
    int maxObjectsPerImage = 0;      ///< the memory forecast sizes target tensors with it
    /// Box width / height relative to the image, in ten bins of 0.1 (the last includes 1.0).
    std::array<int, 10> boxWidthHistogram{};
    std::array<int, 10> boxHeightHistogram{};
    /// Longer image side: <= 256, <= 512, <= 1024, <= 2048, larger.
    std::array<int, 5> imageSizeHistogram{};
    int minWidth = 0, maxWidth = 0, minHeight = 0, maxHeight = 0;
};

/// Files a scan walks in the split's folders before it stops unless confirmed: `path: /` in a
/// data.yaml would otherwise walk the whole machine without a word.
constexpr std::int64_t kLargeScanFiles = 100000;

struct ScanOptions {
    bool singleCls = false; ///< every class becomes class 0 ("item")
    double fraction = 1.0;  ///< use the first round(n * fraction) images, like Ultralytics
    bool useCache = true;   ///< read and write the label cache
    /// Decode every image (`data-check --deep`) instead of checking its header: slower, and
    /// finds files whose coded data is damaged before training does. A deep scan takes from the
    /// label cache only the checks of images that were decoded.
    bool deep = false;
    /// The person asked for a scan past the file limit (`--yes`, the studio's question). Without
    /// it such a scan stops with the error `scan_too_large` (largeScanProblem()).
    bool largeScanConfirmed = false;
    /// The file limit; 0 is kLargeScanFiles, or $HEADROOM_SCAN_FILE_LIMIT, which only tests set.
    std::int64_t fileLimit = 0;
    /// Called now and then with (images done, total); return false to cancel the scan.
    std::function<bool(int done, int total)> progress;
};

/// The result of scanning one split: its usable images, every problem found (with file and,
/// for labels, line, and what Headroom did about it), and statistics.
struct DatasetReport {
    Split split = Split::Train;
    std::vector<ImageRecord> images;
    Diagnostics problems; ///< Notes and Warnings per file; Errors when the split is unusable
    DatasetStats stats;
    std::vector<std::string> names; ///< class names (["item"] with singleCls)
    int cacheHits = 0;              ///< images whose checks came from the label cache
    std::string cachePath;          ///< the label cache used ("" when none)

    bool usable() const { return !images.empty(); }
};

/// Finds the images of `split` (folders searched recursively, .txt lists, single files), pairs
/// each with its label file, checks every image's header (or decodes it: ScanOptions::deep,
/// ImageCheck in image_io.h) and every label line. Bad input
/// never throws: it becomes a problem in the report. Results are kept in a label cache (next to
/// the labels folder, or under the Headroom cache folder when that is read-only), keyed by the
/// size and modification time of each image and label file, so a second scan is fast.
DatasetReport scanDataset(const DataConfig& data, Split split, const ScanOptions& options = {});

/// The scan's `scan_too_large` error (its folders hold more files than ScanOptions allows
/// unconfirmed), or nullptr. It names data.yaml's `path` and says to pass --yes.
const Diagnostic* largeScanProblem(const DatasetReport& report);

/// The report as text for `headroom-cli data-check`: counts, statistics, then every problem.
std::string formatReport(const DatasetReport& report);

} // namespace hr
