// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/data: what a JPEG's or PNG's header says without decoding the image, for the
// data set scan's header check (probeImage).
#pragma once

#include <cstddef>

namespace hr {

/// An image's stored size and its EXIF orientation as OpenCV's IMREAD_COLOR applies it.
struct ImageHeader {
    int width = 0; ///< as stored, before EXIF orientation
    int height = 0;
    int orientation = 1; ///< EXIF tag 0x0112; 5-8 turn the image by 90 degrees

    /// The size readImage returns: orientations 5-8 swap width and height.
    int orientedWidth() const { return turned() ? height : width; }
    int orientedHeight() const { return turned() ? width : height; }

private:
    bool turned() const { return orientation >= 5 && orientation <= 8; }
};

enum class HeaderVerdict {
    Settled,   ///< the header was read and looks decodable
    NeedMore,  ///< the bytes end before the header does
    Unsettled, ///< a case the header check leaves to the decoder
};

/// Walks a JPEG's segments from SOI to the first start of scan (SOS): the frame header
/// (baseline, extended or progressive, 8 bits, 1, 3 or 4 components) gives the size, the first
/// APP1 segment the EXIF orientation (read as OpenCV 4.6 reads it). Settled only when an SOS
/// segment follows the frame header; anything unusual before it is Unsettled.
HeaderVerdict readJpegHeader(const unsigned char* bytes, std::size_t size, ImageHeader& out);

/// Walks a whole PNG's chunks: the size from IHDR (with a valid bit depth and colour type),
/// then the chunks up to IEND. Settled only when IEND is reached after IDAT and no eXIf chunk
/// exists (OpenCV would apply its orientation: left to the decoder).
HeaderVerdict readPngHeader(const unsigned char* bytes, std::size_t size, ImageHeader& out);

} // namespace hr
