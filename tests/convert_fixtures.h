// SPDX-License-Identifier: GPL-3.0-or-later
// Small exports of each annotation format, written by the tests themselves (test_convert and
// the round trip in test_convert_train).
#pragma once

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace fixtures {

inline bool writeBytes(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(bytes) == bytes.size();
}

/// A PNG of w x h with a bright rectangle, so a model sees something to learn.
inline bool writeImage(const QString& path, int w, int h, int shade = 90) {
    cv::Mat image(h, w, CV_8UC3, cv::Scalar::all(shade));
    cv::rectangle(image, cv::Rect(w / 4, h / 4, w / 2, h / 2), cv::Scalar(30, 200, 240), -1);
    std::vector<uchar> bytes;
    cv::imencode(".png", image, bytes);
    return writeBytes(path, QByteArray(reinterpret_cast<const char*>(bytes.data()),
                                       static_cast<int>(bytes.size())));
}

/// COCO: annotations/instances_{train,val}.json, images in train/ and val/. Categories
/// 3 dog, 1 cat, 7 bird (ids out of order and with gaps). In train: t0 has a dog and a crowd
/// box, t1 a cat half outside the image (clipped), a bird with unknown category 9 and a box
/// wholly outside, t2 no annotation (a background), t3 a cat. val: v0 a bird.
inline bool makeCoco(const QString& root) {
    bool ok = true;
    for (const char* name : {"t0", "t1", "t2", "t3"})
        ok = ok && writeImage(root + "/train/" + name + ".png", 64, 48);
    ok = ok && writeImage(root + "/val/v0.png", 64, 48);
    const QByteArray categories = R"("categories": [
    {"id": 3, "name": "dog", "supercategory": "animal"},
    {"id": 1, "name": "cat", "supercategory": "animal"},
    {"id": 7, "name": "bird", "supercategory": "animal"}])";
    ok = ok && writeBytes(root + "/annotations/instances_train.json", R"({
  "info": {"description": "fixture"},
  "images": [
    {"id": 10, "file_name": "t0.png", "width": 64, "height": 48},
    {"id": 11, "file_name": "t1.png", "width": 64, "height": 48},
    {"id": 12, "file_name": "t2.png", "width": 64, "height": 48},
    {"id": 13, "file_name": "t3.png", "width": 64, "height": 48}],
  "annotations": [
    {"id": 100, "image_id": 10, "category_id": 3, "bbox": [16, 12, 32, 24], "iscrowd": 0},
    {"id": 101, "image_id": 10, "category_id": 3, "bbox": [0, 0, 10, 10], "iscrowd": 1},
    {"id": 102, "image_id": 11, "category_id": 1, "bbox": [48, 24, 32, 24], "iscrowd": 0},
    {"id": 103, "image_id": 11, "category_id": 9, "bbox": [1, 1, 5, 5], "iscrowd": 0},
    {"id": 104, "image_id": 11, "category_id": 7, "bbox": [70, 50, 8, 8], "iscrowd": 0},
    {"id": 105, "image_id": 13, "category_id": 1, "bbox": [8, 8, 16, 16]}],
  )" + categories + "\n}\n");
    ok = ok && writeBytes(root + "/annotations/instances_val.json", R"({
  "images": [{"id": 1, "file_name": "v0.png", "width": 64, "height": 48}],
  "annotations": [{"id": 1, "image_id": 1, "category_id": 7, "bbox": [8, 6, 48, 36], "iscrowd": 0}],
  )" + categories + "\n}\n");
    return ok;
}

inline QByteArray vocXml(const QString& file, int w, int h, const QByteArray& objects) {
    return "<?xml version=\"1.0\"?>\n<annotation>\n  <folder>VOC</folder>\n  <filename>" +
           file.toUtf8() + "</filename>\n  <size><width>" + QByteArray::number(w) +
           "</width><height>" + QByteArray::number(h) + "</height><depth>3</depth></size>\n" +
           objects + "</annotation>\n";
}

