// SPDX-License-Identifier: GPL-3.0-or-later
// OOM recovery end to end (issue 7): a budget that forces an OOM in forward, backward, the
// optimizer step and validation; with on_oom=auto every run finishes, every epoch is in
// results.csv exactly once, events.jsonl holds each OOM and each fix, and a failed step leaves
// weights, optimizer state and EMA as they were before it.
//
// Budgets are found by measurement, not guessed: one unbudgeted TrainStep run records the peak
// of every phase in order; the budget for phase X sits halfway between the highest peak before
// an X segment and that segment's own peak.
#include "cpu_budget_guard.h"
#include "text_file.h"

#include "advisor/oom_diagnosis.h"
#include "advisor/oom_policy.h"
#include "data/batch.h"
#include "data/synthetic_dataset.h"
#include "estimate/auto_fit.h"
#include "estimate/memory_estimator.h"
#include "memory/cpu_memory_tracker.h"
#include "memory/memory_probe.h"
#include "memory/memory_sampler.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "train/train_step.h"
#include "train/trainer.h"
#include "util/bytes.h"
#include "util/speed_checks.h"
#include "util/text.h"
#include "util/torch_compat.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace {

using hr::testing::fileText;
using hr::testing::nonEmptyLines;

struct Segment {
    hr::Phase phase;
    std::int64_t peak;
};

hr::Batch makeBatch(int images, int imgsz, int nc, int seed) {
    torch::manual_seed(seed);
    hr::Batch b;
    b.images = torch::randint(256, {images, 3, imgsz, imgsz}, torch::kUInt8);
    std::vector<float> rows;
    for (int i = 0; i < images; ++i)
        for (int k = 0; k < 3; ++k) {
            const float cx = 0.2f + 0.25f * k, cy = 0.3f + 0.1f * k;
            rows.insert(rows.end(), {float(i), float((i + k) % nc), cx, cy, 0.2f, 0.25f});
        }
    b.targets = torch::tensor(rows).reshape({-1, 6});
    b.paths.assign(static_cast<std::size_t>(images), "synthetic");
    return b;
}

/// The weights (parameters). BatchNorm running statistics are buffers, not weights: a forward
/// that fails half-way has already updated some of them, like any forward in train mode.
std::vector<torch::Tensor> snapshot(torch::nn::Module& module) {
    std::vector<torch::Tensor> out;
    torch::NoGradGuard noGrad;
    for (const auto& p : module.parameters())
        out.push_back(p.detach().clone());
    return out;
}

std::vector<torch::Tensor> optimizerState(torch::optim::Optimizer& optimizer) {
    std::vector<torch::Tensor> out;
    torch::NoGradGuard noGrad;
    for (const auto& group : optimizer.param_groups())
        for (const auto& p : group.params()) {
            auto it = optimizer.state().find(hr::compat::optimizerStateKey(p));
            if (it == optimizer.state().end())
                continue;
            if (auto* adam = dynamic_cast<torch::optim::AdamWParamState*>(it->second.get())) {
                out.push_back(adam->exp_avg().clone());
                out.push_back(adam->exp_avg_sq().clone());
            } else if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(it->second.get())) {
                out.push_back(sgd->momentum_buffer().clone());
            }
        }
    return out;
}

bool same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!a[i].sizes().equals(b[i].sizes()) || !torch::equal(a[i], b[i]))
            return false;
    return true;
}

/// One snapshot, one set of numbers (issue 15): the figures were taken at the refused
/// allocation, so the request did not fit next to what was in use, the allocator's message
/// names the same in-use figure, and the bars add up to what the failed moment needed.
void checkReportNumbers(const hr::OomReport& r) {
    const std::string what = std::string(hr::toString(r.phase)) + ": " + r.rawMessage;
    if (r.hostMemory)
        return; // host RAM: no device snapshot
    QVERIFY2(r.requestedBytes > 0, what.c_str());
    QVERIFY2(r.allocatedBytes + r.requestedBytes > r.budgetBytes, what.c_str());
    QVERIFY2(r.peakBytes >= r.allocatedBytes, what.c_str());
    const std::int64_t said = hr::parseAllocatedBytes(r.rawMessage);
    QVERIFY2(std::llabs(said - r.allocatedBytes) <= r.allocatedBytes / 100 + 1, what.c_str());
    const hr::MemoryBreakdown& b = r.breakdown;
    QCOMPARE(b.total, std::max(r.peakBytes, r.allocatedBytes + r.requestedBytes));
    QCOMPARE(b.weights + b.gradients + b.optimizerState + b.ema + b.activations + b.batchData +
                 b.other,
             b.total);
    if (r.phase != hr::Phase::Validation && r.phase != hr::Phase::Loader)
        QVERIFY2(b.batchData > 0, what.c_str()); // the batch is on the device in a step
    QVERIFY(r.rawMessage.find("frame #") == std::string::npos);
}

} // namespace

