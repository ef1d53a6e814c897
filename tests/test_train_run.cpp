// SPDX-License-Identifier: GPL-3.0-or-later
// The trainer on a real (tiny) detector and data set: gradient checkpointing through TrainStep,
// an end-to-end run with its run folder, resume equivalence, and OOM recovery.
#include "cpu_budget_guard.h"
#include "tfevents_reader.h"

#include "advisor/oom_policy.h"
#include "config/train_config.h"
#include "data/batch.h"
#include "data/synthetic_dataset.h"
#include "loss/detection_loss.h"
#include "memory/cpu_memory_tracker.h"
#include "memory/memory_probe.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "results/result_plots.h"
#include "results/results_files.h"
#include "runs/run_store.h"
#include "train/log_code.h"
#include "train/run_folder.h"
#include "train/train_step.h"
#include "train/trainer.h"
#include "util/atomic_file.h"

#include <torch/torch.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

namespace {

hr::DetectionModel makeModel(int nc, int seed) {
    torch::manual_seed(seed);
    hr::ModelBuild build = hr::buildModel("yolov8n.yaml", nc);
    if (!build.model)
        qFatal("cannot build yolov8n: %s", hr::formatDiagnostics(build.diagnostics).c_str());
    return build.model;
}

hr::Batch makeBatch(int batch, int size, int seed) {
    torch::manual_seed(seed);
    hr::Batch b;
    b.images = torch::randint(256, {batch, 3, size, size}, torch::kUInt8);
    std::vector<float> rows;
    for (int i = 0; i < batch; ++i) {
        const float t[2][6] = {{float(i), 0, 0.5f, 0.5f, 0.3f, 0.4f},
                               {float(i), 1, 0.25f, 0.3f, 0.2f, 0.2f}};
        for (const auto& r : t)
            rows.insert(rows.end(), r, r + 6);
    }
    b.targets = torch::tensor(rows).view({-1, 6});
    b.paths.assign(static_cast<size_t>(batch), "synthetic");
    b.letterbox.resize(static_cast<size_t>(batch));
    return b;
}

void copyWeights(hr::DetectionModel& from, hr::DetectionModel& to) {
    torch::NoGradGuard noGrad;
    auto a = from->parameters(), b = to->parameters();
    for (size_t i = 0; i < a.size(); ++i)
        b[i].copy_(a[i]);
    auto x = from->buffers(), y = to->buffers();
    for (size_t i = 0; i < x.size(); ++i)
        y[i].copy_(x[i]);
}

/// The largest difference between the two models' gradients: absolute, or with `relative` each
/// divided by the largest gradient of that tensor in `a` (at least 1e-3). `compared` counts the
/// tensors with a gradient; -1 when `b` lacks one that `a` has.
double largestGradientDifference(hr::DetectionModel& a, hr::DetectionModel& b, bool relative,
                                 int& compared) {
    auto pa = a->parameters(), pb = b->parameters();
    double worst = 0;
    compared = 0;
    for (size_t i = 0; i < pa.size(); ++i) {
        if (!pa[i].grad().defined())
            continue;
        if (!pb[i].grad().defined()) {
            compared = -1;
            return 0;
        }
        const double scale =
            relative ? std::max(1e-3, pa[i].grad().abs().max().item<double>()) : 1.0;
        worst = std::max(worst, (pa[i].grad() - pb[i].grad()).abs().max().item<double>() / scale);
        ++compared;
    }
    return worst;
}

/// The largest difference between the two models' floating-point buffers (BatchNorm statistics).
double largestBufferDifference(hr::DetectionModel& a, hr::DetectionModel& b) {
    auto ba = a->buffers(), bb = b->buffers();
    double worst = 0;
    for (size_t i = 0; i < ba.size(); ++i)
        if (ba[i].is_floating_point())
            worst = std::max(worst, (ba[i] - bb[i]).abs().max().item<double>());
    return worst;
}

/// Every floating-point parameter and buffer of the model stored in a checkpoint's "train_model".
std::vector<torch::Tensor> trainedWeights(const std::string& checkpoint) {
    torch::serialize::InputArchive archive;
    archive.load_from(checkpoint);
    torch::serialize::InputArchive weights;
    archive.read("train_model", weights);
    hr::LoadedModel loaded = hr::readModel(archive);
    if (!loaded.model)
        qFatal("%s", loaded.error.c_str());
    loaded.model->load(weights);
    std::vector<torch::Tensor> all = loaded.model->parameters();
    for (const auto& b : loaded.model->buffers())
        all.push_back(b);
    return all;
}

struct EventLog {
    std::mutex mutex;
    std::vector<std::string> types;
    std::vector<hr::EpochEnd> epochs;
    std::vector<hr::OomOccurred> ooms;
    std::vector<hr::FixApplied> fixes;
    std::vector<hr::FixChecked> checks;
    std::string failure;
    std::vector<hr::LogMessage> logs;
    std::vector<hr::RunFinished> ends;
    int batchesAfterStop = 0;
    bool stopSent = false;
    hr::EventSink sink(hr::Trainer** stopAfterFirstEpoch = nullptr) {
        return [this, stopAfterFirstEpoch](const hr::TrainEvent& event) {
            std::lock_guard<std::mutex> lock(mutex);
            types.push_back(std::to_string(event.index()));
            if (const auto* e = std::get_if<hr::EpochEnd>(&event)) {
                epochs.push_back(*e);
                if (stopAfterFirstEpoch && *stopAfterFirstEpoch)
                    (*stopAfterFirstEpoch)->requestStop();
            } else if (const auto* o = std::get_if<hr::OomOccurred>(&event)) {
                ooms.push_back(*o);
            } else if (const auto* f = std::get_if<hr::FixApplied>(&event)) {
                fixes.push_back(*f);
            } else if (const auto* c = std::get_if<hr::FixChecked>(&event)) {
                checks.push_back(*c);
            } else if (const auto* r = std::get_if<hr::RunFailed>(&event)) {
                failure = r->message;
            } else if (const auto* l = std::get_if<hr::LogMessage>(&event)) {
                logs.push_back(*l);
            } else if (const auto* f = std::get_if<hr::RunFinished>(&event)) {
                ends.push_back(*f);
            } else if (std::holds_alternative<hr::BatchEnd>(event)) {
                batchesAfterStop += stopSent;
            }
        };
    }
};

} // namespace

class TestTrainRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void checkpointingKeepsGradients();
    void channelsLastKeepsGradients();
    void oomInStepKeepsWeights();
    void endToEndRunFolder();
    void liveRunFolderShowsProgress();
    void resumeMatchesStraightRun();
    void oomRecoveryContinuesRun();
    void noHandlerStopsWithLastWeights();
    void damagedCheckpointFallsBackToBackup();
    void unwritableProjectIsOneLine();
    void stopEndsWithStoppedState();
    void stopDuringValidationKeepsTheEpoch();
    void hostAllocationFailureKeepsTheEpoch_data();
    void hostAllocationFailureKeepsTheEpoch();
    void liveSamplesArriveDuringAStep();

private:
    hr::TrainConfig tinyConfig(const QString& project, const QString& name) const;
    void checkResultFiles(const std::string& dir, const hr::RunRecord& run);
    QTemporaryDir m_dir;
    std::string m_data;
};

void TestTrainRun::initTestCase() {
    torch::set_num_threads(2);
    QVERIFY(m_dir.isValid());
    hr::SyntheticOptions options;
    options.train = 8;
    options.val = 4;
    options.imgsz = 96;
    std::string error;
    const std::string dir = m_dir.filePath("data").toStdString();
    QVERIFY2(hr::makeSyntheticDataset(dir, options, &error), error.c_str());
    m_data = dir + "/data.yaml";
}

hr::TrainConfig TestTrainRun::tinyConfig(const QString& project, const QString& name) const {
    hr::TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = m_data;
    c.epochs = 2;
    c.batch = 4;
    c.imgsz = 64;
    c.workers = 0;
    c.threads = 2;
    c.project = m_dir.filePath(project).toStdString();
    c.name = name.toStdString();
    c.amp = false;
    c.optimizer = "SGD";
    c.lr0 = 0.01;
    c.warmup_epochs = 0;
    c.nbs = 8; // accumulate 2: exercises the accumulation group across steps
    c.close_mosaic = 0;
    c.memory_sample_hz = 50;
    return c;
}

void TestTrainRun::checkpointingKeepsGradients() {
    hr::TrainConfig config;
    config.amp = false;
    config.batch = 2;
    config.nbs = 4; // accumulate 2: the first step leaves its gradients in place
    config.optimizer = "SGD";
    hr::DetectionModel plain = makeModel(2, 1);
    hr::DetectionModel recomputed = makeModel(2, 2);
    copyWeights(plain, recomputed);
    hr::TrainStep a(config, plain, 2, torch::kCPU);
    config.checkpointing = hr::Checkpointing::All;
    hr::TrainStep b(config, recomputed, 2, torch::kCPU);
    const hr::Batch batch = makeBatch(2, 64, 3);
    const hr::StepOutput outA = a.step(batch);
    const hr::StepOutput outB = b.step(batch);
    QVERIFY(!outA.optimizerStepped && !outB.optimizerStepped);
    QVERIFY(std::abs(outA.loss - outB.loss) < 1e-5 * std::max(1.0, std::abs(outA.loss)));
    int compared = 0;
    const double worst = largestGradientDifference(plain, recomputed, false, compared);
    QVERIFY(compared > 50);
    QVERIFY2(worst < 1e-5, qPrintable(QString("max gradient difference %1").arg(worst)));
    // BatchNorm running statistics were updated once, not twice.
    const double bufferDiff = largestBufferDifference(plain, recomputed);
    QVERIFY2(bufferDiff < 1e-6, qPrintable(QString::number(bufferDiff)));
}

