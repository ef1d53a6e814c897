// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/blocks.h"
#include "model/bn_silu.h"
#include "model/bn_silu_kernels.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "model/model_summary.h"
#include "util/torch_compat.h"

#include "torch_threads_guard.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

namespace {

hr::DetectionModel build(const std::string& name, int nc = 80, const std::string& scale = "") {
    hr::ModelBuild b = hr::buildModel(name, nc, scale);
    if (!b.model)
        qWarning("%s", hr::formatDiagnostics(b.diagnostics).c_str());
    return b.model;
}

// The first error diagnostic of building `yaml`, or an empty one.
hr::Diagnostic firstError(const std::string& yaml) {
    hr::ModelBuild b = hr::buildModelFromText(yaml, "bad.yaml", 3, "");
    for (const auto& d : b.diagnostics)
        if (d.severity == hr::Diagnostic::Severity::Error)
            return d;
    return {};
}

const char* kTinyYaml = R"(nc: 3
backbone:
  - [-1, 1, Conv, [8, 3, 2]]
  - [-1, 1, Conv, [16, 3, 2]]
  - [-1, 1, C2f, [16, True]]
  - [-1, 1, Conv, [16, 3, 2]]
  - [-1, 1, Conv, [16, 3, 2]]
  - [-1, 1, Conv, [16, 3, 2]]
head:
  - [[3, 4, 5], 1, Detect, [nc]]
)";

} // namespace

class TestModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void parameterCounts_data();
    void parameterCounts();
    void outputShapesAndDecode();
    void backboneRowsWithoutBuilding();
    void decodeMatchesHandComputedBox();
    void detectBiasInit();
    void yolov9Forward();
    void fuseKeepsOutputs();
    void checkpointingGivesSameGradients();
    void checkpointingKeepsAutocast();
    void freezeLayers();
    void saveLoadRoundTrip();
    void otherArchitectureOrClassCount();
    void malformedRows_data();
    void malformedRows();
    void scaleSelection();
    void summaryText();
    void convolutionCallsCoverEveryConvolution();
    void bf16SiluMatchesFloat();
    void fusedBatchNormSiluMatchesModules_data();
    void fusedBatchNormSiluMatchesModules();
    void fusedBatchNormSiluWithoutInputGradient();
    void nearestUpsampleOfConcatenated_data();
    void nearestUpsampleOfConcatenated();
};

void TestModel::initTestCase() {
    torch::set_num_threads(2);
}

void TestModel::backboneRowsWithoutBuilding() {
    // The builder's answer without building equals the built model's, scaled names included.
    for (const char* name : {"yolov8n.yaml", "yolov8s.yaml", "yolov9t.yaml"}) {
        const hr::ModelBuild build = hr::buildModel(name, 80);
        QVERIFY2(build.model, name);
        QCOMPARE(hr::backboneRows(name), build.model->backboneLength());
    }
    QCOMPARE(hr::backboneRows("yolov8.yaml"), 10);
    QCOMPARE(hr::backboneRows("no-such-model.yaml"), 0);
}

void TestModel::parameterCounts_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<double>("gflops"); // published GFLOPs at 640, 0 = not checked
    // Ultralytics' published counts at nc=80.
    QTest::newRow("yolov8n") << "yolov8n.yaml" << qint64(3157200) << 8.9;
    QTest::newRow("yolov8s") << "yolov8s.yaml" << qint64(11166560) << 28.8;
    QTest::newRow("yolov8m") << "yolov8m.yaml" << qint64(25902640) << 79.3;
    QTest::newRow("yolov8l") << "yolov8l.yaml" << qint64(43691520) << 165.7;
    QTest::newRow("yolov8x") << "yolov8x.yaml" << qint64(68229648) << 258.5;
    QTest::newRow("yolov9c") << "yolov9c.yaml" << qint64(25590912) << 0.0;
    QTest::newRow("yolov9t") << "yolov9t.yaml" << qint64(2128720) << 0.0;
    QTest::newRow("yolov9s") << "yolov9s.yaml" << qint64(7318368) << 0.0;
    QTest::newRow("yolov9m") << "yolov9m.yaml" << qint64(20216160) << 0.0;
    // yolov9e (58,206,592) is checked in yolov9Forward, which builds it anyway.
}

void TestModel::parameterCounts() {
    QFETCH(QString, name);
    QFETCH(qint64, params);
    QFETCH(double, gflops);
    hr::DetectionModel model = build(name.toStdString());
    QVERIFY(model);
    QCOMPARE(qint64(model->parameterCount()), params);
    // Only the DFL projection (regMax weights) is not trainable.
    QCOMPARE(qint64(model->trainableParameterCount()), params - model->regMax());
    if (gflops > 0) {
        const hr::ModelSummary s = hr::summarize(model, 640);
        QVERIFY2(std::abs(s.gflops - gflops) / gflops < 0.02,
                 qPrintable(QString("%1 GFLOPs vs %2").arg(s.gflops).arg(gflops)));
        double sum = 0;
        for (const auto& row : s.rows)
            sum += row.gflops;
        QVERIFY(std::abs(sum - s.gflops) < 1e-9);
    }
}

