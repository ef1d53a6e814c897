// SPDX-License-Identifier: GPL-3.0-or-later
// The trainer's arithmetic on tiny toy modules: schedule, warmup, optimizer choice and groups,
// weight decay scaling, EMA, the fp16 loss scaler, accumulation equivalence, and the fields of
// an events.jsonl line.
#include "config/train_config.h"
#include "train/event_json.h"
#include "train/loss_scaler.h"
#include "train/lr_schedule.h"
#include "train/model_ema.h"
#include "train/optimizer_factory.h"
#include "train/weight_updater.h"

#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace {

/// Two linear layers and a bias-free conv: no BatchNorm, so batch splitting cannot matter.
struct ToyNetImpl : torch::nn::Module {
    ToyNetImpl()
        : conv(register_module(
              "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).padding(1).bias(false)))),
          fc1(register_module("fc1", torch::nn::Linear(4 * 6 * 6, 16))),
          fc2(register_module("fc2", torch::nn::Linear(16, 2))) {}
    torch::Tensor forward(const torch::Tensor& x) {
        torch::Tensor y = torch::silu(conv->forward(x)).flatten(1);
        return fc2->forward(torch::silu(fc1->forward(y)));
    }
    torch::nn::Conv2d conv;
    torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(ToyNet);

struct NormNetImpl : torch::nn::Module {
    NormNetImpl()
        : conv(register_module("conv",
                               torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)))),
          bn(register_module("bn", torch::nn::BatchNorm2d(8))),
          fc(register_module("fc", torch::nn::Linear(8, 2))) {}
    torch::nn::Conv2d conv;
    torch::nn::BatchNorm2d bn;
    torch::nn::Linear fc;
};
TORCH_MODULE(NormNet);

ToyNet makeToy(int seed) {
    torch::manual_seed(seed);
    return ToyNet();
}

/// Sum over images: a loss whose gradient over 16 images equals the sum over four 4-image
/// batches, as Ultralytics' loss * batch_size is meant to be.
torch::Tensor toyLoss(ToyNet& net, const torch::Tensor& x, const torch::Tensor& y) {
    return (net->forward(x) - y).pow(2).sum();
}

double maxDifference(const torch::nn::Module& a, const torch::nn::Module& b) {
    double worst = 0;
    auto pa = a.parameters(), pb = b.parameters();
    for (size_t i = 0; i < pa.size(); ++i)
        worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    return worst;
}

} // namespace

class TestTrain : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { torch::set_num_threads(1); }
    void linearAndCosineFactors();
    void warmupRampsLrMomentumAndAccumulation();
    void warmupHasAtLeast100Iterations();
    void autoOptimizerRule();
    void parameterGroups();
    void weightDecayScaling();
    void emaDecayAndAverage();
    void lossScalerSkipsOverflowAndGrows();
    void accumulationMatchesLargeBatch_data();
    void accumulationMatchesLargeBatch();
    void updaterStateRoundTrip();
    void switchingOptimizerKeepsLearningRates();
    void scheduleMatchesUltralytics_data();
    void scheduleMatchesUltralytics();
    void eventLinesKeepTheirFields();
};

void TestTrain::linearAndCosineFactors() {
    hr::TrainConfig config;
    config.epochs = 10;
    config.lrf = 0.1;
    hr::LrSchedule linear(config, 0.01, 0.1, 5);
    QCOMPARE(linear.factor(0), 1.0);
    QVERIFY(std::abs(linear.factor(5) - (0.5 * 0.9 + 0.1)) < 1e-12);
    QVERIFY(std::abs(linear.factor(10) - 0.1) < 1e-12);
    config.cos_lr = true;
    config.warmup_epochs = 0;
    hr::LrSchedule cosine(config, 0.01, 0.1, 5);
    QVERIFY(std::abs(cosine.factor(0) - 1.0) < 1e-12);
    QVERIFY(std::abs(cosine.factor(5) - 0.55) < 1e-12);
    QVERIFY(std::abs(cosine.factor(10) - 0.1) < 1e-12);
    // After warmup the lr is lr0 * factor(epoch) in every group.
    const auto p = cosine.at(9, 4);
    QVERIFY(!p.warmingUp);
    QVERIFY(std::abs(p.lr[0] - 0.01 * cosine.factor(9)) < 1e-15);
    QCOMPARE(p.lr[2], p.lr[0]);
}

