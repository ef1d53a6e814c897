// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 3 item 6: yolov8n must be able to memorise one small batch. A broken loss, assigner,
// decoder or NMS shows up here as a loss that does not fall or boxes that are not found.
//
// The objects here are 7-40 px, and the untrained head predicts boxes 7.5 strides to each side
// (120 px at stride 8). For the small boxes the task-aligned metric score^0.5 * CIoU^6 is then
// ~1e-14, far below the assigner's eps 1e-9, so their anchors get target scores ~0: no box loss
// weight and a class target of 0 (test_loss: assignerTinyAlignmentGivesNoTarget). That is the
// reference's behaviour, not a bug; with a flat lr only the larger boxes were ever learned (4 of
// 17 after 100 steps, no change after 120). Ultralytics' recipe moves the biases first
// (warmup_bias_lr, falling to lr0 during warmup), which shrinks every predicted box, so the
// small objects start to align: the same is done here with a bias lr falling from 0.05 to 2e-3
// over the first 60 of 150 AdamW steps.
#include "data/synthetic_dataset.h"
#include "eval/nms.h"
#include "loss/box_iou.h"
#include "loss/detection_loss.h"
#include "model/anchors.h"
#include "model/detection_model.h"
#include "model/model_builder.h"

#include <torch/torch.h>

#include <QElapsedTimer>
#include <QtTest>

namespace {

constexpr int kImageSize = 128;
constexpr int kBatch = 4;

struct OverfitBatch {
    torch::Tensor images;  ///< [4, 3, 128, 128] RGB in [0, 1]
    torch::Tensor targets; ///< [N, 6] (image, class, cx, cy, w, h) normalised
};

/// The first four built-in training images that contain objects, rendered at 128 px.
OverfitBatch makeBatch() {
    hr::SyntheticOptions options;
    options.imgsz = kImageSize;
    std::vector<torch::Tensor> images;
    std::vector<float> rows;
    for (int index = 0; int(images.size()) < kBatch; ++index) {
        auto sample = hr::renderSyntheticImage(options, false, index);
        if (sample.labels.empty())
            continue;
        auto bgr = torch::from_blob(sample.bgr.data, {kImageSize, kImageSize, 3}, torch::kUInt8);
        images.push_back(bgr.flip(2).permute({2, 0, 1}).to(torch::kFloat).div(255));
        for (const auto& l : sample.labels)
            rows.insert(rows.end(), {float(images.size() - 1), float(l.cls), l.cx, l.cy, l.w, l.h});
    }
    return {torch::stack(images), torch::tensor(rows).view({-1, 6})};
}

} // namespace

class TestOverfit : public QObject {
    Q_OBJECT
private slots:
    void yolov8nLearnsOneBatch();
};

