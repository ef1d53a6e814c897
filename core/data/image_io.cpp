// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/image_io.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>

namespace hr {

const std::vector<std::string>& imageExtensions() {
    static const std::vector<std::string> extensions{".jpg",  ".jpeg", ".png", ".bmp",
                                                     ".webp", ".tif",  ".tiff"};
    return extensions;
}

bool isImageFile(const std::string& path) {
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
        return false;
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto& all = imageExtensions();
    return std::find(all.begin(), all.end(), ext) != all.end();
}

std::string labelPathForImage(const std::string& imagePath) {
    std::string path = imagePath;
    const std::string images = "/images/";
    const auto at = path.rfind(images);
    if (at != std::string::npos)
        path.replace(at, images.size(), "/labels/");
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
        path.erase(dot);
    return path + ".txt";
}

namespace {

struct ReadFailure {
    const char* code;
    std::string why;
};

const ReadFailure kNotDecodable{
    "not_decodable", "not a decodable image (corrupt, truncated or an unsupported format)"};

std::optional<ReadFailure> readAll(const std::string& path, std::vector<uchar>& bytes) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return ReadFailure{"cannot_open", "cannot open the file"};
    const std::streamoff size = in.tellg();
    if (size <= 0)
        return ReadFailure{"empty", "the file is empty (0 bytes)"};
    bytes.resize(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
        return ReadFailure{"cannot_read", "cannot read the file"};
    return std::nullopt;
}

bool isJpeg(const std::vector<uchar>& bytes) {
    return bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
}

/// Like Ultralytics: a JPEG without its end marker was cut short; libjpeg fills the rest.
std::string truncationNote(const std::vector<uchar>& bytes) {
    if (!isJpeg(bytes) || (bytes[bytes.size() - 2] == 0xFF && bytes[bytes.size() - 1] == 0xD9))
        return {};
    return "JPEG end marker missing (truncated file?): used the decodable part";
}

/// Width and height in a JPEG's frame header (SOFn), before EXIF orientation; false when the
/// markers before the first scan hold none.
bool jpegFrameSize(const std::vector<uchar>& b, int& width, int& height) {
    size_t i = 2;
    while (i + 9 < b.size()) {
        if (b[i] != 0xFF)
            return false;
        const uchar marker = b[i + 1];
        if (marker == 0xFF) { // fill byte
            ++i;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) { // no length field
            i += 2;
            continue;
        }
        if (marker == 0xDA || marker == 0xD9) // a scan or the end came first
            return false;
        const size_t length = (size_t(b[i + 2]) << 8) | b[i + 3];
        // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
            marker != 0xCC) {
            height = (int(b[i + 5]) << 8) | b[i + 6];
            width = (int(b[i + 7]) << 8) | b[i + 8];
            return width > 0 && height > 0;
        }
        if (length < 2)
            return false;
        i += 2 + length;
    }
    return false;
}

} // namespace

cv::Mat readImage(const std::string& path, std::string* error, std::string* note,
                  std::string* reason) {
    auto fail = [&](const ReadFailure& f) {
        if (error)
            *error = f.why;
        if (reason)
            *reason = f.code;
        return cv::Mat();
    };
    std::vector<uchar> bytes;
    if (const auto failure = readAll(path, bytes))
        return fail(*failure);
    // IMREAD_COLOR: 3 channels, 8 bits, EXIF orientation applied (OpenCV >= 3.1).
    cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
    if (image.empty() || image.cols <= 0 || image.rows <= 0)
        return fail(kNotDecodable);
    if (note)
        *note = truncationNote(bytes);
    return image;
}

ImageProbe probeImage(const std::string& path) {
    ImageProbe out;
    std::vector<uchar> bytes;
    if (const auto failure = readAll(path, bytes)) {
        out.error = failure->why;
        out.reason = failure->code;
        return out;
    }
    int w = 0, h = 0;
    if (isJpeg(bytes) && jpegFrameSize(bytes, w, h)) {
        // libjpeg's 1/8 scale is ceil(side / 8); which way round it came back tells whether
        // EXIF orientation turned the image. Equal scaled sides cannot tell: decode in full.
        const cv::Mat small = cv::imdecode(bytes, cv::IMREAD_REDUCED_COLOR_8);
        const int sw = (w + 7) / 8, sh = (h + 7) / 8;
        if (!small.empty() && (sw != sh || w == h)) {
            if (small.cols == sw && small.rows == sh) {
                out.width = w;
                out.height = h;
            } else if (small.cols == sh && small.rows == sw) {
                out.width = h;
                out.height = w;
            }
        }
    }
    if (!out.ok()) {
        const cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
        if (image.empty() || image.cols <= 0 || image.rows <= 0) {
            out.error = kNotDecodable.why;
            out.reason = kNotDecodable.code;
            return out;
        }
        out.width = image.cols;
        out.height = image.rows;
    }
    out.note = truncationNote(bytes);
    return out;
}

cv::Mat readImageResized(const std::string& path, int longSide, std::string* error) {
    cv::Mat image = readImage(path, error);
    if (image.empty() || longSide <= 0)
        return image;
    const double r = static_cast<double>(longSide) / std::max(image.cols, image.rows);
    if (std::abs(r - 1.0) < 1e-9)
        return image;
    const int w =
        std::max(1, std::min(longSide, static_cast<int>(std::ceil(image.cols * r - 1e-6))));
    const int h =
        std::max(1, std::min(longSide, static_cast<int>(std::ceil(image.rows * r - 1e-6))));
    cv::Mat resized;
    cv::resize(image, resized, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
    return resized;
}

} // namespace hr