void TestTrain::warmupRampsLrMomentumAndAccumulation() {
    hr::TrainConfig config;
    config.epochs = 100;
    config.batch = 8;
    config.nbs = 64;
    config.warmup_epochs = 3;
    hr::LrSchedule schedule(config, 0.01, 0.1, 50); // warmup = 150 iterations
    QCOMPARE(schedule.warmupIterations(), 150);
    const auto start = schedule.at(0, 0);
    QVERIFY(start.warmingUp);
    QCOMPARE(start.lr[0], 0.0);
    QCOMPARE(start.lr[1], 0.0);
    QCOMPARE(start.lr[2], 0.1);
    QCOMPARE(start.momentum, config.warmup_momentum);
    QCOMPARE(start.accumulate, 1);
    const auto middle = schedule.at(1, 25); // ni = 75, half way to lr0 * factor(1)
    const double target = 0.01 * schedule.factor(1);
    QVERIFY(std::abs(middle.lr[0] - target / 2) < 1e-12);
    QVERIFY(std::abs(middle.lr[2] - (0.1 + target) / 2) < 1e-12);
    QVERIFY(std::abs(middle.momentum - (0.8 + 0.937) / 2) < 1e-12);
    QCOMPARE(middle.accumulate, 4);     // numpy rounds 1 + 0.5 * 7 = 4.5 to even
    const auto end = schedule.at(3, 0); // ni = 150
    QCOMPARE(end.accumulate, 8);
    QVERIFY(std::abs(end.lr[0] - 0.01 * schedule.factor(3)) < 1e-12);
    const auto after = schedule.at(3, 1);
    QVERIFY(!after.warmingUp);
    QCOMPARE(after.momentum, config.momentum);
}

void TestTrain::warmupHasAtLeast100Iterations() {
    hr::TrainConfig config;
    config.warmup_epochs = 3;
    QCOMPARE(hr::LrSchedule(config, 0.01, 0.1, 4).warmupIterations(), 100);
    config.warmup_epochs = 0;
    QCOMPARE(hr::LrSchedule(config, 0.01, 0.1, 4).warmupIterations(), -1);
    QVERIFY(!hr::LrSchedule(config, 0.01, 0.1, 4).at(0, 0).warmingUp);
}

void TestTrain::autoOptimizerRule() {
    hr::TrainConfig config;
    config.optimizer = "auto";
    const auto small = hr::resolveOptimizer(config, 3, 1000);
    QCOMPARE(QString::fromStdString(small.name), QString("AdamW"));
    QCOMPARE(small.lr, 0.001429); // round(0.01 / 7, 6)
    QCOMPARE(small.momentum, 0.9);
    QVERIFY(small.automatic);
    const auto large = hr::resolveOptimizer(config, 80, 20000);
    QCOMPARE(QString::fromStdString(large.name), QString("SGD"));
    QCOMPARE(large.lr, 0.01);
    config.optimizer = "adam";
    config.lr0 = 0.003;
    const auto adam = hr::resolveOptimizer(config, 80, 20000);
    QCOMPARE(QString::fromStdString(adam.name), QString("Adam"));
    QCOMPARE(adam.lr, 0.003);
    QVERIFY(!adam.automatic);
    // ceil(images / max(batch, nbs)) * epochs
    config.batch = 16;
    config.nbs = 64;
    config.epochs = 30;
    QCOMPARE(hr::plannedIterations(config, 256), std::int64_t(4 * 30));
    QCOMPARE(hr::plannedIterations(config, 257), std::int64_t(5 * 30));
}

