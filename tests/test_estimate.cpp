// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/synthetic_dataset.h"
#include "estimate/auto_fit.h"
#include "estimate/memory_estimator.h"
#include "memory/cpu_memory_tracker.h"
#include "train/compute_threads.h"

#include <torch/torch.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <thread>

#include <dlfcn.h>

class TestEstimate : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void predictionMatchesMeasurement_data();
    void predictionMatchesMeasurement();
    void calibrationIsCachedAndLinear();
    void predictionIsPerRank();
    void estimateIgnoresMemoryHeldElsewhere();
    void fitRespectsBudget();
    void fitExplainsImpossibleBudget();
    void autoBatchLeavesExplicitBatch();
    void computeThreadsReachOpenBlas();
    void computeThreadsDefaultRule();

private:
    hr::TrainConfig baseConfig() const;
    QTemporaryDir m_dir;
    std::string m_data;
};

void TestEstimate::initTestCase() {
    at::set_num_threads(2);
    hr::CpuMemoryTracker::instance().install();
    QVERIFY(m_dir.isValid());
    hr::SyntheticOptions options;
    options.train = 8;
    options.val = 4;
    options.imgsz = 128;
    std::string error;
    QVERIFY2(hr::makeSyntheticDataset(m_dir.path().toStdString(), options, &error), error.c_str());
    m_data = m_dir.filePath("data.yaml").toStdString();
}

hr::TrainConfig TestEstimate::baseConfig() const {
    hr::TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = m_data;
    c.device = "cpu";
    c.imgsz = 128;
    c.batch = 4;
    c.amp = false;
    c.epochs = 1;
    return c;
}

void TestEstimate::predictionMatchesMeasurement_data() {
    QTest::addColumn<int>("imgsz");
    QTest::addColumn<int>("batch");
    QTest::addColumn<bool>("amp");
    QTest::addColumn<bool>("checkpointing");
    QTest::newRow("128 b4 fp32") << 128 << 4 << false << false;
    QTest::newRow("160 b8 amp") << 160 << 8 << true << false;
    QTest::newRow("128 b6 ckpt") << 128 << 6 << false << true;
    QTest::newRow("160 b16 amp ckpt") << 160 << 16 << true << true;
}

void TestEstimate::predictionMatchesMeasurement() {
    QFETCH(int, imgsz);
    QFETCH(int, batch);
    QFETCH(bool, amp);
    QFETCH(bool, checkpointing);
    hr::TrainConfig c = baseConfig();
    c.imgsz = imgsz;
    c.batch = batch;
    c.amp = amp;
    c.checkpointing = checkpointing ? hr::Checkpointing::All : hr::Checkpointing::None;
    std::string error;
    const hr::MemoryEstimate e = hr::estimateMemory(c, &error);
    QVERIFY2(e.trainPeak > 0, error.c_str());
    const auto measured = hr::measurePeaks(c, &error);
    QVERIFY2(measured.has_value(), error.c_str());
    // The prediction a budget is compared with (trainPeak, valPeak) against real steps.
    const double trainError = double(e.trainPeak) / double(measured->stepPeak) - 1.0;
    const double valError = double(e.valPeak) / double(measured->valPeak) - 1.0;
    qInfo("train predicted %lld measured %lld (%+.1f%%); val predicted %lld measured %lld "
          "(%+.1f%%)",
          static_cast<long long>(e.trainPeak), static_cast<long long>(measured->stepPeak),
          trainError * 100.0, static_cast<long long>(e.valPeak),
          static_cast<long long>(measured->valPeak), valError * 100.0);
    QVERIFY2(std::fabs(trainError) <= 0.10, qPrintable(QString::number(trainError * 100) + "%"));
    QVERIFY2(std::fabs(valError) <= 0.10, qPrintable(QString::number(valError * 100) + "%"));
    // The breakdown adds up to the training peak and names the resident parts.
    const hr::MemoryBreakdown& b = e.breakdown;
    QVERIFY(b.weights > 0); // gradients are freed between steps (zero_grad to none)
    QCOMPARE(b.resident() + b.activations + b.batchData + b.other, e.trainPeak);
    // Loader batches are host memory (docs/decisions.md): the batch counts once, as the copy
    // the step moves to the device, and no queued batch is added on CPU.
    QCOMPARE(b.batchData, std::int64_t(batch) * 3 * imgsz * imgsz); // 8-bit, as the loader's
}