class TestOomRecovery : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void failedStepKeepsWeights_data();
    void failedStepKeepsWeights();
    void autoFinishesEveryRun_data();
    void autoFinishesEveryRun();
    void earlierWorkDoesNotCount();
    void impossibleBudgetStopsInOneSentence();
    void fixRecordsSpeedCheck();
    void earlyFixKeepsNoSpeedCheck();

private:
    hr::TrainConfig baseConfig() const;
    std::vector<Segment> measurePhases(const hr::TrainConfig& config, int steps);
    /// Halfway between the highest peak before a segment of `phase` and that segment's peak:
    /// `widest` picks the segment with the widest gap, otherwise the last one with a gap (the
    /// steady state, once gradients and optimizer state exist). 0 when no segment rises.
    std::int64_t budgetFor(hr::Phase phase, bool widest) const;
    std::vector<hr::FixChecked> runLiftingTheBudget(std::int64_t budget, const std::string& fixId,
                                                    const QString& cacheHome);
    std::vector<Segment> m_segments;

    QTemporaryDir m_dir;
    std::string m_data;
    int m_nc = 0;
};

hr::TrainConfig TestOomRecovery::baseConfig() const {
    hr::TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = m_data;
    c.device = "cpu";
    c.epochs = 2;
    c.batch = 4;
    c.nbs = 4; // an optimizer step after every batch
    c.imgsz = 128;
    c.val_batch = 64;
    c.workers = 0;
    c.threads = 2;
    c.amp = false;
    c.optimizer = "AdamW";
    c.lr0 = 0.001;
    c.warmup_epochs = 0;
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.project = m_dir.path().toStdString() + "/runs";
    c.on_oom = hr::OomPolicy::Auto;
    c.memory_sample_hz = 50;
    return c;
}

void TestOomRecovery::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::SyntheticOptions options;
    options.train = 8;
    options.val = 64;
    options.imgsz = 96;
    options.seed = 7;
    std::string error;
    const std::string dir = m_dir.path().toStdString() + "/data";
    QVERIFY2(hr::makeSyntheticDataset(dir, options, &error), error.c_str());
    m_data = dir + "/data.yaml";
    m_nc = static_cast<int>(hr::syntheticClassNames().size());
    hr::CpuMemoryTracker::instance().install();
    at::set_num_threads(2);
    m_segments = measurePhases(baseConfig(), 2);
}

/// Two training steps and one validation batch without a budget; the peak of every phase
/// segment, in the order they ran.
std::vector<Segment> TestOomRecovery::measurePhases(const hr::TrainConfig& config, int steps) {
    auto& tracker = hr::CpuMemoryTracker::instance();
    tracker.setBudget(0);
    std::vector<Segment> segments;
    {
        torch::manual_seed(0);
        hr::ModelBuild build = hr::buildModel(config.model, m_nc);
        TORCH_CHECK(build.model, "cannot build ", config.model);
        hr::TrainStep step(config, build.model, m_nc, torch::kCPU);
        const hr::Batch batch = makeBatch(config.batch, config.imgsz, m_nc, 1);
        hr::Phase current = hr::Phase::Idle;
        tracker.resetPeak();
        step.setPhaseCallback([&](hr::Phase next) {
            segments.push_back({current, tracker.peak()});
            tracker.resetPeak();
            current = next;
        });
        for (int i = 0; i < steps; ++i)
            step.step(batch);
        const hr::Batch val = makeBatch(config.val_batch, config.imgsz, m_nc, 2);
        step.validateBatch(val, nullptr);
        segments.push_back({current, tracker.peak()});
    }
    std::ostringstream text;
    for (const Segment& s : segments)
        text << hr::toString(s.phase) << ' ' << hr::formatBytes(s.peak) << " | ";
    qInfo("phase peaks: %s", text.str().c_str());
    return segments;
}