void TestTrain::parameterGroups() {
    NormNet net;
    const hr::ParamGroups groups = hr::splitParameters(*net);
    QCOMPARE(groups.groups[0].size(), size_t(2)); // conv.weight, fc.weight
    QCOMPARE(groups.groups[1].size(), size_t(1)); // bn.weight
    QCOMPARE(groups.groups[2].size(), size_t(2)); // bn.bias, fc.bias
    QCOMPARE(groups.count(0), std::int64_t(8 * 3 * 9 + 2 * 8));
    hr::OptimizerChoice sgd;
    auto optimizer = hr::makeOptimizer(sgd, groups, 0.0005);
    QCOMPARE(optimizer->param_groups().size(), size_t(3));
    auto& pg0 = static_cast<torch::optim::SGDOptions&>(optimizer->param_groups()[0].options());
    auto& pg1 = static_cast<torch::optim::SGDOptions&>(optimizer->param_groups()[1].options());
    auto& pg2 = static_cast<torch::optim::SGDOptions&>(optimizer->param_groups()[2].options());
    QCOMPARE(pg0.weight_decay(), 0.0005);
    QCOMPARE(pg1.weight_decay(), 0.0);
    QCOMPARE(pg2.weight_decay(), 0.0);
    QVERIFY(pg0.nesterov());
    hr::OptimizerChoice adamw{"AdamW", 0.001, 0.9, false};
    auto second = hr::makeOptimizer(adamw, groups, 0.0005);
    auto& a0 = static_cast<torch::optim::AdamWOptions&>(second->param_groups()[0].options());
    auto& a2 = static_cast<torch::optim::AdamWOptions&>(second->param_groups()[2].options());
    QCOMPARE(std::get<0>(a0.betas()), 0.9);
    QCOMPARE(a0.weight_decay(), 0.0005);
    QCOMPARE(a2.weight_decay(), 0.0);
}

void TestTrain::weightDecayScaling() {
    hr::TrainConfig config;
    config.weight_decay = 0.0005;
    config.nbs = 64;
    config.batch = 16; // accumulate 4: 16 * 4 / 64 = 1
    QCOMPARE(hr::scaledWeightDecay(config), 0.0005);
    config.batch = 24; // accumulate round(2.67) = 3: 72 / 64
    QVERIFY(std::abs(hr::scaledWeightDecay(config) - 0.0005 * 72 / 64) < 1e-15);
    config.batch = 128; // accumulate 1: 128 / 64
    QVERIFY(std::abs(hr::scaledWeightDecay(config) - 0.001) < 1e-15);
}

void TestTrain::emaDecayAndAverage() {
    ToyNet model = makeToy(1);
    ToyNet shadow = makeToy(2);
    hr::ModelEma ema(shadow.ptr());
    ema.copyFrom(*model);
    QCOMPARE(maxDifference(*model, *shadow), 0.0);
    const double d1 = 0.9999 * (1.0 - std::exp(-1.0 / 2000.0));
    QVERIFY(std::abs(ema.nextDecay() - d1) < 1e-15);
    const torch::Tensor before = shadow->fc2->weight.clone();
    {
        torch::NoGradGuard noGrad;
        model->fc2->weight.add_(1.0);
    }
    ema.update(*model);
    QCOMPARE(ema.updates(), std::int64_t(1));
    // shadow = d * old + (1 - d) * (old + 1) = old + (1 - d)
    const double err = (shadow->fc2->weight - (before + (1.0 - d1))).abs().max().item<double>();
    QVERIFY2(err < 1e-6, qPrintable(QString::number(err)));
    ema.setUpdates(1000000);
    QVERIFY(std::abs(ema.nextDecay() - 0.9999) < 1e-9);
}

