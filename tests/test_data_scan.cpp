// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/data_config.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "data/label_cache.h"
#include "data/synthetic_dataset.h"
#include "image_fixtures.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <fstream>

namespace {

hr::ScanOptions scanOptions(bool singleCls, double fraction) {
    hr::ScanOptions options;
    options.singleCls = singleCls;
    options.fraction = fraction;
    options.useCache = false;
    return options;
}

void writeText(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

QByteArray pngBytes(int w, int h, int value = 128) {
    std::vector<uchar> bytes;
    cv::imencode(".png", cv::Mat(h, w, CV_8UC3, cv::Scalar::all(value)), bytes);
    return QByteArray(reinterpret_cast<const char*>(bytes.data()), int(bytes.size()));
}

void writeImage(const QString& path, int w, int h) {
    writeText(path, pngBytes(w, h));
}

hr::DataConfig configFor(const QString& root, const std::vector<std::string>& names) {
    hr::DataConfig data;
    data.yamlPath = (root + "/data.yaml").toStdString();
    data.root = root.toStdString();
    data.train = {(root + "/images/train").toStdString()};
    data.val = {(root + "/images/val").toStdString()};
    data.names = names;
    return data;
}

/// The problems about one file (and line, when given).
std::vector<hr::Diagnostic> problemsAt(const hr::DatasetReport& report, const QString& file,
                                       int line = -1) {
    std::vector<hr::Diagnostic> found;
    for (const auto& d : report.problems)
        if (d.file == file.toStdString() && (line < 0 || d.line == line))
            found.push_back(d);
    return found;
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestDataScan : public QObject {
    Q_OBJECT
private slots:
    void labelPathMapping_data();
    void labelPathMapping();
    void readsFormatsGreyAnd16Bit();
    void appliesExifOrientation();
    void probeAgreesWithRead_data();
    void probeAgreesWithRead();
    void headerPassesWhatOnlyDecodingFinds();
    void resizedReadDecodesLargeJpegsSmall_data();
    void resizedReadDecodesLargeJpegsSmall();
    void deepScanOfBrokenFiles();
    void manyImagesKeepTheirOrder();
    void rejectsBrokenImages();
    void reportsEveryLabelProblem();
    void listFilesFractionAndSingleClass();
    void missingSplitIsAnError();
    void statisticsOfSyntheticData();
    void labelCacheMakesSecondScanFast();
    void labelCacheKeepsEveryField();
};

void TestDataScan::labelPathMapping_data() {
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("label");
    QTest::newRow("plain") << "/d/images/train/a.jpg"
                           << "/d/labels/train/a.txt";
    QTest::newRow("last images component") << "/images/x/images/b.PNG"
                                           << "/images/x/labels/b.txt";
    QTest::newRow("dots in name") << "/d/images/v/a.b.c.webp"
                                  << "/d/labels/v/a.b.c.txt";
    QTest::newRow("no images folder") << "/d/pics/c.tif"
                                      << "/d/pics/c.txt";
}

void TestDataScan::labelPathMapping() {
    QFETCH(QString, image);
    QFETCH(QString, label);
    QCOMPARE(QString::fromStdString(hr::labelPathForImage(image.toStdString())), label);
}

void TestDataScan::readsFormatsGreyAnd16Bit() {
    QTemporaryDir dir;
    const cv::Mat colour(12, 20, CV_8UC3, cv::Scalar(10, 20, 30));
    for (const char* ext : {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif"}) {
        const std::string path = dir.filePath(QString("img") + ext).toStdString();
        QVERIFY2(cv::imwrite(path, colour), ext);
        QVERIFY(hr::isImageFile(path));
        std::string error;
        const cv::Mat read = hr::readImage(path, &error);
        QVERIFY2(!read.empty(), (std::string(ext) + ": " + error).c_str());
        QCOMPARE(read.size(), cv::Size(20, 12));
        QCOMPARE(read.type(), CV_8UC3);
    }
    QVERIFY(!hr::isImageFile("/a/labels.txt"));
    QVERIFY(hr::isImageFile("/a/B.JPG"));

    const std::string grey = dir.filePath("grey.png").toStdString();
    cv::imwrite(grey, cv::Mat(8, 6, CV_8UC1, cv::Scalar(77)));
    cv::Mat read = hr::readImage(grey, nullptr);
    QCOMPARE(read.type(), CV_8UC3);
    QCOMPARE(read.at<cv::Vec3b>(3, 3), cv::Vec3b(77, 77, 77));

    const std::string deep = dir.filePath("deep.png").toStdString();
    cv::imwrite(deep, cv::Mat(8, 6, CV_16UC1, cv::Scalar(65535)));
    read = hr::readImage(deep, nullptr);
    QCOMPARE(read.type(), CV_8UC3);
    QCOMPARE(read.at<cv::Vec3b>(2, 2), cv::Vec3b(255, 255, 255));
}

void TestDataScan::appliesExifOrientation() {
    // A 40x20 JPEG with an EXIF APP1 segment saying "rotate 90° clockwise" (orientation 6).
    cv::Mat wide(20, 40, CV_8UC3, cv::Scalar(0, 0, 0));
    wide(cv::Rect(0, 0, 10, 20)).setTo(cv::Scalar(255, 255, 255)); // white left edge
    std::vector<uchar> jpeg;
    cv::imencode(".jpg", wide, jpeg, {cv::IMWRITE_JPEG_QUALITY, 100});
    const unsigned char exif[] = {0xFF, 0xE1, 0x00, 0x22, 'E',  'x',  'i',  'f',  0, 0,
                                  'I',  'I',  0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, // TIFF header
                                  0x01, 0x00,                                     // one entry
                                  0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, // orientation
                                  0x06, 0x00, 0x00, 0x00,                         // = 6
                                  0x00, 0x00, 0x00, 0x00};                        // no next IFD
    jpeg.insert(jpeg.begin() + 2, std::begin(exif), std::end(exif));
    QTemporaryDir dir;
    const QString path = dir.filePath("rotated.jpg");
    writeText(path, QByteArray(reinterpret_cast<const char*>(jpeg.data()), int(jpeg.size())));
    const cv::Mat read = hr::readImage(path.toStdString(), nullptr);
    QCOMPARE(read.size(), cv::Size(20, 40));
    // Rotated clockwise: the white left edge is now the top.
    QVERIFY(read.at<cv::Vec3b>(2, 10)[0] > 200);
    QVERIFY(read.at<cv::Vec3b>(37, 10)[0] < 50);
}

void TestDataScan::probeAgreesWithRead_data() {
    // Each file, the size readImage returns (0 x 0: it fails), and whether the header check
    // settles it without decoding.
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("headerOnly");
    using fixtures::exifOrientation;
    using fixtures::jpeg;
    using fixtures::segment;
    using fixtures::withSegments;
    const auto app1 = [](const QByteArray& payload) { return segment(0xE1, payload); };
    // Sides not divisible by 8; orientations 5-8 turn the image.
    for (int orientation = 1; orientation <= 8; ++orientation)
        QTest::addRow("orientation %d", orientation)
            << withSegments(jpeg(33, 17), app1(exifOrientation(orientation)))
            << (orientation >= 5 ? QSize(17, 33) : QSize(33, 17)) << true;
    QTest::newRow("orientation 6, Motorola order")
        << withSegments(jpeg(33, 17), app1(exifOrientation(6, false))) << QSize(17, 33) << true;
    QTest::newRow("no EXIF") << jpeg(40, 30) << QSize(40, 30) << true;
    QTest::newRow("8 x 8") << withSegments(jpeg(8, 8), app1(exifOrientation(1))) << QSize(8, 8)
                           << true;
    // 81 x 81 at 1/8 scale: the decode check cannot tell which way round it came back.
    QTest::newRow("641 x 647, orientation 6")
        << withSegments(jpeg(641, 647), app1(exifOrientation(6))) << QSize(647, 641) << true;
    QTest::newRow("641 x 647, progressive") << jpeg(641, 647, true) << QSize(641, 647) << true;
    QTest::newRow("640 x 480, progressive, orientation 6")
        << withSegments(jpeg(640, 480, true), app1(exifOrientation(6))) << QSize(480, 640) << true;
    // OpenCV reads the first APP1 segment, whatever its signature, and stops at an entry it
    // cannot read: the header check must do the same.
    const QByteArray xmp("http://ns.adobe.com/xap/1.0/\0<x/>", 33);
    QTest::newRow("XMP before EXIF")
        << withSegments(jpeg(33, 17), app1(xmp) + app1(exifOrientation(6))) << QSize(33, 17)
        << true;
    QTest::newRow("two EXIF segments")
        << withSegments(jpeg(33, 17), app1(exifOrientation(1)) + app1(exifOrientation(6)))
        << QSize(33, 17) << true;
    QTest::newRow("EXIF without its signature")
        << withSegments(jpeg(33, 17), app1("XXif" + exifOrientation(6).mid(4))) << QSize(17, 33)
        << true;
    const char badMake[] = {'I',  'I',  0x2A, 0, 8,   0, 0, 0, 2,          0,       // 2 entries
                            0x0F, 0x01, 2,    0, 100, 0, 0, 0, char(0xF0), 0, 0, 0, // make
                            0x12, 0x01, 3,    0, 1,   0, 0, 0, 6,          0, 0, 0,
                            0,    0,    0,    0}; // = 6
    QTest::newRow("unreadable make before the orientation")
        << withSegments(jpeg(33, 17),
                        app1(QByteArray("Exif\0\0", 6) + QByteArray(badMake, sizeof badMake)))
        << QSize(33, 17) << true;
    QTest::newRow("byte order JJ (read as Motorola)")
        << withSegments(jpeg(33, 17),
                        app1(QByteArray("Exif\0\0JJ", 8) + exifOrientation(6, false).mid(8)))
        << QSize(17, 33) << true;
    QTest::newRow("orientation 9")
        << withSegments(jpeg(33, 17), app1(exifOrientation(9))) << QSize(33, 17) << true;
    QTest::newRow("orientation value cut off")
        << withSegments(jpeg(33, 17), app1(exifOrientation(6).left(25))) << QSize(33, 17) << true;
    // 130 KB of colour profile before the EXIF block: past the first read.
    const QByteArray profile = segment(0xE2, QByteArray(65000, 'p'));
    QTest::newRow("header past 64 KiB")
        << withSegments(jpeg(33, 17), profile + profile + app1(exifOrientation(6))) << QSize(17, 33)
        << true;
    const QByteArray whole = jpeg(64, 48);
    QTest::newRow("cut JPEG") << whole.left(whole.size() - 2) << QSize(64, 48) << true;
    QTest::newRow("cut in the header") << whole.left(60) << QSize() << false;
    QTest::newRow("PNG") << pngBytes(30, 20) << QSize(30, 20) << true;
    QTest::newRow("PNG with eXIf orientation 6")
        << fixtures::pngWithExif(30, 20, 6) << QSize(20, 30) << false;
    QTest::newRow("cut PNG") << pngBytes(64, 64).left(200) << QSize() << false;
    std::vector<uchar> webp;
    cv::imencode(".webp", cv::Mat(20, 30, CV_8UC3, cv::Scalar::all(99)), webp);
    QTest::newRow("WebP") << fixtures::bytesOf(webp) << QSize(30, 20) << false;
    QTest::newRow("text") << QByteArray("not an image\n") << QSize() << false;
}

void TestDataScan::probeAgreesWithRead() {
    // Both checks answer as readImage does: size, error, reason and note.
    QFETCH(QByteArray, bytes);
    QFETCH(QSize, size);
    QFETCH(bool, headerOnly);
    QTemporaryDir dir;
    const std::string path = dir.filePath("image.jpg").toStdString();
    writeText(QString::fromStdString(path), bytes);
    std::string error, note, reason;
    const cv::Mat read = hr::readImage(path, &error, &note, &reason);
    QCOMPARE(QSize(read.cols, read.rows), size.isValid() ? size : QSize(0, 0));
    for (const hr::ImageCheck check : {hr::ImageCheck::Header, hr::ImageCheck::Decode}) {
        const hr::ImageProbe probe = hr::probeImage(path, check);
        const bool header = check == hr::ImageCheck::Header;
        QCOMPARE(QSize(probe.width, probe.height), QSize(read.cols, read.rows));
        QCOMPARE(probe.error, error);
        QCOMPARE(probe.reason, reason);
        QCOMPARE(probe.note, note);
        QCOMPARE(probe.decoded, header ? !headerOnly : true);
    }
}

void TestDataScan::headerPassesWhatOnlyDecodingFinds() {
    // Well-formed segments around garbage Huffman tables: the header check passes the file with
    // its size, the decode check fails it as readImage does.
    QTemporaryDir dir;
    const std::string path = dir.filePath("garbled.jpg").toStdString();
    writeText(QString::fromStdString(path), fixtures::garbledJpeg(64, 48));
    std::string error, reason;
    QVERIFY(hr::readImage(path, &error, nullptr, &reason).empty());
    QCOMPARE(reason, std::string("not_decodable"));
    const hr::ImageProbe header = hr::probeImage(path, hr::ImageCheck::Header);
    QVERIFY(header.ok());
    QCOMPARE(QSize(header.width, header.height), QSize(64, 48));
    QVERIFY(!header.decoded);
    const hr::ImageProbe deep = hr::probeImage(path, hr::ImageCheck::Decode);
    QVERIFY(!deep.ok());
    QCOMPARE(deep.reason, reason);
    QCOMPARE(deep.error, error);
}

void TestDataScan::resizedReadDecodesLargeJpegsSmall_data() {
    // A file, the longer side asked for, and the size a full decode and resize gives.
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("longSide");
    QTest::addColumn<QSize>("size");
    using fixtures::exifOrientation;
    using fixtures::jpeg;
    using fixtures::segment;
    using fixtures::withSegments;
    const auto turned = [](int w, int h) {
        return withSegments(jpeg(w, h), segment(0xE1, exifOrientation(6)));
    };
    QTest::newRow("1/2 scale") << jpeg(640, 480) << 320 << QSize(320, 240);
    QTest::newRow("1/4 scale, odd sides") << jpeg(1283, 961) << 320 << QSize(320, 240);
    QTest::newRow("1/8 scale, turned") << turned(2600, 1700) << 320 << QSize(210, 320);
    QTest::newRow("1/2 scale, odd sides, turned") << turned(641, 647) << 320 << QSize(320, 318);
    QTest::newRow("progressive") << jpeg(1000, 700, true) << 160 << QSize(160, 112);
    QTest::newRow("under twice the size: full decode") << jpeg(500, 400) << 320 << QSize(320, 256);
    QTest::newRow("smaller: enlarged") << jpeg(100, 50) << 320 << QSize(320, 160);
    QTest::newRow("PNG") << pngBytes(700, 500) << 320 << QSize(320, 229);
}

void TestDataScan::resizedReadDecodesLargeJpegsSmall() {
    // Whatever scale a JPEG is decoded at, readImageResized gives the size and the pixels of a
    // full decode and resize: one orientation, no shift, no lost row.
    QFETCH(QByteArray, bytes);
    QFETCH(int, longSide);
    QFETCH(QSize, size);
    QTemporaryDir dir;
    const std::string path = dir.filePath("image.jpg").toStdString();
    writeText(QString::fromStdString(path), bytes);
    std::string error;
    const cv::Mat resized =
        hr::readImageResized(path, longSide, &error, nullptr, hr::JpegDecode::Reduced);
    QVERIFY2(!resized.empty(), error.c_str());
    QCOMPARE(QSize(resized.cols, resized.rows), size);
    QCOMPARE(resized.type(), CV_8UC3);
    const cv::Mat full = hr::readImage(path, &error);
    cv::Mat reference;
    cv::resize(full, reference, resized.size(), 0, 0,
               size.width() > full.cols ? cv::INTER_LINEAR : cv::INTER_AREA);
    const double meanDifference =
        cv::norm(resized, reference, cv::NORM_L1) / double(resized.total() * 3);
    QVERIFY2(meanDifference < 2.0, qPrintable(QString("mean difference %1").arg(meanDifference)));
    // Decoded in full (validation), it is readImage's image resized as the comment says.
    const cv::Mat inFull = hr::readImageResized(path, longSide, &error);
    QCOMPARE(QSize(inFull.cols, inFull.rows), size);
    cv::Mat linear;
    cv::resize(full, linear, resized.size(), 0, 0, cv::INTER_LINEAR);
    QCOMPARE(cv::norm(inFull, linear, cv::NORM_INF), 0.0);
}

void TestDataScan::deepScanOfBrokenFiles() {
    // A folder of broken files: what each scan reports, and which cached checks a deep scan
    // takes (only those of decoded images).
    QTemporaryDir dir;
    const QString root = dir.path();
    const QString images = root + "/images/train/";
    const QByteArray good = fixtures::jpeg(64, 48);
    writeText(images + "good.jpg", good);
    writeText(images + "cut.jpg", good.left(good.size() - 2));
    writeText(images + "garbled.jpg", fixtures::garbledJpeg(64, 48));
    writeText(images + "head.jpg", good.left(400));
    writeText(images + "text.jpg", "not an image\n");
    writeText(images + "empty.jpg", QByteArray());
    writeText(images + "png.jpg", pngBytes(30, 20));
    writeText(images + "cut.png", pngBytes(64, 64).left(200));
    const hr::DataConfig data = configFor(root, {"a"});
    const auto skipped = [](const hr::DatasetReport& report) {
        QStringList names;
        for (const auto& d : report.problems)
            if (d.code == "image_unreadable")
                names << QFileInfo(QString::fromStdString(d.file)).fileName() + ": " +
                             QString::fromStdString(d.message);
        names.sort();
        return names;
    };
    hr::ScanOptions header;
    const hr::DatasetReport quick = hr::scanDataset(data, hr::Split::Train, header);
    QCOMPARE(quick.cacheHits, 0);
    QCOMPARE(int(quick.images.size()), 4); // good, cut (with its note), garbled, png.jpg
    const QString notDecodable = "not a decodable image (corrupt, truncated or an unsupported "
                                 "format): skipped the image";
    QCOMPARE(skipped(quick),
             QStringList({"cut.png: " + notDecodable,
                          "empty.jpg: the file is empty (0 bytes): "
                          "skipped the image",
                          "head.jpg: " + notDecodable, "text.jpg: " + notDecodable}));
    QCOMPARE(int(problemsAt(quick, images + "cut.jpg").size()), 1);
    QCOMPARE(problemsAt(quick, images + "cut.jpg")[0].code, std::string("jpeg_truncated"));

    hr::ScanOptions deep;
    deep.deep = true;
    const hr::DatasetReport decoded = hr::scanDataset(data, hr::Split::Train, deep);
    QCOMPARE(int(decoded.images.size()), 3);
    QStringList expected = skipped(quick) << "garbled.jpg: " + notDecodable;
    expected.sort();
    QCOMPARE(skipped(decoded), expected);
    // The header scan decoded the files it could not settle (head.jpg, text.jpg, cut.png) and
    // could not read empty.jpg at all: those answer the deep scan from the cache; the others
    // were checked again.
    QCOMPARE(decoded.cacheHits, 4);
    const hr::DatasetReport again = hr::scanDataset(data, hr::Split::Train, deep);
    QCOMPARE(again.cacheHits, 8);
    QCOMPARE(skipped(again), skipped(decoded));
    // A header scan after a deep one takes every decoded check: garbled.jpg stays skipped.
    const hr::DatasetReport afterDeep = hr::scanDataset(data, hr::Split::Train, header);
    QCOMPARE(afterDeep.cacheHits, 8);
    QCOMPARE(skipped(afterDeep), skipped(decoded));
}

void TestDataScan::manyImagesKeepTheirOrder() {
    // 600 images: more than one chunk of the threaded check. The report lists them in the
    // folder's order with the size of each, progress climbs to the total, and a stop asked
    // for at the second progress call ends the scan with nothing listed.
    QTemporaryDir dir;
    const QString root = dir.path();
    for (int i = 0; i < 600; ++i) {
        const QString name = QStringLiteral("%1").arg(i, 4, 10, QLatin1Char('0'));
        writeImage(root + "/images/train/" + name + ".png", 8 + i % 7, 8 + i % 5);
        writeText(root + "/labels/train/" + name + ".txt", "0 0.5 0.5 0.2 0.2\n");
    }
    hr::ScanOptions options = scanOptions(false, 1.0);
    std::vector<std::pair<int, int>> calls;
    options.progress = [&calls](int done, int total) {
        calls.emplace_back(done, total);
        return true;
    };
    const hr::DataConfig data = configFor(root, {"a"});
    const hr::DatasetReport report = hr::scanDataset(data, hr::Split::Train, options);
    QCOMPARE(int(report.images.size()), 600);
    for (int i = 0; i < 600; ++i) {
        const hr::ImageRecord& r = report.images[size_t(i)];
        QVERIFY2(QString::fromStdString(r.imagePath)
                     .endsWith(QStringLiteral("/%1.png").arg(i, 4, 10, QLatin1Char('0'))),
                 r.imagePath.c_str());
        QCOMPARE(r.width, 8 + i % 7);
        QCOMPARE(r.height, 8 + i % 5);
        QCOMPARE(int(r.labels.size()), 1);
    }
    QVERIFY(calls.size() >= 2);
    for (size_t k = 1; k < calls.size(); ++k)
        QVERIFY(calls[k].first >= calls[k - 1].first);
    QCOMPARE(calls.back(), std::make_pair(600, 600));

    int seen = 0;
    options.progress = [&seen](int, int) { return ++seen < 2; };
    const hr::DatasetReport stopped = hr::scanDataset(data, hr::Split::Train, options);
    QVERIFY(stopped.images.empty());
    QVERIFY(std::any_of(stopped.problems.begin(), stopped.problems.end(),
                        [](const hr::Diagnostic& d) { return d.code == "scan_cancelled"; }));
}

void TestDataScan::rejectsBrokenImages() {
    QTemporaryDir dir;
    std::string error;
    writeText(dir.filePath("empty.png"), QByteArray());
    QVERIFY(hr::readImage(dir.filePath("empty.png").toStdString(), &error).empty());
    QVERIFY(contains(error, "0 bytes"));
    const QByteArray png = pngBytes(64, 64);
    writeText(dir.filePath("cut.png"), png.left(png.size() / 2));
    QVERIFY(hr::readImage(dir.filePath("cut.png").toStdString(), &error).empty());
    QVERIFY(contains(error, "not a decodable image"));
    QVERIFY(hr::readImage(dir.filePath("missing.png").toStdString(), &error).empty());
    QVERIFY(contains(error, "cannot open"));
}

void TestDataScan::reportsEveryLabelProblem() {
    QTemporaryDir dir;
    const QString root = dir.path();
    writeImage(root + "/images/train/good.png", 100, 50);
    writeText(root + "/labels/train/good.txt", "0 0.5 0.5 0.2 0.2\n"     // 1 kept
                                               "1 0.5 0.5 0.2\n"         // 2 column count
                                               "1 0.5 abc 0.2 0.2\n"     // 3 not a number
                                               "5 0.5 0.5 0.2 0.2\n"     // 4 class outside
                                               "1 0.9 0.5 0.4 0.2\n"     // 5 clipped
                                               "1 0.5 0.5 0 0.2\n"       // 6 zero area
                                               "0 0.5 0.5 0.2 0.2\n"     // 7 duplicate
                                               "\n"                      // 8 blank: fine
                                               "1.5 0.5 0.5 0.2 0.2\n"); // 9 class not whole
    writeImage(root + "/images/train/background.png", 30, 40);
    writeText(root + "/images/train/zero.jpg", QByteArray());
    writeText(root + "/images/train/truncated.png", pngBytes(64, 64).left(60));
    writeText(root + "/labels/train/orphan.txt", "0 0.5 0.5 0.1 0.1\n");

    const QString labels = root + "/labels/train/good.txt";
    const hr::DatasetReport report = hr::scanDataset(configFor(root, {"a", "b", "c"}),
                                                     hr::Split::Train, scanOptions(false, 1.0));
    QVERIFY(report.usable());
    QCOMPARE(int(report.images.size()), 2);
    QCOMPARE(report.stats.skipped, 2);
    QCOMPARE(report.stats.backgrounds, 1);

    auto only = [&](const QString& file, int line) {
        const auto found = problemsAt(report, file, line);
        return found.size() == 1 ? found.front() : hr::Diagnostic{};
    };
    QVERIFY(contains(only(labels, 2).message, "expected 5 columns"));
    QVERIFY(contains(only(labels, 2).message, "dropped the line"));
    QVERIFY(contains(only(labels, 3).message, "'abc' is not a number"));
    QVERIFY(contains(only(labels, 4).message, "class id 5 is not one of the classes"));
    QVERIFY(contains(only(labels, 5).message, "clipped the box"));
    QCOMPARE(only(labels, 5).severity, hr::Diagnostic::Severity::Note);
    QVERIFY(contains(only(labels, 6).message, "zero or negative size"));
    QVERIFY(contains(only(labels, 7).message, "duplicate"));
    QVERIFY(problemsAt(report, labels, 1).empty());
    QVERIFY(problemsAt(report, labels, 8).empty());
    QVERIFY(contains(only(labels, 9).message, "class id 1.5"));
    const auto zero = problemsAt(report, root + "/images/train/zero.jpg");
    QCOMPARE(int(zero.size()), 1);
    QVERIFY(contains(zero[0].message, "0 bytes"));
    QVERIFY(contains(zero[0].message, "skipped the image"));
    QVERIFY(contains(problemsAt(report, root + "/images/train/truncated.png")[0].message,
                     "skipped the image"));
    QVERIFY(contains(problemsAt(report, root + "/labels/train/orphan.txt")[0].message,
                     "without an image"));

    const hr::ImageRecord* good = nullptr;
    for (const auto& r : report.images)
        if (r.imagePath == (root + "/images/train/good.png").toStdString())
            good = &r;
    QVERIFY(good);
    QCOMPARE(good->width, 100);
    QCOMPARE(good->height, 50);
    QCOMPARE(int(good->labels.size()), 2);
    // The clipped box: x from 0.7..1.1 becomes 0.7..1.0.
    QCOMPARE(good->labels[1].cls, 1);
    QVERIFY(qAbs(good->labels[1].cx - 0.85f) < 1e-6f);
    QVERIFY(qAbs(good->labels[1].w - 0.3f) < 1e-6f);
    QCOMPARE(good->labels[1].h, 0.2f);

    const std::string text = hr::formatReport(report);
    QVERIFY(contains(text, "2 usable images"));
    QVERIFY(contains(text, "good.txt:4: warning"));
}

void TestDataScan::listFilesFractionAndSingleClass() {
    QTemporaryDir dir;
    const QString root = dir.path();
    for (int i = 0; i < 4; ++i) {
        writeImage(root + QString("/images/all/%1.png").arg(i), 16, 16);
        writeText(root + QString("/labels/all/%1.txt").arg(i),
                  QByteArray::number(i % 2) + " 0.5 0.5 0.5 0.5\n");
    }
    writeText(root + "/list.txt", "./images/all/0.png\nimages/all/1.png\n" +
                                      (root + "/images/all/2.png").toUtf8() +
                                      "\nimages/all/missing.png\n");
    hr::DataConfig data = configFor(root, {"cat", "dog"});
    data.train = {(root + "/list.txt").toStdString()};
    hr::DatasetReport report = hr::scanDataset(data, hr::Split::Train, scanOptions(false, 1.0));
    QCOMPARE(int(report.images.size()), 3);
    QCOMPARE(int(problemsAt(report, root + "/list.txt", 4).size()), 1);
    QCOMPARE(report.stats.instancesPerClass, (std::vector<int>{2, 1}));

    data.train = {(root + "/images/all").toStdString()};
    report = hr::scanDataset(data, hr::Split::Train, scanOptions(false, 0.5));
    QCOMPARE(int(report.images.size()), 2);
    report = hr::scanDataset(data, hr::Split::Train, scanOptions(true, 1.0));
    QCOMPARE(report.names, std::vector<std::string>{"item"});
    QCOMPARE(report.stats.instancesPerClass, std::vector<int>{4});
}

void TestDataScan::missingSplitIsAnError() {
    QTemporaryDir dir;
    hr::DataConfig data = configFor(dir.path(), {"a"});
    const hr::DatasetReport report = hr::scanDataset(data, hr::Split::Val);
    QVERIFY(!report.usable());
    QVERIFY(hr::hasErrors(report.problems));
    QVERIFY(contains(hr::formatReport(report), "does not exist"));
    data.test.clear();
    QVERIFY(!hr::hasErrors(hr::scanDataset(data, hr::Split::Test).problems));
}

void TestDataScan::statisticsOfSyntheticData() {
    QTemporaryDir dir;
    hr::SyntheticOptions o;
    o.train = 12;
    o.val = 3;
    o.imgsz = 64;
    std::string error;
    QVERIFY(hr::makeSyntheticDataset(dir.path().toStdString(), o, &error));
    const hr::DataConfig data = configFor(dir.path(), hr::syntheticClassNames());
    const hr::DatasetReport report = hr::scanDataset(data, hr::Split::Train);
    QVERIFY2(report.problems.empty(), hr::formatDiagnostics(report.problems).c_str());
    int objects = 0, most = 0, backgrounds = 0;
    std::vector<int> perClass(data.names.size(), 0);
    for (int i = 0; i < o.train; ++i) {
        const auto image = hr::renderSyntheticImage(o, false, i);
        objects += int(image.labels.size());
        most = std::max(most, int(image.labels.size()));
        backgrounds += image.labels.empty() ? 1 : 0;
        for (const auto& b : image.labels)
            perClass[b.cls]++;
    }
    const hr::DatasetStats& s = report.stats;
    QCOMPARE(s.images, 12);
    QCOMPARE(s.instances, objects);
    QCOMPARE(s.maxObjectsPerImage, most);
    QCOMPARE(s.backgrounds, backgrounds);
    QCOMPARE(s.instancesPerClass, perClass);
    QCOMPARE(s.imageSizeHistogram[0], 12);
    QCOMPARE(s.minWidth, 64);
    QCOMPARE(s.maxHeight, 64);
    int binned = 0;
    for (int v : s.boxWidthHistogram)
        binned += v;
    QCOMPARE(binned, objects);
    const std::string text = hr::formatReport(report);
    QVERIFY(contains(text, "12 usable images"));
    QVERIFY(contains(text, ("most objects in one image: " + std::to_string(most)).c_str()));
}

void TestDataScan::labelCacheMakesSecondScanFast() {
    QTemporaryDir dir;
    const QString root = dir.path();
    QDir().mkpath(root + "/images/train");
    QDir().mkpath(root + "/labels/train");
    const QByteArray png = pngBytes(8, 8);
    const int count = 10000;
    for (int i = 0; i < count; ++i) {
        const std::string stem = std::to_string(i);
        std::ofstream((root + "/images/train/").toStdString() + stem + ".png", std::ios::binary)
            .write(png.constData(), png.size());
        std::ofstream((root + "/labels/train/").toStdString() + stem + ".txt")
            << (i % 3) << " 0.5 0.5 0.25 0.25\n";
    }
    const hr::DataConfig data = configFor(root, {"a", "b", "c"});
    QElapsedTimer timer;
    timer.start();
    const hr::DatasetReport first = hr::scanDataset(data, hr::Split::Train);
    const qint64 firstMs = timer.restart();
    const hr::DatasetReport second = hr::scanDataset(data, hr::Split::Train);
    const qint64 secondMs = timer.elapsed();
    qInfo("scan of %d images and labels: first %lld ms, second (cached) %lld ms", count, firstMs,
          secondMs);
    QCOMPARE(int(first.images.size()), count);
    QCOMPARE(first.cacheHits, 0);
    QCOMPARE(second.cacheHits, count);
    QCOMPARE(QString::fromStdString(second.cachePath), root + "/labels/train.headroom-cache");
    QCOMPARE(second.stats.instancesPerClass, first.stats.instancesPerClass);

    // A changed label file is checked again; the others still come from the cache.
    writeText(root + "/labels/train/7.txt", "2 0.5 0.5 0.25 0.25\n9 0.1 0.1 0.1 0.1\n");
    const hr::DatasetReport third = hr::scanDataset(data, hr::Split::Train);
    QCOMPARE(third.cacheHits, count - 1);
    QCOMPARE(int(third.problems.size()), 1);
    QCOMPARE(third.problems[0].line, 2);
    QCOMPARE(third.stats.instancesPerClass[2], first.stats.instancesPerClass[2] + 1);
}

void TestDataScan::labelCacheKeepsEveryField() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/train.headroom-cache";
    hr::CachedScan e;
    e.image = {100, 5};
    e.label = {20, 6};
    e.usable = true;
    e.record.imagePath = "a.png";
    e.record.labelPath = "a.txt";
    e.record.width = 64;
    e.record.height = 48;
    e.record.labels = {{2, 0.5f, 0.25f, 0.125f, 0.75f}};
    hr::Diagnostic d = hr::makeDiagnostic(hr::Diagnostic::Severity::Warning, "a.txt", 3, "cls",
                                          "class 9 is out of range", "fix the class");
    d.code = "label_class";
    d.args = {"9", "3"};
    e.problems = {d};
    hr::LabelCache cache(3);
    cache.put("a.png", e);
    std::string error;
    QVERIFY2(cache.save(path, &error), error.c_str());

    // Format version 4, byte by byte, so that a change to the layout cannot pass unnoticed.
    // Version 3 is the same without the `decoded` byte after `usable`.
    const auto layout = [&](int version) {
        std::string expected = "HRLCACH" + std::to_string(version);
        const auto pod = [&expected](auto v) {
            expected.append(reinterpret_cast<const char*>(&v), sizeof v);
        };
        const auto text = [&](const std::string& s) {
            pod(std::uint32_t(s.size()));
            expected += s;
        };
        pod(std::int32_t(3)), pod(std::uint32_t(1)), text("a.png");
        pod(std::int64_t(100)), pod(std::int64_t(5)), pod(std::int64_t(20)), pod(std::int64_t(6));
        pod(std::uint8_t(1));
        if (version >= 4)
            pod(std::uint8_t(0)); // decoded
        text("a.txt"), pod(std::int32_t(64)), pod(std::int32_t(48));
        pod(std::uint32_t(1)), pod(std::int32_t(2)), pod(0.5f), pod(0.25f), pod(0.125f), pod(0.75f);
        pod(std::uint32_t(1)), pod(std::uint8_t(1)), text("a.txt"), pod(std::int32_t(3)),
            text("cls");
        text("class 9 is out of range"), text("fix the class"), text("label_class");
        pod(std::uint32_t(2)), text("9"), text("3");
        return expected;
    };
    const std::string expected = layout(4);
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    QVERIFY(bytes == expected);

    hr::LabelCache back(3);
    QVERIFY(back.load(path));
    const hr::CachedScan* got = back.find("a.png", e.image, e.label);
    QVERIFY(got);
    QVERIFY(got->usable);
    QVERIFY(!got->decoded);
    // A header-only check does not answer a deep scan.
    QVERIFY(!back.find("a.png", e.image, e.label, true));
    QCOMPARE(got->record.imagePath, e.record.imagePath);
    QCOMPARE(got->record.labelPath, e.record.labelPath);
    QCOMPARE(got->record.width, 64);
    QCOMPARE(got->record.height, 48);
    QCOMPARE(int(got->record.labels.size()), 1);
    QCOMPARE(got->record.labels[0].cls, 2);
    QCOMPARE(got->record.labels[0].h, 0.75f);
    QCOMPARE(int(got->problems.size()), 1);
    QCOMPARE(got->problems[0].toString(), d.toString());
    QCOMPARE(got->problems[0].code, d.code);
    QVERIFY(got->problems[0].args == d.args);

    // A cache of version 3 (every image decoded) still answers, deep scans too.
    std::ofstream(path, std::ios::binary | std::ios::trunc) << layout(3);
    QVERIFY(back.load(path));
    got = back.find("a.png", e.image, e.label, true);
    QVERIFY(got);
    QVERIFY(got->decoded);
    QCOMPARE(got->record.height, 48);
    QCOMPARE(int(got->problems.size()), 1);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << layout(2);
    QVERIFY(!back.load(path));

    // Another class count, or a file cut short, is not used and leaves the cache empty.
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    QVERIFY(!hr::LabelCache(4).load(path));
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 1);
    QVERIFY(!back.load(path));
    QCOMPARE(int(back.size()), 0);
}

QTEST_APPLESS_MAIN(TestDataScan)
#include "test_data_scan.moc"
