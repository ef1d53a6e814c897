// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/image_header.h"

#include <cstdint>
#include <cstring>

namespace hr {

namespace {

using Byte = unsigned char;

/// Reads the TIFF structure of an EXIF block as OpenCV 4.6's ExifReader does, so that the
/// header check turns the same images as readImage: byte order "II" is little-endian and
/// anything else big-endian; IFD0 only; the first orientation entry counts; parsing stops at
/// the first entry whose value cannot be read, keeping what came before.
class ExifBlock {
public:
    ExifBlock(const Byte* data, std::size_t size)
        : m_data(data), m_size(size), m_intel(size >= 2 && data[0] == 'I' && data[1] == 'I') {}

    int orientation() const {
        std::uint32_t mark = 0, ifd = 0, count = 0;
        if (!u16(2, mark) || mark != 0x2A || !u32(4, ifd) || !u16(ifd, count))
            return 1;
        std::size_t entry = std::size_t(ifd) + 2;
        for (std::uint32_t k = 0; k < count; ++k, entry += 12) {
            std::uint32_t tag = 0, value = 0;
            if (!u16(entry, tag))
                return 1;
            if (tag == 0x0112)
                return u16(entry + 8, value) ? int(value) : 1;
            if (!valueReadable(tag, entry))
                return 1;
        }
        return 1;
    }

private:
    bool u16(std::size_t at, std::uint32_t& v) const {
        if (at + 1 >= m_size)
            return false;
        v = m_intel ? m_data[at] | m_data[at + 1] << 8 : m_data[at] << 8 | m_data[at + 1];
        return true;
    }
    bool u32(std::size_t at, std::uint32_t& v) const {
        std::uint32_t first = 0, second = 0;
        if (at + 3 >= m_size || !u16(at, first) || !u16(at + 2, second))
            return false;
        v = m_intel ? first | second << 16 : first << 16 | second;
        return true;
    }
    /// Whether OpenCV reads this entry's value without failing (the tags it knows).
    bool valueReadable(std::uint32_t tag, std::size_t entry) const {
        std::uint32_t v = 0;
        switch (tag) {
        case 0x010E: // image description, make, model, software, date and time, copyright
        case 0x010F:
        case 0x0110:
        case 0x0131:
        case 0x0132:
        case 0x8298: {
            std::uint32_t count = 0;
            if (!u32(entry + 4, count))
                return false;
            std::uint32_t at = 8; // OpenCV's quirk: short strings are read from offset 8
            if (count > 4 && !u32(entry + 8, at))
                return false;
            return std::uint64_t(at) + count <= m_size;
        }
        case 0x011A: // x and y resolution: one rational
        case 0x011B:
            return rationals(entry, 1);
        case 0x013E: // white point: two
            return rationals(entry, 2);
        case 0x013F: // primary chromaticities: six
        case 0x0214: // reference black and white: six
            return rationals(entry, 6);
        case 0x0211: // YCbCr coefficients: three
            return rationals(entry, 3);
        case 0x0128: // resolution unit, YCbCr positioning: a short in the entry
        case 0x0213:
            return u16(entry + 8, v);
        default:
            return true;
        }
    }
    bool rationals(std::size_t entry, std::size_t n) const {
        std::uint32_t at = 0;
        return u32(entry + 8, at) && std::uint64_t(at) + 8 * n - 1 < m_size;
    }

