// SPDX-License-Identifier: GPL-3.0-or-later
// Image files written byte by byte for the scan's header check and the loader (test_data_scan,
// test_data_loader, test_cli_data): JPEGs with EXIF segments, and damaged files.
#pragma once

#include <QByteArray>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <vector>

namespace fixtures {

inline QByteArray bytesOf(const std::vector<uchar>& v) {
    return QByteArray(reinterpret_cast<const char*>(v.data()), static_cast<int>(v.size()));
}

/// A JPEG of w x h (a colour gradient, so that damage shows).
inline QByteArray jpeg(int w, int h, bool progressive = false) {
    cv::Mat image(h, w, CV_8UC3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(x * 255 / w), uchar(y * 255 / h), 90);
    std::vector<uchar> bytes;
    cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_PROGRESSIVE, progressive ? 1 : 0});
    return bytesOf(bytes);
}

/// A marker segment: FF, the marker, the big-endian length, the payload.
inline QByteArray segment(unsigned char marker, const QByteArray& payload) {
    const int length = payload.size() + 2;
    QByteArray s;
    s.append(char(0xFF)).append(char(marker)).append(char(length >> 8)).append(char(length & 0xFF));
    return s + payload;
}

/// An APP1 payload "Exif\0\0" + a TIFF block whose IFD0 holds one orientation entry, in Intel
/// ("II") or Motorola ("MM") byte order.
inline QByteArray exifOrientation(int orientation, bool intel = true) {
    const char ii[] = {
        'I', 'I', 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, char(orientation),
        0,   0,   0,    0, 0, 0, 0};
    const char mm[] = {'M',  'M',  0, 0x2A, 0, 0, 0, 8, 0, 1,
                       0x01, 0x12, 0, 3,    0, 0, 0, 1, 0, char(orientation),
                       0,    0,    0, 0,    0, 0};
    return QByteArray("Exif\0\0", 6) + QByteArray(intel ? ii : mm, int(sizeof ii));
}

/// `jpegBytes` with `segments` inserted right after its SOI marker.
inline QByteArray withSegments(const QByteArray& jpegBytes, const QByteArray& segments) {
    return jpegBytes.left(2) + segments + jpegBytes.mid(2);
}

/// A JPEG whose segments are all in place (frame header, start of scan, end marker) but whose
/// Huffman tables are garbage: the header check passes it, libjpeg cannot decode it.
inline QByteArray garbledJpeg(int w, int h) {
    QByteArray b = jpeg(w, h);
    int i = 2;
    while (i + 4 <= b.size() && uchar(b[i]) == 0xFF && uchar(b[i + 1]) != 0xDA) {
        const int length = uchar(b[i + 2]) << 8 | uchar(b[i + 3]);
        if (uchar(b[i + 1]) == 0xC4) // DHT: keep the length and the table's class and id
            for (int k = i + 5; k < i + 2 + length; ++k)
                b[k] = char(0xFF);
        i += 2 + length;
    }
    return b;
}

/// The CRC-32 of PNG chunks (ISO 3309), over the chunk's type and data.
inline quint32 pngCrc(const QByteArray& bytes) {
    quint32 c = 0xFFFFFFFFu;
    for (const char byte : bytes) {
        c ^= uchar(byte);
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

/// A PNG of w x h with an eXIf chunk (a TIFF block with one orientation entry) after IHDR.
inline QByteArray pngWithExif(int w, int h, int orientation) {
    std::vector<uchar> bytes;
    cv::imencode(".png", cv::Mat(h, w, CV_8UC3, cv::Scalar(10, 20, 30)), bytes);
    const QByteArray png = bytesOf(bytes);
    const QByteArray body = QByteArray("eXIf") + exifOrientation(orientation).mid(6);
    QByteArray chunk;
    const auto be32 = [&chunk](quint32 v) {
        for (int shift = 24; shift >= 0; shift -= 8)
            chunk.append(char((v >> shift) & 0xFF));
    };
    be32(quint32(body.size() - 4));
    chunk += body;
    be32(pngCrc(body));
    return png.left(33) + chunk + png.mid(33); // signature (8) + IHDR (25), then eXIf
}

} // namespace fixtures