std::int64_t TestOomRecovery::budgetFor(hr::Phase phase, bool widest) const {
    std::int64_t budget = 0;
    std::int64_t widestGap = 0;
    std::int64_t before = 0;
    for (const Segment& s : m_segments) {
        const std::int64_t gap = s.peak - before;
        if (s.phase == phase && gap > 512 * 1024 && (!widest || gap > widestGap)) {
            budget = before + gap / 2;
            widestGap = gap;
        }
        before = std::max(before, s.peak);
    }
    return budget;
}

void TestOomRecovery::failedStepKeepsWeights_data() {
    QTest::addColumn<int>("phase");
    QTest::newRow("forward") << int(hr::Phase::Forward);
    QTest::newRow("backward") << int(hr::Phase::Backward);
    QTest::newRow("optimizer") << int(hr::Phase::Optimizer);
}

void TestOomRecovery::failedStepKeepsWeights() {
    QFETCH(int, phase);
    const hr::Phase target = static_cast<hr::Phase>(phase);
    hr::TrainConfig config = baseConfig();
    const std::int64_t budget = budgetFor(target, true);
    QVERIFY2(budget > 0, "no budget separates this phase from the ones before it");

    auto& tracker = hr::CpuMemoryTracker::instance();
    torch::manual_seed(0);
    hr::ModelBuild build = hr::buildModel(config.model, m_nc);
    QVERIFY(build.model);
    hr::TrainStep step(config, build.model, m_nc, torch::kCPU);
    const hr::Batch batch = makeBatch(config.batch, config.imgsz, m_nc, 1);
    // The same steps as the measurement, under the budget, until one fails.
    std::vector<torch::Tensor> weights, ema, state;
    bool failed = false;
    hr::testing::CpuBudgetGuard guard(0);
    for (int i = 0; i < 2 && !failed; ++i) {
        // Snapshots are taken outside the budget, which then grows by their size.
        guard.set(0);
        weights.clear();
        ema.clear();
        state.clear();
        const std::int64_t before = tracker.allocated();
        weights = snapshot(*step.model());
        ema = snapshot(*step.emaModel());
        state = optimizerState(step.optimizer());
        guard.set(budget + (tracker.allocated() - before));
        try {
            step.step(batch);
        } catch (const c10::OutOfMemoryError&) {
            failed = true;
        }
    }
    guard.set(0);
    QVERIFY2(failed, "the budget did not cause an OOM");
    QCOMPARE(int(step.currentPhase()), phase);
    step.resetAccumulation();
    QVERIFY2(same(weights, snapshot(*step.model())), "weights changed by the failed step");
    QVERIFY2(same(ema, snapshot(*step.emaModel())), "EMA changed by the failed step");
    QVERIFY2(same(state, optimizerState(step.optimizer())),
             "optimizer state changed by the failed step");
    // And the step goes through once memory allows it.
    const hr::StepOutput out = step.step(batch);
    QVERIFY(std::isfinite(out.loss));
    QVERIFY(!same(weights, snapshot(*step.model())));
}

void TestOomRecovery::autoFinishesEveryRun_data() {
    QTest::addColumn<int>("phase");
    // The trainer's baseline (loader batches, validation state) differs from the bare
    // TrainStep's by a few MiB, so the phase that fails first may differ from the target; the
    // phase-exact checks are failedStepKeepsWeights'. Here: whatever fails, auto finishes.
    QTest::newRow("budget for backward") << int(hr::Phase::Backward);
    QTest::newRow("budget for validation") << int(hr::Phase::Validation);
}

