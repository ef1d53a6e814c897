// SPDX-License-Identifier: GPL-3.0-or-later
// The advisor with a fake, analytic PeakPredictor: ranking, fitting, combinations, phases,
// host memory, descriptions, JSON and the OOM policies. No LibTorch, runs in milliseconds.
#include "advisor/fix_advisor.h"
#include "advisor/fix_cost_model.h"
#include "advisor/oom_diagnosis.h"
#include "advisor/oom_policy.h"
#include "config/train_rules.h"
#include "util/bytes.h"
#include "util/speed_checks.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>

namespace {

constexpr std::int64_t MiB = 1024 * 1024;

/// A memory model with round numbers, in MiB: weights W (x0.3 for scale n), gradients W (half
/// when the backbone is frozen), optimizer state 2 x gradients for Adam/AdamW and 1 x for SGD
/// (0 when offloaded), EMA W; training activations 60 per image at 640 px, validation 20 per
/// image; AMP keeps 55%, checkpointing keeps 60% (backbone) or 30% (all).
struct FakeModel {
    double weightsMiB = 100.0;
    int calls = 0;

    std::int64_t peak(const hr::TrainConfig& c) {
        ++calls;
        const bool small = c.model.find("yolov8n") != std::string::npos || c.model_scale == "n";
        const double w = weightsMiB * (small ? 0.3 : 1.0);
        const double grads = c.freeze.empty() ? w : w * 0.5;
        const bool sgd = c.optimizer == "SGD";
        const double state = c.optimizer_offload ? 0.0 : grads * (sgd ? 1.0 : 2.0);
        const double px = (c.imgsz / 640.0) * (c.imgsz / 640.0);
        const double amp = c.amp ? 0.55 : 1.0;
        const double ckpt = c.checkpointing == hr::Checkpointing::All        ? 0.3
                            : c.checkpointing == hr::Checkpointing::Backbone ? 0.6
                                                                             : 1.0;
        const double perImage = (small ? 0.3 : 1.0) * px * amp;
        const double train = w + grads + state + w + 60.0 * perImage * ckpt * c.batch;
        const int valBatch = c.val_batch > 0 ? c.val_batch : 2 * c.batch;
        const double val = w + w + 20.0 * perImage * valBatch;
        return static_cast<std::int64_t>(std::max(train, val) * MiB);
    }
    hr::PeakPredictor predictor() {
        return [this](const hr::TrainConfig& c) -> std::optional<std::int64_t> { return peak(c); };
    }
};

hr::TrainConfig baseConfig() {
    hr::TrainConfig c;
    // No such file: the advisor finds advisor/yolov8.yaml at scale s, as Ultralytics does.
    c.model = HEADROOM_TEST_DATA "/advisor/yolov8s.yaml";
    c.batch = 16;
    c.imgsz = 640;
    c.amp = false;
    c.optimizer = "AdamW";
    c.device = "cpu";
    return c;
}

/// A report consistent with the fake model: the failed step needed exactly what it predicts.
hr::OomReport reportFor(FakeModel& model, hr::Phase phase, std::int64_t budget,
                        const hr::TrainConfig& config = baseConfig()) {
    hr::OomReport r;
    r.phase = phase;
    r.config = config;
    r.config.memory_budget = budget;
    r.budgetBytes = budget;
    r.device = "cpu";
    r.epoch = 2;
    r.batchIndex = 11;
    const std::int64_t need = model.peak(r.config);
    r.requestedBytes = 64 * MiB;
    r.allocatedBytes = need - r.requestedBytes;
    r.peakBytes = r.allocatedBytes;
    r.breakdown.weights = 100 * MiB;
    r.breakdown.gradients = 100 * MiB;
    r.breakdown.optimizerState = 200 * MiB;
    r.breakdown.ema = 100 * MiB;
    r.breakdown.activations = need - 500 * MiB;
    r.breakdown.total = need;
    model.calls = 0;
    return r;
}

QStringList ids(const std::vector<hr::FixSuggestion>& fixes) {
    QStringList out;
    for (const auto& f : fixes)
        out << QString::fromStdString(f.id);
    return out;
}

std::string valueOf(const hr::FixSuggestion& f, const std::string& key) {
    for (const auto& [k, v] : f.changes)
        if (k == key)
            return v;
    return {};
}

} // namespace

class TestAdvisor : public QObject {
    Q_OBJECT
private slots:
    void rankingOrder();
    void onlyFittingFixesArePredictedAndReturned();
    void combinationsWhenNoSingleFits();
    void validationOomSuggestsValidationBatch();
    void hostOomGivesOnlyHostFixes();
    void distributedWhenSeveralDevices();
    void chunkedAssignmentForCrowdedLossOom();
    void scalingPredictorPerRank();
    void nothingFitsGivesNoFixes();
    void smallestBatchIsTriedWhenPredictionsRunOut();
    void cpuHostOomInAStepGetsDeviceFixes();
    void underestimatedPredictionsAreScaled();
    void scalingPredictorFollowsBatchAndImageSize();
    void describeMentionsPhaseBatchImageAndSizes();
    void describeValidationLossAndHost();
    void adviceJsonParses();
    void autoPolicyAppliesTopFix();
    void stopAndAskPolicies();
    void autoNeverRestarts();
    void progressStreamsTheRankedList();
    void progressCanEndTheSearch();
    void costModelNumbers();
    void everyFigureNamesItsSource();
    void measuredSpeedReplacesTheModel();
    void aChoiceEndsTheTimingWithinAStep();
    void leversForTheBench();
};

void TestAdvisor::rankingOrder() {
    FakeModel model;
    // Needs 1460 MiB; the budget allows 0.9 x 1228.8 = 1105.9 MiB.
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    // Cost 0 first by speed (batch 8: +3%, checkpointing backbone: +17%), then AMP (small),
    // then the image size (moderate), then the restarting model scale.
    QCOMPARE(ids(fixes), QStringList({"batch", "checkpointing", "amp", "imgsz", "scale"}));
    QCOMPARE(fixes[0].config.batch, 8);
    QCOMPARE(fixes[0].config.nbs, 64);
    QCOMPARE(hr::accumulateSteps(fixes[0].config), 8);
    QCOMPARE(valueOf(fixes[0], "batch"), std::string("8"));
    QCOMPARE(fixes[1].config.checkpointing, hr::Checkpointing::Backbone);
    // Largest fitting image size, a multiple of 32: 480 (512 needs 1114 MiB).
    QCOMPARE(fixes[3].config.imgsz, 480);
    QCOMPARE(fixes[3].config.imgsz % 32, 0);
    QVERIFY(fixes[4].restarts);
    QVERIFY(fixes[4].config.model.find("yolov8n.yaml") != std::string::npos);
    for (std::size_t i = 1; i + 1 < fixes.size(); ++i) {
        QVERIFY(fixes[i - 1].accuracyCost <= fixes[i].accuracyCost);
        if (fixes[i - 1].accuracyCost == fixes[i].accuracyCost)
            QVERIFY(fixes[i - 1].speedFactor <= fixes[i].speedFactor);
    }
    QVERIFY(fixes[0].speedFactor > 1.0 && fixes[0].speedFactor < 1.1);
    QVERIFY(!fixes[0].accuracyEffect.empty());
    QVERIFY(!fixes[0].reason.empty());
}

