// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the converters (convert_*.cpp); not part of the data module's interface.
#pragma once

#include "data/convert.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hr::convert {

/// One object in YOLO form: class id and normalised centre and size.
struct Box {
    int cls = 0;
    double cx = 0, cy = 0, w = 0, h = 0;
};

/// One image to write: where it comes from, its name inside images/<split>/ and its objects
/// (or the text of a YOLO label file to copy as it is).
struct Item {
    std::string source;
    std::string name;
    /// Where the entry was given, for a refusal: the annotation or list file, its line and
    /// the entry ("images[3] (id 7)"); empty: the source names itself.
    std::string entryFile;
    int entryLine = 0;
    std::string entry;
    std::vector<Box> boxes;
    std::optional<std::string> labelText;
};

enum class Role { Train, Val, Test };

/// The images a source gives to one split.
struct Part {
    Role role = Role::Train;
    std::vector<Item> items;
};

struct Collected {
    std::vector<std::string> names;
    std::vector<Part> parts;
};

/// `p` absolute and lexically normal, without a trailing slash.
std::string normalPath(const std::filesystem::path& p);
/// True for an existing folder / regular file; false on any error.
bool isDir(const std::filesystem::path& p);
bool isFile(const std::filesystem::path& p);

/// The split a source's own split name means: "val"/"valid"/"validation" -> Val, "test" ->
/// Test, anything else -> Train.
Role roleOf(const std::string& splitName);

/// Records an entry left out (Warning) or changed (Note), counted under `reason`.
void record(ConvertReport& report, Diagnostic::Severity severity, const std::string& reason,
            const std::string& file, int line, const std::string& message);

/// A pixel box (x1, y1, x2, y2) in an image of `width` x `height` as a YOLO box. Parts outside
/// the image are clipped (`clipped` says so); returns false when nothing of it is inside.
bool pixelBoxToYolo(double x1, double y1, double x2, double y2, int width, int height, Box& out,
                    bool& clipped);

/// A number as a person writes it: "700", "12.5" (not "700.000000").
std::string number(double value);
/// "1 image", "3 images".
std::string count(long long n, const std::string& word);

/// The first of `candidates` that is a regular file, or "".
std::string firstExisting(const std::vector<std::string>& candidates);

/// Image files under `dir` (recursively), sorted.
std::vector<std::string> imagesUnder(const std::string& dir);

/// A safe relative name for an image inside images/<split>/: the path as given when it has no
/// ".." and is relative, else its file name.
std::string safeRelativeName(const std::string& path);

/// The reason counted for an image entry that lies outside the roots.
inline constexpr const char* kOutsideReason = "image outside the input folder";

/// The folders images may be read from: the input's folder (for a file inside annotations/,
/// the folder above it) first, then `extra`, each resolved (weakly_canonical).
std::vector<std::string> imageRootsFor(const std::string& input,
                                       const std::vector<std::string>& extra);
/// `source` with `..` and symlinks resolved when it is a regular file under one of `roots` and
/// not in /proc, /dev or /sys; else "".
std::string sourceInsideRoots(const std::string& source, const std::vector<std::string>& roots);
/// Records `entry` (of `file`, at `line`) as refused: its `source` lies outside the roots.
void refuseOutside(ConvertReport& report, const std::string& file, int line,
                   const std::string& entry, const std::string& source);
/// Replaces every item's source by its resolved path; refuses the conversion (report.error,
/// each entry recorded) when any lies outside `roots`, or when a reader already refused one.
bool checkImageSources(Collected& collected, const std::vector<std::string>& roots,
                       ConvertReport& report);

/// Writes `collected` as a YOLO data set to `output` (temporary folder, then rename), splitting
/// by autosplit when no part is Val. Fills `report`; returns false on a fatal error.
bool writeYoloDataset(Collected& collected, SourceFormat format, const std::string& input,
                      const std::string& output, const ConvertOptions& options,
                      ConvertReport& report);

// The readers. Each fills `report` with what it left out and returns false (with
// report.error) when the input cannot be converted at all.
bool collectCoco(const std::string& input, const ConvertOptions& options, Collected& out,
                 ConvertReport& report);
bool collectVoc(const std::string& input, const ConvertOptions& options, Collected& out,
                ConvertReport& report);
bool collectCvatYolo(const std::string& input, const ConvertOptions& options, Collected& out,
                     ConvertReport& report);
bool collectLabelStudioYolo(const std::string& input, const ConvertOptions& options, Collected& out,
                            ConvertReport& report);

/// Class names from a names file (one per line, blank lines ignored).
std::vector<std::string> readNamesFile(const std::string& path);

/// COCO JSON files under `input` (or `input` itself): instances_*.json, *.coco.json, or any
/// .json in the folder or its annotations/ subfolder that looks like COCO.
std::vector<std::string> findCocoFiles(const std::string& input);

} // namespace hr::convert