void TestTrain::lossScalerSkipsOverflowAndGrows() {
    hr::LossScaler scaler(true, 1024.0, 2.0, 0.5, 2);
    torch::Tensor w = torch::ones({3}, torch::requires_grad());
    scaler.scaleLoss((w * 2).sum()).backward();
    QCOMPARE(w.grad()[0].item<double>(), 2048.0);
    QVERIFY(scaler.unscale({w}));
    QCOMPARE(w.grad()[0].item<double>(), 2.0);
    scaler.update(true);
    QCOMPARE(scaler.scale(), 1024.0);
    scaler.update(true); // second clean step: grows
    QCOMPARE(scaler.scale(), 2048.0);
    w.mutable_grad().fill_(std::numeric_limits<float>::infinity());
    QVERIFY(!scaler.unscale({w}));
    scaler.update(false);
    QCOMPARE(scaler.scale(), 1024.0);
    hr::LossScaler off(false);
    QCOMPARE(off.scale(), 1.0);
    QVERIFY(off.unscale({w})); // disabled: no check, identity
}

void TestTrain::accumulationMatchesLargeBatch_data() {
    QTest::addColumn<QString>("optimizer");
    QTest::newRow("SGD") << "SGD";
    QTest::newRow("AdamW") << "AdamW";
}

void TestTrain::accumulationMatchesLargeBatch() {
    QFETCH(QString, optimizer);
    torch::manual_seed(7);
    const torch::Tensor x = torch::randn({16, 3, 6, 6});
    const torch::Tensor y = torch::randn({16, 2});

    hr::TrainConfig config;
    config.nbs = 16;
    config.amp = false;
    config.optimizer = optimizer.toStdString();
    config.lr0 = 0.01;
    const hr::OptimizerChoice choice = hr::resolveOptimizer(config, 2, 0);

    // batch 16, accumulate 1
    ToyNet big = makeToy(3);
    config.batch = 16;
    hr::WeightUpdater bigUpdater(config, big.ptr(), choice, makeToy(0).ptr(), torch::kCPU);
    QCOMPARE(bigUpdater.accumulate(), 1);
    // batch 4, accumulate 4
    ToyNet small = makeToy(3);
    config.batch = 4;
    hr::WeightUpdater smallUpdater(config, small.ptr(), choice, makeToy(0).ptr(), torch::kCPU);
    QCOMPARE(smallUpdater.accumulate(), 4);
    QCOMPARE(smallUpdater.weightDecay(), bigUpdater.weightDecay());

    for (int round = 0; round < 3; ++round) {
        bigUpdater.backward(toyLoss(big, x, y));
        QVERIFY(bigUpdater.due());
        QVERIFY(bigUpdater.step());
        for (int part = 0; part < 4; ++part) {
            QVERIFY(!smallUpdater.due());
            smallUpdater.backward(
                toyLoss(small, x.narrow(0, part * 4, 4), y.narrow(0, part * 4, 4)));
        }
        QVERIFY(smallUpdater.due());
        QVERIFY(smallUpdater.step());
    }
    const double diff = maxDifference(*big, *small);
    QVERIFY2(diff < 1e-5, qPrintable(QString("max weight difference %1").arg(diff)));
    QVERIFY(maxDifference(*big, *makeToy(3)) > 1e-4); // the weights did move
    QCOMPARE(bigUpdater.ema()->updates(), std::int64_t(3));
    const double emaDiff = maxDifference(bigUpdater.ema()->shadow(), smallUpdater.ema()->shadow());
    QVERIFY2(emaDiff < 1e-5, qPrintable(QString::number(emaDiff)));
}

