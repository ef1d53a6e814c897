// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli convert: COCO JSON, Pascal VOC and annotation tools' YOLO exports to a YOLO
// data set; `--from folder` writes a missing data.yaml into an images/labels folder.
#include "command.h"

#include "data/convert.h"
#include "util/text.h"

#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace hr::cli {
namespace {

int runConvert(const ParsedArgs& args) {
    const std::string fromText = args.value("--from");
    const std::optional<SourceFormat> from = parseSourceFormat(fromText);
    if (!from) {
        std::cerr << "convert: --from must be coco, voc, cvat-yolo, labelstudio-yolo or folder"
                  << (fromText.empty() ? std::string() : ", got '" + fromText + "'") << "\n";
        return ExitUsage;
    }
    const std::string input = args.value("--in");
    if (input.empty()) {
        std::cerr << "convert: --in DIR|FILE is required (the export folder, or a COCO JSON)\n";
        return ExitUsage;
    }
    std::error_code ec;
    if (!std::filesystem::exists(input, ec)) {
        std::cerr << "convert: " << input << " does not exist\n";
        return ExitFailure;
    }
    std::string output = args.value("--out");
    if (*from == SourceFormat::Folder) {
        if (!output.empty()) {
            std::cerr << "convert: --from folder writes data.yaml into --in itself; leave out "
                         "--out\n";
            return ExitUsage;
        }
    } else if (output.empty()) {
        output = defaultConvertOutput(input);
        std::cerr << "convert: no --out given, writing to " << output << "\n";
    }
    ConvertOptions options;
    options.skipDifficult = args.has("--skip-difficult");
    if (args.has("--val")) {
        std::string error;
        const auto val = args.number("--val", &error);
        if (!val || *val < 0 || *val >= 1) {
            std::cerr << "convert: "
                      << (val ? "--val must be a share from 0 to below 1, e.g. 0.1" : error)
                      << "\n";
            return ExitUsage;
        }
        options.valFraction = *val;
    }
    if (args.has("--names"))
        for (const std::string& name : split(args.value("--names"), ','))
            if (!trim(name).empty())
                options.names.push_back(trim(name));
    if (args.has("--image-root")) {
        const std::string root = args.value("--image-root");
        if (!std::filesystem::is_directory(root, ec)) {
            std::cerr << "convert: --image-root " << root << " is not a folder\n";
            return ExitUsage;
        }
        options.imageRoots.push_back(root);
    }
    if (::isatty(STDERR_FILENO))
        options.progress = [](int done, int total) {
            std::cerr << "\rconverting: " << done << "/" << total << std::flush;
            if (done == total)
                std::cerr << "\r\033[K";
            return true;
        };
    const ConvertReport report = convertDataset(*from, input, output, options);
    if (!report.ok()) {
        std::cerr << "convert: " << report.error << "\n";
        if (!report.problems.empty())
            std::cerr << report.format();
        return ExitFailure;
    }
    std::cout << report.format();
    std::cout << "next: headroom-cli data-check --data " << report.dataYaml << "\n";
    return ExitOk;
}

Command convertCommand() {
    Command c(
        "convert", runConvert,
        "Convert COCO JSON, Pascal VOC, CVAT or Label Studio YOLO exports to YOLO",
        "headroom-cli convert --from coco|voc|cvat-yolo|labelstudio-yolo|folder "
        "--in DIR|FILE [--out DIR] [--image-root DIR] [--skip-difficult] [--val 0.1] "
        "[--names a,b]",
        "Writes a YOLO data set (images/<split>, labels/<split>, data.yaml) to --out "
        "(default: <in>-yolo beside the input). COCO: category ids become 0..n-1 in id order "
        "with their names; crowd boxes are left out and counted; images without annotations "
        "are kept as backgrounds. VOC: classes are the names the XML files use, in "
        "alphabetical order; ImageSets/Main/{train,val,test}.txt choose the splits when "
        "present. CVAT 'YOLO 1.1' (obj.names, obj.data, train.txt) and Label Studio 'YOLO' "
        "(classes.txt, images/, labels/) exports are copied with their labels. A source "
        "without a validation split is split by Ultralytics' autosplit rule (--val share, "
        "default 0.1). Everything left out is listed with its file and entry. The result is "
        "built in a temporary folder and renamed into place, so a failed run leaves nothing; "
        "images are hard-linked where possible, and only from the input folder (an entry whose "
        "file resolves elsewhere, through .., an absolute path or a symlink, refuses the "
        "conversion) or the one folder --image-root names; /proc, /dev and /sys never. "
        "--from folder writes autosplit_train.txt, "
        "autosplit_val.txt and data.yaml into an images/labels folder that has no data.yaml "
        "(classes: --names, else classes.txt, else class0.. up to the largest id).");
    c.options = {
        {"--from", "FORMAT", "coco, voc, cvat-yolo, labelstudio-yolo or folder"},
        {"--in", "PATH", "the export folder (COCO: also a single .json)"},
        {"--out", "DIR", "where the YOLO data set goes (new, empty, or an earlier conversion)"},
        {"--image-root", "DIR", "a second folder images may be read from (default: only --in)"},
        {"--skip-difficult", "", "VOC: leave out objects marked difficult"},
        {"--val", "SHARE", "share of images for val when the source has none (default 0.1)"},
        {"--names", "A,B", "folder and labelstudio-yolo: the class names, in id order"}};
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(convertCommand);

} // namespace hr::cli
