// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/image_io.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

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

cv::Mat readImage(const std::string& path, std::string* error, std::string* note,
                  std::string* reason) {
    auto fail = [&](const char* code, const std::string& why) {
        if (error)
            *error = why;
        if (reason)
            *reason = code;
        return cv::Mat();
    };
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return fail("cannot_open", "cannot open the file");
    const std::streamoff size = in.tellg();
    if (size <= 0)
        return fail("empty", "the file is empty (0 bytes)");
    std::vector<uchar> bytes(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
        return fail("cannot_read", "cannot read the file");

    // IMREAD_COLOR: 3 channels, 8 bits, EXIF orientation applied (OpenCV >= 3.1).
    cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
    if (image.empty() || image.cols <= 0 || image.rows <= 0)
        return fail("not_decodable",
                    "not a decodable image (corrupt, truncated or an unsupported format)");
    const bool jpeg = bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
    if (jpeg && note) {
        // Like Ultralytics: a JPEG without its end marker was cut short; libjpeg fills the rest.
        if (!(bytes[bytes.size() - 2] == 0xFF && bytes[bytes.size() - 1] == 0xD9))
            *note = "JPEG end marker missing (truncated file?): used the decodable part";
    }
    return image;
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
