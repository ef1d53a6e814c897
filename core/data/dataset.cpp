// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/dataset.h"

#include "data/image_io.h"
#include "data/image_list.h"
#include "data/label_cache.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_set>

namespace fs = std::filesystem;

namespace hr {

namespace {

using Severity = Diagnostic::Severity;

// Coordinates this far outside [0, 1] are rounding noise: clipped without a note.
constexpr float kClipTolerance = 1e-4f;

/// A scan problem: the CLI's English, and a code with its values for a UI that words it in its
/// own language (ui/diagnosticwording.cpp lists the codes).
Diagnostic problem(Severity severity, const std::string& file, int line, const std::string& code,
                   std::vector<std::string> args, const std::string& message,
                   const std::string& fix = {}) {
    Diagnostic d = makeDiagnostic(severity, file, line, {}, message, fix);
    d.code = code;
    d.args = std::move(args);
    return d;
}

bool parseNumber(const std::string& word, double& value) {
    const char* begin = word.data();
    const char* end = begin + word.size();
    if (begin != end && *begin == '+')
        ++begin;
    const auto result = std::from_chars(begin, end, value);
    return result.ec == std::errc() && result.ptr == end && std::isfinite(value);
}

std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    std::string w;
    while (in >> w)
        out.push_back(w);
    return out;
}

/// The 1-based line of the first byte that no text label file holds (a NUL or another control
/// character, or a byte that is not UTF-8), 0 when the text is clean.
int firstBinaryLine(const std::string& text) {
    int line = 1;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            continue;
        }
        if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v')
            return line;
        if (c < 0x80)
            continue;
        // A UTF-8 sequence: a lead byte and its continuation bytes (a BOM or a comment's words).
        const int more = c >= 0xF0 && c < 0xF5 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : -1;
        if (more < 0 || i + static_cast<size_t>(more) >= text.size())
            return line;
        for (int k = 1; k <= more; ++k)
            if ((static_cast<unsigned char>(text[i + static_cast<size_t>(k)]) & 0xC0) != 0x80)
                return line;
        i += static_cast<size_t>(more);
    }
    return 0;
}