void TestTrainRun::channelsLastKeepsGradients() {
    // The trainer keeps weights and inputs channels-last on the CPU for speed; the loss and every
    // gradient must match the plain (contiguous) layout's, in training mode with BatchNorm.
    hr::TrainConfig config;
    config.amp = false;
    config.batch = 4;
    config.nbs = 8; // accumulate 2: no optimizer step, the gradients stay to be compared
    config.optimizer = "SGD";
    hr::DetectionModel plain = makeModel(2, 1);
    hr::DetectionModel viaStep = makeModel(2, 2);
    copyWeights(plain, viaStep);
    const hr::Batch batch = makeBatch(4, 96, 5);
    const torch::Tensor input = hr::modelInput(batch.images);
    plain->train();
    hr::LossConfig lossConfig;
    lossConfig.nc = 2;
    lossConfig.regMax = plain->regMax();
    lossConfig.strides = plain->strides();
    const hr::DetectionLoss loss(lossConfig);
    const torch::Tensor total =
        loss.compute(plain->forward(input.contiguous()), batch.targets, 96, 96).total;
    total.backward();
    hr::TrainStep step(config, viaStep, 2, torch::kCPU);
    const hr::StepOutput out = step.step(batch);
    QVERIFY(!out.optimizerStepped);
    QVERIFY2(viaStep->parameters()[0].is_contiguous(at::MemoryFormat::ChannelsLast),
             "the trainer should train channels-last on the CPU");
    int compared = 0;
    const double worst = largestGradientDifference(plain, viaStep, true, compared);
    QVERIFY(compared > 50);
    QVERIFY2(worst < 1e-4,
             qPrintable(QString("largest relative gradient difference %1").arg(worst)));
    QVERIFY(largestBufferDifference(plain, viaStep) < 1e-5);
    // Evaluation (running statistics) gives the same raw outputs in both layouts.
    torch::NoGradGuard noGrad;
    plain->eval();
    viaStep->eval();
    const std::vector<torch::Tensor> ea = plain->forward(input.contiguous());
    const std::vector<torch::Tensor> eb =
        viaStep->forward(input.contiguous(at::MemoryFormat::ChannelsLast));
    for (size_t i = 0; i < ea.size(); ++i) {
        const double scale = std::max(1.0, ea[i].abs().max().item<double>());
        const double diff = (ea[i] - eb[i]).abs().max().item<double>() / scale;
        QVERIFY2(diff < 1e-4,
                 qPrintable(QString("level %1: relative output difference %2").arg(i).arg(diff)));
    }
}

void TestTrainRun::oomInStepKeepsWeights() {
    std::string error;
    auto probe = hr::makeProbe("cpu", &error);
    QVERIFY2(probe, error.c_str());
    hr::TrainConfig config;
    config.amp = false;
    config.batch = 4;
    config.nbs = 4;
    config.optimizer = "SGD";
    hr::DetectionModel model = makeModel(2, 4);
    hr::TrainStep step(config, model, 2, torch::kCPU);
    const hr::Batch batch = makeBatch(4, 96, 5);
    std::vector<torch::Tensor> before;
    for (const auto& p : model->parameters())
        before.push_back(p.detach().clone());
    bool threw = false;
    {
        // The CPU probe's budget is the tracker's: far too small for a step.
        const hr::testing::CpuBudgetGuard budget(probe->allocated() + 4 * 1024 * 1024);
        try {
            step.step(batch);
        } catch (const c10::OutOfMemoryError&) {
            threw = true;
        }
    }
    QVERIFY(threw);
    const hr::Phase failed = step.currentPhase();
    QVERIFY(failed == hr::Phase::Forward || failed == hr::Phase::Loss ||
            failed == hr::Phase::Backward);
    step.resetAccumulation();
    auto after = model->parameters();
    for (size_t i = 0; i < before.size(); ++i) {
        QVERIFY(torch::equal(before[i], after[i]));
        QVERIFY(!after[i].grad().defined());
    }
    // The same step succeeds without the budget and updates the weights.
    const hr::StepOutput out = step.step(batch);
    QVERIFY(out.optimizerStepped);
    QVERIFY(!torch::equal(before[0], model->parameters()[0]));
}

