// SPDX-License-Identifier: GPL-3.0-or-later
// Where a conversion may read images from: the input folder and the roots the user named.
// An annotation file is someone else's data; a file_name of /etc/shadow or ../../x must not
// pull a file of this machine into the data set.
#include "data/convert_internal.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace hr::convert {

namespace {

bool isUnder(const std::string& path, const std::string& root) {
    if (root == "/")
        return true;
    return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                            path[root.size()] == '/');
}

// Pseudo file systems: reading them is never what an image entry means, and some never end.
bool isSystemPath(const std::string& path) {
    for (const char* root : {"/proc", "/dev", "/sys"})
        if (isUnder(path, root))
            return true;
    return false;
}

std::string resolved(const std::string& path) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? std::string() : normalPath(real);
}

} // namespace

std::vector<std::string> imageRootsFor(const std::string& input,
                                       const std::vector<std::string>& extra) {
    std::vector<std::string> roots;
    fs::path folder(normalPath(input));
    if (isFile(folder)) {
        folder = folder.parent_path();
        // COCO keeps its JSON in annotations/ beside the image folders.
        if (folder.filename() == "annotations")
            folder = folder.parent_path();
    }
    for (const std::string& root : extra)
        roots.push_back(root);
    roots.insert(roots.begin(), folder.string());
    for (std::string& root : roots)
        root = resolved(root);
    return roots;
}

std::string sourceInsideRoots(const std::string& source, const std::vector<std::string>& roots) {
    const std::string real = resolved(source);
    if (real.empty() || isSystemPath(real) || !isFile(real))
        return {};
    for (const std::string& root : roots)
        if (!root.empty() && !isSystemPath(root) && isUnder(real, root))
            return real;
    return {};
}

void refuseOutside(ConvertReport& report, const std::string& file, int line,
                   const std::string& entry, const std::string& source) {
    const std::string real = resolved(source);
    record(report, Diagnostic::Severity::Warning, kOutsideReason, file, line,
           (entry.empty() ? "" : entry + ": ") + "'" + source + "'" +
               (real.empty() || real == source ? "" : " (" + real + ")") +
               " lies outside the input folder: refused it");
}

bool checkImageSources(Collected& collected, const std::vector<std::string>& roots,
                       ConvertReport& report) {
    int refused = 0;
    for (const auto& [reason, count] : report.skipped)
        if (reason == kOutsideReason)
            refused += count;
    for (Part& part : collected.parts)
        for (Item& item : part.items) {
            const std::string real = sourceInsideRoots(item.source, roots);
            if (real.empty()) {
                refuseOutside(report, item.entryFile.empty() ? item.source : item.entryFile,
                              item.entryLine, item.entry, item.source);
                ++refused;
            }
            // Link what was checked, not a name a symlink could point elsewhere later.
            item.source = real;
        }
    if (refused == 0)
        return true;
    std::string first;
    for (const Diagnostic& d : report.problems)
        if (d.message.find("lies outside the input folder") != std::string::npos) {
            first = d.file + ": " + d.message;
            break;
        }
    report.error = "refused " + count(refused, "image entry") +
                   " whose file lies outside the input folder " + roots.front() +
                   " (first: " + first +
                   "); nothing was written. To read images from another folder, name it "
                   "explicitly (headroom-cli convert --image-root DIR)";
    return false;
}

} // namespace hr::convert