void TestModel::outputShapesAndDecode() {
    torch::manual_seed(0);
    hr::DetectionModel model = build("yolov8n.yaml", 5);
    QVERIFY(model);
    QCOMPARE(model->nc(), 5);
    QCOMPARE(model->regMax(), 16);
    QCOMPARE(model->strides(), (std::vector<int64_t>{8, 16, 32}));
    QCOMPARE(model->layerCount(), 23);
    QCOMPARE(model->backboneLength(), 10);
    model->eval();
    torch::NoGradGuard noGrad;
    const auto raw = model->forward(torch::rand({2, 3, 128, 96}));
    QCOMPARE(int(raw.size()), 3);
    const int64_t sizes[3][2] = {{16, 12}, {8, 6}, {4, 3}};
    for (int i = 0; i < 3; ++i)
        QCOMPARE(raw[i].sizes().vec(), (std::vector<int64_t>{2, 64 + 5, sizes[i][0], sizes[i][1]}));
    const torch::Tensor decoded = model->decode(raw);
    const int64_t anchors = 16 * 12 + 8 * 6 + 4 * 3;
    QCOMPARE(decoded.sizes().vec(), (std::vector<int64_t>{2, 4 + 5, anchors}));
    const torch::Tensor scores = decoded.narrow(1, 4, 5);
    QVERIFY(scores.min().item<float>() >= 0.f && scores.max().item<float>() <= 1.f);
    const torch::Tensor boxes = decoded.narrow(1, 0, 4);
    QVERIFY((boxes.select(1, 2) >= boxes.select(1, 0)).all().item<bool>());
    QVERIFY((boxes.select(1, 3) >= boxes.select(1, 1)).all().item<bool>());
    QVERIFY(torch::allclose(model->predict(torch::zeros({1, 3, 64, 64})),
                            model->decode(model->forward(torch::zeros({1, 3, 64, 64})))));
}

void TestModel::decodeMatchesHandComputedBox() {
    hr::DetectionModel model = build("yolov8n.yaml", 2);
    QVERIFY(model);
    // Raw maps for a 64x64 image: 8x8, 4x4, 2x2 cells. Put one confident distribution in the
    // cell (x=2, y=1) of the stride-8 level: left 1, top 2, right 3, bottom 4 bins.
    std::vector<torch::Tensor> raw;
    for (int64_t side : {8, 4, 2})
        raw.push_back(torch::zeros({1, 64 + 2, side, side}));
    const int distances[4] = {1, 2, 3, 4};
    for (int side = 0; side < 4; ++side)
        raw[0][0][side * 16 + distances[side]][1][2] = 50.0; // softmax ~ one-hot
    raw[0][0][64 + 1][1][2] = 3.0;
    const torch::Tensor out = model->decode(raw);
    const int64_t anchor = 1 * 8 + 2; // row-major within the first level
    const auto box = out[0].select(1, anchor);
    // Anchor centre (2.5, 1.5) cells; xyxy in pixels = (centre -/+ distance) * 8.
    QVERIFY(std::abs(box[0].item<float>() - (2.5f - 1) * 8) < 1e-3);
    QVERIFY(std::abs(box[1].item<float>() - (1.5f - 2) * 8) < 1e-3);
    QVERIFY(std::abs(box[2].item<float>() - (2.5f + 3) * 8) < 1e-3);
    QVERIFY(std::abs(box[3].item<float>() - (1.5f + 4) * 8) < 1e-3);
    QVERIFY(std::abs(box[5].item<float>() - 1.f / (1.f + std::exp(-3.f))) < 1e-5);
    QVERIFY(std::abs(box[4].item<float>() - 0.5f) < 1e-5);
}

void TestModel::detectBiasInit() {
    hr::DetectionModel model = build("yolov8n.yaml", 10);
    QVERIFY(model);
    auto params = model->named_parameters();
    const int64_t strides[3] = {8, 16, 32};
    for (int level = 0; level < 3; ++level) {
        const std::string i = std::to_string(level);
        const torch::Tensor box = params["model.22.cv2." + i + ".2.bias"];
        const torch::Tensor cls = params["model.22.cv3." + i + ".2.bias"];
        QCOMPARE(box.numel(), int64_t(64));
        QVERIFY(torch::allclose(box, torch::ones_like(box)));
        const double expected = std::log(5.0 / 10 / std::pow(640.0 / strides[level], 2));
        QCOMPARE(cls.numel(), int64_t(10));
        QVERIFY(std::abs(cls[0].item<double>() - expected) < 1e-5);
    }
    // BatchNorm as Ultralytics initialises it.
    auto bn =
        std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(model->named_modules()["model.0.bn"]);
    QVERIFY(bn);
    QCOMPARE(bn->options.eps(), 1e-3);
    QCOMPARE(*bn->options.momentum(), 0.03);
    // The DFL projection is the fixed arange.
    const torch::Tensor dfl = params["model.22.dfl.conv.weight"];
    QVERIFY(!dfl.requires_grad());
    QVERIFY(torch::equal(dfl.flatten(), torch::arange(16, torch::kFloat)));
}

