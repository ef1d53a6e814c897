// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <opencv2/core/mat.hpp>

#include <string>
#include <vector>

namespace hr {

/// The image file extensions a data set may use (lower case, with the dot): .jpg .jpeg .png
/// .bmp .webp .tif .tiff.
const std::vector<std::string>& imageExtensions();

/// True when the file name ends in one of imageExtensions() (case-insensitive).
bool isImageFile(const std::string& path);

/// The YOLO label file of an image: the last "/images/" path component becomes "/labels/" and
/// the extension ".txt". An image outside any images/ folder has its label next to it.
std::string labelPathForImage(const std::string& imagePath);

/// Reads an image as 8-bit BGR: EXIF orientation applied, grey and 16-bit images converted,
/// alpha dropped. Returns an empty Mat and fills `error` when the file is missing, empty or not
/// decodable. `note` (optional) receives a remark about a usable but damaged file, e.g. a JPEG
/// whose end marker is missing (truncated: the decodable part is used). `reason` (optional)
/// receives why it failed as a code for a UI that words it: cannot_open, empty, cannot_read or
/// not_decodable.
cv::Mat readImage(const std::string& path, std::string* error, std::string* note = nullptr,
                  std::string* reason = nullptr);

/// How probeImage checks an image file.
enum class ImageCheck {
    /// Reads the header only: a JPEG's frame header (its size), its EXIF orientation, that a
    /// start of scan follows and whether the end marker is there; a PNG's IHDR and its chunks
    /// up to IEND. Other formats, and anything the header does not settle, are decoded. A file
    /// whose coded data is damaged passes and fails later, when the loader reads it.
    Header,
    /// Decodes every image (a JPEG at 1/8 scale: libjpeg still reads every coded block, so a
    /// file readImage cannot decode fails here too).
    Decode,
};

/// What the data set scan learns of an image file without keeping its pixels: the size
/// readImage would return (EXIF orientation applied), or readImage's `error`, `note` and
/// `reason`. Never throws.
struct ImageProbe {
    int width = 0;
    int height = 0;
    std::string error, note, reason;
    /// The answer is the decode check's: the image was decoded, or its file could not be read.
    /// False when the header alone settled it.
    bool decoded = false;
    bool ok() const { return width > 0 && height > 0; }
};
ImageProbe probeImage(const std::string& path, ImageCheck check = ImageCheck::Header);

/// How readImageResized may decode a JPEG at least twice the size asked for: in full, or at
/// 1/2, 1/4 or 1/8 scale, which libjpeg does in its inverse DCT (2.6x less work for a 640x480
/// photo at 320). The pixels differ by about one level; the size that comes back is the same.
enum class JpegDecode { Full, Reduced };

/// readImage() then a resize (INTER_LINEAR, aspect kept) so that the longer side is `longSide`.
cv::Mat readImageResized(const std::string& path, int longSide, std::string* error,
                         std::string* reason = nullptr, JpegDecode decode = JpegDecode::Full);

} // namespace hr
