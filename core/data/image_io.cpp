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
#include <utility>

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

namespace {

/// How an image is decoded: a JPEG at least twice `longSide` at 1/2, 1/4 or 1/8 scale (when
/// readImageResized may), anything else in full (scale 1).
struct Decoding {
    int flag = cv::IMREAD_COLOR;
    int scale = 1;
    int width = 0, height = 0; ///< the full size, EXIF orientation applied; 0 when unknown
};

Decoding decodingFor(const std::vector<uchar>& bytes, int longSide) {
    ImageHeader header;
    if (longSide <= 0 || !isJpeg(bytes) ||
        readJpegHeader(bytes.data(), bytes.size(), header) != HeaderVerdict::Settled)
        return {};
    const int side = std::max(header.width, header.height);
    for (const auto& [flag, scale] :
         {std::pair{cv::IMREAD_REDUCED_COLOR_8, 8}, std::pair{cv::IMREAD_REDUCED_COLOR_4, 4},
          std::pair{cv::IMREAD_REDUCED_COLOR_2, 2}})
        if (side >= std::int64_t(longSide) * scale)
            return {flag, scale, header.orientedWidth(), header.orientedHeight()};
    return {};
}

/// readImage, decoding at the scale decodingFor picks for `longSide` (0: in full).
cv::Mat decodeFile(const std::string& path, int longSide, Decoding& how, std::string* error,
                   std::string* note, std::string* reason) {
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
    how = decodingFor(file.bytes, longSide);
    // IMREAD_COLOR and the reduced ones: 3 channels, 8 bits, EXIF orientation applied.
    cv::Mat image = cv::imdecode(file.bytes, how.flag);
    if (image.empty() || image.cols <= 0 || image.rows <= 0)
        return fail(kNotDecodable);
    if (note)
        *note = truncationNote(file);
    return image;
}

} // namespace

cv::Mat readImage(const std::string& path, std::string* error, std::string* note,
                  std::string* reason) {
    Decoding full;
    return decodeFile(path, 0, full, error, note, reason);
}

cv::Mat readImageResized(const std::string& path, int longSide, std::string* error,
                         std::string* reason, JpegDecode decode) {
    Decoding how;
    cv::Mat image =
        decodeFile(path, decode == JpegDecode::Reduced ? longSide : 0, how, error, nullptr, reason);
    if (image.empty() || longSide <= 0)
        return image;
    // The size a full decode would give, from the full size when libjpeg's scaled sides,
    // ceil(side / scale), confirm the header's orientation.
    const auto scaled = [&](int side) { return (side + how.scale - 1) / how.scale; };
    const bool headerFits =
        how.scale > 1 && image.cols == scaled(how.width) && image.rows == scaled(how.height);
    const int fullW = headerFits ? how.width : image.cols * how.scale;
    const int fullH = headerFits ? how.height : image.rows * how.scale;
    const double r = static_cast<double>(longSide) / std::max(fullW, fullH);
    const int w = std::max(1, std::min(longSide, static_cast<int>(std::ceil(fullW * r - 1e-6))));
    const int h = std::max(1, std::min(longSide, static_cast<int>(std::ceil(fullH * r - 1e-6))));
    if (w == image.cols && h == image.rows)
        return image;
    cv::Mat resized;
    cv::resize(image, resized, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
    return resized;
}

} // namespace hr
