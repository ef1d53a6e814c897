// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX export checked by an independent reader: OpenCV's DNN module runs the written file and
// must give LibTorch's outputs.
#include "deploy/onnx_export.h"
#include "deploy/opencv_runner.h"
#include "model/model_io.h"
#include "util/protobuf_writer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

namespace {

const std::string kDir = HEADROOM_TEST_DATA "/ultralytics/";

} // namespace

class TestOnnxExport : public QObject {
    Q_OBJECT

private slots:
    void wireFormat() {
        hr::ProtobufWriter w;
        w.varint(1, 300);      // tag 0x08, varint 300 = ac 02
        w.bytes(2, "hi");      // tag 0x12, length 2
        w.signedVarint(3, -1); // ten bytes of two's complement
        const std::string want = std::string("\x08\xac\x02\x12\x02hi\x18", 8) +
                                 std::string(9, '\xff') + std::string("\x01", 1);
        QCOMPARE(QByteArray::fromStdString(w.data()), QByteArray::fromStdString(want));
    }

    void openCvMatchesLibTorch_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("imgsz");
        QTest::addColumn<int>("opset");
        QTest::newRow("yolov8 64 px opset 12") << "yolov8n-tiny.pt" << 64 << 12;
        QTest::newRow("yolov8 96 px opset 13") << "yolov8n-tiny.pt" << 96 << 13;
        QTest::newRow("yolov9 GELAN 64 px") << "yolov9-tiny.pt" << 64 << 12;
        QTest::newRow("yolov8 fused file") << "yolov8n-tiny_fused.pt" << 64 << 12;
    }
    void openCvMatchesLibTorch() {
        QFETCH(QString, file);
        QFETCH(int, imgsz);
        QFETCH(int, opset);
        hr::LoadedModel loaded = hr::loadModel(kDir + file.toStdString());
        QVERIFY2(loaded.model, loaded.error.c_str());
        loaded.model->eval();
        QTemporaryDir dir;
        const std::string onnx = dir.filePath("model.onnx").toStdString();
        std::string error;
        hr::OnnxExportOptions options;
        options.imgsz = imgsz;
        options.opset = opset;
        QVERIFY2(hr::exportOnnx(loaded.model, loaded.classNames, onnx, options, &error),
                 error.c_str());
        hr::OpenCvRunner runner;
        QVERIFY2(runner.load(onnx, &error), error.c_str());
        torch::manual_seed(3);
        torch::NoGradGuard noGrad;
        for (int image = 0; image < 3; ++image) {
            const torch::Tensor x = torch::rand({1, 3, imgsz, imgsz});
            const torch::Tensor want = loaded.model->predict(x);
            torch::Tensor got;
            try {
                got = runner.predict(x);
            } catch (const std::exception& e) {
                QFAIL(e.what());
            }
            QCOMPARE(got.sizes().vec(), want.sizes().vec());
            const double error = (got - want).abs().max().item<double>();
            QVERIFY2(error < 1e-3, std::to_string(error).c_str());
        }
    }

    void refusesWhatItCannotWrite() {
        hr::LoadedModel loaded = hr::loadModel(kDir + "yolov8n-tiny.pt");
        QVERIFY(loaded.model);
        std::string error;
        hr::OnnxExportOptions options;
        options.imgsz = 70;
        QVERIFY(!hr::exportOnnx(loaded.model, {}, "/tmp/never.onnx", options, &error));
        QVERIFY2(error.find("multiple of 32") != std::string::npos, error.c_str());
        options.imgsz = 64;
        options.opset = 9;
        QVERIFY(!hr::exportOnnx(loaded.model, {}, "/tmp/never.onnx", options, &error));
        QVERIFY2(error.find("opset 9") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOnnxExport)
#include "test_onnx_export.moc"