void TestTrainRun::endToEndRunFolder() {
    EventLog log;
    hr::TrainConfig config = tinyConfig("e2e", "train");
    hr::Trainer trainer(config, log.sink());
    QCOMPARE(trainer.run(), 0);
    QVERIFY2(log.failure.empty(), log.failure.c_str());
    QCOMPARE(int(log.epochs.size()), 2);
    const std::string dir = config.project + "/train";
    for (const char* file : {"config.yaml", "results.csv", "events.jsonl", "memory.csv",
                             "weights/last.pt", "weights/best.pt"})
        QVERIFY2(QFile::exists(QString::fromStdString(dir + "/" + file)), file);
    std::string csv;
    QVERIFY(hr::readFile(dir + "/results.csv", csv));
    QVERIFY(csv.rfind("epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),"
                      "metrics/recall(B),metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,"
                      "val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2,epoch_seconds,"
                      "images_per_s,peak_memory_bytes\n",
                      0) == 0);
    // The run reads back through the run store.
    std::string error;
    const auto run = hr::RunStore::load(dir, &error);
    QVERIFY2(run, error.c_str());
    QCOMPARE(int(run->epochs.size()), 2);
    QCOMPARE(run->epochs[1].epoch, 2);
    QVERIFY(run->epochs[0].boxLoss > 0);
    QVERIFY(run->epochs[0].peakMemoryBytes > 0);
    QVERIFY(run->summary.finished);
    QVERIFY(!run->memory.empty());
    QCOMPARE(run->events.front().type, std::string("run_started"));
    QCOMPARE(run->events.back().type, std::string("run_finished"));
    // Each validated epoch records validation's own peak, however short validation was.
    int validated = 0;
    for (const hr::EventRecord& e : run->events)
        if (e.type == "epoch_end") {
            QVERIFY2(e.number("val_peak_bytes") > 0, "epoch_end without val_peak_bytes");
            ++validated;
        }
    QCOMPARE(validated, 2);
    // best.pt is a model file: loadModel gives the EMA weights back.
    const hr::LoadedModel best = hr::loadModel(dir + "/weights/best.pt");
    QVERIFY2(best.model, best.error.c_str());
    QCOMPARE(best.model->nc(), int(best.classNames.size()));
    // ... with the training settings, so val and predict default to the training image size.
    const hr::TrainConfigResult stored = hr::parseTrainConfig(best.trainingConfigYaml, "best.pt");
    QVERIFY2(stored.config, best.trainingConfigYaml.c_str());
    QCOMPARE(stored.config->imgsz, config.imgsz);
    // A second run with the same name is numbered, never overwriting.
    QCOMPARE(QString::fromStdString(hr::RunFolder::nextFreePath(config.project, "train")),
             QString::fromStdString(config.project + "/train2"));
    const auto listed = hr::RunStore::list(config.project);
    QCOMPARE(int(listed.size()), 1);
    QCOMPARE(listed[0].epochsDone, 2);
    checkResultFiles(dir, *run);
}

// What the last validation found, as CSV and Ultralytics' plots, and the TensorBoard log.
void TestTrainRun::checkResultFiles(const std::string& dir, const hr::RunRecord& run) {
    hr::ValidationTables tables;
    std::string error;
    QVERIFY2(hr::loadValidationTables(dir, tables, &error), error.c_str());
    QCOMPARE(tables.perClass.front().name, std::string("all"));
    QVERIFY(std::abs(tables.perClass.front().ap - run.epochs.back().map) < 1e-5);
    QCOMPARE(tables.confusion.names.back(), std::string("background"));
    for (const std::string& file : hr::resultPlotFiles())
        QVERIFY2(QFile::exists(QString::fromStdString(dir + "/" + file)), file.c_str());
    const QStringList boards = QDir(QString::fromStdString(dir))
                                   .entryList({QStringLiteral("events.out.tfevents.*.headroom")});
    QCOMPARE(boards.size(), 1);
    std::vector<tfreader::Event> events;
    QVERIFY2(tfreader::readEvents(dir + "/" + boards[0].toStdString(), events, error),
             error.c_str());
    QCOMPARE(events.front().fileVersion, std::string("brain.Event:2"));
    std::map<std::pair<std::int64_t, std::string>, float> scalars;
    int memorySamples = 0;
    for (const auto& e : events)
        for (const auto& [tag, value] : e.scalars) {
            scalars[{e.step, tag}] = value;
            memorySamples += tag == "memory/allocated_MiB";
        }
    // results.csv holds 6 digits: the same numbers within that.
    const auto same = [](float a, double b) {
        return std::abs(a - b) <= 1e-5 * std::abs(b) + 1e-9;
    };
    for (const hr::EpochRecord& epoch : run.epochs) {
        const auto at = [&](const char* tag) { return scalars.at({epoch.epoch, tag}); };
        QVERIFY(same(at("train/box_loss"), epoch.boxLoss));
        QVERIFY(same(at("metrics/mAP50-95(B)"), epoch.map));
        QVERIFY(same(at("lr/pg0"), epoch.lr0));
        QVERIFY(at("memory/train_peak_MiB") > 0);
    }
    QCOMPARE(memorySamples, int(run.memory.size()));
}