void TestTrain::updaterStateRoundTrip() {
    torch::manual_seed(11);
    const torch::Tensor x = torch::randn({8, 3, 6, 6});
    const torch::Tensor y = torch::randn({8, 2});
    hr::TrainConfig config;
    config.batch = 8;
    config.nbs = 8;
    config.optimizer = "AdamW";
    const hr::OptimizerChoice choice = hr::resolveOptimizer(config, 2, 0);

    ToyNet straight = makeToy(5);
    hr::WeightUpdater a(config, straight.ptr(), choice, makeToy(0).ptr(), torch::kCPU);
    for (int i = 0; i < 4; ++i) {
        a.backward(toyLoss(straight, x, y));
        a.step();
    }

    ToyNet first = makeToy(5);
    hr::WeightUpdater b(config, first.ptr(), choice, makeToy(0).ptr(), torch::kCPU);
    for (int i = 0; i < 2; ++i) {
        b.backward(toyLoss(first, x, y));
        b.step();
    }
    std::stringstream buffer;
    {
        torch::serialize::OutputArchive archive;
        b.save(archive);
        torch::serialize::OutputArchive weights;
        first->save(weights);
        archive.write("model", weights);
        archive.save_to(buffer);
    }
    ToyNet resumed = makeToy(9);
    hr::WeightUpdater c(config, resumed.ptr(), choice, makeToy(0).ptr(), torch::kCPU);
    {
        torch::serialize::InputArchive archive;
        archive.load_from(buffer);
        torch::serialize::InputArchive weights;
        archive.read("model", weights);
        resumed->load(weights);
        c.load(archive);
    }
    QCOMPARE(c.steps(), std::int64_t(2));
    for (int i = 0; i < 2; ++i) {
        c.backward(toyLoss(resumed, x, y));
        c.step();
    }
    QCOMPARE(maxDifference(*straight, *resumed), 0.0);
    QCOMPARE(maxDifference(a.ema()->shadow(), c.ema()->shadow()), 0.0);
}

void TestTrain::switchingOptimizerKeepsLearningRates() {
    hr::TrainConfig config;
    config.optimizer = "AdamW";
    config.batch = 8;
    ToyNet net = makeToy(1);
    hr::WeightUpdater updater(config, net.ptr(), hr::resolveOptimizer(config, 2, 0), nullptr,
                              torch::kCPU);
    updater.setLearningRates({0.004, 0.003, 0.002});
    torch::manual_seed(2);
    updater.backward(toyLoss(net, torch::randn({8, 3, 6, 6}), torch::randn({8, 2})));
    QCOMPARE(updater.pending(), 1);
    QVERIFY(net->fc1->weight.grad().defined());
    config.optimizer = "SGD";
    config.batch = 4; // new batch: accumulate round(64 / 4) = 16, partial group dropped
    updater.applyConfig(config, hr::resolveOptimizer(config, 2, 0));
    QCOMPARE(QString::fromStdString(updater.choice().name), QString("SGD"));
    QVERIFY(dynamic_cast<torch::optim::SGD*>(&updater.optimizer()) != nullptr);
    QCOMPARE(updater.learningRates()[0], 0.004);
    QCOMPARE(updater.learningRates()[2], 0.002);
    QCOMPARE(updater.accumulate(), 16);
    QCOMPARE(updater.pending(), 0);
    QVERIFY(!net->fc1->weight.grad().defined());
}

namespace {
/// One iteration of a schedule recorded from Ultralytics' own trainer
/// (tools/reference/learn/schedule_dump.py): its param groups after the iteration, whether it
/// stepped the optimizer, and the EMA's update count and last decay.
struct ReferenceIteration {
    int epoch = 0, batch = 0;
    double biasLr = 0, weightLr = 0, normLr = 0, momentum = 0, weightDecay = 0;
    bool stepped = false;
    std::int64_t emaUpdates = 0;
    double emaDecay = 0;
};

struct ReferenceSchedule {
    int images = 0, nc = 0, batch = 0, epochs = 0;
    std::string optimizer;
    std::vector<ReferenceIteration> rows;
};

ReferenceSchedule readReferenceSchedule(const QString& path) {
    ReferenceSchedule ref;
    std::ifstream in(path.toStdString());
    std::string line;
    std::getline(in, line); // # ultralytics V; images=I nc=C batch=B epochs=E optimizer=O -> ...
    const QRegularExpression header("images=(\\d+) nc=(\\d+) batch=(\\d+) epochs=(\\d+) "
                                    "optimizer=(\\w+)");
    const QRegularExpressionMatch m = header.match(QString::fromStdString(line));
    if (!m.hasMatch())
        return ref;
    ref.images = m.captured(1).toInt();
    ref.nc = m.captured(2).toInt();
    ref.batch = m.captured(3).toInt();
    ref.epochs = m.captured(4).toInt();
    ref.optimizer = m.captured(5).toStdString();
    std::getline(in, line); // column names
    while (std::getline(in, line)) {
        std::replace(line.begin(), line.end(), ',', ' ');
        std::istringstream fields(line);
        ReferenceIteration r;
        int stepped = 0;
        fields >> r.epoch >> r.batch >> r.biasLr >> r.weightLr >> r.normLr >> r.momentum >>
            r.weightDecay >> stepped >> r.emaUpdates >> r.emaDecay;
        r.stepped = stepped != 0;
        if (fields)
            ref.rows.push_back(r);
    }
    return ref;
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 + 1e-7 * std::abs(b);
}
} // namespace

