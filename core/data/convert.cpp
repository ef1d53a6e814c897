// SPDX-License-Identifier: GPL-3.0-or-later
// The converters' entry: formats by name, the report's text, and convertDataset().
#include "data/convert.h"

#include "data/convert_internal.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace hr {

using Severity = Diagnostic::Severity;

const char* toString(SourceFormat format) {
    switch (format) {
    case SourceFormat::Coco:
        return "coco";
    case SourceFormat::Voc:
        return "voc";
    case SourceFormat::CvatYolo:
        return "cvat-yolo";
    case SourceFormat::LabelStudioYolo:
        return "labelstudio-yolo";
    case SourceFormat::Folder:
        break;
    }
    return "folder";
}

std::optional<SourceFormat> parseSourceFormat(const std::string& text) {
    for (SourceFormat f : {SourceFormat::Coco, SourceFormat::Voc, SourceFormat::CvatYolo,
                           SourceFormat::LabelStudioYolo, SourceFormat::Folder})
        if (text == toString(f))
            return f;
    return std::nullopt;
}

std::string describe(SourceFormat format) {
    switch (format) {
    case SourceFormat::Coco:
        return "COCO JSON";
    case SourceFormat::Voc:
        return "Pascal VOC XML";
    case SourceFormat::CvatYolo:
        return "CVAT YOLO export";
    case SourceFormat::LabelStudioYolo:
        return "Label Studio YOLO export";
    case SourceFormat::Folder:
        break;
    }
    return "images and YOLO labels without a data.yaml";
}

std::string ConvertReport::format(size_t maxProblems) const {
    std::ostringstream out;
    for (const auto& s : splits) {
        out << "wrote " << s.split << ": " << convert::count(s.images, "image");
        if (!s.list.empty())
            out << " listed in " << s.list;
        if (s.objects >= 0)
            out << ", " << convert::count(s.objects, "object") << ", "
                << convert::count(s.backgrounds, "background");
        if (autosplit && s.split != "test")
            out << " (autosplit " << std::lround(100 * (1 - valFraction)) << "/"
                << std::lround(100 * valFraction) << ")";
        out << "\n";
    }
    if (!dataYaml.empty()) {
        out << "data.yaml with " << classes << (classes == 1 ? " class" : " classes");
        if (numberedNames)
            out << " (class0.. from the labels' ids; name them with --names or a classes.txt)";
        if (labelledImages >= 0) {
            int images = 0;
            for (const auto& s : splits)
                images += s.images;
            out << "; " << labelledImages << " of " << convert::count(images, "image")
                << " have a label file";
        }
        out << "\n";
    }
    for (const auto& [reason, count] : skipped)
        out << (count == 1 ? "1 entry" : std::to_string(count) + " entries") << ": " << reason
            << "\n";
    for (size_t i = 0; i < problems.size() && i < maxProblems; ++i)
        out << "  " << problems[i].toString() << "\n";
    if (problems.size() > maxProblems)
        out << "  ... and " << problems.size() - maxProblems << " more\n";
    if (!dataYaml.empty())
        out << "data set: " << dataYaml << "\n";
    return out.str();
}

ConvertReport convertDataset(SourceFormat from, const std::string& input, const std::string& output,
                             const ConvertOptions& options) {
    ConvertReport report;
    if (from == SourceFormat::Folder)
        return writeFolderDataYaml(input, options);
    std::error_code ec;
    if (!fs::exists(input, ec)) {
        report.error = input + " does not exist";
        return report;
    }
    if (output.empty()) {
        report.error = "no output folder given";
        return report;
    }
    const std::string in = convert::normalPath(input), out = convert::normalPath(output);
    if (out == in || (out + "/").rfind(in + "/", 0) == 0 || (in + "/").rfind(out + "/", 0) == 0) {
        report.error = "the output folder " + out + " must lie outside the input " + in +
                       " (and not contain it)";
        return report;
    }
    convert::Collected collected;
    // The readers see every allowed root, the input's first.
    ConvertOptions allowed = options;
    allowed.imageRoots = convert::imageRootsFor(in, options.imageRoots);
    bool ok = false;
    switch (from) {
    case SourceFormat::Coco:
        ok = convert::collectCoco(in, allowed, collected, report);
        break;
    case SourceFormat::Voc:
        ok = convert::collectVoc(in, allowed, collected, report);
        break;
    case SourceFormat::CvatYolo:
        ok = convert::collectCvatYolo(in, allowed, collected, report);
        break;
    case SourceFormat::LabelStudioYolo:
        ok = convert::collectLabelStudioYolo(in, allowed, collected, report);
        break;
    case SourceFormat::Folder:
        break;
    }
    // First: entries a reader refused may be why nothing else is left.
    ok = ok && convert::checkImageSources(collected, allowed.imageRoots, report);
    if (ok && collected.names.empty()) {
        report.error = "found no class names in " + in;
        ok = false;
    }
    if (ok)
        convert::writeYoloDataset(collected, from, in, out, options, report);
    return report;
}

} // namespace hr