void TestTrainRun::liveRunFolderShowsProgress() {
    // A reader of a run that is still training (the Runs page) sees that it started at once, and
    // its memory so far within RunFolder's flush interval, without an epoch or a flush() call.
    QTemporaryDir tmp;
    std::string error;
    std::optional<hr::RunFolder> folder =
        hr::RunFolder::create(tmp.path().toStdString(), "live", false, &error);
    QVERIFY2(folder, error.c_str());
    hr::RunStarted started;
    started.runDir = folder->path();
    QVERIFY(folder->addEvent(started));
    auto loaded = hr::RunStore::load(folder->path(), &error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(QString::fromStdString(loaded->events.at(0).type), QString("run_started"));

    hr::MemorySample sample;
    sample.allocated = 3 << 20;
    sample.peakSinceLastStep = 7 << 20;
    sample.phase = hr::Phase::Backward;
    QTRY_VERIFY_WITH_TIMEOUT((folder->addMemorySample(sample),
                              loaded = hr::RunStore::load(folder->path(), &error),
                              loaded && !loaded->memory.empty()),
                             3 * 1000 * int(hr::RunFolder::kFlushSeconds));
    QCOMPARE(QString::fromStdString(loaded->summary.state), QString("unfinished"));
    QCOMPARE(loaded->summary.peakMemoryBytes, std::int64_t(7) << 20);
    // It has lasted until its last write, though no event after the start says so.
    QVERIFY2(loaded->summary.durationSeconds >= hr::RunFolder::kFlushSeconds - 1.0,
             qPrintable(QString::number(loaded->summary.durationSeconds)));

    // A kill can tear the last appended line: a resumed run loses only that line.
    QVERIFY(folder->flush());
    const std::size_t samples = loaded->memory.size() + 1;
    {
        std::ofstream torn(folder->path() + "/events.jsonl", std::ios::app);
        torn << R"({"type":"batch_end","ti)";
    }
    // The killed writer is gone (its folder lock with it); a second writer while it lived
    // would be refused.
    const std::string path = folder->path();
    QVERIFY(!hr::RunFolder::open(path, &error));
    folder.reset();
    std::optional<hr::RunFolder> resumed = hr::RunFolder::open(path, &error);
    QVERIFY2(resumed, error.c_str());
    QVERIFY(resumed->addEvent(started));
    QVERIFY(resumed->flush());
    loaded = hr::RunStore::load(path, &error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(int(loaded->events.size()), 2);
    QCOMPARE(QString::fromStdString(loaded->events.at(1).type), QString("run_started"));
    QVERIFY(loaded->memory.size() >= samples - 1);
}

void TestTrainRun::resumeMatchesStraightRun() {
    EventLog straightLog;
    hr::TrainConfig config = tinyConfig("resume", "straight");
    config.threads = 1;
    {
        hr::Trainer straight(config, straightLog.sink());
        QCOMPARE(straight.run(), 0);
    }
    EventLog firstLog;
    config.name = "split";
    {
        hr::Trainer* self = nullptr;
        hr::Trainer first(config, firstLog.sink(&self));
        self = &first;
        QCOMPARE(first.run(), 0);
    }
    QCOMPARE(int(firstLog.epochs.size()), 1);
    EventLog secondLog;
    config.resume = true;
    {
        hr::Trainer second(config, secondLog.sink());
        QCOMPARE(second.run(), 0);
        QVERIFY2(secondLog.failure.empty(), secondLog.failure.c_str());
    }
    QCOMPARE(int(secondLog.epochs.size()), 1);
    QCOMPARE(secondLog.epochs[0].epoch, 1);
    const auto a = trainedWeights(config.project + "/straight/weights/last.pt");
    const auto b = trainedWeights(config.project + "/split/weights/last.pt");
    QCOMPARE(a.size(), b.size());
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].is_floating_point())
            worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
    QVERIFY2(worst == 0.0, qPrintable(QString("max weight difference %1").arg(worst)));
    const auto run = hr::RunStore::load(config.project + "/split");
    QVERIFY(run);
    QCOMPARE(int(run->epochs.size()), 2);
}