void TestModel::yolov9Forward() {
    torch::manual_seed(0);
    for (const char* name : {"yolov9t.yaml", "yolov9e.yaml"}) {
        hr::DetectionModel model = build(name, 80);
        QVERIFY(model);
        if (std::string(name) == "yolov9e.yaml")
            QCOMPARE(model->parameterCount(), int64_t(58206592));
        QCOMPARE(model->strides(), (std::vector<int64_t>{8, 16, 32}));
        model->eval();
        torch::NoGradGuard noGrad;
        const auto raw = model->forward(torch::rand({1, 3, 64, 64}));
        QCOMPARE(raw[0].sizes().vec(), (std::vector<int64_t>{1, 144, 8, 8}));
        QCOMPARE(raw[2].sizes().vec(), (std::vector<int64_t>{1, 144, 2, 2}));
        QVERIFY(torch::isfinite(model->decode(raw)).all().item<bool>());
    }
}

void TestModel::fuseKeepsOutputs() {
    torch::manual_seed(1);
    for (const char* name : {"yolov8n.yaml", "yolov9t.yaml"}) {
        hr::DetectionModel model = build(name, 4);
        QVERIFY(model);
        // Non-trivial BatchNorm statistics, so the fold is really exercised.
        model->train();
        {
            torch::NoGradGuard noGrad;
            for (int i = 0; i < 3; ++i)
                model->forward(torch::rand({2, 3, 64, 64}));
        }
        model->eval();
        torch::NoGradGuard noGrad;
        const torch::Tensor images = torch::rand({2, 3, 96, 64});
        const auto before = model->forward(images);
        const int64_t paramsBefore = model->parameterCount();
        model->fuse();
        QVERIFY(model->isFused());
        QVERIFY(model->parameterCount() < paramsBefore);
        QVERIFY(model->named_modules().find("model.0.bn") == nullptr);
        const auto after = model->forward(images);
        for (size_t i = 0; i < before.size(); ++i) {
            const double scale = before[i].abs().max().item<double>();
            const double diff = (before[i] - after[i]).abs().max().item<double>();
            QVERIFY2(diff <= 1e-4 * std::max(1.0, scale),
                     qPrintable(QString("%1 level %2: diff %3").arg(name).arg(i).arg(diff)));
        }
    }
}

void TestModel::checkpointingGivesSameGradients() {
    struct Result {
        std::vector<std::pair<std::string, torch::Tensor>> grads;
        std::vector<std::pair<std::string, torch::Tensor>> buffers;
        double loss = 0;
    };
    auto runStep = [](hr::Checkpointing mode, const std::string& name) {
        torch::manual_seed(3);
        hr::DetectionModel model = build(name, 2);
        model->train();
        model->setCheckpointing(mode);
        torch::manual_seed(4);
        const torch::Tensor images = torch::rand({2, 3, 64, 64});
        auto raw = model->forward(images);
        torch::Tensor loss = torch::zeros({});
        for (size_t i = 0; i < raw.size(); ++i)
            loss = loss + (raw[i] * raw[i]).mean() * double(i + 1);
        loss.backward();
        Result r;
        r.loss = loss.item<double>();
        for (const auto& p : model->named_parameters())
            r.grads.emplace_back(p.key(), p.value().grad().defined() ? p.value().grad().clone()
                                                                     : torch::Tensor());
        for (const auto& b : model->named_buffers())
            r.buffers.emplace_back(b.key(), b.value().clone());
        return r;
    };
    // yolov8n in both modes; yolov9t (RepConv, ELAN1, AConv) with every row checkpointed.
    for (const char* name : {"yolov8n.yaml", "yolov9t.yaml"}) {
        const Result plain = runStep(hr::Checkpointing::None, name);
        std::vector<hr::Checkpointing> modes{hr::Checkpointing::All};
        if (std::string(name) == "yolov8n.yaml")
            modes.push_back(hr::Checkpointing::Backbone);
        for (hr::Checkpointing mode : modes) {
            const Result ckpt = runStep(mode, name);
            QVERIFY(std::abs(ckpt.loss - plain.loss) <= 1e-6 * std::abs(plain.loss));
            QCOMPARE(ckpt.grads.size(), plain.grads.size());
            int withGrad = 0;
            for (size_t i = 0; i < plain.grads.size(); ++i) {
                const auto& a = plain.grads[i].second;
                const auto& b = ckpt.grads[i].second;
                QCOMPARE(a.defined(), b.defined());
                if (!a.defined())
                    continue;
                ++withGrad;
                const double diff = (a - b).abs().max().item<double>();
                QVERIFY2(diff <= 1e-5,
                         qPrintable(QString("%1 %2: grad diff %3")
                                        .arg(name, QString::fromStdString(plain.grads[i].first))
                                        .arg(diff)));
            }
            QVERIFY(withGrad > 100);
            for (size_t i = 0; i < plain.buffers.size(); ++i)
                QVERIFY2(torch::equal(plain.buffers[i].second, ckpt.buffers[i].second),
                         plain.buffers[i].first.c_str());
        }
    }
    // The modes pick the documented rows.
    hr::DetectionModel model = build("yolov8n.yaml", 2);
    model->setCheckpointing(hr::Checkpointing::Backbone);
    QCOMPARE(model->checkpointLayers(), (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9}));
    model->setCheckpointing(hr::Checkpointing::All);
    QCOMPARE(int(model->checkpointLayers().size()), 22);
    model->setCheckpointing(hr::Checkpointing::None);
    QVERIFY(model->checkpointLayers().empty());
}

