// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/resources.h" // headroomCacheDir()

#include "data/dataset.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace hr {

/// Size and modification time of a file; size -1 when it does not exist.
struct FileStamp {
    std::int64_t size = -1;
    std::int64_t mtimeNs = 0;

    static FileStamp of(const std::string& path);
    bool operator==(const FileStamp& o) const { return size == o.size && mtimeNs == o.mtimeNs; }
};

/// The checked result for one image, valid while both files keep their stamps.
struct CachedScan {
    FileStamp image;
    FileStamp label;
    bool usable = false;
    bool decoded = false; ///< ImageProbe::decoded: a deep scan may take this entry
    ImageRecord record;
    Diagnostics problems;
};

/// Per-image scan results of one split, stored in a small binary file. A cache written for a
/// different number of classes or by an unknown format version is ignored; one of version 3
/// (before the header-only scan) is read with every entry decoded, which it was.
class LabelCache {
public:
    explicit LabelCache(int classCount) : m_classCount(classCount) {}

    /// Reads a cache file; returns false (and stays empty) when it is missing or unusable.
    bool load(const std::string& path);
    /// Writes atomically; returns false and fills `error` on failure.
    bool save(const std::string& path, std::string* error) const;

    /// The entry for `imagePath` when both stamps still match (and, with `decodedOnly`, its
    /// image was decoded), else nullptr.
    const CachedScan* find(const std::string& imagePath, const FileStamp& image,
                           const FileStamp& label, bool decodedOnly = false) const;
    void put(const std::string& imagePath, CachedScan entry);
    size_t size() const { return m_entries.size(); }

private:
    int m_classCount = 0;
    std::unordered_map<std::string, CachedScan> m_entries;
};

} // namespace hr