void TestTrainRun::oomRecoveryContinuesRun() {
    // Measure one training step of batch 4 and of batch 1 at 224 px, then give the run a budget
    // between the two: batch 4 must fail, batch 1 must fit. (224 px keeps the budget above the
    // smallest one the config accepts.)
    std::string error;
    auto probe = hr::makeProbe("cpu", &error);
    QVERIFY(probe);
    std::int64_t peak4 = 0, peak1 = 0;
    const int nc = static_cast<int>(hr::syntheticClassNames().size());
    {
        hr::TrainConfig config = tinyConfig("x", "x");
        config.batch = 4;
        hr::DetectionModel model = makeModel(nc, 1);
        hr::TrainStep step(config, model, nc, torch::kCPU);
        step.step(makeBatch(4, 224, 1)); // first step allocates optimizer state
        step.step(makeBatch(4, 224, 1));
        probe->resetPeak();
        step.step(makeBatch(4, 224, 2));
        peak4 = probe->peak();
        config.batch = 1;
        step.applyConfig(config);
        probe->resetPeak();
        step.step(makeBatch(1, 224, 2));
        peak1 = probe->peak();
    }
    QVERIFY2(peak4 > peak1, qPrintable(QString("%1 %2").arg(peak4).arg(peak1)));

    EventLog log;
    hr::TrainConfig config = tinyConfig("oom", "train");
    config.batch = 4;
    config.imgsz = 224;
    config.val_batch = 1;
    config.memory_budget = (peak1 + peak4) / 2;
    QVERIFY2(config.memory_budget > 64 * 1024 * 1024,
             qPrintable(QString("budget %1 below the accepted minimum").arg(config.memory_budget)));
    hr::Trainer trainer(config, log.sink());
    int calls = 0;
    trainer.setOomHandler([&calls](const hr::OomReport& report) {
        ++calls;
        hr::OomDecision decision;
        decision.stop = false;
        decision.config = report.config;
        decision.config.batch = std::max(1, report.config.batch / 4);
        decision.fixId = "smaller-batch";
        decision.description = "batch / 4";
        decision.predictedPeak = 1;
        decision.speedFactor = 4.0;
        return decision;
    });
    int rc = -1;
    {
        const hr::testing::CpuBudgetGuard lift; // the run sets its memory_budget
        rc = trainer.run();
    }
    QVERIFY2(rc == 0, log.failure.c_str());
    QVERIFY(calls >= 1);
    QVERIFY(!log.ooms.empty());
    QVERIFY(log.ooms[0].report.requestedBytes > 0);
    QCOMPARE(log.ooms[0].report.budgetBytes, config.memory_budget);
    QCOMPARE(log.fixes.size(), log.ooms.size());
    QCOMPARE(log.fixes[0].config.batch, 1);
    QCOMPARE(int(log.checks.size()), 1);
    QVERIFY(log.checks[0].measuredPeak > 0);
    QVERIFY(log.checks[0].measuredPeak <= config.memory_budget);
    // The steps after the fix are timed (fewer than kFixCheckSteps: the run ends first).
    QVERIFY(log.checks[0].timedSteps > 0);
    QVERIFY(log.checks[0].measuredSecondsPerImage > 0);
    const std::string dir = config.project + "/train";
    const auto run = hr::RunStore::load(dir);
    QVERIFY(run);
    QCOMPARE(int(run->epochs.size()), 2); // every epoch exactly once
    QCOMPARE(run->epochs[0].epoch, 1);
    QCOMPARE(run->epochs[1].epoch, 2);
    int oomLines = 0, fixLines = 0;
    for (const auto& e : run->events) {
        oomLines += e.type.find("oom") != std::string::npos;
        fixLines += e.type.find("fix") != std::string::npos;
    }
    QCOMPARE(oomLines, int(log.ooms.size()));
    QCOMPARE(fixLines, int(log.fixes.size() + log.checks.size()));
    QVERIFY(QFile::exists(QString::fromStdString(dir + "/oom-1.json")));
}

void TestTrainRun::noHandlerStopsWithLastWeights() {
    EventLog log;
    hr::TrainConfig config = tinyConfig("nohandler", "train");
    config.memory_budget = 30 * 1024 * 1024; // model + EMA fit (~24 MB), a step does not
    hr::Trainer trainer(config, log.sink());
    int rc = -1;
    {
        const hr::testing::CpuBudgetGuard lift; // the run sets its memory_budget
        rc = trainer.run();
    }
    QCOMPARE(rc, 1);
    QVERIFY(!log.ooms.empty());
    QVERIFY2(log.failure.find("out of memory") != std::string::npos, log.failure.c_str());
    QVERIFY(QFile::exists(QString::fromStdString(config.project + "/train/weights/last.pt")));
}

/// Text a user reads: one line, no C++ backtrace.
void checkUserText(const std::string& text) {
    QVERIFY2(!text.empty(), "no reason given");
    QVERIFY2(text.find("frame #") == std::string::npos, text.c_str());
    QVERIFY2(text.find("Exception raised") == std::string::npos, text.c_str());
    QVERIFY2(text.find('\n') == std::string::npos, text.c_str());
}

void TestTrainRun::damagedCheckpointFallsBackToBackup() {
    hr::TrainConfig config = tinyConfig("torn", "run");
    {
        EventLog log;
        hr::Trainer trainer(config, log.sink());
        QCOMPARE(trainer.run(), 0);
    }
    const std::string weights = config.project + "/run/weights/";
    QVERIFY(QFile::exists(QString::fromStdString(weights + "last.pt.bak"))); // epoch 1's end
    // A torn write: last.pt cut in half.
    QFile last(QString::fromStdString(weights + "last.pt"));
    const qint64 size = last.size();
    QVERIFY(last.resize(size / 2));

    config.resume = true; // a resumed run keeps its stored settings: 2 epochs
    {
        EventLog log;
        hr::Trainer trainer(config, log.sink());
        QCOMPARE(trainer.run(), 0);
        bool warned = false;
        for (const hr::LogMessage& m : log.logs)
            if (m.level == hr::LogMessage::Level::Warning &&
                m.text.find("last.pt.bak") != std::string::npos) {
                warned = true;
                checkUserText(m.text);
                QVERIFY2(m.text.find("damaged") != std::string::npos, m.text.c_str());
            }
        QVERIFY(warned);
        // The backup held epoch 1's end: epoch 2 ran again (one epoch lost, not both).
        QCOMPARE(int(log.epochs.size()), 1);
        QCOMPARE(log.epochs.front().epoch, 1);
    }
    // Both damaged: the run fails with the file named and what to do, as one line.
    QVERIFY(QFile(QString::fromStdString(weights + "last.pt")).resize(100));
    QVERIFY(QFile(QString::fromStdString(weights + "last.pt.bak")).resize(100));
    EventLog log;
    hr::Trainer trainer(config, log.sink());
    QVERIFY(trainer.run() != 0);
    QCOMPARE(int(log.ends.size()), 1);
    QCOMPARE(int(log.ends[0].state), int(hr::RunState::Failed));
    const std::string& why = log.ends[0].reason;
    checkUserText(why);
    QVERIFY2(why.find(weights + "last.pt") != std::string::npos, why.c_str());
    QVERIFY2(why.find("damaged") != std::string::npos, why.c_str());
}

