// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/image_disk_cache.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace hr {

namespace {

constexpr char kDiskMagic[4] = {'H', 'R', 'I', '1'};

} // namespace

std::string diskCachePath(const std::string& image, int imgsz, JpegDecode decode) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : image)
        h = (h ^ c) * 1099511628211ULL;
    std::ostringstream name;
    name << std::hex << h << "-" << std::dec << imgsz << (decode == JpegDecode::Reduced ? "r" : "")
         << ".bgr";
    return (fs::path(headroomCacheDir()) / "images" / name.str()).string();
}

bool readDiskCache(const std::string& path, const FileStamp& stamp, cv::Mat& out) {
    std::ifstream in(path, std::ios::binary);
    char magic[4];
    std::int64_t size = 0, mtime = 0;
    std::int32_t rows = 0, cols = 0;
    if (!in.read(magic, 4) || std::memcmp(magic, kDiskMagic, 4) != 0 ||
        !in.read(reinterpret_cast<char*>(&size), sizeof size) ||
        !in.read(reinterpret_cast<char*>(&mtime), sizeof mtime) ||
        !in.read(reinterpret_cast<char*>(&rows), sizeof rows) ||
        !in.read(reinterpret_cast<char*>(&cols), sizeof cols) || size != stamp.size ||
        mtime != stamp.mtimeNs || rows <= 0 || cols <= 0 || rows > 65536 || cols > 65536)
        return false;
    cv::Mat image(rows, cols, CV_8UC3);
    if (!in.read(reinterpret_cast<char*>(image.data),
                 static_cast<std::streamsize>(image.total() * 3)))
        return false;
    out = image;
    return true;
}

void writeDiskCache(const std::string& path, const FileStamp& stamp, const cv::Mat& image) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    const std::string temporary =
        path + ".tmp" + std::to_string(::getpid()) + "-" +
        std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        const std::int32_t rows = image.rows, cols = image.cols;
        out.write(kDiskMagic, 4);
        out.write(reinterpret_cast<const char*>(&stamp.size), sizeof stamp.size);
        out.write(reinterpret_cast<const char*>(&stamp.mtimeNs), sizeof stamp.mtimeNs);
        out.write(reinterpret_cast<const char*>(&rows), sizeof rows);
        out.write(reinterpret_cast<const char*>(&cols), sizeof cols);
        const cv::Mat continuous = image.isContinuous() ? image : image.clone();
        out.write(reinterpret_cast<const char*>(continuous.data),
                  static_cast<std::streamsize>(continuous.total() * 3));
        if (!out) {
            out.close();
            fs::remove(temporary, ec);
            return;
        }
    }
    fs::rename(temporary, path, ec);
    if (ec)
        fs::remove(temporary, ec);
}

} // namespace hr