/// Checks every line of a label file; appends the boxes kept and a problem per line changed.
/// A file that is not text (binary data: a copied image, a damaged disk) gets one problem
/// instead of one per line of garbage, and no boxes.
void parseLabels(const std::string& path, const std::string& text, int nc,
                 std::vector<LabelBox>& boxes, Diagnostics& problems) {
    if (const int binary = firstBinaryLine(text); binary > 0) {
        problems.push_back(
            problem(Severity::Warning, path, binary, "label_binary", {std::to_string(binary)},
                    "the label file holds binary data, not text (from line " +
                        std::to_string(binary) + "): used the image as a background image",
                    "replace it with a text file of 'class cx cy w h' lines, or delete it"));
        return;
    }
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    int polygons = 0;
    const std::string range = nc > 0 ? "0.." + std::to_string(nc - 1) : "none";
    while (std::getline(in, line)) {
        ++lineNo;
        const std::vector<std::string> cols = words(line);
        if (cols.empty())
            continue;
        const bool polygon = cols.size() >= 7 && cols.size() % 2 == 1;
        if (cols.size() != 5 && !polygon) {
            problems.push_back(problem(
                Severity::Warning, path, lineNo, "label_columns", {std::to_string(cols.size())},
                "expected 5 columns 'class cx cy w h', found " + std::to_string(cols.size()) +
                    ": dropped the line",
                "write one object per line as 'class cx cy w h' with coordinates in 0..1"));
            continue;
        }
        std::vector<double> v(cols.size());
        bool numeric = true;
        for (size_t i = 0; i < cols.size() && numeric; ++i) {
            if (!parseNumber(cols[i], v[i])) {
                numeric = false;
                problems.push_back(problem(Severity::Warning, path, lineNo, "label_not_number",
                                           {std::to_string(i + 1), cols[i]},
                                           "column " + std::to_string(i + 1) + " '" + cols[i] +
                                               "' is not a number: dropped the line"));
            }
        }
        if (!numeric)
            continue;
        if (v[0] != std::floor(v[0]) || v[0] < 0 || v[0] >= nc) {
            problems.push_back(
                problem(Severity::Warning, path, lineNo, "label_class", {cols[0], range},
                        "class id " + cols[0] + " is not one of the classes in names (" + range +
                            "): dropped the line",
                        "fix the class id or add the class to 'names' in data.yaml"));
            continue;
        }
        double x1, y1, x2, y2;
        if (polygon) {
            // A segmentation polygon: its bounding box is the detection label.
            ++polygons;
            x1 = y1 = 1e30;
            x2 = y2 = -1e30;
            for (size_t i = 1; i + 1 < v.size(); i += 2) {
                x1 = std::min(x1, v[i]), x2 = std::max(x2, v[i]);
                y1 = std::min(y1, v[i + 1]), y2 = std::max(y2, v[i + 1]);
            }
        } else {
            if (v[3] <= 0.0 || v[4] <= 0.0) {
                problems.push_back(problem(Severity::Warning, path, lineNo, "box_size",
                                           {cols[3], cols[4]},
                                           "box has zero or negative size (w " + cols[3] + ", h " +
                                               cols[4] + "): dropped the line"));
                continue;
            }
            x1 = v[1] - v[3] / 2, x2 = v[1] + v[3] / 2;
            y1 = v[2] - v[4] / 2, y2 = v[2] + v[4] / 2;
        }
        const double overshoot = std::max({-x1, -y1, x2 - 1.0, y2 - 1.0, 0.0});
        const double cx1 = std::clamp(x1, 0.0, 1.0), cx2 = std::clamp(x2, 0.0, 1.0);
        const double cy1 = std::clamp(y1, 0.0, 1.0), cy2 = std::clamp(y2, 0.0, 1.0);
        if (cx2 - cx1 <= 0.0 || cy2 - cy1 <= 0.0) {
            problems.push_back(problem(Severity::Warning, path, lineNo,
                                       overshoot > 0 ? "box_outside" : "box_zero_area", {},
                                       overshoot > 0 ? "box lies outside the image: dropped "
                                                       "the line"
                                                     : "box has zero area: dropped the line"));
            continue;
        }
        if (overshoot > kClipTolerance)
            problems.push_back(
                problem(Severity::Note, path, lineNo, "box_clipped", {},
                        "coordinates outside [0, 1]: clipped the box to the image",
                        "YOLO labels are normalised: divide pixel coordinates by the image size"));
        LabelBox box;
        box.cls = static_cast<int>(v[0]);
        box.cx = static_cast<float>((cx1 + cx2) / 2);
        box.cy = static_cast<float>((cy1 + cy2) / 2);
        box.w = static_cast<float>(cx2 - cx1);
        box.h = static_cast<float>(cy2 - cy1);
        const bool duplicate = std::any_of(boxes.begin(), boxes.end(), [&](const LabelBox& b) {
            return b.cls == box.cls && b.cx == box.cx && b.cy == box.cy && b.w == box.w &&
                   b.h == box.h;
        });
        if (duplicate) {
            problems.push_back(problem(Severity::Note, path, lineNo, "box_duplicate", {},
                                       "duplicate of an earlier row: dropped the line"));
            continue;
        }
        boxes.push_back(box);
    }
    if (polygons > 0)
        problems.push_back(problem(
            Severity::Note, path, 0, "label_polygons", {std::to_string(polygons)},
            std::to_string(polygons) + " polygon rows (segmentation labels): used the bounding "
                                       "box of each"));
}