void TestEstimate::calibrationIsCachedAndLinear() {
    hr::TrainConfig c = baseConfig();
    c.val_batch = 8; // validation stays in the range of the first probes
    std::string error;
    const hr::MemoryEstimate four = hr::estimateMemory(c, &error); // calibrated above
    QVERIFY2(four.trainPeak > 0, error.c_str());
    QElapsedTimer timer;
    timer.start();
    c.batch = 12;
    const hr::MemoryEstimate twelve = hr::estimateMemory(c, &error);
    QVERIFY(timer.elapsed() < 1000); // a cached calibration: no probe steps
    QVERIFY(four.perImageTrain > 0);
    // The step's peak is the largest of one line per part of the step (forward, loss,
    // backward, optimizer): convex in the batch, so 8 more images add at least 8 x the slope
    // of the part that peaks at batch 4 and at most 8 x that of the part peaking at 12.
    QVERIFY(twelve.trainPeak - four.trainPeak >= 8 * four.perImageTrain);
    QVERIFY(twelve.trainPeak - four.trainPeak <= 8 * twelve.perImageTrain);
    const auto predicted = hr::predictTrainPeak(c);
    QVERIFY(predicted.has_value());
    QCOMPARE(*predicted, twelve.trainPeak);

    // The same probe steps were timed: a cached time per image, from at least 3 steps after
    // warm-up at each probe batch; none at an image size no probe step ran at.
    const auto time = hr::predictStepTimeWithoutProbing(c);
    QVERIFY(time.has_value());
    QVERIFY(time->timedSteps >= 3);
    QVERIFY(time->stepSeconds > 0 && time->secondsPerImage > 0);
    QCOMPARE(time->accumulate, 5); // round(64 / 12)
    QVERIFY(std::abs(time->secondsPerImage -
                     (time->stepSeconds + time->optimizerSeconds / 5) / 12.0) < 1e-12);
    hr::TrainConfig other = c;
    other.imgsz = 96;
    QVERIFY(hr::predictTrainPeakWithoutProbing(other).has_value()); // memory scales,
    QVERIFY(!hr::predictStepTimeWithoutProbing(other).has_value()); // time does not
    // Real steps at the config's batch are timed the same way when asked.
    c.batch = 4;
    const auto measured = hr::measurePeaks(c, &error, 2);
    QVERIFY2(measured.has_value(), error.c_str());
    QCOMPARE(measured->time.timedSteps, 4);
    QVERIFY(measured->time.secondsPerImage > 0);
    QCOMPARE(hr::measurePeaks(c, &error)->time.timedSteps, 0);
    // Two configs timed in turns (bench fixes): one (first, second) per round.
    hr::TrainConfig recompute = c;
    recompute.checkpointing = hr::Checkpointing::All;
    const auto rounds = hr::timeStepsInTurns(c, recompute, 3, &error);
    QVERIFY2(rounds.has_value(), error.c_str());
    QCOMPARE(int(rounds->size()), 3);
    for (const auto& [plain, checkpointed] : *rounds)
        QVERIFY(plain > 0 && checkpointed > 0);
    // The advisor's time factor: probe steps of both timed in turns, cached per pair; only the
    // cache answers without probing.
    QVERIFY(!hr::predictTimeFactor(c, recompute, false, &error).has_value());
    QVERIFY(!error.empty());
    const auto factor = hr::predictTimeFactor(c, recompute, true, &error);
    QVERIFY2(factor.has_value(), error.c_str());
    QVERIFY(factor->rounds >= hr::kTimeFactorRounds && factor->rounds <= hr::kTimeFactorMaxRounds);
    QVERIFY(factor->lowest <= factor->factor && factor->factor <= factor->highest);
    QVERIFY(factor->beforeSeconds > 0 && factor->afterSeconds > 0);
    timer.restart();
    const auto cachedFactor = hr::predictTimeFactor(c, recompute, false, &error);
    QVERIFY(cachedFactor.has_value() && timer.elapsed() < 1000);
    QCOMPARE(cachedFactor->factor, factor->factor);
    // A batch above the probe steps': the turns run at the larger probe batch and the config's
    // own calibration line carries the factor on to its batch.
    hr::TrainConfig twelveImages = c;
    twelveImages.batch = 12;
    const auto larger = hr::predictTimeFactor(c, twelveImages, true, &error);
    QVERIFY2(larger.has_value(), error.c_str());
    QVERIFY(larger->factor > 0 && larger->afterSeconds > 0);
    hr::TrainConfig broken = c;
    broken.model = "no-such-model.yaml";
    QVERIFY(!hr::timeStepsInTurns(c, broken, 1, &error).has_value());
    QVERIFY(!hr::predictTimeFactor(c, broken, true, &error).has_value());
    QVERIFY2(!error.empty() && error.find("frame #") == std::string::npos, error.c_str());
    QVERIFY2(!error.empty() && error.find("frame #") == std::string::npos, error.c_str());
}