void TestOverfit::yolov8nLearnsOneBatch() {
    at::set_num_threads(2);
    torch::manual_seed(0);
    QElapsedTimer timer;
    timer.start();

    const auto batch = makeBatch();
    const int nc = int(hr::syntheticClassNames().size());
    auto build = hr::buildModel("yolov8n.yaml", nc);
    QVERIFY2(build.model,
             qPrintable(QString::fromStdString(hr::formatDiagnostics(build.diagnostics))));
    auto model = build.model;
    model->train();

    hr::LossConfig config;
    config.nc = nc;
    config.regMax = model->regMax();
    config.strides = model->strides();
    hr::DetectionLoss loss(config);
    auto envDouble = [](const char* name, double fallback) {
        bool ok = false;
        const double v = qEnvironmentVariable(name).toDouble(&ok);
        return ok ? v : fallback;
    };
    const double lr = envDouble("HEADROOM_OVERFIT_LR", 2e-3);
    const double biasLr = envDouble("HEADROOM_OVERFIT_BIAS_LR", 0.05);
    const int warmup = int(envDouble("HEADROOM_OVERFIT_WARMUP", 60));
    // Biases (convolutions and BatchNorm, Ultralytics' third group) start at a high lr that
    // falls linearly to lr over the warmup steps; see the header.
    std::vector<torch::Tensor> weights, biases;
    for (const auto& item : model->named_parameters())
        (item.key().find("bias") != std::string::npos ? biases : weights).push_back(item.value());
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(weights, std::make_unique<torch::optim::AdamWOptions>(
                                     torch::optim::AdamWOptions(lr).weight_decay(0.0)));
    groups.emplace_back(biases, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(biasLr).weight_decay(0.0)));
    torch::optim::AdamW optimizer(std::move(groups),
                                  torch::optim::AdamWOptions(lr).weight_decay(0.0));

    const int kSteps = qEnvironmentVariableIntValue("HEADROOM_OVERFIT_STEPS") > 0
                           ? qEnvironmentVariableIntValue("HEADROOM_OVERFIT_STEPS")
                           : 150;
    double first = 0, last = 0;
    for (int step = 0; step < kSteps; ++step) {
        if (warmup > 0) {
            const double f = std::min(1.0, double(step) / warmup);
            static_cast<torch::optim::AdamWOptions&>(optimizer.param_groups()[1].options())
                .lr(biasLr + (lr - biasLr) * f);
        }
        optimizer.zero_grad();
        auto out =
            loss.compute(model->forward(batch.images), batch.targets, kImageSize, kImageSize);
        out.total.backward();
        optimizer.step();
        const double value = out.items.sum().item<double>();
        QVERIFY(std::isfinite(value));
        (step == 0 ? first : last) = value;
        if (qEnvironmentVariableIsSet("HEADROOM_OVERFIT_TRACE") && step % 10 == 0)
            qInfo("step %d loss %.3f (%s) %.1f s", step, value,
                  qPrintable(QString::number(out.items[0].item<double>()) + " " +
                             QString::number(out.items[1].item<double>()) + " " +
                             QString::number(out.items[2].item<double>())),
                  timer.elapsed() / 1000.0);
    }
    qInfo("loss %.3f -> %.3f after %d steps, %.1f s", first, last, kSteps,
          timer.elapsed() / 1000.0);
    QVERIFY2(last < 0.3 * first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));

    // BatchNorm's running statistics (momentum 0.03) lag weights that changed this fast: take
    // them from one pass over the batch with the final weights, as a "precise BN" step would.
    torch::NoGradGuard noGrad;
    for (const auto& module : model->modules(false))
        if (auto* bn = module->as<torch::nn::BatchNorm2d>())
            bn->options.momentum(1.0);
    model->forward(batch.images);

    // Every ground-truth box must be found after NMS: a detection of its class with IoU > 0.5
    // and confidence >= 0.1. (Counts at other thresholds are printed to judge the margin.)
    // Cross-check the model's decode against the loss's own decoding of the same raw maps.
    torch::Tensor trainModeDecoded;
    {
        const auto raw = model->forward(batch.images);
        const auto viaModel = model->decode(raw);
        trainModeDecoded = viaModel;
        std::vector<torch::Tensor> flat;
        for (const auto& r : raw)
            flat.push_back(r.flatten(2));
        const auto all = torch::cat(flat, 2);
        const int reg = model->regMax();
        auto [points, strides] = hr::makeAnchors(raw, model->strides());
        const auto dist = all.narrow(1, 0, 4 * reg)
                              .permute({0, 2, 1})
                              .reshape({kBatch, -1, 4, reg})
                              .softmax(3)
                              .matmul(torch::arange(reg, torch::kFloat));
        const auto boxes = hr::distanceToBox(dist, points) * strides;
        const auto mine =
            torch::cat({boxes.permute({0, 2, 1}), all.narrow(1, 4 * reg, nc).sigmoid()}, 1);
        qInfo("decode check: model %s vs loss %s, max |diff| %.4g",
              qPrintable(QString::number(viaModel.size(1))),
              qPrintable(QString::number(mine.size(1))),
              viaModel.sizes() == mine.sizes() ? (viaModel - mine).abs().max().item<double>()
                                               : -1.0);
    }
    model->eval();
    const auto decoded = model->predict(batch.images);
    const auto scale =
        torch::tensor({float(kImageSize), float(kImageSize), float(kImageSize), float(kImageSize)});
    const int64_t total = batch.targets.size(0);
    auto countFound = [&](double conf, bool report, torch::Tensor source = {}) {
        const auto detections =
            hr::nonMaxSuppression(source.defined() ? source : decoded, conf, 0.7);
        int found = 0;
        for (int64_t i = 0; i < total; ++i) {
            const auto row = batch.targets[i];
            const int64_t image = row[0].item<int64_t>();
            const int64_t cls = row[1].item<int64_t>();
            const auto gt = hr::xywhToXyxy(row.narrow(0, 2, 4) * scale).view({1, 4});
            const auto& det = detections[image];
            const auto sameClass = det.select(1, 5).to(torch::kLong) == cls;
            const auto iou = hr::boxIou(gt, det.narrow(1, 0, 4)).view(-1);
            const bool hit = (iou > 0.5).logical_and(sameClass).any().item<bool>();
            found += hit ? 1 : 0;
            if (report && !hit)
                qWarning("image %lld: box of class %lld not found (%lld detections, best IoU "
                         "%.2f)",
                         (long long)image, (long long)cls, (long long)det.size(0),
                         iou.numel() ? iou.max().item<double>() : 0.0);
        }
        qInfo("conf %.3f: found %d of %lld boxes", conf, found, (long long)total);
        return found;
    };
    qInfo("train-mode output:");
    countFound(0.1, false, trainModeDecoded);
    countFound(0.25, false);
    countFound(0.001, false);
    const int found = countFound(0.1, true);
    qInfo("%.1f s in all", timer.elapsed() / 1000.0);
    QCOMPARE(found, int(total));
}

QTEST_APPLESS_MAIN(TestOverfit)
#include "test_overfit.moc"
