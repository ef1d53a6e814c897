// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A TensorBoard event-file reader of its own for the tests (not Headroom's writer read back
// with itself): TFRecord framing with both masked CRC32Cs checked, and the Event fields
// wall_time, step, file_version and summary values with a simple_value.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tfreader {

struct Event {
    double wallTime = 0;
    std::int64_t step = 0;
    std::string fileVersion;
    std::vector<std::pair<std::string, float>> scalars;
};

/// Bit by bit, from the polynomial's definition (reflected 0x82F63B78).
inline std::uint32_t crc32c(const char* data, size_t n) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= static_cast<unsigned char>(data[i]);
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

inline std::uint32_t masked(const char* data, size_t n) {
    const std::uint32_t c = crc32c(data, n);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

inline std::uint64_t littleEndian(const char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
}

struct Cursor {
    const std::string& s;
    size_t pos = 0;
    bool ok = true;
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; pos < s.size() && shift < 64; shift += 7) {
            const auto b = static_cast<unsigned char>(s[pos++]);
            v |= std::uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80))
                return v;
        }
        ok = false;
        return 0;
    }
    std::string bytes() {
        const std::uint64_t n = varint();
        if (!ok || pos + n > s.size()) {
            ok = false;
            return {};
        }
        std::string out = s.substr(pos, n);
        pos += n;
        return out;
    }
};

/// Skips a field of `wire` type; false on a type this reader does not know.
inline bool skip(Cursor& c, int wire) {
    if (wire == 0)
        c.varint();
    else if (wire == 1)
        c.pos += 8;
    else if (wire == 2)
        c.bytes();
    else if (wire == 5)
        c.pos += 4;
    else
        return false;
    return c.ok && c.pos <= c.s.size();
}

inline bool parseValue(const std::string& data, std::pair<std::string, float>& value) {
    Cursor c{data};
    bool hasValue = false;
    while (c.ok && c.pos < data.size()) {
        const std::uint64_t key = c.varint();
        const int field = int(key >> 3), wire = int(key & 7);
        if (field == 1 && wire == 2) {
            value.first = c.bytes();
        } else if (field == 2 && wire == 5 && c.pos + 4 <= data.size()) {
            std::memcpy(&value.second, data.data() + c.pos, 4);
            c.pos += 4;
            hasValue = true;
        } else if (!skip(c, wire)) {
            return false;
        }
    }
    return c.ok && hasValue;
}

inline bool parseEvent(const std::string& data, Event& e) {
    Cursor c{data};
    while (c.ok && c.pos < data.size()) {
        const std::uint64_t key = c.varint();
        const int field = int(key >> 3), wire = int(key & 7);
        if (field == 1 && wire == 1 && c.pos + 8 <= data.size()) {
            std::memcpy(&e.wallTime, data.data() + c.pos, 8);
            c.pos += 8;
        } else if (field == 2 && wire == 0) {
            e.step = static_cast<std::int64_t>(c.varint());
        } else if (field == 3 && wire == 2) {
            e.fileVersion = c.bytes();
        } else if (field == 5 && wire == 2) {
            const std::string summary = c.bytes();
            Cursor s{summary};
            while (s.ok && s.pos < summary.size()) {
                const std::uint64_t k = s.varint();
                if ((k >> 3) != 1 || (k & 7) != 2)
                    return false;
                std::pair<std::string, float> v;
                if (!parseValue(s.bytes(), v))
                    return false;
                e.scalars.push_back(v);
            }
            if (!s.ok)
                return false;
        } else if (!skip(c, wire)) {
            return false;
        }
    }
    return c.ok;
}

/// Every event of `path`; false with `error` on a bad CRC, a torn record or a bad message.
inline bool readEvents(const std::string& path, std::vector<Event>& events, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string s = buffer.str();
    if (!in && !in.eof()) {
        error = "cannot read " + path;
        return false;
    }
    size_t pos = 0;
    while (pos < s.size()) {
        if (pos + 12 > s.size()) {
            error = "torn header at byte " + std::to_string(pos);
            return false;
        }
        const std::uint64_t n = littleEndian(s.data() + pos, 8);
        if (littleEndian(s.data() + pos + 8, 4) != masked(s.data() + pos, 8)) {
            error = "bad length CRC at byte " + std::to_string(pos);
            return false;
        }
        if (pos + 12 + n + 4 > s.size()) {
            error = "torn record at byte " + std::to_string(pos);
            return false;
        }
        const char* data = s.data() + pos + 12;
        if (littleEndian(data + n, 4) != masked(data, n)) {
            error = "bad data CRC at byte " + std::to_string(pos);
            return false;
        }
        Event e;
        if (!parseEvent(std::string(data, n), e)) {
            error = "bad Event message at byte " + std::to_string(pos);
            return false;
        }
        events.push_back(std::move(e));
        pos += 12 + n + 4;
    }
    return true;
}

} // namespace tfreader