void TestTrainRun::unwritableProjectIsOneLine() {
    // A project "folder" that is a file: nobody can create the run folder in it (a read-only
    // folder would not stop root, who runs CI in containers).
    const QString file = m_dir.filePath("not-a-folder");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    hr::TrainConfig config = tinyConfig("unused", "run");
    config.project = (file + "/runs").toStdString();
    EventLog log;
    hr::Trainer trainer(config, log.sink());
    QVERIFY(trainer.run() != 0);
    QCOMPARE(int(log.ends.size()), 1);
    QCOMPARE(int(log.ends[0].state), int(hr::RunState::Failed));
    checkUserText(log.ends[0].reason);
    QVERIFY2(log.ends[0].reason.find("choose a project folder you can write") != std::string::npos,
             log.ends[0].reason.c_str());
    QCOMPARE(log.failure, log.ends[0].reason);
}

void TestTrainRun::stopEndsWithStoppedState() {
    hr::TrainConfig config = tinyConfig("stop", "run");
    config.epochs = 3;
    EventLog log;
    hr::Trainer* self = nullptr;
    hr::EventSink inner = log.sink();
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        inner(event);
        if (std::holds_alternative<hr::BatchEnd>(event) && !log.stopSent) {
            log.stopSent = true;
            self->requestStop();
        }
    });
    self = &trainer;
    QCOMPARE(trainer.run(), 0);
    QCOMPARE(log.batchesAfterStop, 0); // no further step completed
    QCOMPARE(int(log.ends.size()), 1);
    QCOMPARE(int(log.ends[0].state), int(hr::RunState::Stopped));
    QVERIFY(log.ends[0].stoppedByUser);
    const auto run = hr::RunStore::load(log.ends[0].runDir);
    QVERIFY(run);
    QFile events(QString::fromStdString(log.ends[0].runDir + "/events.jsonl"));
    QVERIFY(events.open(QIODevice::ReadOnly));
    QVERIFY(events.readAll().contains("\"state\":\"stopped\""));
}

void TestTrainRun::stopDuringValidationKeepsTheEpoch() {
    // A stop after an epoch's last step reaches validation: the epoch's training is complete,
    // so its row and last.pt are kept (without metrics, as with val=false).
    hr::TrainConfig config = tinyConfig("valstop", "run");
    EventLog log;
    {
        hr::Trainer* self = nullptr;
        hr::EventSink inner = log.sink();
        hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
            inner(event);
            const auto* end = std::get_if<hr::BatchEnd>(&event);
            if (end && end->batchIndex + 1 == end->batchesPerEpoch && !log.stopSent) {
                log.stopSent = true;
                self->requestStop();
            }
        });
        self = &trainer;
        QCOMPARE(trainer.run(), 0);
    } // its run folder's lock goes with it
    QCOMPARE(int(log.ends.size()), 1);
    QCOMPARE(int(log.ends[0].state), int(hr::RunState::Stopped));
    QCOMPARE(log.ends[0].epochsDone, 1);
    bool skipped = false;
    for (const hr::LogMessage& m : log.logs)
        skipped = skipped || m.code == hr::toString(hr::LogCode::ValidationSkipped);
    QVERIFY(skipped);
    QCOMPARE(int(log.epochs.size()), 1);
    QCOMPARE(log.epochs[0].map, 0.0);
    const std::string dir = log.ends[0].runDir;
    auto run = hr::RunStore::load(dir);
    QVERIFY(run);
    QCOMPARE(int(run->epochs.size()), 1);

    // The resume goes on with the second epoch and validates it.
    config.resume = true;
    EventLog second;
    {
        hr::Trainer resumed(config, second.sink());
        const int resumedRc = resumed.run();
        QVERIFY2(resumedRc == 0, second.failure.c_str());
    }
    QCOMPARE(int(second.epochs.size()), 1);
    QCOMPARE(second.epochs[0].epoch, 1);
    run = hr::RunStore::load(dir);
    QVERIFY(run);
    QCOMPARE(int(run->epochs.size()), 2);
}