void TestOomRecovery::autoFinishesEveryRun() {
    QFETCH(int, phase);
    const hr::Phase target = static_cast<hr::Phase>(phase);
    hr::TrainConfig config = baseConfig();
    const std::int64_t budget = budgetFor(target, target == hr::Phase::Optimizer);
    QVERIFY2(budget > 0, "no budget separates this phase from the ones before it");
    config.memory_budget = budget;
    config.name = std::string("oom_") + hr::toString(target);

    std::mutex mutex;
    std::vector<hr::OomReport> ooms;
    std::vector<hr::FixApplied> fixes;
    std::string runDir;
    bool finished = false;
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto* e = std::get_if<hr::RunStarted>(&event))
            runDir = e->runDir;
        else if (const auto* e = std::get_if<hr::OomOccurred>(&event))
            ooms.push_back(e->report);
        else if (const auto* e = std::get_if<hr::FixApplied>(&event))
            fixes.push_back(*e);
        else if (std::holds_alternative<hr::RunFinished>(event))
            finished = true;
    });
    trainer.setOomHandler(hr::makeAdvisorHandler(hr::OomPolicy::Auto, {}, {}));
    const int rc = trainer.run();
    qInfo("budget %s: %d OOM(s), %d fix(es)", hr::formatBytes(budget).c_str(),
          static_cast<int>(ooms.size()), static_cast<int>(fixes.size()));
    for (std::size_t i = 0; i < fixes.size(); ++i)
        qInfo("  fix %d: %s", static_cast<int>(i + 1), fixes[i].description.c_str());
    QCOMPARE(rc, 0);
    QVERIFY(finished);
    QVERIFY(!ooms.empty());
    qInfo("first OOM in the %s phase", hr::toString(ooms.front().phase));
    QCOMPARE(fixes.size(), ooms.size()); // every OOM answered by a fix
    for (const hr::OomReport& r : ooms) {
        QVERIFY(!hr::describeOom(r).empty());
        checkReportNumbers(r);
        if (QTest::currentTestFailed())
            return;
    }

    // results.csv: a header and one row per epoch, each epoch once.
    const std::vector<std::string> rows = nonEmptyLines(fileText(runDir + "/results.csv"));
    QCOMPARE(static_cast<int>(rows.size()), config.epochs + 1);
    std::set<std::string> epochs;
    for (std::size_t i = 1; i < rows.size(); ++i)
        epochs.insert(hr::trim(rows[i].substr(0, rows[i].find(','))));
    QCOMPARE(static_cast<int>(epochs.size()), config.epochs);

    // events.jsonl: each OOM and each fix as a line whose type names it.
    int oomLines = 0, fixLines = 0;
    for (const std::string& line : nonEmptyLines(fileText(runDir + "/events.jsonl"))) {
        if (line.find("\"type\":\"oom\"") != std::string::npos)
            ++oomLines;
        if (line.find("\"type\":\"fix_applied\"") != std::string::npos)
            ++fixLines;
    }
    QCOMPARE(oomLines, static_cast<int>(ooms.size()));
    QCOMPARE(fixLines, static_cast<int>(fixes.size()));
    // The OOM moments are marked on the memory timeline.
    int marks = 0;
    for (const hr::MemorySample& m : hr::MemorySampler::parseCsv(fileText(runDir + "/memory.csv")))
        marks += m.oom;
    QCOMPARE(marks, static_cast<int>(ooms.size()));
}

