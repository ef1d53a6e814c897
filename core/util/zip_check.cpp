// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/zip_check.h"

#include "util/pickle_guard.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

namespace hr {

namespace {

const std::array<std::uint32_t, 256>& crcTable() {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    return table;
}

std::uint64_t le(const unsigned char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

class ZipFile {
public:
    explicit ZipFile(const std::string& path) : m_path(path), m_in(path, std::ios::binary) {
        if (m_in) {
            m_in.seekg(0, std::ios::end);
            m_size = static_cast<std::uint64_t>(m_in.tellg());
        }
    }
    bool open() const { return static_cast<bool>(m_in); }
    std::uint64_t size() const { return m_size; }
    bool read(std::uint64_t at, std::size_t n, std::vector<unsigned char>& out) {
        if (at > m_size || n > m_size - at)
            return false;
        out.resize(n);
        m_in.clear();
        m_in.seekg(static_cast<std::streamoff>(at));
        return static_cast<bool>(
            m_in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n)));
    }
    bool crcOf(std::uint64_t at, std::uint64_t n, std::uint32_t& crc) {
        std::vector<unsigned char> chunk;
        crc = 0;
        while (n > 0) {
            const std::size_t part = static_cast<std::size_t>(std::min<std::uint64_t>(n, 1 << 20));
            if (!read(at, part, chunk))
                return false;
            crc = crc32(chunk.data(), part, crc);
            at += part;
            n -= part;
        }
        return true;
    }

private:
    std::string m_path;
    std::ifstream m_in;
    std::uint64_t m_size = 0;
};

struct Directory {
    std::uint64_t entries = 0, offset = 0, size = 0;
};

// The end of central directory record, and its zip64 form when the sizes overflow.
bool findDirectory(ZipFile& zip, Directory& dir, std::string& why) {
    const std::uint64_t tail = std::min<std::uint64_t>(zip.size(), 22 + 65535);
    std::vector<unsigned char> b;
    if (tail < 22 || !zip.read(zip.size() - tail, static_cast<std::size_t>(tail), b)) {
        why = "it is too short to hold a central directory";
        return false;
    }
    for (std::size_t i = b.size() - 22 + 1; i-- > 0;) {
        if (le(&b[i], 4) != 0x06054b50)
            continue;
        const std::uint64_t eocd = zip.size() - tail + i;
        dir.entries = le(&b[i + 10], 2);
        dir.size = le(&b[i + 12], 4);
        dir.offset = le(&b[i + 16], 4);
        if (dir.entries == 0xFFFF || dir.size == 0xFFFFFFFF || dir.offset == 0xFFFFFFFF) {
            std::vector<unsigned char> loc, rec;
            if (eocd < 20 || !zip.read(eocd - 20, 20, loc) || le(&loc[0], 4) != 0x07064b50 ||
                !zip.read(le(&loc[8], 8), 56, rec) || le(&rec[0], 4) != 0x06064b50) {
                why = "its zip64 end record is missing";
                return false;
            }
            dir.entries = le(&rec[32], 8);
            dir.size = le(&rec[40], 8);
            dir.offset = le(&rec[48], 8);
        }
        return true;
    }
    why = "it has no end of central directory (cut short?)";
    return false;
}

} // namespace

std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc) {
    const auto& table = crcTable();
    const auto* p = static_cast<const unsigned char*>(data);
    crc = ~crc;
    for (std::size_t i = 0; i < size; ++i)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

bool checkZipArchive(const std::string& path, std::string* error) {
    const auto failed = [&](const std::string& why) {
        if (error)
            *error = "the zip archive " + path + " is damaged: " + why;
        return false;
    };
    ZipFile zip(path);
    if (!zip.open())
        return failed("it cannot be opened");
    Directory dir;
    std::string why;
    if (!findDirectory(zip, dir, why))
        return failed(why);
    std::vector<unsigned char> central;
    if (dir.size > zip.size() || dir.entries > dir.size / 46 ||
        !zip.read(dir.offset, static_cast<std::size_t>(dir.size), central))
        return failed("its central directory lies outside the file");
    const std::uint64_t most = zip.size() * kZipMostExpansion + (1u << 20);
    std::uint64_t total = 0;
    std::size_t at = 0;
    for (std::uint64_t n = 0; n < dir.entries; ++n) {
        if (at + 46 > central.size() || le(&central[at], 4) != 0x02014b50)
            return failed("central directory entry " + std::to_string(n) + " is broken");
        const unsigned char* e = &central[at];
        const std::uint64_t method = le(e + 10, 2), crc = le(e + 16, 4);
        std::uint64_t packed = le(e + 20, 4), unpacked = le(e + 24, 4), local = le(e + 42, 4);
        const std::size_t nameLength = le(e + 28, 2), extraLength = le(e + 30, 2);
        const std::size_t commentLength = le(e + 32, 2);
        if (at + 46 + nameLength + extraLength + commentLength > central.size())
            return failed("central directory entry " + std::to_string(n) + " is broken");
        const std::string name(reinterpret_cast<const char*>(e + 46), nameLength);
        // Zip64 sizes and offset sit in extra field 1, in this order, for each one that is
        // 0xFFFFFFFF above.
        for (std::size_t x = 0; x + 4 <= extraLength;) {
            const unsigned char* f = e + 46 + nameLength + x;
            const std::size_t id = le(f, 2), length = le(f + 2, 2);
            if (id == 1) {
                std::size_t k = 4;
                for (std::uint64_t* v : {&unpacked, &packed, &local})
                    if (*v == 0xFFFFFFFF && k + 8 <= length + 4) {
                        *v = le(f + k, 8);
                        k += 8;
                    }
            }
            x += 4 + length;
        }
        at += 46 + nameLength + extraLength + commentLength;
        total += unpacked;
        if (unpacked > most || total > most)
            return failed("its entries would hold " + std::to_string(total) +
                          " bytes uncompressed, far more than a " + std::to_string(zip.size()) +
                          "-byte checkpoint can (a zip bomb?)");
        std::vector<unsigned char> header;
        if (!zip.read(local, 30, header) || le(&header[0], 4) != 0x04034b50)
            return failed("the entry " + name + " has no local header");
        const std::uint64_t data = local + 30 + le(&header[26], 2) + le(&header[28], 2);
        if (data > zip.size() || packed > zip.size() - data)
            return failed("the entry " + name + " reaches past the end of the file (cut short?)");
        if (method != 0)
            continue; // compressed: bounded above; torch.save stores every entry
        std::uint32_t actual = 0;
        if (packed != unpacked || !zip.crcOf(data, packed, actual))
            return failed("the entry " + name + " cannot be read whole");
        if (actual != crc)
            return failed("the entry " + name + " fails its CRC check");
        const std::string pickle = "data.pkl";
        if (name.size() >= pickle.size() &&
            name.compare(name.size() - pickle.size(), pickle.size(), pickle) == 0) {
            std::vector<unsigned char> bytes;
            if (zip.read(data, static_cast<std::size_t>(packed), bytes)) {
                const std::string callable = pickle::codeCallIn(bytes.data(), bytes.size());
                if (!callable.empty()) {
                    if (error)
                        *error = path + ": refused: the file asks to run code (" + callable +
                                 ") when Python loads it; Headroom loads nothing from it. Do "
                                 "not open it with torch.load either; take the weights from "
                                 "someone you trust";
                    return false;
                }
            }
        }
    }
    return true;
}

} // namespace hr
