// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/image_io.h"

#include "data/image_header.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
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

/// The first bytes of a file (all of them when it is small enough) and its last two.
struct FileStart {
    std::vector<uchar> bytes;
    std::uint64_t size = 0; ///< the whole file's
    uchar end[2] = {0, 0};
    bool whole() const { return bytes.size() == size; }
};

/// Reads up to `most` bytes from the start of the file, and its last two bytes.
std::optional<ReadFailure> readStart(const std::string& path, std::uint64_t most, FileStart& out) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return ReadFailure{"cannot_open", "cannot open the file"};
    const std::streamoff size = in.tellg();
    if (size <= 0)
        return ReadFailure{"empty", "the file is empty (0 bytes)"};
    out.size = static_cast<std::uint64_t>(size);
    out.bytes.resize(static_cast<size_t>(std::min(out.size, most)));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(out.bytes.data()),
                 static_cast<std::streamsize>(out.bytes.size())))
        return ReadFailure{"cannot_read", "cannot read the file"};
    if (out.whole()) {
        out.end[0] = out.size >= 2 ? out.bytes[out.bytes.size() - 2] : 0;
        out.end[1] = out.bytes.back();
    } else if (!in.seekg(size - 2) || !in.read(reinterpret_cast<char*>(out.end), 2)) {
        return ReadFailure{"cannot_read", "cannot read the file"};
    }
    return std::nullopt;
}

std::optional<ReadFailure> readAll(const std::string& path, FileStart& out) {
    return readStart(path, std::numeric_limits<std::uint64_t>::max(), out);
}

bool isJpeg(const std::vector<uchar>& bytes) {
    return bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
}

/// Like Ultralytics: a JPEG without its end marker was cut short; libjpeg fills the rest.
std::string truncationNote(const FileStart& file) {
    if (!isJpeg(file.bytes) || (file.size >= 2 && file.end[0] == 0xFF && file.end[1] == 0xD9))
        return {};
    return "JPEG end marker missing (truncated file?): used the decodable part";
}

// A JPEG's header is usually a few KiB; a large EXIF block or colour profile can make it more,
// and then the whole file is read.
constexpr std::uint64_t kHeadBytes = 64 * 1024;

bool isPng(const std::vector<uchar>& bytes) {
    return bytes.size() >= 4 && bytes[0] == 0x89 && bytes[1] == 'P' && bytes[2] == 'N' &&
           bytes[3] == 'G';
}

/// The header check (ImageCheck::Header): true when it settled the probe, false to leave it to
/// the decode. `file` may grow to the whole file.
bool probeHeader(const std::string& path, FileStart& file, ImageProbe& out) {
    const auto readWhole = [&] {
        if (const auto failure = readAll(path, file)) {
            out.error = failure->why;
            out.reason = failure->code;
            out.decoded = true;
            return false;
        }
        return true;
    };
    ImageHeader header;
    HeaderVerdict verdict = HeaderVerdict::Unsettled;
    if (isJpeg(file.bytes)) {
        verdict = readJpegHeader(file.bytes.data(), file.bytes.size(), header);
        if (verdict == HeaderVerdict::NeedMore && !file.whole()) {
            if (!readWhole())
                return true;
            verdict = readJpegHeader(file.bytes.data(), file.bytes.size(), header);
        }
    } else if (isPng(file.bytes)) {
        if (!file.whole() && !readWhole())
            return true;
        verdict = readPngHeader(file.bytes.data(), file.bytes.size(), header);
    }
    // OpenCV's limit on pixels (CV_IO_MAX_IMAGE_PIXELS, 2^30 by default) is the decoder's.
    if (verdict != HeaderVerdict::Settled ||
        std::uint64_t(header.width) * std::uint64_t(header.height) > (std::uint64_t(1) << 30))
        return false;
    out.width = header.orientedWidth();
    out.height = header.orientedHeight();
    out.note = truncationNote(file);
    return true;
}

/// The decode check (ImageCheck::Decode, and the header check's fallback) on the whole file.
void probeByDecoding(const FileStart& file, ImageProbe& out) {
    out.decoded = true;
    const std::vector<uchar>& bytes = file.bytes;
    ImageHeader header;
    if (isJpeg(bytes) &&
        readJpegHeader(bytes.data(), bytes.size(), header) == HeaderVerdict::Settled) {
        // libjpeg's 1/8 scale is ceil(side / 8); which way round it came back tells whether
        // EXIF orientation turned the image. Equal scaled sides cannot tell: decode in full.
        const int w = header.width, h = header.height;
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
            return;
        }
        out.width = image.cols;
        out.height = image.rows;
    }
    out.note = truncationNote(file);
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
    FileStart file;
    if (const auto failure = readAll(path, file))
        return fail(*failure);
    // IMREAD_COLOR: 3 channels, 8 bits, EXIF orientation applied (OpenCV >= 3.1).
    cv::Mat image = cv::imdecode(file.bytes, cv::IMREAD_COLOR);
    if (image.empty() || image.cols <= 0 || image.rows <= 0)
        return fail(kNotDecodable);
    if (note)
        *note = truncationNote(file);
    return image;
}

ImageProbe probeImage(const std::string& path, ImageCheck check) {
    ImageProbe out;
    FileStart file;
    const bool header = check == ImageCheck::Header;
    std::optional<ReadFailure> failure =
        header ? readStart(path, kHeadBytes, file) : readAll(path, file);
    if (!failure && header && probeHeader(path, file, out))
        return out;
    if (!failure && !file.whole())
        failure = readAll(path, file);
    if (failure) {
        out.error = failure->why;
        out.reason = failure->code;
        out.decoded = true; // no check can read more of it
        return out;
    }
    probeByDecoding(file, out);
    return out;
}

cv::Mat readImageResized(const std::string& path, int longSide, std::string* error,
                         std::string* reason) {
    cv::Mat image = readImage(path, error, nullptr, reason);
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
