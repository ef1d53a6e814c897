// SPDX-License-Identifier: GPL-3.0-or-later
// Ultralytics checkpoints read without Python: the fixtures under data/ultralytics were written
// by Ultralytics' own code (tools/reference/make_ultralytics_fixtures.py) together with the
// state-dict checksums and model outputs Python computed from them.
#include "model/model_builder.h"
#include "model/model_io.h"
#include "model/weights_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace {

const std::string kDir = HEADROOM_TEST_DATA "/ultralytics/";
constexpr int kImgsz = 64; // the fixtures' reference input size

struct Checksum {
    std::string name, shape;
    double sum = 0, sumSquares = 0;
};

std::vector<Checksum> readChecksums(const std::string& path) {
    std::vector<Checksum> out;
    std::ifstream in(path);
    Checksum c;
    while (in >> c.name >> c.shape >> c.sum >> c.sumSquares)
        out.push_back(c);
    return out;
}

std::string shapeText(const torch::Tensor& t) {
    std::string out;
    for (const auto d : t.sizes())
        out += (out.empty() ? "" : "x") + std::to_string(d);
    return out.empty() ? "scalar" : out;
}

// What the script fed the model: (y*W + x)*3 + c mod 251, scaled to [0, 1].
torch::Tensor fixedInput() {
    auto idx = torch::arange(3 * kImgsz * kImgsz).reshape({kImgsz, kImgsz, 3}).permute({2, 0, 1});
    return (idx.remainder(251).to(torch::kFloat) / 250.0).unsqueeze(0);
}

torch::Tensor readOutput(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::uint32_t rank = 0;
    in.read(reinterpret_cast<char*>(&rank), 4);
    std::vector<std::int64_t> dims(rank);
    for (auto& d : dims)
        in.read(reinterpret_cast<char*>(&d), 8);
    torch::Tensor t = torch::empty(dims, torch::kFloat);
    in.read(reinterpret_cast<char*>(t.data_ptr<float>()),
            static_cast<std::streamsize>(t.numel() * 4));
    return in ? t : torch::Tensor();
}

// Ultralytics' inference output carries boxes as centre x, y, width, height; Headroom's
// decode() as corners.
torch::Tensor cornersFromCentres(const torch::Tensor& y) {
    auto c = y.slice(1, 0, 2), wh = y.slice(1, 2, 4);
    return torch::cat({c - wh / 2, c + wh / 2, y.slice(1, 4)}, 1);
}

double maxRelativeError(const torch::Tensor& got, const torch::Tensor& want) {
    return ((got - want).abs() / (want.abs() + 1.0)).max().item<double>();
}

} // namespace