inline QByteArray vocObject(const char* name, int difficult, int x1, int y1, int x2, int y2) {
    return QByteArray("  <object>\n    <name>") + name +
           "</name>\n    <!-- a comment -->\n    <difficult>" + QByteArray::number(difficult) +
           "</difficult>\n    <bndbox><xmin>" + QByteArray::number(x1) + "</xmin><ymin>" +
           QByteArray::number(y1) + "</ymin><xmax>" + QByteArray::number(x2) + "</xmax><ymax>" +
           QByteArray::number(y2) + "</ymax></bndbox>\n  </object>\n";
}

/// VOC: Annotations/*.xml, JPEGImages/*.png; 6 images; one person is difficult; "z.xml" is
/// broken on line 4.
inline bool makeVoc(const QString& root) {
    bool ok = true;
    for (int i = 0; i < 6; ++i) {
        const QString name = QStringLiteral("img%1").arg(i);
        ok = ok && writeImage(root + "/JPEGImages/" + name + ".png", 64, 48);
        QByteArray objects = vocObject(i % 2 ? "person" : "car", 0, 17, 13, 48, 36);
        if (i == 0)
            objects += vocObject("person", 1, 1, 1, 20, 20);
        ok = ok && writeBytes(root + "/Annotations/" + name + ".xml",
                              vocXml(name + ".png", 64, 48, objects));
    }
    ok = ok && writeBytes(root + "/Annotations/z.xml",
                          "<annotation>\n  <filename>z.png</filename>\n  <object>\n"
                          "    <name>car</nme>\n  </object>\n</annotation>\n");
    return ok;
}

/// CVAT YOLO 1.1: obj.names, obj.data, train.txt ("data/obj_train_data/...", after a '#' comment
/// line), labels beside.
inline bool makeCvat(const QString& root) {
    bool ok = writeBytes(root + "/obj.names", "boat\nbuoy\n") &&
              writeBytes(root + "/obj.data", "classes = 2\ntrain = data/train.txt\n"
                                             "names = data/obj.names\nbackup = backup/\n");
    QByteArray list = "# frames of the boat task\n";
    for (int i = 0; i < 5; ++i) {
        const QString name = QStringLiteral("frame_%1").arg(i, 6, 10, QLatin1Char('0'));
        ok = ok && writeImage(root + "/obj_train_data/" + name + ".png", 64, 48);
        if (i != 4) // frame 4 has no label file: a background
            ok = ok && writeBytes(root + "/obj_train_data/" + name + ".txt",
                                  QByteArray::number(i % 2) + " 0.5 0.5 0.5 0.5\n");
        list += "data/obj_train_data/" + name.toUtf8() + ".png\n";
    }
    list += "data/obj_train_data/missing.png\n";
    return ok && writeBytes(root + "/train.txt", list);
}

/// Label Studio YOLO: classes.txt, notes.json, images/, labels/.
inline bool makeLabelStudio(const QString& root) {
    bool ok =
        writeBytes(root + "/classes.txt", "apple\npear\n") &&
        writeBytes(root + "/notes.json",
                   R"({"categories": [{"id": 0, "name": "apple"}, {"id": 1, "name": "pear"}],)"
                   R"( "info": {"year": 2024, "contributor": "Label Studio"}})");
    for (int i = 0; i < 5; ++i) {
        const QString name = QStringLiteral("a1b2c3-%1").arg(i);
        ok = ok && writeImage(root + "/images/" + name + ".png", 64, 48);
        ok = ok && writeBytes(root + "/labels/" + name + ".txt",
                              QByteArray::number(i % 2) + " 0.5 0.5 0.4 0.4\n");
    }
    return ok;
}

/// images/ and labels/ without a data.yaml: `count` images, classes 0..2 used.
inline bool makeFolder(const QString& root, int count) {
    bool ok = true;
    for (int i = 0; i < count; ++i) {
        const QString name = QStringLiteral("%1").arg(i, 3, 10, QLatin1Char('0'));
        ok = ok && writeImage(root + "/images/" + name + ".png", 64, 48);
        ok = ok && writeBytes(root + "/labels/" + name + ".txt",
                              QByteArray::number(i % 3) + " 0.5 0.5 0.5 0.5\n");
    }
    return ok;
}

} // namespace fixtures