/// The studio scenario of issue 15 in one process: an earlier run without a budget (stopped
/// after two steps) and a calibration of other settings, with something of theirs still alive,
/// then a run under a budget with on_oom=auto and the estimator-backed advisor. Nothing left
/// from the earlier work may count toward the new run's budget, the loader's batches never
/// do, every OOM is an OOM (never a failure) with consistent numbers, the advisor's probe steps
/// are tagged "probe" and no epoch's peak passes the budget.
void TestOomRecovery::earlierWorkDoesNotCount() {
    // 1. An earlier run without a budget, stopped after two steps.
    hr::TrainConfig first = baseConfig();
    first.workers = 2;
    first.name = "earlier";
    {
        hr::Trainer* self = nullptr;
        hr::RunState state = hr::RunState::Failed;
        hr::Trainer trainer(first, [&](const hr::TrainEvent& event) {
            if (const auto* e = std::get_if<hr::BatchEnd>(&event); e && e->step == 2)
                self->requestStop();
            else if (const auto* e = std::get_if<hr::RunFinished>(&event))
                state = e->state;
        });
        self = &trainer;
        QCOMPARE(trainer.run(), 0);
        QCOMPARE(int(state), int(hr::RunState::Stopped));
    }
    // 2. A calibration of other settings (the memory panel's).
    hr::TrainConfig other = baseConfig();
    other.imgsz = 64;
    other.batch = 2;
    other.val_batch = 4;
    std::string error;
    QVERIFY2(hr::estimateMemory(other, &error).trainPeak > 0, error.c_str());

    // 3. Something of the earlier work stays alive, larger than the new budget itself.
    hr::TrainConfig config = baseConfig();
    const std::int64_t budget = budgetFor(hr::Phase::Backward, false);
    QVERIFY(budget > 0);
    const torch::Tensor leftover = torch::ones({budget / 4 + 1024}, torch::kFloat32);
    config.memory_budget = budget;
    config.workers = 2; // queued host batches, as in the studio
    config.name = "after_earlier_work";

    std::vector<hr::OomReport> ooms;
    std::vector<hr::EpochEnd> epochs;
    hr::RunFinished finished;
    std::string runDir;
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        if (const auto* e = std::get_if<hr::RunStarted>(&event))
            runDir = e->runDir;
        else if (const auto* e = std::get_if<hr::OomOccurred>(&event))
            ooms.push_back(e->report);
        else if (const auto* e = std::get_if<hr::EpochEnd>(&event))
            epochs.push_back(*e);
        else if (const auto* e = std::get_if<hr::RunFinished>(&event))
            finished = *e;
    });
    // A calibration of the failed settings inside the run, as the studio's advisor makes (probe
    // steps with the budget lifted); fixes are ranked from the report alone, as in
    // autoFinishesEveryRun.
    const hr::OomHandler advisor = hr::makeAdvisorHandler(hr::OomPolicy::Auto, {}, {});
    bool calibrated = false;
    trainer.setOomHandler([&](const hr::OomReport& report) {
        if (!calibrated) {
            hr::TrainConfig probe = report.config;
            probe.val_batch = 4;
            std::string why;
            calibrated = hr::estimateMemory(probe, &why).trainPeak > 0;
        }
        return advisor(report);
    });
    const int rc = trainer.run();
    qInfo("budget %s, leftover %s: %d OOM(s), end %s %s", hr::formatBytes(budget).c_str(),
          hr::formatBytes(leftover.nbytes()).c_str(), int(ooms.size()),
          hr::toString(finished.state), finished.reason.c_str());
    QCOMPARE(rc, 0);
    QCOMPARE(int(finished.state), int(hr::RunState::Finished));
    QCOMPARE(int(epochs.size()), config.epochs);
    for (const hr::OomReport& r : ooms) {
        QVERIFY2(r.phase != hr::Phase::Loader, "a loader batch was refused by the budget");
        checkReportNumbers(r);
        if (QTest::currentTestFailed())
            return;
    }
    for (const hr::EpochEnd& e : epochs)
        QVERIFY2(e.trainPeakBytes <= budget && e.valPeakBytes <= budget,
                 hr::formatBytes(e.peakBytes()).c_str());
    // Probe steps, when the advisor ran any, are tagged as such in memory.csv.
    const auto samples = hr::MemorySampler::parseCsv(fileText(runDir + "/memory.csv"));
    std::int64_t runPeak = 0;
    int probes = 0;
    for (const hr::MemorySample& m : samples) {
        if (m.phase == hr::Phase::Probe)
            ++probes;
        else
            runPeak = std::max(runPeak, m.allocated);
    }
    qInfo("%d probe samples; the run's own samples peak at %s", probes,
          hr::formatBytes(runPeak).c_str());
    QVERIFY(runPeak <= budget);
    if (!ooms.empty()) {
        QVERIFY(calibrated);
        QVERIFY(probes > 0); // the calibration's probe steps are tagged, not the run's memory
    }
    QVERIFY(leftover.defined());
}

/// A budget too small for anything: the run stops at once with one sentence that names the
/// smallest budget that works, and a non-zero result.
void TestOomRecovery::impossibleBudgetStopsInOneSentence() {
    hr::TrainConfig config = baseConfig();
    config.memory_budget = 16 * 1024 * 1024;
    config.name = "impossible";
    hr::RunFinished finished;
    int ooms = 0;
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        if (std::holds_alternative<hr::OomOccurred>(event))
            ++ooms;
        else if (const auto* e = std::get_if<hr::RunFinished>(&event))
            finished = *e;
    });
    trainer.setOomHandler(hr::makeAdvisorHandler(hr::OomPolicy::Auto, {}, {}));
    trainer.setMinimumBudget(hr::smallestWorkingBudget);
    const int rc = trainer.run();
    qInfo("%s", finished.reason.c_str());
    QVERIFY(rc != 0);
    QCOMPARE(int(finished.state), int(hr::RunState::StoppedByOom));
    const std::string& why = finished.reason;
    QVERIFY2(why.find("memory_budget=") != std::string::npos, why.c_str());
    QVERIFY2(why.find("MiB or more") != std::string::npos, why.c_str());
    QVERIFY2(why.find('\n') == std::string::npos, why.c_str());
    QVERIFY2(why.back() == '.' && why.find(". ") == std::string::npos, why.c_str()); // one sentence
    // The budget it names is above the one that failed.
    const std::size_t at = why.find("memory_budget=") + 14;
    QVERIFY(std::stoll(why.substr(at)) * 1024 * 1024 > config.memory_budget);
}