void TestModel::checkpointingKeepsAutocast() {
    // Forward under CPU bf16 autocast, backward outside it (as a trainer does): the recompute
    // must run in bf16 again, or its activations differ from the forward's.
    struct CpuAutocast {
        explicit CpuAutocast(bool on) {
            hr::compat::setAutocastDtype(c10::DeviceType::CPU, at::kBFloat16);
            hr::compat::setAutocastEnabled(c10::DeviceType::CPU, on);
        }
        ~CpuAutocast() {
            hr::compat::setAutocastEnabled(c10::DeviceType::CPU, false);
            at::autocast::clear_cache();
        }
    };
    torch::ScalarType outputType = torch::kFloat;
    auto gradsOf = [&outputType](hr::Checkpointing mode) {
        torch::manual_seed(7);
        hr::DetectionModel model = build("yolov8n.yaml", 2);
        model->train();
        model->setCheckpointing(mode);
        torch::manual_seed(8);
        const torch::Tensor images = torch::rand({2, 3, 64, 64});
        std::vector<torch::Tensor> raw;
        {
            CpuAutocast autocast(true);
            raw = model->forward(images);
        }
        outputType = raw[0].scalar_type();
        torch::Tensor loss = torch::zeros({});
        for (const auto& r : raw)
            loss = loss + r.to(torch::kFloat).pow(2).mean();
        loss.backward();
        std::vector<torch::Tensor> grads;
        for (const auto& p : model->parameters())
            grads.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
        return grads;
    };
    const std::vector<torch::Tensor> plain = gradsOf(hr::Checkpointing::None);
    QVERIFY(outputType == torch::kBFloat16); // autocast really applied
    const std::vector<torch::Tensor> ckpt = gradsOf(hr::Checkpointing::All);
    QCOMPARE(plain.size(), ckpt.size());
    for (size_t i = 0; i < plain.size(); ++i) {
        QCOMPARE(plain[i].defined(), ckpt[i].defined());
        if (plain[i].defined())
            QVERIFY2(torch::allclose(plain[i], ckpt[i], 1e-4, 1e-5),
                     qPrintable(QString("parameter %1: max diff %2")
                                    .arg(i)
                                    .arg((plain[i] - ckpt[i]).abs().max().item<double>())));
    }
}

void TestModel::freezeLayers() {
    hr::DetectionModel model = build("yolov8n.yaml", 2);
    const int64_t all = model->trainableParameterCount();
    int64_t frozenCount = 0;
    for (int i : {0, 1, 2})
        for (const auto& p : model->layer(i)->parameters())
            frozenCount += p.numel();
    model->freeze({0, 1, 2});
    QCOMPARE(model->trainableParameterCount(), all - frozenCount);
    QVERIFY(!model->layer(1)->parameters().front().requires_grad());
    QVERIFY(model->layer(3)->parameters().front().requires_grad());
    // Frozen rows still run BatchNorm in train mode: their running stats move.
    auto bn =
        std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(model->named_modules()["model.0.bn"]);
    const torch::Tensor before = bn->running_mean.clone();
    model->train();
    auto raw = model->forward(torch::rand({2, 3, 64, 64}));
    (raw[0].sum() + raw[1].sum() + raw[2].sum()).backward();
    QVERIFY(!torch::equal(before, bn->running_mean));
    QVERIFY(!model->layer(0)->parameters().front().grad().defined());
    QVERIFY(model->layer(3)->parameters().front().grad().defined());
    model->freeze({});
    QCOMPARE(model->trainableParameterCount(), all);
}

void TestModel::saveLoadRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("n.pt").toStdString();
    torch::manual_seed(5);
    hr::DetectionModel model = build("yolov8n.yaml", 3);
    model->train();
    {
        torch::NoGradGuard noGrad;
        model->forward(torch::rand({2, 3, 64, 64})); // move BN statistics off their defaults
    }
    std::string error;
    QVERIFY2(hr::saveModel(path, model, {"cat", "dog", "bird"}, &error), error.c_str());
    hr::LoadedModel loaded = hr::loadModel(path);
    QVERIFY2(loaded.model, loaded.error.c_str());
    QCOMPARE(loaded.classNames, (std::vector<std::string>{"cat", "dog", "bird"}));
    QCOMPARE(loaded.model->nc(), 3);
    QCOMPARE(loaded.model->scale(), std::string("n"));
    QCOMPARE(loaded.model->architectureKey(), model->architectureKey());
    auto a = model->named_parameters();
    auto b = loaded.model->named_parameters();
    QCOMPARE(a.size(), b.size());
    for (const auto& p : a)
        QVERIFY2(torch::equal(p.value(), b[p.key()]), p.key().c_str());
    auto ab = model->named_buffers();
    auto bb = loaded.model->named_buffers();
    for (const auto& p : ab)
        QVERIFY2(torch::equal(p.value(), bb[p.key()]), p.key().c_str());
    model->eval();
    loaded.model->eval();
    torch::NoGradGuard noGrad;
    const torch::Tensor image = torch::rand({1, 3, 64, 64});
    QVERIFY(torch::equal(model->predict(image), loaded.model->predict(image)));

    // loadWeightsInto a freshly built model of the same architecture.
    torch::manual_seed(99);
    hr::DetectionModel fresh = build("yolov8n.yaml", 3);
    QVERIFY(!torch::equal(fresh->parameters().front(), model->parameters().front()));
    QVERIFY2(hr::loadWeightsInto(fresh, path, &error), error.c_str());
    fresh->eval();
    QVERIFY(torch::equal(fresh->predict(image), model->predict(image)));

    // A file that is not a model.
    const std::string junk = dir.filePath("junk.pt").toStdString();
    QFile f(QString::fromStdString(junk));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a model");
    f.close();
    hr::LoadedModel bad = hr::loadModel(junk);
    QVERIFY(!bad.model);
    QVERIFY(!bad.error.empty());
}

