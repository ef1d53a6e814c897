// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/label_cache.h"

#include "util/atomic_file.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace hr {

namespace {

constexpr char kMagic[8] = {'H', 'R', 'L', 'C', 'A', 'C', 'H', '3'};

class Writer {
public:
    template <typename T>
    void pod(T value) {
        m_bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    void text(const std::string& s) {
        pod<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
        m_bytes += s;
    }
    std::string& bytes() { return m_bytes; }

private:
    std::string m_bytes;
};

class Reader {
public:
    explicit Reader(const std::string& bytes) : m_bytes(bytes) {}
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

private:
    const std::string& m_bytes;
    size_t m_at = 0;
};

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
        std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
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
        std::uint8_t usable = 0;
        std::int32_t w = 0, h = 0;
        std::uint32_t nLabels = 0, nProblems = 0;
        if (!in.text(key) || !in.pod(e.image.size) || !in.pod(e.image.mtimeNs) ||
            !in.pod(e.label.size) || !in.pod(e.label.mtimeNs) || !in.pod(usable) ||
            !in.text(e.record.labelPath) || !in.pod(w) || !in.pod(h) || !in.pod(nLabels)) {
            m_entries.clear();
            return false;
        }
        e.usable = usable != 0;
        e.record.imagePath = key;
        e.record.width = w;
        e.record.height = h;
        e.record.labels.resize(nLabels);
        for (auto& b : e.record.labels) {
            std::int32_t cls = 0;
            if (!in.pod(cls) || !in.pod(b.cx) || !in.pod(b.cy) || !in.pod(b.w) || !in.pod(b.h)) {
                m_entries.clear();
                return false;
            }
            b.cls = cls;
        }
        if (!in.pod(nProblems)) {
            m_entries.clear();
            return false;
        }
        e.problems.resize(nProblems);
        for (auto& d : e.problems) {
            std::uint8_t severity = 0;
            std::int32_t line = 0;
            if (!in.pod(severity) || !in.text(d.file) || !in.pod(line) || !in.text(d.key) ||
                !in.text(d.message) || !in.text(d.fix) || !in.text(d.code)) {
                m_entries.clear();
                return false;
            }
            std::uint32_t nArgs = 0;
            if (!in.pod(nArgs) || nArgs > 64) {
                m_entries.clear();
                return false;
            }
            d.args.resize(nArgs);
            for (auto& a : d.args)
                if (!in.text(a)) {
                    m_entries.clear();
                    return false;
                }
            d.severity = static_cast<Diagnostic::Severity>(severity);
            d.line = line;
        }
        m_entries.emplace(std::move(key), std::move(e));
    }
    return true;
}

bool LabelCache::save(const std::string& path, std::string* error) const {
    Writer out;
    for (char c : kMagic)
        out.pod(c);
    out.pod<std::int32_t>(m_classCount);
    out.pod<std::uint32_t>(static_cast<std::uint32_t>(m_entries.size()));
    for (const auto& [key, e] : m_entries) {
        out.text(key);
        out.pod(e.image.size);
        out.pod(e.image.mtimeNs);
        out.pod(e.label.size);
        out.pod(e.label.mtimeNs);
        out.pod<std::uint8_t>(e.usable ? 1 : 0);
        out.text(e.record.labelPath);
        out.pod<std::int32_t>(e.record.width);
        out.pod<std::int32_t>(e.record.height);
        out.pod<std::uint32_t>(static_cast<std::uint32_t>(e.record.labels.size()));
        for (const auto& b : e.record.labels) {
            out.pod<std::int32_t>(b.cls);
            out.pod(b.cx);
            out.pod(b.cy);
            out.pod(b.w);
            out.pod(b.h);
        }
        out.pod<std::uint32_t>(static_cast<std::uint32_t>(e.problems.size()));
        for (const auto& d : e.problems) {
            out.pod<std::uint8_t>(static_cast<std::uint8_t>(d.severity));
            out.text(d.file);
            out.pod<std::int32_t>(d.line);
            out.text(d.key);
            out.text(d.message);
            out.text(d.fix);
            out.text(d.code);
            out.pod<std::uint32_t>(static_cast<std::uint32_t>(d.args.size()));
            for (const auto& a : d.args)
                out.text(a);
        }
    }
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    return writeFileAtomically(path, out.bytes(), error);
}

const CachedScan* LabelCache::find(const std::string& imagePath, const FileStamp& image,
                                   const FileStamp& label) const {
    const auto it = m_entries.find(imagePath);
    if (it == m_entries.end() || !(it->second.image == image) || !(it->second.label == label))
        return nullptr;
    return &it->second;
}

void LabelCache::put(const std::string& imagePath, CachedScan entry) {
    m_entries[imagePath] = std::move(entry);
}

} // namespace hr
