// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli data-check: the validation report and statistics of a YOLO data set.
#include "command.h"
#include "common.h"

#include "config/data_config.h"
#include "data/convert.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"

#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace hr::cli {
namespace {

int runDataCheck(const ParsedArgs& args) {
    std::string yaml = args.value("--data");
    if (yaml.empty()) {
        std::string error;
        yaml = ensureBuiltinDataset(&error);
        if (yaml.empty()) {
            std::cerr << "data-check: " << error << "\n";
            return ExitFailure;
        }
        std::cerr << "data-check: no --data given, checking the built-in data set " << yaml << "\n";
    }
    std::error_code ec;
    const bool folderOrJson = std::filesystem::is_directory(yaml, ec) ||
                              (yaml.size() > 5 && yaml.compare(yaml.size() - 5, 5, ".json") == 0);
    if (const FolderLayout layout = folderOrJson ? detectLayout(yaml) : FolderLayout{};
        folderOrJson && layout.kind != FolderLayout::Kind::DataYaml) {
        // A folder (or a COCO file) instead of a data.yaml: say what it is and how to use it.
        if (layout.kind == FolderLayout::Kind::Nothing) {
            std::cerr << "data-check: " << yaml
                      << " is neither a data.yaml nor a folder holding one or a known export "
                         "(COCO, VOC, CVAT or Label Studio YOLO, images with YOLO labels)\n";
        } else {
            std::cerr << "data-check: " << yaml << " holds no data.yaml; it looks like "
                      << layout.description << ".\n  (fix: headroom-cli convert --from "
                      << toString(*layout.format) << " --in " << layout.input
                      << (layout.kind == FolderLayout::Kind::Convertible
                              ? " --out " + defaultConvertOutput(layout.input)
                              : std::string())
                      << ")\n";
        }
        return ExitFailure;
    } else if (folderOrJson) {
        yaml = layout.dataYaml;
    }
    DataConfigOptions configOptions;
    configOptions.datasetsDir =
        args.has("--datasets-dir") ? args.value("--datasets-dir") : defaultDatasetsDir();
    const DataConfigResult loaded = loadDataConfig(yaml, configOptions);
    std::cerr << formatDiagnostics(loaded.diagnostics);
    if (!loaded.config)
        return ExitFailure;
    const DataConfig& data = *loaded.config;

    std::vector<Split> splits;
    const std::string which = args.value("--split", "all");
    if (which == "train")
        splits = {Split::Train};
    else if (which == "val")
        splits = {Split::Val};
    else if (which == "test")
        splits = {Split::Test};
    else if (which == "all") {
        splits = {Split::Train, Split::Val};
        if (!data.test.empty())
            splits.push_back(Split::Test);
    } else {
        std::cerr << "data-check: --split must be train, val, test or all\n";
        return ExitUsage;
    }

    ScanOptions options;
    options.useCache = !args.has("--no-cache");
    options.deep = args.has("--deep");
    options.largeScanConfirmed = args.has("--yes");
    const bool tty = ::isatty(STDERR_FILENO);
    int usable = 0;
    std::cout << "data set: " << yaml << " (" << data.nc() << " classes)\n";
    std::cout << (options.deep ? "images: every image decoded\n"
                               : "images: headers checked (--deep decodes every image)\n");
    for (Split split : splits) {
        if (tty)
            options.progress = [split](int done, int total) {
                std::cerr << "\rchecking " << toString(split) << ": " << done << "/" << total
                          << std::flush;
                if (done == total)
                    std::cerr << "\r\033[K";
                return true;
            };
        const DatasetReport report = scanDataset(data, split, options);
        if (const Diagnostic* large = largeScanProblem(report)) {
            std::cerr << "data-check: " << large->toString() << "\n";
            return ExitUsage;
        }
        std::cout << formatReport(report);
        usable += static_cast<int>(report.images.size());
    }
    if (usable == 0) {
        std::cout << "result: nothing usable - no image could be read in the splits checked\n";
        return ExitFailure;
    }
    std::cout << "result: usable (" << usable << " images); problems above were handled as "
              << "stated and do not stop training\n";
    return ExitOk;
}

Command dataCheckCommand() {
    Command c(
        "data-check", runDataCheck,
        "Check a YOLO data set: every problem with file and line, and statistics",
        "headroom-cli data-check [--data data.yaml|DIR] [--split train|val|test|all] "
        "[--deep] [--no-cache] [--yes] [--datasets-dir DIR]",
        "Checks every image and every label line: unreadable, truncated or empty images, "
        "malformed lines, class ids outside names, coordinates outside [0, 1], zero-area boxes, "
        "duplicate rows, labels without images. An image is checked by its header (a JPEG's "
        "size, EXIF orientation, start of scan and end marker; a PNG's IHDR and chunks) and "
        "decoded only when the header cannot tell, or when it is not a JPEG or PNG; --deep "
        "decodes every image, to find files whose coded data is damaged (training replaces "
        "those with grey images). Each problem says what Headroom does about it when training "
        "(skips the image, drops the line, clips the box). Then: images, objects and images per "
        "class, box and image size distributions, and the largest number of objects in one "
        "image. Results are cached by file size and time, so a second check is fast (--deep "
        "uses only the cached checks of decoded images). A scan whose folders hold more than "
        "100000 files (path: / in data.yaml) stops unless --yes is given. Exits non-zero "
        "only when no image is usable or such a scan stopped.");
    c.options = {{"--data", "FILE", "data.yaml or its folder (default: the built-in data set)"},
                 {"--datasets-dir", "DIR",
                  "where a relative 'path' not beside data.yaml is looked for (default: "
                  "$HEADROOM_DATASETS_DIR, else Ultralytics' datasets_dir)"},
                 {"--split", "NAME", "train, val, test or all (default all)"},
                 {"--deep", "", "decode every image, not only its header (slower)"},
                 {"--no-cache", "", "ignore and do not write the label cache"},
                 largeScanOption()};
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(dataCheckCommand);

} // namespace hr::cli