/// Checks one image and its label file.
CachedScan checkImage(const std::string& imagePath, int nc, ImageCheck check) {
    CachedScan e;
    e.record.imagePath = imagePath;
    e.record.labelPath = labelPathForImage(imagePath);
    e.image = FileStamp::of(imagePath);
    e.label = FileStamp::of(e.record.labelPath);
    const ImageProbe image = probeImage(imagePath, check);
    e.decoded = image.decoded;
    if (!image.ok()) {
        e.problems.push_back(problem(Severity::Warning, imagePath, 0, "image_unreadable",
                                     {image.reason}, image.error + ": skipped the image",
                                     "replace or delete the file"));
        return e;
    }
    if (!image.note.empty())
        e.problems.push_back(
            problem(Severity::Note, imagePath, 0, "jpeg_truncated", {}, image.note));
    e.record.width = image.width;
    e.record.height = image.height;
    e.usable = true;
    if (e.label.size >= 0) {
        std::string text;
        if (!readFile(e.record.labelPath, text)) {
            e.problems.push_back(problem(Severity::Warning, e.record.labelPath, 0,
                                         "label_unreadable", {},
                                         "cannot read the label file: used the image as a "
                                         "background image"));
            return e;
        }
        parseLabels(e.record.labelPath, text, nc, e.record.labels, e.problems);
    }
    return e;
}

std::string absolutePath(const fs::path& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    return (ec ? p : a).lexically_normal().string();
}

/// A walked entry that is a regular file; a broken link is not, and does not end the walk.
bool isRegularEntry(const fs::directory_entry& entry) {
    std::error_code ec; // its own: the walk's error code ends the walk
    return entry.is_regular_file(ec);
}

std::int64_t fileLimit(const ScanOptions& options) {
    const char* env = std::getenv("HEADROOM_SCAN_FILE_LIMIT"); // set by tests only
    const long long fromEnv = env ? std::atoll(env) : 0;
    return options.fileLimit > 0 ? options.fileLimit : fromEnv > 0 ? fromEnv : kLargeScanFiles;
}