    const Byte* m_data;
    std::size_t m_size;
    bool m_intel;
};

std::uint32_t bigEndian32(const Byte* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

bool isFrameMarker(Byte marker) {
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

bool validPngDepth(int depth, int colour) {
    switch (colour) {
    case 0: // grey
        return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: // palette
        return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2: // RGB, grey + alpha, RGBA
    case 4:
    case 6:
        return depth == 8 || depth == 16;
    default:
        return false;
    }
}

} // namespace

HeaderVerdict readJpegHeader(const Byte* b, std::size_t n, ImageHeader& out) {
    if (n < 2 || b[0] != 0xFF || b[1] != 0xD8)
        return HeaderVerdict::Unsettled;
    bool frame = false, app1 = false;
    std::size_t i = 2;
    for (;;) {
        if (i + 2 > n)
            return HeaderVerdict::NeedMore;
        if (b[i] != 0xFF) // stray bytes between segments: libjpeg skips them with a warning
            return HeaderVerdict::Unsettled;
        const Byte marker = b[i + 1];
        if (marker == 0xFF) { // fill byte
            ++i;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { // no length field
            i += 2;
            continue;
        }
        if (marker == 0x00 || marker == 0xD8 || marker == 0xD9) // a second SOI, or the end
            return HeaderVerdict::Unsettled;
        if (i + 4 > n)
            return HeaderVerdict::NeedMore;
        const std::size_t length = std::size_t(b[i + 2]) << 8 | b[i + 3];
        if (length < 2)
            return HeaderVerdict::Unsettled;
        if (i + 2 + length > n)
            return HeaderVerdict::NeedMore;
        const Byte* data = b + i + 4;
        const std::size_t dataSize = length - 2;
        if (marker == 0xDA) // start of scan
            return frame ? HeaderVerdict::Settled : HeaderVerdict::Unsettled;
        if (isFrameMarker(marker)) {
            // Lossless, hierarchical and arithmetic-coded frames, 12-bit samples and odd
            // component counts are rare: the decoder says whether it reads them.
            if (frame || marker > 0xC2 || dataSize < 6)
                return HeaderVerdict::Unsettled;
            const int components = data[5];
            out.height = data[1] << 8 | data[2];
            out.width = data[3] << 8 | data[4];
            if (data[0] != 8 || out.width == 0 || out.height == 0 || out.width > 65500 ||
                out.height > 65500 || (components != 1 && components != 3 && components != 4) ||
                dataSize != 6 + 3 * std::size_t(components))
                return HeaderVerdict::Unsettled;
            frame = true;
        } else if (marker == 0xE1 && !app1) {
            // OpenCV reads the first APP1 segment, whatever its signature, 6 bytes in
            // ("Exif\0\0").
            app1 = true;
            if (dataSize > 6)
                out.orientation = ExifBlock(data + 6, dataSize - 6).orientation();
        }
        i += 2 + length;
    }
}

HeaderVerdict readPngHeader(const Byte* b, std::size_t n, ImageHeader& out) {
    static const Byte signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (n < 8 || std::memcmp(b, signature, 8) != 0)
        return HeaderVerdict::Unsettled;
    bool header = false, paletteReady = false, imageData = false;
    std::size_t i = 8;
    for (;;) {
        if (i + 12 > n)
            return HeaderVerdict::NeedMore;
        const std::uint32_t length = bigEndian32(b + i);
        const Byte* type = b + i + 4;
        if (length > 0x7FFFFFFFu)
            return HeaderVerdict::Unsettled;
        if (i + 12 + length > n)
            return HeaderVerdict::NeedMore;
        const Byte* body = b + i + 8;
        if (!header) {
            // IHDR first: width, height (libpng's limit is a million), bit depth, colour type,
            // compression, filter and interlace method.
            if (std::memcmp(type, "IHDR", 4) != 0 || length != 13)
                return HeaderVerdict::Unsettled;
            const std::uint32_t w = bigEndian32(body), h = bigEndian32(body + 4);
            if (w == 0 || h == 0 || w > 1000000 || h > 1000000 ||
                !validPngDepth(body[8], body[9]) || body[10] != 0 || body[11] != 0 || body[12] > 1)
                return HeaderVerdict::Unsettled;
            out.width = int(w);
            out.height = int(h);
            out.orientation = 1;
            paletteReady = body[9] != 3; // only palette images need PLTE
            header = true;
        } else if (std::memcmp(type, "PLTE", 4) == 0) {
            paletteReady = true;
        } else if (std::memcmp(type, "IDAT", 4) == 0) {
            if (!paletteReady) // a palette image without its palette
                return HeaderVerdict::Unsettled;
            imageData = true;
        } else if (std::memcmp(type, "eXIf", 4) == 0) {
            return HeaderVerdict::Unsettled;
        } else if (std::memcmp(type, "IEND", 4) == 0) {
            return imageData ? HeaderVerdict::Settled : HeaderVerdict::Unsettled;
        }
        i += 12 + length;
    }
}

} // namespace hr