/// A run whose handler lifts the budget as fix `fixId` (speed factor 1), on a training epoch
/// of 21 steps of 4 images, with the speed checks kept under a temporary cache folder.
std::vector<hr::FixChecked> TestOomRecovery::runLiftingTheBudget(std::int64_t budget,
                                                                 const std::string& fixId,
                                                                 const QString& cacheHome) {
    qputenv("XDG_CACHE_HOME", cacheHome.toUtf8());
    hr::SyntheticOptions options;
    options.train = 84;
    options.val = 64;
    options.imgsz = 96;
    options.seed = 11;
    std::string error;
    const std::string dir = m_dir.path().toStdString() + "/speed_data";
    if (!hr::makeSyntheticDataset(dir, options, &error))
        qFatal("%s", error.c_str());
    hr::TrainConfig config = baseConfig();
    config.data = dir + "/data.yaml";
    config.memory_budget = budget;
    config.name = fixId;
    hr::testing::CpuBudgetGuard guard;

    std::mutex mutex;
    std::vector<hr::FixChecked> checks;
    int fixes = 0;
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto* e = std::get_if<hr::FixChecked>(&event))
            checks.push_back(*e);
        else if (std::holds_alternative<hr::FixApplied>(event))
            ++fixes;
    });
    // The fix lifts the budget: the run then finishes without another OOM.
    trainer.setOomHandler([fixId](const hr::OomReport& report) {
        hr::OomDecision d;
        d.stop = false;
        d.config = report.config;
        d.config.memory_budget = 0;
        d.fixId = fixId;
        d.description = "lift the budget";
        d.speedFactor = 1.0;
        return d;
    });
    const int rc = trainer.run();
    qunsetenv("XDG_CACHE_HOME");
    if (rc != 0 || fixes != 1)
        qFatal("the run returned %d after %d fixes", rc, fixes);
    return checks;
}

/// After an applied fix the trainer times the next kFixCheckSteps steps against the fix's
/// predicted time per image and keeps the ratio in speed-checks.tsv, which the advisor's later
/// predictions of that fix on this device use (issue 18).
void TestOomRecovery::fixRecordsSpeedCheck() {
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    // The fix comes in the first epoch's validation, after 21 training steps: 20 of them timed.
    const std::int64_t budget = budgetFor(hr::Phase::Validation, false);
    QVERIFY2(budget > 0, "no budget separates validation from training");
    const std::vector<hr::FixChecked> checks =
        runLiftingTheBudget(budget, "lift_budget", cache.path());
    QCOMPARE(int(checks.size()), 1);
    const hr::FixChecked& check = checks.front();
    QCOMPARE(check.fixId, std::string("lift_budget"));
    QCOMPARE(check.timedSteps, hr::kFixCheckSteps);
    QVERIFY(check.predictedSecondsPerImage > 0 && check.measuredSecondsPerImage > 0);
    const std::string tsv = fileText(cache.path().toStdString() + "/headroom/speed-checks.tsv");
    QVERIFY2(tsv.find("cpu\tlift_budget\t") == 0, tsv.c_str());
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    const std::optional<double> ratio = hr::speedCheckRatio("cpu", "lift_budget");
    qunsetenv("XDG_CACHE_HOME");
    QVERIFY(ratio.has_value());
    const double expected = check.measuredSecondsPerImage / check.predictedSecondsPerImage;
    QVERIFY2(std::abs(*ratio / expected - 1.0) < 1e-3, tsv.c_str());
}

/// An OOM in a run's first steps leaves too few timed steps before the fix (the first one
/// prepares kernels and is not timed): the check reports the time after the fix without a
/// prediction, and keeps no speed check that would correct later predictions.
void TestOomRecovery::earlyFixKeepsNoSpeedCheck() {
    QTemporaryDir cache;
    QVERIFY(cache.isValid());
    const std::int64_t budget = budgetFor(hr::Phase::Backward, true);
    QVERIFY2(budget > 0, "no budget stops the first backward pass");
    const std::vector<hr::FixChecked> checks =
        runLiftingTheBudget(budget, "lift_budget_early", cache.path());
    QCOMPARE(int(checks.size()), 1);
    QCOMPARE(checks.front().predictedSecondsPerImage, 0.0);
    QVERIFY(checks.front().measuredSecondsPerImage > 0);
    QVERIFY(!QFileInfo::exists(cache.filePath("headroom/speed-checks.tsv")));
}

QTEST_APPLESS_MAIN(TestOomRecovery)
#include "test_oom_recovery.moc"