/// Collects image paths from the split's sources; problems for sources that do not exist.
std::vector<std::string> collectImages(const std::vector<std::string>& sources,
                                       const DataConfig& data, const ScanOptions& options,
                                       Diagnostics& problems, std::vector<std::string>& imageDirs) {
    std::vector<std::string> images;
    const std::string yaml = data.yamlPath;
    const std::int64_t limit = options.largeScanConfirmed ? -1 : fileLimit(options);
    std::int64_t walked = 0;
    for (const std::string& source : sources) {
        std::error_code ec;
        const fs::path p(source);
        if (fs::is_directory(p, ec)) {
            imageDirs.push_back(absolutePath(p));
            std::vector<std::string> found;
            for (auto it = fs::recursive_directory_iterator(
                     p, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (limit >= 0 && ++walked > limit) {
                    const std::string n = std::to_string(limit);
                    problems.push_back(problem(
                        Severity::Error, yaml, 0, "scan_too_large", {data.root, n},
                        "'" + data.root + "' holds more than " + n +
                            " files, so the scan stopped there; pass --yes to scan them all, "
                            "or point path at the data set's own folder"));
                    problems.back().key = "path";
                    return {};
                }
                if (isRegularEntry(*it) && isImageFile(it->path().string()))
                    found.push_back(absolutePath(it->path()));
            }
            std::sort(found.begin(), found.end());
            if (found.empty()) {
                const std::string extensions = ".jpg .jpeg .png .bmp .webp .tif";
                problems.push_back(problem(Severity::Warning, source, 0, "folder_no_images",
                                           {extensions},
                                           "the folder holds no images (" + extensions + ")"));
            }
            images.insert(images.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(p, ec) && isImageFile(source)) {
            images.push_back(absolutePath(p));
        } else if (fs::is_regular_file(p, ec)) {
            // A .txt list of images, relative entries resolved against the list's folder.
            readImageList(source, [&](const std::string& line, int lineNo) {
                fs::path entry(line);
                if (entry.is_relative())
                    entry = p.parent_path() / entry;
                if (!fs::is_regular_file(entry, ec))
                    problems.push_back(
                        problem(Severity::Warning, source, lineNo, "listed_image_missing", {line},
                                "listed image '" + line + "' does not exist: skipped it"));
                else
                    images.push_back(absolutePath(entry));
            });
        } else {
            problems.push_back(problem(Severity::Error, yaml, 0, "source_missing", {source},
                                       "'" + source + "' does not exist",
                                       "correct 'path' and the split entries in data.yaml"));
        }
    }
    // The same image listed twice would be trained twice as often.
    std::vector<std::string> unique;
    std::unordered_set<std::string> seen;
    for (auto& image : images)
        if (seen.insert(image).second)
            unique.push_back(std::move(image));
    return unique;
}

/// Label files in the labels folder of each image folder that belong to no image.
void findOrphanLabels(const std::vector<std::string>& imageDirs,
                      const std::vector<std::string>& images, Diagnostics& problems) {
    std::unordered_set<std::string> expected;
    for (const auto& image : images)
        expected.insert(labelPathForImage(image));
    std::set<std::string> visited;
    for (const auto& dir : imageDirs) {
        const fs::path labels = fs::path(labelPathForImage(dir + "/x.jpg")).parent_path();
        std::error_code ec;
        if (labels == fs::path(dir) || !fs::is_directory(labels, ec) ||
            !visited.insert(labels.string()).second)
            continue;
        std::vector<std::string> orphans;
        for (auto it = fs::recursive_directory_iterator(
                 labels, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const fs::path& f = it->path();
            if (f.extension() == ".txt" && f.filename() != "classes.txt" && isRegularEntry(*it) &&
                !expected.count(absolutePath(f)))
                orphans.push_back(absolutePath(f));
        }
        std::sort(orphans.begin(), orphans.end());
        for (const auto& o : orphans)
            problems.push_back(problem(Severity::Note, o, 0, "orphan_label", {},
                                       "label file without an image: ignored it",
                                       "add the image or delete the label file"));
    }
}

std::string cacheFileFor(const std::vector<std::string>& images) {
    // Like Ultralytics' labels/train.cache: one file next to the first labels folder.
    const fs::path labels = fs::path(labelPathForImage(images.front())).parent_path();
    return labels.string() + ".headroom-cache";
}

std::string fallbackCacheFile(const std::string& preferred) {
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a of the preferred path
    for (unsigned char c : preferred)
        h = (h ^ c) * 1099511628211ULL;
    std::ostringstream name;
    name << std::hex << h << ".cache";
    return (fs::path(headroomCacheDir()) / "labels" / name.str()).string();
}

void computeStats(DatasetReport& report) {
    DatasetStats& s = report.stats;
    const size_t nc = report.names.size();
    s.instancesPerClass.assign(nc, 0);
    s.imagesPerClass.assign(nc, 0);
    s.images = static_cast<int>(report.images.size());
    bool first = true;
    for (const auto& r : report.images) {
        if (r.labels.empty())
            ++s.backgrounds;
        s.instances += static_cast<int>(r.labels.size());
        s.maxObjectsPerImage = std::max(s.maxObjectsPerImage, static_cast<int>(r.labels.size()));
        std::vector<bool> present(nc, false);
        for (const auto& b : r.labels) {
            if (b.cls >= 0 && static_cast<size_t>(b.cls) < nc) {
                ++s.instancesPerClass[b.cls];
                present[b.cls] = true;
            }
            s.boxWidthHistogram[std::clamp(static_cast<int>(b.w * 10), 0, 9)]++;
            s.boxHeightHistogram[std::clamp(static_cast<int>(b.h * 10), 0, 9)]++;
        }
        for (size_t c = 0; c < nc; ++c)
            s.imagesPerClass[c] += present[c] ? 1 : 0;
        const int longer = std::max(r.width, r.height);
        const int bin = longer <= 256    ? 0
                        : longer <= 512  ? 1
                        : longer <= 1024 ? 2
                        : longer <= 2048 ? 3
                                         : 4;
        s.imageSizeHistogram[bin]++;
        if (first) {
            s.minWidth = s.maxWidth = r.width;
            s.minHeight = s.maxHeight = r.height;
            first = false;
        }
        s.minWidth = std::min(s.minWidth, r.width), s.maxWidth = std::max(s.maxWidth, r.width);
        s.minHeight = std::min(s.minHeight, r.height);
        s.maxHeight = std::max(s.maxHeight, r.height);
    }
}

} // namespace

const char* toString(Split split) {
    switch (split) {
    case Split::Train:
        return "train";
    case Split::Val:
        return "val";
    default:
        return "test";
    }
}

DatasetReport scanDataset(const DataConfig& data, Split split, const ScanOptions& options) {
    DatasetReport report;
    report.split = split;
    report.names = data.names;
    const std::vector<std::string>& sources = split == Split::Train ? data.train
                                              : split == Split::Val ? data.val
                                                                    : data.test;
    if (sources.empty()) {
        report.problems.push_back(
            problem(split == Split::Test ? Severity::Note : Severity::Error, data.yamlPath, 0,
                    "split_missing", {toString(split)},
                    std::string("the data set has no '") + toString(split) + "' split",
                    split == Split::Test ? ""
                                         : std::string("add '") + toString(split) + ": images/" +
                                               toString(split) + "' to data.yaml"));
        computeStats(report);
        return report;
    }

    std::vector<std::string> imageDirs;
    auto images = collectImages(sources, data, options, report.problems, imageDirs);
    if (largeScanProblem(report)) {
        computeStats(report);
        return report;
    }
    findOrphanLabels(imageDirs, images, report.problems);
    if (options.fraction < 1.0) {
        const auto keep =
            static_cast<size_t>(std::llround(images.size() * std::max(0.0, options.fraction)));
        images.resize(std::min(images.size(), keep));
    }

    LabelCache cache(data.nc());
    if (options.useCache && !images.empty()) {
        report.cachePath = cacheFileFor(images);
        if (!cache.load(report.cachePath)) {
            const std::string fallback = fallbackCacheFile(report.cachePath);
            if (cache.load(fallback))
                report.cachePath = fallback;
        }
    }

    bool changed = false;
    LabelCache current(data.nc()); // only the images scanned now: deleted ones drop out
    const int total = static_cast<int>(images.size());
    // Images the cache does not answer are checked on several threads, a chunk at a time; the
    // report keeps the images' order.
    const int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    constexpr int kChunk = 256;
    std::vector<CachedScan> fresh;
    std::vector<const CachedScan*> hits;
    for (int start = 0; start < total; start += kChunk) {
        if (options.progress && !options.progress(start, total)) {
            report.problems.push_back(problem(Severity::Error, data.yamlPath, 0, "scan_cancelled",
                                              {}, "the scan was cancelled"));
            report.images.clear();
            computeStats(report);
            return report;
        }
        const int count = std::min(kChunk, total - start);
        hits.assign(size_t(count), nullptr);
        fresh.assign(size_t(count), CachedScan{});
        std::vector<int> misses;
        for (int k = 0; k < count; ++k) {
            const std::string& path = images[size_t(start + k)];
            if (options.useCache)
                hits[size_t(k)] = cache.find(path, FileStamp::of(path),
                                             FileStamp::of(labelPathForImage(path)), options.deep);
            if (!hits[size_t(k)])
                misses.push_back(k);
        }
        std::atomic<size_t> next{0};
        const ImageCheck check = options.deep ? ImageCheck::Decode : ImageCheck::Header;
        const auto work = [&] {
            for (size_t m = next++; m < misses.size(); m = next++)
                fresh[size_t(misses[m])] =
                    checkImage(images[size_t(start + misses[m])], data.nc(), check);
        };
        std::vector<std::thread> pool;
        for (int t = 1; t < std::min<int>(threads, int(misses.size())); ++t)
            pool.emplace_back(work);
        work();
        for (auto& t : pool)
            t.join();
        changed = changed || !misses.empty();
        for (int k = 0; k < count; ++k) {
            const CachedScan* hit = hits[size_t(k)];
            if (hit)
                ++report.cacheHits;
            const CachedScan& entry = hit ? *hit : fresh[size_t(k)];
            report.problems.insert(report.problems.end(), entry.problems.begin(),
                                   entry.problems.end());
            if (entry.usable)
                report.images.push_back(entry.record);
            else
                ++report.stats.skipped;
            if (options.useCache)
                current.put(images[size_t(start + k)], hit ? *hit : std::move(fresh[size_t(k)]));
        }
    }
    if (options.progress)
        options.progress(total, total);

    if (options.useCache && (changed || current.size() != cache.size())) {
        std::string error;
        if (!current.save(report.cachePath, &error)) {
            const std::string fallback = fallbackCacheFile(report.cachePath);
            report.cachePath = current.save(fallback, &error) ? fallback : std::string();
        }
    }

    if (options.singleCls) {
        report.names = {"item"};
        for (auto& r : report.images)
            for (auto& b : r.labels)
                b.cls = 0;
    }
    if (report.images.empty())
        report.problems.push_back(
            problem(Severity::Error, data.yamlPath, 0, "no_usable_images", {toString(split)},
                    std::string("no usable image in the '") + toString(split) + "' split",
                    "check the paths in data.yaml and the problems above"));
    const int skipped = report.stats.skipped;
    computeStats(report);
    report.stats.skipped = skipped;
    return report;
}

const Diagnostic* largeScanProblem(const DatasetReport& report) {
    const auto it = std::find_if(report.problems.begin(), report.problems.end(),
                                 [](const Diagnostic& d) { return d.code == "scan_too_large"; });
    return it == report.problems.end() ? nullptr : &*it;
}

std::string formatReport(const DatasetReport& report) {
    const DatasetStats& s = report.stats;
    std::ostringstream out;
    out << "split '" << toString(report.split) << "': " << s.images << " usable images ("
        << s.backgrounds << " backgrounds), " << s.skipped << " skipped, " << s.instances
        << " objects";
    if (report.cacheHits > 0)
        out << "; " << report.cacheHits << " checks from the label cache";
    out << "\n";
    if (s.images > 0) {
        out << "  image size: width " << s.minWidth << ".." << s.maxWidth << ", height "
            << s.minHeight << ".." << s.maxHeight
            << "; longer side <=256: " << s.imageSizeHistogram[0]
            << ", <=512: " << s.imageSizeHistogram[1] << ", <=1024: " << s.imageSizeHistogram[2]
            << ", <=2048: " << s.imageSizeHistogram[3] << ", larger: " << s.imageSizeHistogram[4]
            << "\n";
        out << "  most objects in one image: " << s.maxObjectsPerImage << "\n";
        out << "  " << std::left << std::setw(20) << "class" << std::right << std::setw(10)
            << "objects" << std::setw(10) << "images"
            << "\n";
        for (size_t c = 0; c < report.names.size(); ++c)
            out << "  " << std::left << std::setw(20) << (std::to_string(c) + " " + report.names[c])
                << std::right << std::setw(10) << s.instancesPerClass[c] << std::setw(10)
                << s.imagesPerClass[c] << "\n";
        auto histogram = [&](const char* title, const std::array<int, 10>& bins) {
            out << "  " << title << " (share of image, bins of 0.1):";
            for (int v : bins)
                out << " " << v;
            out << "\n";
        };
        histogram("box width ", s.boxWidthHistogram);
        histogram("box height", s.boxHeightHistogram);
    }
    int notes = 0, warnings = 0, errors = 0;
    for (const auto& d : report.problems)
        (d.severity == Severity::Note      ? notes
         : d.severity == Severity::Warning ? warnings
                                           : errors)++;
    out << "  problems: " << errors << " errors, " << warnings << " warnings, " << notes
        << " notes\n";
    for (const auto& d : report.problems)
        out << "    " << d.toString() << "\n";
    return out.str();
}

} // namespace hr
