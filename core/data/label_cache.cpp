// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/label_cache.h"

#include "util/atomic_file.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace hr {

namespace {

// The magic ends in the format version: 4 added `decoded`; 3 is still read.
constexpr char kMagic[8] = {'H', 'R', 'L', 'C', 'A', 'C', 'H', '4'};
constexpr int kVersion = 4;
constexpr std::uint32_t kMostArgs = 64; ///< a larger count is a damaged file

// Writer and Reader answer the same calls, so that entryFields() describes an entry's layout
// once, for both directions. `as<Stored>` stores a value as that type.

class Writer {
public:
    template <typename Stored, typename T>
    bool as(const T& value) {
        const Stored stored = static_cast<Stored>(value);
        m_bytes.append(reinterpret_cast<const char*>(&stored), sizeof stored);
        return true;
    }
    template <typename T>
    bool pod(const T& value) {
        return as<T>(value);
    }
    bool text(const std::string& s) {
        as<std::uint32_t>(s.size());
        m_bytes += s;
        return true;
    }
    /// The count, then each item through `item`.
    template <typename T, typename Item>
    bool list(const std::vector<T>& items, Item item, std::uint32_t /*most*/ = 0) {
        as<std::uint32_t>(items.size());
        for (const T& each : items)
            item(each);
        return true;
    }
    std::string& bytes() { return m_bytes; }

private:
    std::string m_bytes;
};

class Reader {
public:
    explicit Reader(const std::string& bytes) : m_bytes(bytes) {}
    template <typename Stored, typename T>
    bool as(T& value) {
        Stored stored{};
        if (!pod(stored))
            return false;
        value = static_cast<T>(stored);
        return true;
    }
    template <typename T>
    bool pod(T& value) {
        if (m_at + sizeof value > m_bytes.size())
            return false;
        std::memcpy(&value, m_bytes.data() + m_at, sizeof value);
        m_at += sizeof value;
        return true;
    }
    bool text(std::string& s) {
        std::uint32_t n = 0;
        if (!pod(n) || m_at + n > m_bytes.size())
            return false;
        s.assign(m_bytes.data() + m_at, n);
        m_at += n;
        return true;
    }
    /// Reads the count (at most `most`), then each item through `item`.
    template <typename T, typename Item>
    bool list(std::vector<T>& items, Item item,
              std::uint32_t most = std::numeric_limits<std::uint32_t>::max()) {
        std::uint32_t n = 0;
        if (!pod(n) || n > most)
            return false;
        items.resize(n);
        for (T& each : items)
            if (!item(each))
                return false;
        return true;
    }

private:
    const std::string& m_bytes;
    size_t m_at = 0;
};

/// An entry after its key (the image path), in file order, in format `version` (kVersion when
/// writing). `Scan` is const when writing.
template <typename IO, typename Scan>
bool entryFields(IO& io, Scan& e, int version) {
    const auto box = [&io](auto& b) {
        return io.template as<std::int32_t>(b.cls) && io.pod(b.cx) && io.pod(b.cy) && io.pod(b.w) &&
               io.pod(b.h);
    };
    const auto text = [&io](auto& s) { return io.text(s); };
    const auto problem = [&](auto& d) {
        return io.template as<std::uint8_t>(d.severity) && io.text(d.file) &&
               io.template as<std::int32_t>(d.line) && io.text(d.key) && io.text(d.message) &&
               io.text(d.fix) && io.text(d.code) && io.list(d.args, text, kMostArgs);
    };
    return io.pod(e.image.size) && io.pod(e.image.mtimeNs) && io.pod(e.label.size) &&
           io.pod(e.label.mtimeNs) && io.template as<std::uint8_t>(e.usable) &&
           (version < 4 || io.template as<std::uint8_t>(e.decoded)) &&
           io.text(e.record.labelPath) && io.template as<std::int32_t>(e.record.width) &&
           io.template as<std::int32_t>(e.record.height) && io.list(e.record.labels, box) &&
           io.list(e.problems, problem);
}

} // namespace

FileStamp FileStamp::of(const std::string& path) {
    struct stat info {};
    FileStamp stamp;
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
        return stamp;
    stamp.size = static_cast<std::int64_t>(info.st_size);
    stamp.mtimeNs = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000LL +
                    static_cast<std::int64_t>(info.st_mtim.tv_nsec);
    return stamp;
}

bool LabelCache::load(const std::string& path) {
    m_entries.clear();
    std::string bytes;
    if (!readFile(path, bytes) || bytes.size() < sizeof kMagic ||
        std::memcmp(bytes.data(), kMagic, sizeof kMagic - 1) != 0)
        return false;
    const int version = bytes[sizeof kMagic - 1] - '0';
    if (version != 3 && version != kVersion)
        return false;
    Reader in(bytes);
    char magic[sizeof kMagic];
    for (char& c : magic)
        in.pod(c);
    std::int32_t classes = 0;
    std::uint32_t count = 0;
    if (!in.pod(classes) || classes != m_classCount || !in.pod(count))
        return false;
    for (std::uint32_t i = 0; i < count; ++i) {
        std::string key;
        CachedScan e;
        e.decoded = true; // version 3 decoded every image
        if (!in.text(key) || !entryFields(in, e, version)) {
            m_entries.clear();
            return false;
        }
        e.record.imagePath = key;
        m_entries.emplace(std::move(key), std::move(e));
    }
    return true;
}

bool LabelCache::save(const std::string& path, std::string* error) const {
    Writer out;
    for (char c : kMagic)
        out.pod(c);
    out.as<std::int32_t>(m_classCount);
    out.as<std::uint32_t>(m_entries.size());
    for (const auto& [key, e] : m_entries) {
        out.text(key);
        entryFields(out, e, kVersion);
    }
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    return writeFileAtomically(path, out.bytes(), error);
}

const CachedScan* LabelCache::find(const std::string& imagePath, const FileStamp& image,
                                   const FileStamp& label, bool decodedOnly) const {
    const auto it = m_entries.find(imagePath);
    if (it == m_entries.end() || !(it->second.image == image) || !(it->second.label == label) ||
        (decodedOnly && !it->second.decoded))
        return nullptr;
    return &it->second;
}

void LabelCache::put(const std::string& imagePath, CachedScan entry) {
    m_entries[imagePath] = std::move(entry);
}

} // namespace hr
