// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// cache=disk: each decoded, resized image once in a file under the Headroom cache folder, read
// back as long as the image's size and modification time are those stored with it.

#include "data/image_io.h"
#include "data/label_cache.h"

#include <opencv2/core.hpp>

#include <string>

namespace hr {

/// The disk-cache file of one image at one size, decoded one way (training and validation
/// decode large JPEGs differently).
std::string diskCachePath(const std::string& image, int imgsz, JpegDecode decode);

/// The cached image of `path` when its stamp matches `stamp` (else false: stale or missing).
bool readDiskCache(const std::string& path, const FileStamp& stamp, cv::Mat& out);

/// Writes `image` with its stamp (atomically: a temporary file renamed); a failure leaves no file.
void writeDiskCache(const std::string& path, const FileStamp& stamp, const cv::Mat& image);

} // namespace hr