void TestModel::otherArchitectureOrClassCount() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("s.pt").toStdString();
    hr::DetectionModel small = build("yolov8n.yaml", 3);
    std::string error;
    QVERIFY(hr::saveModel(path, small, {"a", "b", "c"}, &error));
    hr::DetectionModel other = build("yolov8s.yaml", 3);
    const torch::Tensor before = other->parameters().front().clone();
    QVERIFY(!hr::loadWeightsInto(other, path, &error));
    QVERIFY2(error.find("yolov8.yaml scale n, nc 3") != std::string::npos, error.c_str());
    QVERIFY2(error.find("yolov8.yaml scale s, nc 3") != std::string::npos, error.c_str());
    QVERIFY(torch::equal(before, other->parameters().front()));

    // Another class count: the head's class layers (the last conv of each level's cv3) keep
    // their initialisation, everything else comes from the file, as for Ultralytics files.
    hr::DetectionModel otherClasses = build("yolov8n.yaml", 4);
    const auto initial = otherClasses->named_parameters();
    std::map<std::string, torch::Tensor> before4;
    for (const auto& p : initial)
        before4[p.key()] = p.value().clone();
    hr::WeightTransfer transfer;
    error.clear();
    QVERIFY2(hr::loadWeightsInto(otherClasses, path, &error, &transfer), error.c_str());
    const int all = static_cast<int>(otherClasses->named_parameters().size() +
                                     otherClasses->named_buffers().size());
    QCOMPARE(transfer.total, all);
    QCOMPARE(transfer.transferred, all - 6);
    QCOMPARE(transfer.summary, "Transferred " + std::to_string(all - 6) + "/" +
                                   std::to_string(all) + " items from s.pt");
    QCOMPARE(transfer.classNames, (std::vector<std::string>{"a", "b", "c"}));
    const auto stored = small->named_parameters();
    for (const auto& p : otherClasses->named_parameters()) {
        const bool classLayer =
            std::regex_match(p.key(), std::regex(R"(model\.22\.cv3\.\d\.2\.(weight|bias))"));
        const bool skipped = std::find(transfer.skipped.begin(), transfer.skipped.end(), p.key()) !=
                             transfer.skipped.end();
        QVERIFY2(classLayer == skipped, p.key().c_str());
        if (classLayer)
            QVERIFY2(torch::equal(p.value(), before4[p.key()]), p.key().c_str());
        else
            QVERIFY2(torch::equal(p.value(), stored[p.key()]), p.key().c_str());
    }
}

void TestModel::malformedRows_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("expected");
    const QString head = "nc: 3\nbackbone:\n  - [-1, 1, Conv, [8, 3, 2]]\n";
    QTest::newRow("unknown module")
        << head + "  - [-1, 1, C2ff, [16]]\nhead:\n  - [[0], 1, Detect, [nc]]\n"
        << 4 << "unknown module 'C2ff' (did you mean 'C2f'?)";
    QTest::newRow("short row") << head + "  - [-1, Conv, [16]]\n"
                               << 4 << "a row must be [from, repeats, module, args]";
    QTest::newRow("bad from") << head + "  - [5, 1, Conv, [16]]\n"
                              << 4 << "'from' 5 does not name an earlier layer";
    QTest::newRow("bad arg") << head + "  - [-1, 1, Conv, [16, big]]\n"
                             << 4 << "Conv argument 2 (kernel) must be an integer";
    QTest::newRow("no detect") << head << 3 << "the last row must be Detect";
    QTest::newRow("concat strides")
        << head + "  - [-1, 1, Conv, [8, 3, 2]]\n  - [[0, 1], 1, Concat, [1]]\n"
        << 5 << "Concat inputs have different strides";
    QTest::newRow("not yaml") << QString("nc: [1, 2\n") << 2 << "not valid YAML";
}

void TestModel::malformedRows() {
    QFETCH(QString, yaml);
    QFETCH(int, line);
    QFETCH(QString, expected);
    const hr::Diagnostic d = firstError(yaml.toStdString());
    QCOMPARE(d.file, std::string("bad.yaml"));
    QCOMPARE(d.line, line);
    QVERIFY2(d.message.find(expected.toStdString()) != std::string::npos, d.toString().c_str());
    hr::ModelBuild b = hr::buildModelFromText(yaml.toStdString(), "bad.yaml", 3, "");
    QVERIFY(!b.model);
}