void TestTrain::scheduleMatchesUltralytics_data() {
    QTest::addColumn<QString>("file");
    // optimizer auto -> AdamW lr 0.001429 (3 classes, 120 planned iterations), warmup 100
    // iterations over 6.25 epochs, close to the built-in 3-class set's run.
    QTest::newRow("auto, 256 images, batch 16") << "schedule_auto_256_b16_e30.csv";
    // SGD with bias lr 0.1 and momentum 0.8 -> 0.937 warmups, accumulate round(64 / 24) = 3,
    // weight decay scaled by 72 / 64, a last batch of 8 images.
    QTest::newRow("SGD, 200 images, batch 24") << "schedule_sgd_200_b24_e12.csv";
}

/// Drives LrSchedule, WeightUpdater and ModelEma the way the trainer does and compares every
/// iteration with the reference trainer's record: group lrs, momentum, weight decay, which
/// iterations step the optimizer, and the EMA's update count and decay.
void TestTrain::scheduleMatchesUltralytics() {
    QFETCH(QString, file);
    const ReferenceSchedule ref =
        readReferenceSchedule(QString(HEADROOM_TEST_DATA) + "/reference/" + file);
    QVERIFY2(!ref.rows.empty(), qPrintable("no rows read from " + file));

    hr::TrainConfig config;
    config.optimizer = ref.optimizer;
    config.batch = ref.batch;
    config.epochs = ref.epochs;
    config.amp = false;
    const hr::OptimizerChoice choice =
        hr::resolveOptimizer(config, ref.nc, hr::plannedIterations(config, ref.images));
    const int batchesPerEpoch = (ref.images + ref.batch - 1) / ref.batch;
    QCOMPARE(static_cast<int>(ref.rows.size()), batchesPerEpoch * ref.epochs);
    hr::LrSchedule schedule(config, choice.lr, choice.warmupBiasLr, batchesPerEpoch);

    ToyNet net = makeToy(1);
    hr::WeightUpdater updater(config, net.ptr(), choice, makeToy(2).ptr(), torch::kCPU);
    torch::manual_seed(3);
    const torch::Tensor x = torch::randn({2, 3, 6, 6}), y = torch::randn({2, 2});
    double lastDecay = 0;
    for (const ReferenceIteration& r : ref.rows) {
        const QString where = QString("epoch %1 batch %2").arg(r.epoch).arg(r.batch);
        const hr::LrSchedule::Point point = schedule.at(r.epoch, r.batch);
        updater.setLearningRates(point.lr);
        if (choice.name == "SGD")
            updater.setMomentum(point.momentum);
        updater.setAccumulate(point.accumulate);
        updater.backward(toyLoss(net, x, y));
        const bool stepped = updater.due();
        if (stepped) {
            lastDecay = updater.ema()->nextDecay();
            QVERIFY(updater.step());
        }
        const std::array<double, 3> lr = updater.learningRates();
        QVERIFY2(near(lr[2], r.biasLr), qPrintable(where + QString(": bias lr %1, reference %2")
                                                               .arg(lr[2], 0, 'g', 10)
                                                               .arg(r.biasLr, 0, 'g', 10)));
        QVERIFY2(near(lr[0], r.weightLr), qPrintable(where + QString(": weight lr %1, reference %2")
                                                                 .arg(lr[0], 0, 'g', 10)
                                                                 .arg(r.weightLr, 0, 'g', 10)));
        QVERIFY2(near(lr[1], r.normLr), qPrintable(where + ": norm lr"));
        QVERIFY2(
            near(updater.momentum(), r.momentum),
            qPrintable(
                where +
                QString(": momentum %1, reference %2").arg(updater.momentum()).arg(r.momentum)));
        QVERIFY2(near(updater.weightDecay(), r.weightDecay), qPrintable(where + ": weight decay"));
        QVERIFY2(stepped == r.stepped, qPrintable(where + (stepped ? ": stepped, the reference "
                                                                     "did not"
                                                                   : ": the reference stepped")));
        QCOMPARE(updater.ema()->updates(), r.emaUpdates);
        QVERIFY2(near(lastDecay, r.emaDecay), qPrintable(where + ": EMA decay"));
    }
}

