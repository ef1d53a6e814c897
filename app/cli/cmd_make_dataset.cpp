// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli make-dataset: writes the synthetic detection data set in YOLO layout.
#include "command.h"
#include "common.h"

#include "data/synthetic_dataset.h"

#include <iostream>

namespace hr::cli {
namespace {

const IntegerOptionReader readCount{"make-dataset"};

int runMakeDataset(const ParsedArgs& args) {
    if (!args.has("--out") || args.value("--out").empty()) {
        std::cerr << "make-dataset: --out DIR is required\n";
        return ExitUsage;
    }
    SyntheticOptions options;
    long long train = options.train, val = options.val, imgsz = options.imgsz, seed = 0,
              classes = options.classes;
    if (!readCount(args, "--train", 1, train) || !readCount(args, "--val", 0, val) ||
        !readCount(args, "--imgsz", 32, imgsz) || !readCount(args, "--seed", 0, seed) ||
        !readCount(args, "--classes", 1, classes))
        return ExitUsage;
    const long long allClasses = static_cast<long long>(syntheticClassNames().size());
    if (classes > allClasses) {
        std::cerr << "make-dataset: --classes " << classes << " is more than the " << allClasses
                  << " shape classes there are (give 1.." << allClasses << ")\n";
        return ExitUsage;
    }
    options.classes = static_cast<int>(classes);
    options.train = static_cast<int>(train);
    options.val = static_cast<int>(val);
    options.imgsz = static_cast<int>(imgsz);
    options.seed = static_cast<std::uint64_t>(seed);
    const std::string out = args.value("--out");
    std::string error;
    if (!makeSyntheticDataset(out, options, &error)) {
        std::cerr << "make-dataset: " << error << "\n";
        return ExitFailure;
    }
    std::cout << "wrote " << options.train << " train and " << options.val << " val images of "
              << options.imgsz << " px (seed " << options.seed << ", " << options.classes
              << " classes) to " << out << "\n"
              << "data set: " << out << "/data.yaml\n";
    return ExitOk;
}

Command makeDatasetCommand() {
    Command c(
        "make-dataset", runMakeDataset,
        "Write the built-in synthetic detection data set (YOLO format)",
        "headroom-cli make-dataset --out DIR [--train N] [--val M] [--imgsz S] [--seed K] "
        "[--classes C]",
        "Renders shapes of several classes (circle, square, triangle, star, cross, ellipse, "
        "hexagon) with varied size, colour, rotation and partial overlap on textured "
        "backgrounds with unlabelled clutter, and writes images/{train,val}, labels/{train,val} "
        "and data.yaml under DIR. The same options give byte-identical files.");
    c.options = {{"--out", "DIR", "folder to write (created when missing)"},
                 {"--train", "N", "training images (default 256)"},
                 {"--val", "M", "validation images (default 64)"},
                 {"--imgsz", "S", "image side in pixels (default 320)"},
                 {"--seed", "K", "random seed (default 0)"},
                 {"--classes", "C", "draw only the first C shape classes (default all 7)"}};
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeDatasetCommand);

} // namespace hr::cli