void TestModel::scaleSelection() {
    // Tiny custom YAML: builds, strides from the rows, default scale handling.
    hr::ModelBuild tiny = hr::buildModelFromText(kTinyYaml, "tiny.yaml", 0, "");
    QVERIFY2(tiny.model, hr::formatDiagnostics(tiny.diagnostics).c_str());
    QCOMPARE(tiny.model->nc(), 3);
    QCOMPARE(tiny.model->strides(), (std::vector<int64_t>{8, 16, 32}));

    hr::ModelBuild explicitScale = hr::buildModel("yolov8.yaml", 80, "s");
    QVERIFY(explicitScale.model);
    QCOMPARE(explicitScale.model->parameterCount(), int64_t(11166560));
    hr::ModelBuild noScale = hr::buildModel("yolov8.yaml", 80);
    QVERIFY(noScale.model); // first scale, with a warning
    QCOMPARE(noScale.model->scale(), std::string("n"));
    QVERIFY(!noScale.diagnostics.empty());
    QCOMPARE(noScale.diagnostics.front().severity, hr::Diagnostic::Severity::Warning);
    hr::ModelBuild wrong = hr::buildModel("yolov8.yaml", 80, "q");
    QVERIFY(!wrong.model);
    QVERIFY(wrong.diagnostics.front().fix.find("n, s, m, l, x") != std::string::npos);
    hr::ModelBuild missing = hr::buildModel("no_such_model.yaml", 80);
    QVERIFY(!missing.model);
    QVERIFY(hr::hasErrors(missing.diagnostics));
}

void TestModel::summaryText() {
    hr::DetectionModel model = build("yolov8n.yaml");
    const hr::ModelSummary s = hr::summarize(model, 640);
    QCOMPARE(s.layers, 23);
    QCOMPARE(s.parameters, int64_t(3157200));
    QCOMPARE(s.gradients, int64_t(3157184));
    QCOMPARE(s.rows.size(), size_t(23));
    QCOMPARE(s.rows[0].outputShape, std::string("[16, 320, 320]"));
    QCOMPARE(s.rows[0].args, std::string("[3, 16, 3, 2]"));
    QCOMPARE(s.rows[11].from, std::string("[-1, 6]"));
    QCOMPARE(s.rows[15].outputShape, std::string("[64, 80, 80]"));
    const std::string text = hr::formatSummary(s, true);
    QVERIFY(text.find("3,157,200 parameters") != std::string::npos);
    QVERIFY(text.find("C2f") != std::string::npos);
    QVERIFY(hr::formatSummary(s, false).find("C2f") == std::string::npos);
    QVERIFY(model->is_training()); // summarize restores the mode
}

void TestModel::convolutionCallsCoverEveryConvolution() {
    hr::DetectionModel model = build("yolov8n.yaml");
    const std::vector<hr::ConvolutionCall> calls = hr::convolutionCalls(model, 64);
    QVERIFY(model->is_training()); // the mode is restored
    int convolutions = 0;
    for (const auto& m : model->modules(false))
        if (m->as<torch::nn::Conv2d>())
            ++convolutions;
    int counted = 0;
    double flops = 0;
    for (const auto& c : calls) {
        counted += c.count;
        flops += c.count * c.forwardFlops();
    }
    QCOMPARE(counted, convolutions - 1); // all but DFL's, which only decoding runs
    // The stem: the image in, no input gradient, 3x3 stride 2 to 16 channels at 32 x 32.
    QCOMPARE(calls.front().inChannels, int64_t(3));
    QCOMPARE(calls.front().height, int64_t(64));
    QCOMPARE(calls.front().outHeight(), int64_t(32));
    QVERIFY(!calls.front().inputGradient);
    QVERIFY(std::all_of(calls.begin() + 1, calls.end(),
                        [](const hr::ConvolutionCall& c) { return c.inputGradient; }));
    QCOMPARE(calls.front().forwardFlops(), 2.0 * 32 * 32 * 16 * 3 * 9);
    // The same multiply-accumulates summarize() counts, less its BatchNorm share.
    const double summary = hr::summarize(model, 64).gflops * 1e9;
    QVERIFY2(flops < summary && flops > 0.97 * summary,
             qPrintable(QString("%1 vs %2").arg(flops).arg(summary)));
}

void TestModel::bf16SiluMatchesFloat() {
    // The bf16 SiLU must give silu's values and gradients within bf16 rounding: no worse than
    // LibTorch's own bf16 kernel against the float result.
    torch::manual_seed(0);
    const torch::Tensor x = (3 * torch::randn({2, 8, 12, 12}))
                                .contiguous(at::MemoryFormat::ChannelsLast)
                                .to(torch::kBFloat16)
                                .requires_grad_(true);
    const torch::Tensor g = torch::randn({2, 8, 12, 12}).to(torch::kBFloat16);
    const torch::Tensor y = hr::siluActivation(x);
    QCOMPARE(y.scalar_type(), torch::kBFloat16);
    y.backward(g);
    const torch::Tensor xf = x.detach().to(torch::kFloat);
    const torch::Tensor yRef = torch::silu(xf);
    const torch::Tensor gRef = at::silu_backward(g.to(torch::kFloat), xf);
    const auto maxError = [](const torch::Tensor& a, const torch::Tensor& b) {
        return (a.to(torch::kFloat) - b).abs().max().item<double>();
    };
    const double ownY = maxError(torch::silu(x.detach()), yRef);
    const double ownG = maxError(at::silu_backward(g, x.detach()), gRef);
    const double errY = maxError(y.detach(), yRef);
    const double errG = maxError(x.grad(), gRef);
    QVERIFY2(errY <= 1.5 * ownY + 1e-6, qPrintable(QString("%1 vs %2").arg(errY).arg(ownY)));
    QVERIFY2(errG <= 1.5 * ownG + 1e-6, qPrintable(QString("%1 vs %2").arg(errG).arg(ownG)));
    QVERIFY(errG < 0.02 * gRef.abs().max().item<double>());
    // fp32 is LibTorch's own silu, exactly.
    QVERIFY(torch::equal(hr::siluActivation(xf), yRef));
}