QTEST_APPLESS_MAIN(TestTrain)
void TestTrain::eventLinesKeepTheirFields() {
    // events.jsonl is a file format: fields several events share (the loss parts, an OOM's
    // bytes, a code and its values) are written by one helper each, in the same place.
    hr::EpochEnd e;
    e.epoch = 2;
    e.epochs = 10;
    e.boxLoss = 1.5, e.clsLoss = 2.25, e.dflLoss = 0.75;
    e.valBoxLoss = 1.25, e.valClsLoss = 2, e.valDflLoss = 0.5;
    e.precision = 0.5, e.recall = 0.25, e.map50 = 0.125, e.map = 0.0625;
    e.lr0 = 0.01, e.lr1 = 0.02, e.lr2 = 0.03;
    e.epochSeconds = 12.5;
    e.imagesPerSecond = 40;
    e.trainPeakBytes = 1000;
    e.valPeakBytes = 2000;
    e.best = true;
    QCOMPARE(hr::eventToJson(e, 1700000000.25),
             std::string(R"({"type":"epoch_end","time":1700000000.250,"epoch":2,"epochs":10,)"
                         R"("box_loss":1.5,"cls_loss":2.25,"dfl_loss":0.75,"val_box_loss":1.25,)"
                         R"("val_cls_loss":2,"val_dfl_loss":0.5,"precision":0.5,"recall":0.25,)"
                         R"("map50":0.125,"map":0.0625,"lr0":0.01,"lr1":0.02,"lr2":0.03,)"
                         R"("epoch_seconds":12.5,"images_per_s":40,"peak_bytes":2000,)"
                         R"("train_peak_bytes":1000,"val_peak_bytes":2000,"best":true})"));

    hr::OomReport r;
    r.phase = hr::Phase::Backward;
    r.requestedBytes = 1, r.allocatedBytes = 2, r.budgetBytes = 3, r.peakBytes = 4;
    r.seconds = 5.5;
    r.epoch = 1;
    r.batchIndex = 7;
    r.config.batch = 8;
    r.config.imgsz = 320;
    r.rawMessage = "no";
    QCOMPARE(hr::eventToJson(hr::OomOccurred{r}, 2),
             std::string(R"({"type":"oom","time":2.000,"phase":"backward","seconds":5.5,)"
                         R"("epoch":1,"batch":7,"requested_bytes":1,"allocated_bytes":2,)"
                         R"("budget_bytes":3,"peak_bytes":4,"host_memory":false,)"
                         R"("batch_size":8,"imgsz":320,"message":"no"})"));

    hr::LogMessage plain;
    plain.text = "hi";
    QCOMPARE(hr::eventToJson(plain, 3),
             std::string(R"({"type":"log","time":3.000,"level":"info","text":"hi"})"));
    hr::LogMessage coded;
    coded.level = hr::LogMessage::Level::Warning;
    coded.text = "x";
    coded.code = "scanning";
    coded.args = {"train", "1", "2"};
    QCOMPARE(hr::eventToJson(coded, 3),
             std::string(R"({"type":"log","time":3.000,"level":"warning","text":"x",)"
                         R"("code":"scanning","args":["train","1","2"]})"));
}

#include "test_train.moc"