void TestEstimate::computeThreadsReachOpenBlas() {
    // Where LibTorch's matrix products run in OpenBLAS, its pool follows the thread setting:
    // a second pool thread spinning beside "threads: 1" made CPU-time step timings depend on
    // the machine's load.
    using GetThreads = int (*)();
    auto* get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    if (!get)
        QSKIP("this LibTorch does not use OpenBLAS");
    hr::setComputeThreads(1);
    QCOMPARE(get(), 1);
    QCOMPARE(at::get_num_threads(), 1);
    hr::setComputeThreads(2);
    QCOMPARE(get(), 2);
    hr::setComputeThreads(0); // at least one
    QCOMPARE(get(), 1);
    hr::setComputeThreads(2); // as initTestCase left it
}

void TestEstimate::computeThreadsDefaultRule() {
    // A threads setting above 0 is taken as it is; 0 shares the machine's cores among the
    // processes on it, never fewer than one each.
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    QCOMPARE(hr::computeThreadsFor(3), 3);
    QCOMPARE(hr::computeThreadsFor(3, 4), 3);
    QCOMPARE(hr::computeThreadsFor(0), cores);
    QCOMPARE(hr::computeThreadsFor(0, 2), std::max(1, cores / 2));
    QCOMPARE(hr::computeThreadsFor(0, 2 * cores), 1);
    QCOMPARE(hr::useComputeThreads(1), 1);
    QCOMPARE(at::get_num_threads(), 1);
    QCOMPARE(hr::useComputeThreads(2), 2); // as initTestCase left it
    QCOMPARE(at::get_num_threads(), 2);
}

void TestEstimate::predictionIsPerRank() {
    // Two ranks with a total batch of 8 step on 4 images each: the step of one process at
    // batch 4 plus one copy of the gradients (the all-reduce's buckets); rank 0 validates at
    // the whole validation batch (16).
    hr::TrainConfig one = baseConfig();
    one.val_batch = 16;
    std::string error;
    const hr::MemoryEstimate single = hr::estimateMemory(one, &error);
    QVERIFY2(single.trainPeak > 0, error.c_str());
    hr::TrainConfig two = one;
    two.batch = 8;
    two.nproc = 2;
    const hr::MemoryEstimate rank = hr::estimateMemory(two, &error);
    QVERIFY2(rank.trainPeak > 0, error.c_str());
    QCOMPARE(rank.ranks, 2);
    QCOMPARE(rank.rankBatch, 4);
    QVERIFY(single.breakdown.gradients > 0); // accumulation (nbs 64) keeps them
    QCOMPARE(rank.trainPeak, single.trainPeak + single.breakdown.gradients);
    QCOMPARE(rank.valPeak, single.valPeak);
    QVERIFY(rank.note.find("per rank of 2") != std::string::npos);
    // ZeRO-1: the most loaded rank keeps about half of AdamW's state, and nothing else moves.
    hr::TrainConfig sharded = two;
    sharded.zero = 1;
    const hr::MemoryEstimate zero = hr::estimateMemory(sharded, &error);
    QVERIFY2(zero.trainPeak > 0, error.c_str());
    const std::int64_t full = rank.breakdown.optimizerState;
    const std::int64_t kept = zero.breakdown.optimizerState;
    QVERIFY(full > 0);
    QVERIFY2(kept >= full / 2 && kept < full * 6 / 10,
             qPrintable(QString("%1 of %2").arg(kept).arg(full)));
    QCOMPARE(rank.trainPeak - zero.trainPeak, full - kept);
    QCOMPARE(rank.valPeak - zero.valPeak, full - kept);
    // The advisor's predictor is the larger of training and validation.
    const auto peak = hr::predictPeak(sharded);
    QVERIFY(peak.has_value());
    QCOMPARE(*peak, std::max(zero.trainPeak, zero.valPeak));
}

void TestEstimate::estimateIgnoresMemoryHeldElsewhere() {
    // A run that asks from inside an OOM recovery still holds its weights: the prediction for
    // a config is the same with 48 MiB held elsewhere in the process.
    hr::TrainConfig c = baseConfig();
    c.imgsz = 96;
    std::string error;
    hr::clearEstimateCache();
    const hr::MemoryEstimate alone = hr::estimateMemory(c, &error);
    QVERIFY2(alone.trainPeak > 0, error.c_str());
    const torch::Tensor held = torch::ones({48 << 18}); // 48 MiB of floats
    hr::clearEstimateCache();
    const hr::MemoryEstimate shared = hr::estimateMemory(c, &error);
    QVERIFY2(shared.trainPeak > 0, error.c_str());
    QVERIFY(held.numel() == (48 << 18));
    const double drift = std::abs(double(shared.trainPeak - alone.trainPeak));
    QVERIFY2(
        drift < 0.05 * double(alone.trainPeak),
        qPrintable(
            QString("alone %1, with 48 MiB held %2").arg(alone.trainPeak).arg(shared.trainPeak)));
}