QTEST_APPLESS_MAIN(TestModel)
void TestModel::fusedBatchNormSiluWithoutInputGradient() {
    // A frozen convolution before a trained BatchNorm: backward runs with no gradient for x, the
    // first pass alone (no dz kept), on both kernels and in both precisions.
    const auto restore = qScopeGuard([] { hr::kernels::allowAvx512(true); });
    for (const bool avx512 : {false, true})
        for (const bool bf16 : {false, true}) {
            hr::kernels::allowAvx512(avx512);
            torch::manual_seed(2);
            const auto options = torch::nn::BatchNorm2dOptions(24).eps(1e-3).momentum(0.03);
            torch::nn::BatchNorm2d fused(options), plain(options);
            torch::Tensor x =
                torch::randn({2, 24, 7, 5}).contiguous(at::MemoryFormat::ChannelsLast);
            if (bf16)
                x = x.to(torch::kBFloat16);
            QVERIFY(hr::batchNormSiluApplies(*fused, x));
            hr::batchNormSilu(*fused, x).to(torch::kFloat).square().sum().backward();
            torch::silu(plain->forward(x.to(torch::kFloat))).square().sum().backward();
            const double tolerance = bf16 ? 2e-2 : 1e-4;
            for (const auto& [a, b] : {std::pair{fused->weight.grad(), plain->weight.grad()},
                                       std::pair{fused->bias.grad(), plain->bias.grad()}}) {
                const double error = ((a - b).abs().max() / (b.abs().max() + 1e-12)).item<double>();
                QVERIFY2(error <= tolerance,
                         qPrintable(QString("avx512 %1, bf16 %2: relative error %3")
                                        .arg(avx512)
                                        .arg(bf16)
                                        .arg(error)));
            }
        }
}

void TestModel::nearestUpsampleOfConcatenated_data() {
    QTest::addColumn<bool>("bf16");
    QTest::addColumn<int>("factor");
    QTest::addColumn<int>("threads");
    // 19 channels: no vector width divides them; 9x13 pixels: odd sides.
    QTest::newRow("fp32, x2, 1 thread") << false << 2 << 1;
    QTest::newRow("fp32, x2, 2 threads") << false << 2 << 2;
    QTest::newRow("fp32, x3") << false << 3 << 2;
    QTest::newRow("bf16, x2") << true << 2 << 2;
    QTest::newRow("bf16, x3") << true << 3 << 1;
}

void TestModel::nearestUpsampleOfConcatenated() {
    // As in the neck: the upsampled tensor is concatenated with another, so its gradient is a
    // channel slice of the concatenation's. Output and input gradient against F::interpolate.
    QFETCH(bool, bf16);
    QFETCH(int, factor);
    QFETCH(int, threads);
    const hr::testing::TorchThreadsGuard threadCount(threads);
    torch::manual_seed(3);
    const auto layout = at::MemoryFormat::ChannelsLast;
    const auto dtype = bf16 ? torch::kBFloat16 : torch::kFloat;
    const torch::Tensor x = torch::randn({2, 19, 9, 13}).to(dtype).contiguous(layout);
    const torch::Tensor other =
        torch::randn({2, 5, 9 * factor, 13 * factor}).to(dtype).contiguous(layout);
    const torch::Tensor weights = torch::randn({2, 24, 9 * factor, 13 * factor}).to(dtype);

    const torch::Tensor mine = x.clone().requires_grad_(true);
    const torch::Tensor up = hr::nearestUpsample(mine, factor);
    QVERIFY(up.is_contiguous(layout));
    (torch::cat({up, other}, 1) * weights).sum().backward();

    const torch::Tensor reference = x.to(torch::kFloat).requires_grad_(true);
    const torch::Tensor upRef = torch::nn::functional::interpolate(
        reference, torch::nn::functional::InterpolateFuncOptions()
                       .scale_factor(std::vector<double>{double(factor), double(factor)})
                       .mode(torch::kNearest));
    (torch::cat({upRef, other.to(torch::kFloat)}, 1) * weights.to(torch::kFloat)).sum().backward();

    QVERIFY(torch::equal(up.detach().to(torch::kFloat), upRef.detach()));
    QCOMPARE(mine.grad().scalar_type(), dtype);
    QVERIFY(mine.grad().is_contiguous(layout));
    // Sums in float and one rounding: as close as bf16 can hold the float result.
    const torch::Tensor expected = reference.grad().to(dtype).to(torch::kFloat);
    const double error = (mine.grad().to(torch::kFloat) - expected).abs().max().item<double>();
    const double limit = (bf16 ? 1e-2 : 1e-5) * expected.abs().max().item<double>();
    QVERIFY2(error <= limit, qPrintable(QString("error %1 > %2").arg(error).arg(limit)));
}