class TestWeightsFile : public QObject {
    Q_OBJECT

private slots:
    void tensorsEqualPythonStateDict_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reference");
        QTest::newRow("yolov8 release (model, fp16)") << "yolov8n-tiny.pt"
                                                      << "yolov8n-tiny";
        QTest::newRow("yolov8 last.pt (ema, optimizer)") << "yolov8n-tiny_last.pt"
                                                         << "yolov8n-tiny";
        QTest::newRow("yolov9 GELAN release") << "yolov9-tiny.pt"
                                              << "yolov9-tiny";
    }
    void tensorsEqualPythonStateDict() {
        QFETCH(QString, file);
        QFETCH(QString, reference);
        const hr::WeightsFile w = hr::readWeightsFile(kDir + file.toStdString(), true);
        QVERIFY2(w.ok(), w.error.c_str());
        QCOMPARE(w.format, hr::WeightsFormat::Ultralytics);
        QCOMPARE(w.nc, 3);
        QVERIFY(!w.fused);
        QCOMPARE(w.classNames, (std::vector<std::string>{"circle", "square", "triangle"}));
        QVERIFY(w.producer.rfind("Ultralytics 8.", 0) == 0);
        const auto want = readChecksums(kDir + reference.toStdString() + ".tensors.txt");
        QVERIFY(want.size() > 100);
        QCOMPARE(w.tensors.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            const auto& [name, t] = w.tensors[i];
            QCOMPARE(name, want[i].name);
            QCOMPARE(shapeText(t), want[i].shape);
            const auto d = t.to(torch::kDouble);
            const double sum = d.sum().item<double>();
            const double squares = (d * d).sum().item<double>();
            QVERIFY2(std::abs(sum - want[i].sum) <= 1e-9 * (1 + std::abs(want[i].sum)),
                     name.c_str());
            QVERIFY2(std::abs(squares - want[i].sumSquares) <= 1e-9 * (1 + want[i].sumSquares),
                     name.c_str());
        }
    }

    void modelOutputEqualsPython_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reference");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("yolov8") << "yolov8n-tiny.pt"
                                << "yolov8n-tiny" << 1e-4;
        QTest::newRow("yolov9") << "yolov9-tiny.pt"
                                << "yolov9-tiny" << 1e-4;
        // Python folded in fp32 and stored fp16: the folded weights are rounded differently.
        QTest::newRow("yolov8 fused, unfolded") << "yolov8n-tiny_fused.pt"
                                                << "yolov8n-tiny" << 2e-2;
    }
    void modelOutputEqualsPython() {
        QFETCH(QString, file);
        QFETCH(QString, reference);
        QFETCH(double, tolerance);
        hr::LoadedModel loaded = hr::loadModel(kDir + file.toStdString());
        QVERIFY2(loaded.model, loaded.error.c_str());
        QCOMPARE(loaded.model->nc(), 3);
        QCOMPARE(loaded.classNames.size(), size_t{3});
        loaded.model->eval();
        torch::NoGradGuard noGrad;
        const torch::Tensor got = loaded.model->predict(fixedInput());
        const torch::Tensor python = readOutput(kDir + reference.toStdString() + ".output.bin");
        QVERIFY(python.defined());
        const torch::Tensor want = cornersFromCentres(python);
        QCOMPARE(got.sizes().vec(), want.sizes().vec());
        const double error = maxRelativeError(got, want);
        QVERIFY2(error < tolerance, std::to_string(error).c_str());
    }

    void fusedFileIsDetectedAndTrainable() {
        const hr::WeightsFile w = hr::readWeightsFile(kDir + "yolov8n-tiny_fused.pt", true);
        QVERIFY2(w.ok(), w.error.c_str());
        QVERIFY(w.fused);
        hr::LoadedModel loaded = hr::loadModel(kDir + "yolov8n-tiny_fused.pt");
        QVERIFY2(loaded.model, loaded.error.c_str());
        QVERIFY(!loaded.model->isFused()); // unfolded: BatchNorm layers back, trainable
        QVERIFY(loaded.model->trainableParameterCount() > 0);
    }

    void otherClassCountTransfersAllButClassLayers() {
        // As Ultralytics' model.load(): same names and shapes move, the class convs stay new.
        hr::ModelBuild build = hr::buildModel(kDir + "yolov8n-tiny.pt", 5);
        QVERIFY2(build.model, hr::formatDiagnostics(build.diagnostics).c_str());
        QCOMPARE(build.model->nc(), 5);
        std::string error;
        hr::WeightTransfer transfer;
        QVERIFY2(hr::loadWeightsInto(build.model, kDir + "yolov8n-tiny.pt", &error, &transfer),
                 error.c_str());
        const auto python = readChecksums(kDir + "yolov8n-tiny.tensors.txt");
        QCOMPARE(transfer.total, static_cast<int>(python.size()));
        QCOMPARE(transfer.skipped.size(), size_t{6}); // cv3.{0,1,2}.2.{weight,bias}
        for (const auto& name : transfer.skipped)
            QVERIFY2(name.find(".cv3.") != std::string::npos, name.c_str());
        QCOMPARE(transfer.transferred, transfer.total - 6);
        QCOMPARE(QString::fromStdString(transfer.summary),
                 QStringLiteral("Transferred %1/%2 items from yolov8n-tiny.pt")
                     .arg(transfer.total - 6)
                     .arg(transfer.total));

        hr::ModelBuild same = hr::buildModel(kDir + "yolov9-tiny.pt", 0);
        QVERIFY(same.model);
        QVERIFY(hr::loadWeightsInto(same.model, kDir + "yolov9-tiny.pt", &error, &transfer));
        QCOMPARE(transfer.transferred, transfer.total);
    }

    void classNamesAreCompared() {
        QVERIFY(hr::classNamesMismatch({"a", "b"}, {"a", "b"}).empty());
        QVERIFY(hr::classNamesMismatch({}, {"a"}).empty()); // a file without names
        const std::string w = hr::classNamesMismatch({"person", "car"}, {"cat", "dog", "fox"});
        QVERIFY(w.find("person, car") != std::string::npos);
        QVERIFY(w.find("cat, dog, fox") != std::string::npos);
    }

    void badFilesSayWhatToDo() {
        const hr::WeightsFile legacy = hr::readWeightsFile(kDir + "yolov8n-tiny_legacy.pt", true);
        QVERIFY(!legacy.ok());
        QVERIFY2(legacy.error.find("legacy (pre-1.6) format") != std::string::npos,
                 legacy.error.c_str());
        QVERIFY2(legacy.error.find("python3 -c \"import torch; torch.save(torch.load(") !=
                     std::string::npos,
                 legacy.error.c_str());

        QTemporaryDir dir;
        const std::string text = dir.filePath("notes.pt").toStdString();
        std::ofstream(text) << "these are not weights\n";
        const hr::WeightsFile notTorch = hr::readWeightsFile(text, true);
        QVERIFY2(notTorch.error.find("not a PyTorch checkpoint") != std::string::npos,
                 notTorch.error.c_str());

        const hr::WeightsFile missing =
            hr::readWeightsFile(dir.filePath("none.pt").toStdString(), true);
        QVERIFY2(missing.error.find("no such file") != std::string::npos, missing.error.c_str());

        // Through the model loader, the same messages and no backtrace.
        const hr::LoadedModel viaLoad = hr::loadModel(kDir + "yolov8n-tiny_legacy.pt");
        QVERIFY(!viaLoad.model);
        QVERIFY(viaLoad.error.find("legacy") != std::string::npos);
        QVERIFY(viaLoad.error.find("frame #") == std::string::npos);
        hr::ModelBuild build = hr::buildModel(text, 3);
        QVERIFY(!build.model);
        QVERIFY(hr::formatDiagnostics(build.diagnostics).find("not a PyTorch checkpoint") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestWeightsFile)
#include "test_weights_file.moc"