void TestAdvisor::onlyFittingFixesArePredictedAndReturned() {
    FakeModel model;
    const std::int64_t budget = 1229 * MiB;
    const hr::OomReport r = reportFor(model, hr::Phase::Forward, budget);
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(!fixes.empty());
    const QStringList found = ids(fixes);
    // SGD saves 100 MiB, offload 200, freezing 150: none gets 1460 under 1106.
    QVERIFY(!found.contains("sgd"));
    QVERIFY(!found.contains("offload"));
    QVERIFY(!found.contains("freeze"));
    for (const auto& f : fixes) {
        QVERIFY(f.fits);
        QVERIFY(!f.hostFix);
        QVERIFY(f.predictedPeak <= static_cast<std::int64_t>(0.9 * budget));
        QCOMPARE(f.predictedPeak, model.peak(f.config));
    }
    // A looser safety margin lets SGD through (1360 MiB <= 0.99 x 1500 MiB).
    FakeModel loose;
    const hr::OomReport r2 = reportFor(loose, hr::Phase::Forward, 1500 * MiB);
    hr::AdvisorOptions options;
    options.safety = 0.99;
    QVERIFY(ids(hr::suggestFixes(r2, loose.predictor(), options)).contains("sgd"));
    QVERIFY(!ids(hr::suggestFixes(r2, loose.predictor(), {})).contains("sgd"));
    // Freezing the backbone: the 10 backbone rows of the model file (1310 MiB).
    const auto looseFixes = hr::suggestFixes(r2, loose.predictor(), options);
    const auto freeze = std::find_if(looseFixes.begin(), looseFixes.end(),
                                     [](const hr::FixSuggestion& f) { return f.id == "freeze"; });
    QVERIFY(freeze != looseFixes.end());
    QCOMPARE(freeze->config.freeze, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QCOMPARE(freeze->accuracyCost, 3); // from scratch: the backbone stops learning
    // Optimizer state on the host (1260 MiB) would fit too, but on a CPU device the state is
    // in host RAM already: only CUDA offers it.
    QVERIFY(!ids(hr::suggestFixes(r2, loose.predictor(), options)).contains("offload"));
    hr::OomReport onCuda = r2;
    onCuda.device = "cuda:0";
    QVERIFY(ids(hr::suggestFixes(onCuda, loose.predictor(), options)).contains("offload"));
}

void TestAdvisor::combinationsWhenNoSingleFits() {
    FakeModel model;
    // 0.9 x 556 MiB = 500.4 MiB: batch 1 alone needs 560, offload alone 1260, SGD 1360.
    // On CUDA, where optimizer state can move to the host.
    hr::TrainConfig config = baseConfig();
    config.device = "cuda:0";
    hr::OomReport r = reportFor(model, hr::Phase::Backward, 556 * MiB, config);
    r.device = "cuda:0";
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(!fixes.empty());
    // The best combination: batch 2 (small cost: BatchNorm over 2 images) + optimizer state on
    // the host (no cost) -> 100 + 100 + 100 + 2 x 60 = 420 MiB.
    QCOMPARE(fixes[0].id, std::string("batch+offload"));
    QCOMPARE(fixes[0].config.batch, 2);
    QVERIFY(fixes[0].config.optimizer_offload);
    QCOMPARE(fixes[0].predictedPeak, 420 * MiB);
    QCOMPARE(fixes[0].title.find(" + ") != std::string::npos, true);
    for (const auto& f : fixes) {
        QVERIFY(f.fits);
        // Only combinations, apart from changes that restart the run.
        QVERIFY(f.restarts || f.id.find('+') != std::string::npos);
        QVERIFY(f.predictedPeak <= static_cast<std::int64_t>(0.9 * 556 * MiB));
    }
    QVERIFY(ids(fixes).contains("batch+sgd"));
}

void TestAdvisor::validationOomSuggestsValidationBatch() {
    FakeModel model;
    // Training needs 1460 MiB, validation at batch 96 needs 2120; 0.9 x 1700 = 1530.
    hr::TrainConfig config = baseConfig();
    config.val_batch = 96;
    const hr::OomReport r = reportFor(model, hr::Phase::Validation, 1700 * MiB, config);
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(!fixes.empty());
    QCOMPARE(fixes[0].id, std::string("val_batch"));
    QCOMPARE(fixes[0].config.val_batch, 48);
    QCOMPARE(fixes[0].predictedPeak, 1460 * MiB);
    QCOMPARE(fixes[0].config.batch, 16); // training untouched
    QCOMPARE(fixes[0].speedFactor, 1.0);
    QCOMPARE(fixes[0].accuracyCost, 0);
    // A training OOM never offers the validation batch.
    FakeModel model2;
    const hr::OomReport r2 = reportFor(model2, hr::Phase::Forward, 1229 * MiB);
    QVERIFY(!ids(hr::suggestFixes(r2, model2.predictor(), {})).contains("val_batch"));
}

void TestAdvisor::hostOomGivesOnlyHostFixes() {
    FakeModel model;
    hr::OomReport r = reportFor(model, hr::Phase::Data, 1229 * MiB);
    r.hostMemory = true;
    r.config.cache = "ram";
    r.config.workers = 8;
    r.config.mosaic = 1.0;
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QCOMPARE(model.calls, 0); // no device prediction for host memory
    QCOMPARE(ids(fixes), QStringList({"host_workers", "host_cache", "host_mosaic"}));
    for (const auto& f : fixes) {
        QVERIFY(f.hostFix);
        QVERIFY(f.title.rfind("host fix", 0) == 0);
        QCOMPARE(f.config.batch, r.config.batch);
        QCOMPARE(f.config.imgsz, r.config.imgsz);
        QCOMPARE(f.config.amp, r.config.amp);
        QVERIFY(f.reason.find("not device memory") != std::string::npos);
    }
    QCOMPARE(fixes[0].config.workers, 4);
    QCOMPARE(fixes[1].config.cache, std::string("disk"));
    QCOMPARE(fixes[2].config.mosaic, 0.0);
}

void TestAdvisor::distributedWhenSeveralDevices() {
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    QVERIFY(!ids(hr::suggestFixes(r, model.predictor(), {})).contains("ddp"));
    // The fake model knows nothing of nproc, so DDP alone never fits here; give it a model
    // where each of 2 devices holds half the batch and half the optimizer state.
    hr::PeakPredictor perDevice =
        [&model](const hr::TrainConfig& c) -> std::optional<std::int64_t> {
        hr::TrainConfig local = c;
        if (c.nproc > 1) {
            local.batch = std::max(1, c.batch / c.nproc);
            local.val_batch = std::max(1, (c.val_batch > 0 ? c.val_batch : 2 * c.batch) / c.nproc);
        }
        std::int64_t peak = model.peak(local);
        if (c.zero > 0 && c.nproc > 1)
            peak -= 200 * MiB / 2; // half of AdamW's state lives on the other device
        return peak;
    };
    hr::AdvisorOptions options;
    options.deviceCount = 2;
    const auto fixes = hr::suggestFixes(r, perDevice, options);
    QVERIFY(!fixes.empty());
    QCOMPARE(fixes[0].id, std::string("ddp")); // no accuracy cost and faster
    QCOMPARE(fixes[0].config.nproc, 2);
    QCOMPARE(fixes[0].config.zero, 1);
    QVERIFY(fixes[0].speedFactor < 1.0);
}

void TestAdvisor::chunkedAssignmentForCrowdedLossOom() {
    // The fake model plus the assigner's temporaries: ~8 float tensors of images x boxes per
    // slice x anchors, as the loss phase holds them.
    FakeModel model;
    const int objects = 200;
    auto assignment = [](const hr::TrainConfig& c, int boxes) {
        const std::int64_t anchors = 80 * 80 + 40 * 40 + 20 * 20; // 640 px
        const std::int64_t slice =
            hr::assignerBoxesPerSlice(c.assign_chunk, c.batch, boxes, anchors);
        return 8 * 4 * c.batch * slice * anchors;
    };
    hr::PeakPredictor predictor = [&](const hr::TrainConfig& c) -> std::optional<std::int64_t> {
        return model.peak(c) + assignment(c, objects);
    };
    hr::TrainConfig config = baseConfig();
    // Automatic slices at batch 16: 4 Mi values / (16 x 8400 anchors) = 31 boxes.
    QCOMPARE(hr::assignerBoxesPerSlice(0, 16, objects, 8400), std::int64_t(31));
    const std::int64_t need = *predictor(config);
    hr::OomReport r = reportFor(model, hr::Phase::Loss, need, config);
    r.allocatedBytes = need - r.requestedBytes;
    r.peakBytes = r.allocatedBytes;
    r.breakdown.total = need;
    // A budget just over what a slice of 7 boxes (31 / 4) needs, over the 0.9 safety margin.
    hr::TrainConfig chunked = config;
    chunked.assign_chunk = 7;
    const std::int64_t budget = static_cast<std::int64_t>(double(*predictor(chunked)) / 0.9) + MiB;
    r.budgetBytes = budget;
    r.config.memory_budget = budget;

    hr::AdvisorOptions options;
    options.objectsPerImage = objects;
    const auto fixes = hr::suggestFixes(r, predictor, options);
    QVERIFY2(ids(fixes).contains("assign_chunk"), qPrintable(ids(fixes).join(',')));
    const auto it = std::find_if(fixes.begin(), fixes.end(),
                                 [](const auto& f) { return f.id == "assign_chunk"; });
    QCOMPARE(valueOf(*it, "assign_chunk"), std::string("7"));
    QCOMPARE(it->config.assign_chunk, 7);
    QCOMPARE(it->predictedPeak, *predictor(chunked));
    QVERIFY(it->predictedPeak <= 0.9 * budget);
    QVERIFY(it->speedFactor > 1.0 && it->speedFactor < 1.5);
    QCOMPARE(it->accuracyCost, 0);
    QVERIFY2(it->accuracyEffect.find("same targets") != std::string::npos,
             it->accuracyEffect.c_str());
    // It changes nothing learned, so it ranks before every fix with an accuracy cost.
    for (auto f = fixes.begin(); f != it; ++f)
        QCOMPARE(f->accuracyCost, 0);

    // Not offered outside the loss phase, nor for data sets with few objects per image.
    hr::OomReport forward = r;
    forward.phase = hr::Phase::Forward;
    QVERIFY(!ids(hr::suggestFixes(forward, predictor, options)).contains("assign_chunk"));
    hr::AdvisorOptions few = options;
    few.objectsPerImage = 4;
    QVERIFY(!ids(hr::suggestFixes(r, predictor, few)).contains("assign_chunk"));
    // An object count nobody told the advisor: offered (sized for up to 300 boxes).
    hr::AdvisorOptions unknown = options;
    unknown.objectsPerImage = 0;
    QVERIFY(ids(hr::suggestFixes(r, predictor, unknown)).contains("assign_chunk"));
}

void TestAdvisor::scalingPredictorPerRank() {
    // The report-only predictor follows the estimator's data-parallel rule: batch / nproc
    // images per rank, ZeRO-1 keeps 1/nproc of the optimizer state, and one more copy of the
    // gradients for the all-reduce.
    FakeModel model;
    hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const auto predict = hr::reportScalingPredictor(r);
    const std::int64_t base = *predict(r.config);
    hr::TrainConfig two = r.config;
    two.nproc = 2;
    const std::int64_t activations = r.breakdown.activations;
    const std::int64_t grads = r.breakdown.gradients;
    QVERIFY(std::llabs(*predict(two) - (base - activations / 2 + grads)) <= 1);
    hr::TrainConfig sharded = two;
    sharded.zero = 1;
    QVERIFY(std::llabs(*predict(sharded) - (*predict(two) - r.breakdown.optimizerState / 2)) <= 1);
    // A change it has no model for: no prediction.
    hr::TrainConfig chunk = r.config;
    chunk.assign_chunk = 4;
    QVERIFY(!predict(chunk).has_value());
}

void TestAdvisor::nothingFitsGivesNoFixes() {
    FakeModel model;
    model.weightsMiB = 1000; // resident 5000 MiB; even yolov8n's 1500 + activations pass 900
    hr::OomReport r = reportFor(model, hr::Phase::Backward, 1000 * MiB);
    QVERIFY(hr::suggestFixes(r, model.predictor(), {}).empty());
    // A predictor that knows nothing gives nothing either: the smallest batch, judged from
    // the failed step's breakdown then, leaves the resident 5000 MiB.
    r.breakdown.weights = r.breakdown.gradients = r.breakdown.ema = 1000 * MiB;
    r.breakdown.optimizerState = 2000 * MiB;
    r.breakdown.activations = r.breakdown.total - 5000 * MiB;
    hr::PeakPredictor unknown = [](const hr::TrainConfig&) -> std::optional<std::int64_t> {
        return std::nullopt;
    };
    QVERIFY(hr::suggestFixes(r, unknown, {}).empty());
}

void TestAdvisor::smallestBatchIsTriedWhenPredictionsRunOut() {
    // Issue 45: nc 100000 at batch 8 under 2 GiB, on_oom=auto: the probe steps of the first
    // prediction used up the seconds (or failed), so no candidate had a figure and the
    // advisor said nothing fits, yet batch 1 trains there. Needs 1460 MiB, budget 1229 MiB.
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const int nominal = r.config.batch * hr::accumulateSteps(r.config);
    int calls = 0;
    hr::PeakPredictor failing = [&calls](const hr::TrainConfig&) -> std::optional<std::int64_t> {
        ++calls; // a calibration that failed
        return std::nullopt;
    };
    hr::AdvisorOptions late;
    late.predictionSeconds = 1e-9; // spent before the first prediction
    for (const auto& [predictor, options] :
         {std::make_pair(failing, hr::AdvisorOptions{}), std::make_pair(model.predictor(), late)}) {
        const auto fixes = hr::suggestFixes(r, predictor, options);
        QCOMPARE(ids(fixes), QStringList({"batch"}));
        const hr::FixSuggestion& f = fixes.front();
        QCOMPARE(f.config.batch, 1);
        QCOMPARE(f.config.batch * hr::accumulateSteps(f.config), nominal);
        QVERIFY(f.fits);
        // From the failed step alone: weights, EMA, gradients, AdamW's state and 1/16 of
        // the 960 MiB the batch of 16 added.
        QCOMPARE(f.predictedPeak, (100 + 100 + 100 + 200 + 60) * MiB);
        QCOMPARE(f.memoryBasis.parts.front().kind, std::string("report_scaling"));
        QCOMPARE(f.predictionScale, 1.0);
        // And on_oom=auto applies it.
        const hr::OomDecision d =
            hr::makeAdvisorHandler(hr::OomPolicy::Auto, predictor, {}, options)(r);
        QVERIFY(!d.stop);
        QCOMPARE(d.config.batch, 1);
    }
    QCOMPARE(model.calls, 0); // the late search asked the predictor nothing
    QVERIFY(calls > 0);
}

void TestAdvisor::cpuHostOomInAStepGetsDeviceFixes() {
    // std::bad_alloc in a CPU step: host RAM is the device's memory there, so the batch (and
    // the other device levers) free it, ahead of the host fixes.
    FakeModel model;
    hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    r.hostMemory = true;
    r.config.workers = 8;
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(model.calls > 0);
    QVERIFY(!fixes.empty());
    QVERIFY(!fixes.front().hostFix);
    QCOMPARE(fixes.front().id, std::string("batch"));
    QVERIFY(ids(fixes).contains("host_workers"));
    const hr::OomDecision d = hr::makeAdvisorHandler(hr::OomPolicy::Auto, model.predictor(), {})(r);
    QVERIFY(!d.stop);
    QVERIFY(d.config.batch < r.config.batch);
    const std::string text = hr::describeOom(r);
    QVERIFY2(text.find("help as well") != std::string::npos, text.c_str());
    // On a GPU the same failure is host RAM beside the device: host fixes only.
    r.device = "cuda:0";
    model.calls = 0;
    for (const auto& f : hr::suggestFixes(r, model.predictor(), {}))
        QVERIFY(f.hostFix);
    QCOMPARE(model.calls, 0);
}

void TestAdvisor::underestimatedPredictionsAreScaled() {
    FakeModel model;
    hr::OomReport r = reportFor(model, hr::Phase::Backward, 2000 * MiB);
    // The failed step needed 2000 MiB although the model predicts 1460 for it.
    r.allocatedBytes = 2000 * MiB - r.requestedBytes;
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(!fixes.empty());
    const double scale = 2000.0 / 1460.0;
    for (const auto& f : fixes) {
        const double expected = static_cast<double>(model.peak(f.config)) * scale;
        QVERIFY(std::abs(static_cast<double>(f.predictedPeak) - expected) < 2.0);
        QVERIFY(f.predictedPeak <= static_cast<std::int64_t>(0.9 * 2000 * MiB));
        QVERIFY(f.reason.find("scaled by 1.37") != std::string::npos);
    }
    // Batch 8 would fit by the raw model (980 MiB) and still does scaled (1342 <= 1800).
    QCOMPARE(fixes[0].config.batch, 8);
}

void TestAdvisor::scalingPredictorFollowsBatchAndImageSize() {
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const hr::PeakPredictor p = hr::reportScalingPredictor(r);
    hr::TrainConfig c = r.config;
    QCOMPARE(*p(c), 1460 * MiB);
    c.batch = 8;
    QCOMPARE(*p(c), (500 + 480) * MiB);
    c = r.config;
    c.imgsz = 320;
    QCOMPARE(*p(c), (500 + 240) * MiB);
    c = r.config;
    c.optimizer = "SGD";
    QCOMPARE(*p(c), (400 + 960) * MiB);
    c = r.config;
    c.optimizer_offload = true;
    QCOMPARE(*p(c), (300 + 960) * MiB);
    c = r.config;
    c.amp = true;
    QCOMPARE(*p(c), static_cast<std::int64_t>(std::llround((500 + 960 * 0.6) * MiB)));
    c = r.config;
    c.checkpointing = hr::Checkpointing::All; // no model for it: no prediction
    QVERIFY(!p(c).has_value());
    // A forward OOM on the first step, before gradients and optimizer state exist: a full
    // step will hold them (100 + 200 MiB), so they are counted. The forward pass had not
    // finished: the 480 MiB it showed count twice.
    hr::OomReport first = r;
    first.phase = hr::Phase::Forward;
    first.breakdown.gradients = 0;
    first.breakdown.optimizerState = 0;
    first.allocatedBytes = (200 + 480) * MiB - first.requestedBytes;
    first.peakBytes = first.allocatedBytes;
    const hr::PeakPredictor pf = hr::reportScalingPredictor(first);
    QCOMPARE(*pf(first.config), (500 + 960) * MiB);
    c = first.config;
    c.batch = 8;
    QCOMPARE(*pf(c), (500 + 480) * MiB);
    // An optimizer-step OOM: the batch does not matter, the state does. 50 MiB of AdamW state
    // existed, 64 MiB more were refused: full state 200 MiB plus the 64 MiB temporary.
    hr::OomReport step = r;
    step.phase = hr::Phase::Optimizer;
    step.breakdown.optimizerState = 50 * MiB;
    step.allocatedBytes = 350 * MiB;
    step.peakBytes = step.allocatedBytes;
    const hr::PeakPredictor po = hr::reportScalingPredictor(step);
    QCOMPARE(*po(step.config), (300 + 200 + 64) * MiB);
    c = step.config;
    c.batch = 4;
    QCOMPARE(*po(c), (300 + 200 + 64) * MiB);
    c = step.config;
    c.optimizer = "SGD";
    QCOMPARE(*po(c), (300 + 100 + 32) * MiB);

    // Without a predictor the advisor uses it: batch 8 (980 MiB) is the top fix.
    const auto fixes = hr::suggestFixes(r, hr::PeakPredictor{}, {});
    QVERIFY(!fixes.empty());
    QCOMPARE(fixes[0].id, std::string("batch"));
    QCOMPARE(fixes[0].predictedPeak, 980 * MiB);
}

void TestAdvisor::describeMentionsPhaseBatchImageAndSizes() {
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const std::string text = hr::describeOom(r);
    QVERIFY2(text.find("The backward pass of batch 16 at 640 px") == 0, text.c_str());
    QVERIFY2(text.find("epoch 3, step 12") != std::string::npos, text.c_str());
    // 1460 MiB needed, 500 MiB resident: 960 MiB of activations.
    QVERIFY2(text.find("needed " + hr::formatBytes(960 * MiB) + " of activations") !=
                 std::string::npos,
             text.c_str());
    QVERIFY2(text.find("weights, gradients, AdamW state and the EMA copy hold " +
                       hr::formatBytes(500 * MiB)) != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("the budget is " + hr::formatBytes(1229 * MiB)) != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("failed request was " + hr::formatBytes(64 * MiB)) != std::string::npos,
             text.c_str());
    hr::OomReport forward = r;
    forward.phase = hr::Phase::Forward;
    QVERIFY(hr::describeOom(forward).find("The forward pass of batch 16") == 0);
    hr::OomReport optimizer = r;
    optimizer.phase = hr::Phase::Optimizer;
    QVERIFY(hr::describeOom(optimizer).find("The optimizer step") == 0);
}

void TestAdvisor::describeValidationLossAndHost() {
    FakeModel model;
    hr::OomReport r = reportFor(model, hr::Phase::Validation, 1638 * MiB);
    std::string text = hr::describeOom(r);
    QVERIFY2(text.find("Validation with batch 16 at 640 px") == 0, text.c_str()); // the batch
    QVERIFY2(text.find("smaller validation batch") != std::string::npos, text.c_str());

    r.phase = hr::Phase::Loss;
    text = hr::describeOom(r);
    QVERIFY2(text.find("The loss (target assignment) of batch 16") == 0, text.c_str());
    QVERIFY2(text.find("8400 anchors") != std::string::npos, text.c_str()); // 80² + 40² + 20²
    QVERIFY2(text.find("chunks") != std::string::npos, text.c_str());

    r.phase = hr::Phase::Data;
    r.hostMemory = true;
    r.config.cache = "ram";
    text = hr::describeOom(r);
    QVERIFY2(text.find("Host RAM ran out, not the device") == 0, text.c_str());
    QVERIFY2(text.find("cache=ram") != std::string::npos, text.c_str());
    QVERIFY2(text.find("would not help") != std::string::npos, text.c_str());

    // CUDA with much more reserved than allocated: fragmentation is named.
    hr::OomReport cuda = reportFor(model, hr::Phase::Forward, 1229 * MiB);
    cuda.device = "cuda:0";
    hr::MemorySample s;
    s.allocated = 700 * MiB;
    s.reserved = 1200 * MiB;
    cuda.timeline.push_back(s);
    text = hr::describeOom(cuda);
    QVERIFY2(text.find("fragmentation") != std::string::npos, text.c_str());
}

void TestAdvisor::adviceJsonParses() {
    FakeModel model;
    hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    r.rawMessage = "Tried to allocate 64 MiB; \"quoted\"";
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray::fromStdString(hr::adviceToJson(r, fixes)), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject o = doc.object();
    QCOMPARE(o["phase"].toString(), QString("backward"));
    QCOMPARE(o["host_memory"].toBool(), false);
    QCOMPARE(o["diagnosis"].toString(), QString::fromStdString(hr::describeOom(r)));
    QCOMPARE(o["fixes"].toArray().size(), static_cast<int>(fixes.size()));

    const QJsonDocument list =
        QJsonDocument::fromJson(QByteArray::fromStdString(hr::fixSuggestionsToJson(fixes)), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(list.array().size(), static_cast<int>(fixes.size()));
    const QJsonObject first = list.array()[0].toObject();
    QCOMPARE(first["id"].toString(), QString("batch"));
    QCOMPARE(first["changes"].toObject()["batch"].toString(), QString("8"));
    QCOMPARE(first["predicted_peak_bytes"].toDouble(), double(980 * MiB));
    QVERIFY(first["fits"].toBool());
    const std::string text = hr::formatFixList(fixes);
    QVERIFY(text.find("1. batch 8 + accumulate 8 (nominal batch 64)") != std::string::npos);
    QVERIFY(text.find("predicted peak " + hr::formatBytes(980 * MiB)) != std::string::npos);

    hr::FixChecked check;
    check.predictedPeak = 1000 * MiB;
    check.measuredPeak = 950 * MiB;
    QCOMPARE(hr::describeFixCheck(check), "predicted " + hr::formatBytes(1000 * MiB) +
                                              ", measured " + hr::formatBytes(950 * MiB) +
                                              " (-5%)");
}

void TestAdvisor::autoPolicyAppliesTopFix() {
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    int observed = 0;
    hr::OomHandler handler = hr::makeAdvisorHandler(
        hr::OomPolicy::Auto, model.predictor(), {}, {},
        [&observed](const hr::OomReport&, const std::vector<hr::FixSuggestion>& fixes) {
            observed = static_cast<int>(fixes.size());
        });
    const hr::OomDecision d = handler(r);
    QVERIFY(!d.stop);
    QCOMPARE(d.fixId, std::string("batch"));
    QCOMPARE(d.config.batch, 8);
    QCOMPARE(d.predictedPeak, 980 * MiB);
    QVERIFY(!d.description.empty());
    QCOMPARE(observed, 5);
}

void TestAdvisor::stopAndAskPolicies() {
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const hr::OomDecision stopped =
        hr::makeAdvisorHandler(hr::OomPolicy::Stop, model.predictor(), {})(r);
    QVERIFY(stopped.stop);
    QVERIFY(stopped.fixFits); // batch 8 fits: the trainer need not look for a smallest budget

    std::string diagnosisSeen;
    int offered = 0;
    hr::FixChooser second = [&](const std::vector<hr::FixSuggestion>& fixes,
                                const std::string& diagnosis) -> std::optional<int> {
        diagnosisSeen = diagnosis;
        offered = static_cast<int>(fixes.size());
        return 1;
    };
    const hr::OomDecision d =
        hr::makeAdvisorHandler(hr::OomPolicy::Ask, model.predictor(), second)(r);
    QVERIFY(!d.stop);
    QCOMPARE(d.fixId, std::string("checkpointing"));
    QCOMPARE(d.config.checkpointing, hr::Checkpointing::Backbone);
    QCOMPARE(offered, 5);
    QVERIFY(diagnosisSeen.find("The backward pass") == 0);

    hr::FixChooser decline = [](const std::vector<hr::FixSuggestion>&,
                                const std::string&) -> std::optional<int> { return std::nullopt; };
    QVERIFY(hr::makeAdvisorHandler(hr::OomPolicy::Ask, model.predictor(), decline)(r).stop);
    hr::FixChooser outOfRange = [](const std::vector<hr::FixSuggestion>&,
                                   const std::string&) -> std::optional<int> { return 99; };
    QVERIFY(hr::makeAdvisorHandler(hr::OomPolicy::Ask, model.predictor(), outOfRange)(r).stop);
    QVERIFY(hr::makeAdvisorHandler(hr::OomPolicy::Ask, model.predictor(), {})(r).stop);
}

void TestAdvisor::progressStreamsTheRankedList() {
    // The GUI opens the advisor before any prediction and fills the cards as fixes are found;
    // the list it ends with is the one suggestFixes() returns without a progress callback.
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    model.calls = 0;
    const std::vector<hr::FixSuggestion> plain = hr::suggestFixes(r, model.predictor());
    QVERIFY(plain.size() >= 3);

    model.calls = 0;
    std::vector<hr::FixSearchProgress> seen;
    std::vector<int> callsAtProgress;
    const std::vector<hr::FixSuggestion> streamed =
        hr::suggestFixes(r, model.predictor(), {}, [&](const hr::FixSearchProgress& p) {
            seen.push_back(p);
            callsAtProgress.push_back(model.calls);
            return true;
        });
    QVERIFY(seen.size() >= 3);
    QCOMPARE(callsAtProgress.front(), 0); // before the first prediction
    QVERIFY(seen.front().fixes.empty());
    QVERIFY(seen.front().planned > 0);
    QVERIFY(!seen.front().done);
    for (std::size_t i = 1; i < seen.size(); ++i) {
        QVERIFY(seen[i].checked >= seen[i - 1].checked);
        QVERIFY(seen[i].fixes.size() >= seen[i - 1].fixes.size());
        QVERIFY(seen[i].checked <= seen[i].planned);
    }
    QVERIFY(seen.back().done);
    QCOMPARE(seen.back().checked, seen.back().planned);
    QCOMPARE(seen.back().fixes.size(), streamed.size());
    QCOMPARE(streamed.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        QCOMPARE(streamed[i].id, plain[i].id);
        QCOMPARE(streamed[i].predictedPeak, plain[i].predictedPeak);
    }
    // Some list was shown before the end: the fixes arrive one by one.
    const auto partial = std::find_if(seen.begin(), seen.end(), [&](const auto& p) {
        return !p.done && !p.fixes.empty() && p.fixes.size() < plain.size();
    });
    QVERIFY(partial != seen.end());
}

void TestAdvisor::progressCanEndTheSearch() {
    // A person who chose from the first cards ends the search: no more predictions are made,
    // and the handler's chooser sees the fixes found so far.
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    model.calls = 0;
    int callsAtCancel = -1;
    const std::vector<hr::FixSuggestion> early =
        hr::suggestFixes(r, model.predictor(), {}, [&](const hr::FixSearchProgress& p) {
            if (p.fixes.empty())
                return true;
            callsAtCancel = model.calls;
            return false;
        });
    QCOMPARE(early.size(), std::size_t(1));
    QCOMPARE(model.calls, callsAtCancel);

    // Cancelled before anything was predicted: nothing, and no prediction at all.
    model.calls = 0;
    QVERIFY(hr::suggestFixes(r, model.predictor(), {}, [](const hr::FixSearchProgress&) {
                return false;
            }).empty());
    QCOMPARE(model.calls, 0);

    std::size_t offered = 0;
    hr::FixChooser first = [&](const std::vector<hr::FixSuggestion>& fixes,
                               const std::string&) -> std::optional<int> {
        offered = fixes.size();
        return 0;
    };
    const hr::OomDecision d =
        hr::makeAdvisorHandler(hr::OomPolicy::Ask, model.predictor(), first, {}, {},
                               [](const hr::FixSearchProgress& p) { return p.fixes.empty(); })(r);
    QVERIFY(!d.stop);
    QCOMPARE(offered, std::size_t(1));
    QCOMPARE(d.fixId, early.front().id);
}

void TestAdvisor::autoNeverRestarts() {
    FakeModel model;
    // 0.9 x 333 = 299.7 MiB: only yolov8n with batch 8 (90 + 90 + 180... see FakeModel) fits.
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 333 * MiB);
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(!fixes.empty());
    for (const auto& f : fixes)
        QVERIFY(f.restarts);
    const hr::OomDecision none =
        hr::makeAdvisorHandler(hr::OomPolicy::Auto, model.predictor(), {})(r);
    QVERIFY(none.stop);
    QVERIFY(!none.fixFits); // only another model fits: the budget is too small for this one
}

void TestAdvisor::costModelNumbers() {
    // Accumulation: the CUDA per-step overhead was fitted to 16 -> 4 = 21/18 min.
    QVERIFY(std::abs(hr::fixcost::smallerBatch(16, 4, true).speedFactor - 21.0 / 18.0) < 0.01);
    QCOMPARE(hr::fixcost::smallerBatch(16, 4, true).accuracyCost, 0);
    QCOMPARE(hr::fixcost::smallerBatch(16, 2, true).accuracyCost, 1);
    QVERIFY(std::abs(hr::fixcost::amp(true).speedFactor - 15.0 / 21.0) < 0.01);
    QVERIFY(std::abs(hr::fixcost::checkpointing(hr::Checkpointing::None, hr::Checkpointing::All)
                         .speedFactor -
                     4.0 / 3.0) < 1e-9);
    QVERIFY(std::abs(hr::fixcost::smallerImage(640, 320).speedFactor - 0.25) < 1e-9);
    // yolov8s -> yolov8n: 8.7 / 28.6 GFLOPs.
    QVERIFY(std::abs(hr::fixcost::smallerScale(8, 's', 'n').speedFactor - 8.7 / 28.6) < 1e-9);
    QCOMPARE(hr::fixcost::smallerScale(8, 's', 'n').accuracyCost, 3);
    // Chunked assignment (batch 16 at 640 px: 8400 anchors): slower with more slices, never a
    // cost in accuracy; a larger model's longer step makes the same slices a smaller share,
    // and so does a larger batch (the slice's fixed cost is spread over more images).
    const auto quarter = hr::fixcost::chunkedAssignment(40, 10, 200, 16, 8400, 8, 'n');
    const auto single = hr::fixcost::chunkedAssignment(40, 1, 200, 16, 8400, 8, 'n');
    QVERIFY(quarter.speedFactor > 1.0 && single.speedFactor > quarter.speedFactor);
    QCOMPARE(single.accuracyCost, 0);
    QCOMPARE(hr::fixcost::chunkedAssignment(40, 40, 200, 16, 8400, 8, 'n').speedFactor, 1.0);
    QVERIFY(hr::fixcost::chunkedAssignment(40, 1, 200, 16, 8400, 8, 's').speedFactor <
            single.speedFactor);
    QVERIFY(hr::fixcost::chunkedAssignment(40, 1, 200, 2, 8400, 8, 'n').speedFactor >
            single.speedFactor);
    QVERIFY(single.speedBasis.detail.find("bench loss") != std::string::npos);
    QCOMPARE(single.speedBasis.source, hr::FigureSource::Assumption);
}

void TestAdvisor::everyFigureNamesItsSource() {
    const std::vector<hr::FixEffect> effects = {
        hr::fixcost::smallerBatch(16, 8, false),
        hr::fixcost::smallerBatch(16, 2, true),
        hr::fixcost::amp(false),
        hr::fixcost::amp(true),
        hr::fixcost::checkpointing(hr::Checkpointing::None, hr::Checkpointing::Backbone),
        hr::fixcost::smallerImage(640, 608),
        hr::fixcost::smallerScale(8, 's', 'n'),
        hr::fixcost::smallerScale(8, 's', 'q'),
        hr::fixcost::freezeBackbone(true),
        hr::fixcost::freezeBackbone(false),
        hr::fixcost::sgdInsteadOfAdam(),
        hr::fixcost::optimizerOffload(true),
        hr::fixcost::smallerValidationBatch(),
        hr::fixcost::chunkedAssignment(40, 10, 200, 16, 8400, 8, 'n'),
        hr::fixcost::releaseCachedBlocks(),
        hr::fixcost::distributed(2),
        hr::fixcost::noImageCache(),
        hr::fixcost::fewerWorkers(8, 4),
        hr::fixcost::mosaicOff(),
    };
    // No constant of the cost model is presented as measured: its text never says so except
    // as "not measured", and none claims to be measured here.
    auto claimsMeasured = [](std::string text) {
        for (std::size_t at; (at = text.find("not measured")) != std::string::npos;)
            text.erase(at, 12);
        return text.find("measured") != std::string::npos;
    };
    for (const hr::FixEffect& e : effects) {
        QVERIFY(!e.speedBasis.detail.empty());
        QVERIFY(!e.accuracyBasis.detail.empty());
        // Each clause also comes as a kind and values, for a UI in another language.
        QCOMPARE(e.speedBasis.parts.size(), std::size_t(1));
        QCOMPARE(e.accuracyBasis.parts.size(), std::size_t(1));
        QVERIFY(e.speedBasis.source != hr::FigureSource::MeasuredHere);
        QVERIFY(e.accuracyBasis.source != hr::FigureSource::MeasuredHere);
        QVERIFY2(!claimsMeasured(e.speedBasis.detail), e.speedBasis.detail.c_str());
        QVERIFY2(!claimsMeasured(e.accuracyBasis.detail), e.accuracyBasis.detail.c_str());
        QVERIFY2(!claimsMeasured(e.accuracyEffect), e.accuracyEffect.c_str());
    }
    QCOMPARE(hr::fixcost::smallerScale(8, 's', 'n').accuracyBasis.source,
             hr::FigureSource::Published);
    QCOMPARE(hr::fixcost::amp(false).accuracyBasis.source, hr::FigureSource::NotMeasured);
    QCOMPARE(hr::fixcost::checkpointing(hr::Checkpointing::None, hr::Checkpointing::All)
                 .speedBasis.source,
             hr::FigureSource::FlopCount);
    // A combination is as certain as its least certain part.
    const hr::FigureBasis both = hr::fixcost::combined(
        {{hr::FigureSource::FlopCount, "a"}, {hr::FigureSource::Assumption, "b"}});
    QCOMPARE(both.source, hr::FigureSource::Assumption);
    QCOMPARE(both.detail, std::string("a; b"));

    // Every suggestion carries the sources of its three figures; the predictor's memory
    // figures are the estimator's probe steps.
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    const auto fixes = hr::suggestFixes(r, model.predictor(), {});
    QVERIFY(!fixes.empty());
    for (const auto& f : fixes) {
        QVERIFY(!f.memoryBasis.detail.empty());
        QVERIFY(!f.memoryBasis.parts.empty() && !f.speedBasis.parts.empty() &&
                !f.accuracyBasis.parts.empty());
        QCOMPARE(f.memoryBasis.source, hr::FigureSource::MeasuredHere);
        QVERIFY(!f.speedBasis.detail.empty());
        QVERIFY(f.speedBasis.source != hr::FigureSource::MeasuredHere);
        QVERIFY(!f.accuracyBasis.detail.empty());
        QVERIFY2(!claimsMeasured(f.reason), f.reason.c_str());
    }
    // Without a predictor, the report's breakdown is scaled: an assumption, and it says so.
    for (const auto& f : hr::suggestFixes(r, {}, {}))
        QCOMPARE(f.memoryBasis.source, hr::FigureSource::Assumption);
}

void TestAdvisor::measuredSpeedReplacesTheModel() {
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    hr::AdvisorOptions options;
    // Timings of this machine: a per-step cost of 2 images' time, AMP twice as fast; none at
    // other image sizes (as when only those probe steps ran). Nothing is timed yet: a timing
    // needs probe steps, which the advisor runs only in its last ranking, for timingSeconds.
    int probed = 0;
    options.timePredictor =
        [&probed](const hr::TrainConfig& before, const hr::TrainConfig& after, bool probe,
                  const std::function<bool()>&) -> std::optional<hr::TimedSpeed> {
        if (!probe || after.imgsz != 640)
            return std::nullopt;
        ++probed;
        auto seconds = [](const hr::TrainConfig& c) {
            return (c.amp ? 0.5 : 1.0) * (1.0 + 2.0 / c.batch);
        };
        return hr::TimedSpeed{seconds(after) / seconds(before), seconds(before), seconds(after), 3};
    };
    for (const auto& f : hr::suggestFixes(r, model.predictor(), options))
        QVERIFY(f.speedBasis.source != hr::FigureSource::MeasuredHere);
    QCOMPARE(probed, 0);
    options.timingSeconds = 60.0;
    const auto fixes = hr::suggestFixes(r, model.predictor(), options);
    QVERIFY(probed > 0);
    bool sawBatch = false, sawImage = false;
    for (const auto& f : fixes) {
        if (f.id == "batch") {
            sawBatch = true;
            const double expected = (1.0 + 2.0 / f.config.batch) / (1.0 + 2.0 / 16);
            QVERIFY(std::abs(f.speedFactor - expected) < 1e-9);
            QCOMPARE(f.speedBasis.source, hr::FigureSource::MeasuredHere);
            QVERIFY(f.speedBasis.detail.find("timed on this machine") != std::string::npos);
            QVERIFY(f.speedBasis.detail.find("in turns") != std::string::npos);
        } else if (f.id == "imgsz") {
            sawImage = true;
            // Not timed at that size: the FLOP count stays, and says so.
            QCOMPARE(f.speedBasis.source, hr::FigureSource::FlopCount);
        }
    }
    QVERIFY(sawBatch && sawImage);
    // The CLI's list and the JSON say which speed was measured here.
    const std::string list = hr::formatFixList(fixes);
    QVERIFY(list.find("(measured here)") != std::string::npos);
    QVERIFY(list.find("(estimate: published / FLOP count, not measured here)") !=
            std::string::npos);
    QVERIFY(hr::fixSuggestionsToJson(fixes).find("\"speed_basis\":{\"source\":\"measured_here\"") !=
            std::string::npos);

    // A check of this fix on this machine corrects later predictions of it.
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    hr::recordSpeedCheck("cpu", "batch", 1.5);
    hr::recordSpeedCheck("cuda:0", "amp", 3.0);
    QCOMPARE(*hr::speedCheckRatio("cpu", "batch"), 1.5);
    QVERIFY(!hr::speedCheckRatio("cpu", "amp"));
    options.useSpeedChecks = true;
    for (const auto& f : hr::suggestFixes(r, model.predictor(), options)) {
        if (f.id != "batch")
            continue;
        const double expected = 1.5 * (1.0 + 2.0 / f.config.batch) / (1.0 + 2.0 / 16);
        QVERIFY(std::abs(f.speedFactor - expected) < 1e-9);
        QCOMPARE(f.speedCorrection, 1.5);
        QCOMPARE(hr::decisionFor(f).speedCorrection, 1.5);
        QVERIFY(std::abs(hr::decisionFor(f).speedFactor - expected) < 1e-9);
    }
    qunsetenv("XDG_CACHE_HOME");

    // mAP measured by finished runs of both settings replaces the published figure.
    hr::AdvisorOptions runs;
    runs.measuredAccuracy = [](const hr::TrainConfig& c) -> std::optional<hr::MeasuredAccuracy> {
        if (c.batch == 16 && !c.amp)
            return hr::MeasuredAccuracy{0.70, 0.50, "runs/native"};
        if (c.batch == 8)
            return hr::MeasuredAccuracy{0.69, 0.49, "runs/b8"};
        return std::nullopt;
    };
    for (const auto& f : hr::suggestFixes(r, model.predictor(), runs)) {
        if (f.id == "batch" && f.config.batch == 8) {
            QCOMPARE(f.accuracyBasis.source, hr::FigureSource::MeasuredHere);
            QVERIFY(f.accuracyBasis.detail.find("0.490") != std::string::npos);
            QVERIFY(f.accuracyBasis.detail.find("runs/native") != std::string::npos);
        } else {
            // Measured exactly when a run of the fix's settings exists (not for AMP).
            QCOMPARE(f.accuracyBasis.source == hr::FigureSource::MeasuredHere,
                     runs.measuredAccuracy(f.config).has_value());
        }
    }

    // The check after a fix says both figures.
    hr::FixChecked check;
    check.predictedPeak = 1000 * MiB;
    check.measuredPeak = 950 * MiB;
    check.predictedSecondsPerImage = 0.010;
    check.measuredSecondsPerImage = 0.011;
    check.timedSteps = 20;
    QVERIFY(hr::describeFixCheck(check).find("time per image predicted 10.0 ms, measured 11.0 ms "
                                             "(+10%) over 20 steps") != std::string::npos);
}

void TestAdvisor::leversForTheBench() {
    hr::TrainConfig c = baseConfig();
    c.batch = 8;
    const auto levers = hr::leverFirstSteps(c, "cpu", 200);
    QStringList names;
    for (const auto& l : levers)
        names << QString::fromStdString(l.lever);
    // The advisor's own levers in its decision flow's order. Offload is a CUDA lever; the
    // others all apply to yolov8s at 640 px.
    QCOMPARE(names, QStringList({"assign_chunk", "imgsz", "batch", "amp", "checkpointing",
                                 "checkpointing", "freeze", "scale", "sgd"}));
    QCOMPARE(levers[1].config.imgsz, 608);
    QCOMPARE(levers[2].config.batch, 4);
    QCOMPARE(levers[4].config.checkpointing, hr::Checkpointing::Backbone);
    QCOMPARE(levers[5].config.checkpointing, hr::Checkpointing::All);
    QVERIFY(hr::leverFirstSteps(c, "cuda:0", 200).size() == levers.size() + 1);
}

void TestAdvisor::aChoiceEndsTheTimingWithinAStep() {
    // A timing runs probe steps for as long as it takes; a person who chooses meanwhile (the
    // search's progress answers false) ends it at the next step, not after all its rounds.
    FakeModel model;
    const hr::OomReport r = reportFor(model, hr::Phase::Backward, 1229 * MiB);
    hr::AdvisorOptions options;
    options.timingSeconds = 600.0;
    int steps = 0;
    bool stopped = false;
    options.timePredictor =
        [&](const hr::TrainConfig&, const hr::TrainConfig&, bool probe,
            const std::function<bool()>& keepGoing) -> std::optional<hr::TimedSpeed> {
        if (!probe)
            return std::nullopt;
        for (int step = 0; step < 1000; ++step) {
            ++steps;
            if (keepGoing && !keepGoing()) {
                stopped = true;
                return std::nullopt;
            }
        }
        return hr::TimedSpeed{1.0, 1.0, 1.0, 5};
    };
    const auto progress = [&steps](const hr::FixSearchProgress&) { return steps < 3; };
    hr::suggestFixes(r, model.predictor(), options, progress);
    QVERIFY(stopped);
    QVERIFY2(steps <= 4, qPrintable(QString("%1 probe steps after the choice").arg(steps - 3)));
}

QTEST_APPLESS_MAIN(TestAdvisor)
#include "test_advisor.moc"
