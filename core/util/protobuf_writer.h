// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace hr {

/// Writes Protocol Buffers wire format (the subset ONNX and TensorBoard's Event need: varints,
/// 32- and 64-bit floats and length-delimited fields). Field numbers and types are the
/// caller's; see docs/decisions.md for why Headroom writes ONNX with this instead of the
/// protobuf library.
class ProtobufWriter {
public:
    void varint(int field, std::uint64_t value) {
        tag(field, 0);
        raw(value);
    }
    void signedVarint(int field, std::int64_t value) {
        varint(field, static_cast<std::uint64_t>(value)); // int64: two's complement, 10 bytes
    }
    void float32(int field, float value) {
        tag(field, 5);
        char bytes[4];
        static_assert(sizeof value == 4);
        std::memcpy(bytes, &value, 4); // little-endian hosts: the wire format's byte order
        m_data.append(bytes, 4);
    }
    void float64(int field, double value) {
        tag(field, 1);
        char bytes[8];
        static_assert(sizeof value == 8);
        std::memcpy(bytes, &value, 8);
        m_data.append(bytes, 8);
    }
    void bytes(int field, const std::string& value) {
        tag(field, 2);
        raw(value.size());
        m_data += value;
    }
    void message(int field, const ProtobufWriter& nested) { bytes(field, nested.m_data); }

    const std::string& data() const { return m_data; }

private:
    void tag(int field, int wireType) {
        raw((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wireType));
    }
    void raw(std::uint64_t value) {
        while (value >= 0x80) {
            m_data += static_cast<char>((value & 0x7f) | 0x80);
            value >>= 7;
        }
        m_data += static_cast<char>(value);
    }

    std::string m_data;
};

} // namespace hr