#include "test_model.moc"

void TestModel::fusedBatchNormSiluMatchesModules_data() {
    QTest::addColumn<bool>("bf16");
    QTest::addColumn<int>("threads");
    QTest::addColumn<QList<int>>("shape");
    QTest::addColumn<bool>("avx512");
    // 37 channels: a vector width does not divide them. 40x40x4 rows: split among threads.
    // Each row twice: the portable loops, and the hand-written AVX-512 where the CPU has it.
    for (const bool avx512 : {false, true}) {
        const char* kernels = !avx512                          ? "portable"
                              : hr::kernels::avx512Available() ? "AVX-512"
                                                               : "no AVX512-BF16: portable";
        const auto row = [&](const char* what) -> QTestData& {
            return QTest::newRow(qPrintable(QString("%1, %2").arg(what, kernels)));
        };
        row("fp32, 1 thread") << false << 1 << QList<int>{3, 37, 9, 11} << avx512;
        row("fp32, 2 threads") << false << 2 << QList<int>{4, 37, 40, 40} << avx512;
        row("bf16, 1 thread") << true << 1 << QList<int>{3, 37, 9, 11} << avx512;
        row("bf16, 2 threads") << true << 2 << QList<int>{4, 16, 40, 40} << avx512;
    }
}

void TestModel::fusedBatchNormSiluMatchesModules() {
    // silu(bn(x)) in training mode, fused, against BatchNorm2d's forward and torch::silu:
    // output, gradients of input, weight and bias, and the running statistics after the step.
    QFETCH(bool, bf16);
    QFETCH(int, threads);
    QFETCH(QList<int>, shape);
    QFETCH(bool, avx512);
    const hr::testing::TorchThreadsGuard threadCount(threads);
    const auto restore = qScopeGuard([] { hr::kernels::allowAvx512(true); });
    hr::kernels::allowAvx512(avx512);
    torch::manual_seed(1);
    const std::vector<int64_t> dims(shape.begin(), shape.end());
    const int64_t channels = dims[1];
    const auto options = torch::nn::BatchNorm2dOptions(channels).eps(1e-3).momentum(0.03);
    torch::nn::BatchNorm2d fused(options), plain(options);
    {
        torch::NoGradGuard noGrad;
        fused->weight.copy_(torch::rand({channels}) + 0.5);
        fused->bias.copy_(torch::randn({channels}));
        fused->running_mean.copy_(torch::randn({channels}));
        fused->running_var.copy_(torch::rand({channels}) + 0.5);
        plain->weight.copy_(fused->weight);
        plain->bias.copy_(fused->bias);
        plain->running_mean.copy_(fused->running_mean);
        plain->running_var.copy_(fused->running_var);
    }
    // An offset of 5 per channel: the moments must not cancel.
    torch::Tensor x = (2 * torch::randn(dims) + 5).contiguous(at::MemoryFormat::ChannelsLast);
    const torch::Tensor g = torch::randn(dims).contiguous(at::MemoryFormat::ChannelsLast);
    if (bf16)
        x = x.to(torch::kBFloat16);
    x.requires_grad_(true);
    QVERIFY(hr::batchNormSiluApplies(*fused, x));
    const torch::Tensor y = hr::batchNormSilu(*fused, x);
    QCOMPARE(y.scalar_type(), x.scalar_type());
    QVERIFY(y.is_contiguous(at::MemoryFormat::ChannelsLast));
    y.backward(bf16 ? g.to(torch::kBFloat16) : g);

    // The reference in float from the same (rounded) input values.
    const torch::Tensor xf = x.detach().to(torch::kFloat).requires_grad_(true);
    const torch::Tensor yRef = torch::silu(plain->forward(xf));
    yRef.backward(g);
    const auto relError = [](const torch::Tensor& a, const torch::Tensor& b) {
        return ((a.to(torch::kFloat) - b).abs().max() / (b.abs().max() + 1e-12)).item<double>();
    };
    const double tolerance = bf16 ? 1.6e-2 : 2e-5;
    const auto check = [&](const char* what, double error, double limit) {
        QVERIFY2(error <= limit,
                 qPrintable(QString("%1: relative error %2 > %3").arg(what).arg(error).arg(limit)));
    };
    check("output", relError(y.detach(), yRef.detach()), tolerance);
    check("input gradient", relError(x.grad(), xf.grad()), tolerance);
    // The parameter gradients are float sums in both; bf16 rounds only dy and the input.
    check("weight gradient", relError(fused->weight.grad(), plain->weight.grad()),
          bf16 ? 2e-2 : 1e-4);
    check("bias gradient", relError(fused->bias.grad(), plain->bias.grad()), bf16 ? 2e-2 : 1e-4);
    check("running mean", relError(fused->running_mean, plain->running_mean), 1e-6);
    check("running variance", relError(fused->running_var, plain->running_var), 1e-5);
    QCOMPARE(fused->num_batches_tracked.item<int64_t>(),
             plain->num_batches_tracked.item<int64_t>());
}