void TestEstimate::fitRespectsBudget() {
    hr::TrainConfig c = baseConfig();
    c.batch = -1;
    c.nbs = 64;
    std::string error;
    hr::TrainConfig six = c;
    six.batch = 6;
    const hr::MemoryEstimate atSix = hr::estimateMemory(six, &error);
    QVERIFY2(atSix.trainPeak > 0, error.c_str());
    // A budget where batch 6 just fits at 90%.
    const std::int64_t budget =
        std::int64_t(double(std::max(atSix.trainPeak, atSix.valPeak)) / 0.9) + 1024;
    const hr::FitResult fit = hr::fitToBudget(c, budget, &error);
    QVERIFY2(fit.fits, (fit.summary + error).c_str());
    QVERIFY(fit.config.batch >= 6);
    QVERIFY(fit.config.batch < 12);
    QCOMPARE(fit.accumulate, std::max(int(std::lround(64.0 / fit.config.batch)), 1));
    QVERIFY(std::max(fit.trainPeak, fit.valPeak) <= fit.target);
    QVERIFY(!fit.reasons.empty());
    // The decisions are codes and values; the English reasons and summary are their wording.
    QVERIFY(fit.outcome == hr::FitOutcome::Fits);
    QCOMPARE(fit.decisions.size(), fit.reasons.size());
    for (std::size_t i = 0; i < fit.decisions.size(); ++i)
        QCOMPARE(hr::fitDecisionText(fit.decisions[i], fit), fit.reasons[i]);
    QVERIFY(fit.decisions.back().kind == hr::FitDecision::Kind::LargestBatch ||
            fit.decisions.back().kind == hr::FitDecision::Kind::Accumulate);
    QCOMPARE(hr::fitSummaryText(fit), fit.summary);
    // Real steps at the chosen settings stay under the budget.
    const auto measured = hr::measurePeaks(fit.config, &error);
    QVERIFY2(measured.has_value(), error.c_str());
    QVERIFY(measured->stepPeak <= budget);
    QVERIFY(measured->valPeak <= budget);
    // The next larger batch would not have fitted.
    hr::TrainConfig bigger = fit.config;
    bigger.batch += 1;
    const hr::MemoryEstimate over = hr::estimateMemory(bigger, &error);
    QVERIFY(std::max(over.trainPeak, over.valPeak) > fit.target);
}

void TestEstimate::fitExplainsImpossibleBudget() {
    hr::TrainConfig c = baseConfig();
    std::string error;
    const std::int64_t budget = 4 * 1024 * 1024; // below the weights alone
    const hr::FitResult fit = hr::fitToBudget(c, budget, &error);
    QVERIFY(!fit.fits);
    QVERIFY2(!fit.summary.empty(), error.c_str());
    QVERIFY(fit.minimumBudget > budget);
    QVERIFY2(fit.summary.find("smallest budget that would work") != std::string::npos,
             fit.summary.c_str());
    QVERIFY2(fit.summary.find(". ") == std::string::npos, fit.summary.c_str()); // one sentence
    QVERIFY(fit.outcome == hr::FitOutcome::ResidentFloor);
    QCOMPARE(fit.decisions.size(), std::size_t(1));
    QVERIFY(fit.decisions[0].kind == hr::FitDecision::Kind::ResidentFloor);
    QCOMPARE(fit.decisions[0].floor.total, fit.floor.total);
    QVERIFY(fit.smallestPeak > 0);
    // Its minimum really works: fitting to it succeeds at batch 1.
    const hr::FitResult again = hr::fitToBudget(c, fit.minimumBudget + 1024, &error);
    QVERIFY2(again.fits, again.summary.c_str());
}

void TestEstimate::autoBatchLeavesExplicitBatch() {
    hr::TrainConfig c = baseConfig();
    std::string error;
    const hr::FitResult fit = hr::resolveAutoBatch(c, 1LL << 30, &error);
    QVERIFY(fit.fits);
    QCOMPARE(fit.config.batch, 4);
    c.batch = -1;
    c.memory_budget = 1LL << 30;
    const hr::FitResult automatic = hr::resolveAutoBatch(c, 0, &error);
    QVERIFY2(automatic.fits, (automatic.summary + error).c_str());
    QVERIFY(automatic.config.batch >= 1);
    QVERIFY(std::max(automatic.trainPeak, automatic.valPeak) <= automatic.target);
}

QTEST_APPLESS_MAIN(TestEstimate)
#include "test_estimate.moc"