void TestTrainRun::hostAllocationFailureKeepsTheEpoch_data() {
    QTest::addColumn<QString>("fault");
    QTest::addColumn<bool>("autoFix");
    QTest::addColumn<int>("rc");
    QTest::addColumn<int>("rows"); // results.csv rows after the run
    // In a step on the CPU: host RAM is the device's memory there, so auto takes a smaller
    // batch (no host fix applies: no workers, no cache, no mosaic).
    QTest::newRow("forward, auto") << QString("forward:2") << true << 0 << 2;
    // Writing last.pt: the write is tried again after freeing the validation loader, even
    // without a fix.
    QTest::newRow("checkpoint") << QString("checkpoint:1") << false << 0 << 2;
    // Validating, with no fix chosen: the finished epoch keeps its row and last.pt.
    QTest::newRow("validation") << QString("validation:1") << false << 1 << 1;
}

void TestTrainRun::hostAllocationFailureKeepsTheEpoch() {
    QFETCH(QString, fault);
    QFETCH(bool, autoFix);
    QFETCH(int, rc);
    QFETCH(int, rows);
    hr::TrainConfig config = tinyConfig("hostfault", QString(fault).replace(':', '_'));
    config.mosaic = 0.0;
    EventLog log;
    {
        qputenv("HEADROOM_TEST_HOST_ALLOC_FAIL", fault.toUtf8());
        hr::Trainer trainer(config, log.sink());
        qunsetenv("HEADROOM_TEST_HOST_ALLOC_FAIL");
        if (autoFix)
            trainer.setOomHandler(hr::makeAdvisorHandler(hr::OomPolicy::Auto, {}, {}));
        QCOMPARE(trainer.run(), rc);
    } // its run folder's lock goes with it
    QCOMPARE(int(log.ooms.size()), 1);
    const hr::OomReport& report = log.ooms[0].report;
    QVERIFY(report.hostMemory);
    QCOMPARE(QString(hr::toString(report.phase)), fault.section(':', 0, 0));
    if (autoFix) {
        QCOMPARE(int(log.fixes.size()), 1);
        QVERIFY2(log.fixes[0].config.batch < config.batch, log.fixes[0].description.c_str());
    }
    QCOMPARE(int(log.ends.size()), 1);
    const std::string dir = log.ends[0].runDir;
    const auto run = hr::RunStore::load(dir);
    QVERIFY(run);
    QCOMPARE(int(run->epochs.size()), rows);
    QCOMPARE(int(log.epochs.size()), rows);
    QVERIFY(QFile::exists(QString::fromStdString(dir + "/weights/last.pt")));
    if (rc == 0)
        return;
    QCOMPARE(int(log.ends[0].state), int(hr::RunState::StoppedByOom));
    checkUserText(log.ends[0].reason);
    // last.pt holds the finished epoch: the resume trains the second one only.
    config.resume = true;
    EventLog second;
    {
        hr::Trainer resumed(config, second.sink());
        const int resumedRc = resumed.run();
        QVERIFY2(resumedRc == 0, second.failure.c_str());
    }
    QCOMPARE(int(second.epochs.size()), 1);
    QCOMPARE(second.epochs[0].epoch, 1);
}

void TestTrainRun::liveSamplesArriveDuringAStep() {
    // One step made long with a large image: the live sink must see the sampler's points
    // while it runs (from the sampler's thread), not only the batch's worth after it ends.
    hr::TrainConfig config = tinyConfig("live", "run");
    config.epochs = 1;
    config.imgsz = 640;
    config.memory_sample_hz = 20;
    EventLog log;
    hr::Trainer* self = nullptr;
    hr::EventSink inner = log.sink();
    const std::thread::id runThread = std::this_thread::get_id();
    std::atomic<int> inStep{0}, fromRunThread{0};
    int inStepAtFirstBatchEnd = -1;
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        inner(event);
        if (std::holds_alternative<hr::BatchEnd>(event) && !log.stopSent) {
            inStepAtFirstBatchEnd = inStep.load();
            log.stopSent = true;
            self->requestStop();
        }
    });
    trainer.setLiveSampleSink([&](const hr::MemorySample& sample) {
        const bool stepPhase =
            sample.phase == hr::Phase::Forward || sample.phase == hr::Phase::Loss ||
            sample.phase == hr::Phase::Backward || sample.phase == hr::Phase::Optimizer;
        if (!stepPhase)
            return;
        ++inStep;
        fromRunThread += std::this_thread::get_id() == runThread;
    });
    self = &trainer;
    QCOMPARE(trainer.run(), 0);
    qInfo("%d samples inside the first 640 px step", inStepAtFirstBatchEnd);
    // At 20 Hz a step of half a second gives 10; this step takes longer on any CPU.
    QVERIFY2(inStepAtFirstBatchEnd >= 5, qPrintable(QString::number(inStepAtFirstBatchEnd)));
    QCOMPARE(fromRunThread.load(), 0);
}

QTEST_APPLESS_MAIN(TestTrainRun)
#include "test_train_run.moc"
