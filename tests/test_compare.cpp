// SPDX-License-Identifier: GPL-3.0-or-later
// Strategy comparison (issue 9): the strategies file, the Pareto front, and a tiny matrix run
// end to end - one row per strategy measured from its run folder, AMP and checkpointing below
// native's peak at the same batch, an OOM recorded as a row, the CSV and the HTML report.
#include "compare/class_comparison.h"
#include "compare/compare_report.h"
#include "compare/comparison.h"
#include "compare/measured_accuracy.h"
#include "compare/strategy.h"
#include "compare/strategy_runner.h"
#include "config/train_rules.h"
#include "data/synthetic_dataset.h"
#include "model/model_builder.h"
#include "model/model_io.h"
#include "train/event_json.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace {

/// Splits one CSV line, honouring quoted fields.
std::vector<std::string> csvCells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                cells.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                cells.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    return cells;
}

size_t count(const std::string& text, const std::string& word) {
    size_t n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
        ++n;
    return n;
}

hr::Strategy strategy(const std::string& name,
                      std::vector<std::pair<std::string, std::string>> overrides) {
    hr::Strategy s;
    s.name = name;
    s.overrides = std::move(overrides);
    return s;
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void batchExpressions();
    void defaultMatrixFollowsBaseBatch();
    void parsesStrategiesFile();
    void badStrategiesNameTheLine_data();
    void badStrategiesNameTheLine();
    void paretoFrontOnHandMadePoints();
    void peaksSplitTrainingFromValidation();
    void eventTimesKeepMilliseconds();
    void failureReasonCodesRoundTrip();
    void checksStrategiesWithoutAFile();
    void strategiesYamlRoundTrip();
    void matrixRunEndToEnd();
    void strategiesStartFromTheSameWeights();
    void classesSideBySide();

private:
    QTemporaryDir m_dir;
    std::string m_data;
};

void TestCompare::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::SyntheticOptions options;
    options.train = 8;
    options.val = 4;
    options.imgsz = 128;
    std::string error;
    const std::string dir = m_dir.filePath("data").toStdString();
    QVERIFY2(hr::makeSyntheticDataset(dir, options, &error), error.c_str());
    m_data = dir + "/data.yaml";
}

void TestCompare::batchExpressions() {
    QCOMPARE(hr::resolveBatchExpression("B", 16), std::string("16"));
    QCOMPARE(hr::resolveBatchExpression("B/4", 16), std::string("4"));
    QCOMPARE(hr::resolveBatchExpression(" B / 8 * 8 ", 12), std::string("8"));
    QCOMPARE(hr::resolveBatchExpression("B/8", 4), std::string("1")); // at least one image
    QCOMPARE(hr::resolveBatchExpression("B*2", 3), std::string("6"));
    QCOMPARE(hr::resolveBatchExpression("Bx", 16), std::string("Bx"));
    QCOMPARE(hr::resolveBatchExpression("true", 16), std::string("true"));
}

void TestCompare::defaultMatrixFollowsBaseBatch() {
    const std::vector<hr::Strategy> matrix = hr::defaultStrategies();
    QCOMPARE(matrix.size(), size_t(5));
    hr::TrainConfig base;
    base.batch = 16;
    base.name = "exp";
    base.amp = true;
    struct Expected {
        int batch, accumulate;
        bool amp;
        hr::Checkpointing checkpointing;
    };
    const Expected expected[] = {{16, 1, false, hr::Checkpointing::None},
                                 {4, 4, false, hr::Checkpointing::None},
                                 {4, 1, true, hr::Checkpointing::None},
                                 {2, 8, true, hr::Checkpointing::None},
                                 {4, 1, true, hr::Checkpointing::All}};
    for (size_t i = 0; i < matrix.size(); ++i) {
        hr::Diagnostics problems;
        const auto config = hr::applyStrategy(base, matrix[i], problems);
        QVERIFY2(config, hr::formatDiagnostics(problems).c_str());
        QCOMPARE(config->batch, expected[i].batch);
        QCOMPARE(hr::accumulateSteps(*config), expected[i].accumulate);
        QCOMPARE(config->amp, expected[i].amp);
        QCOMPARE(config->checkpointing, expected[i].checkpointing);
        QCOMPARE(config->on_oom, hr::OomPolicy::Stop);
        QCOMPARE(config->name, "exp-" + matrix[i].name);
        QVERIFY(matrix[i].claim && matrix[i].claim->memoryGb > 0);
    }
}

void TestCompare::parsesStrategiesFile() {
    const hr::StrategiesResult r =
        hr::parseStrategies("strategies:\n"
                            "  - name: native\n"
                            "    overrides: {batch: B}\n"
                            "    claim: {memory_gb: 22.5, map50: 0.682}\n"
                            "  - name: q-amp\n"
                            "    description: quarter batch, AMP\n"
                            "    overrides:\n"
                            "      batch: B/4\n"
                            "      amp: true\n"
                            "      freeze: [0, 1]\n",
                            "s.yaml");
    QVERIFY2(!hr::hasErrors(r.diagnostics), hr::formatDiagnostics(r.diagnostics).c_str());
    QCOMPARE(r.strategies.size(), size_t(2));
    QVERIFY(r.strategies[0].claim.has_value());
    QCOMPARE(r.strategies[0].claim->memoryGb, 22.5);
    QCOMPARE(r.strategies[0].claim->map50, 0.682);
    QVERIFY(!r.strategies[1].claim);
    QCOMPARE(r.strategies[1].description, std::string("quarter batch, AMP"));
    hr::TrainConfig base;
    base.batch = 32;
    hr::Diagnostics problems;
    const auto config = hr::applyStrategy(base, r.strategies[1], problems);
    QVERIFY(config);
    QCOMPARE(config->batch, 8);
    QVERIFY(config->amp);
    QCOMPARE(config->freeze, (std::vector<int>{0, 1}));

    // A bare list works too.
    const hr::StrategiesResult list =
        hr::parseStrategies("- {name: a, overrides: {batch: 2}}\n- {name: b}\n", "l.yaml");
    QVERIFY2(!hr::hasErrors(list.diagnostics), hr::formatDiagnostics(list.diagnostics).c_str());
    QCOMPARE(list.strategies.size(), size_t(2));
}

void TestCompare::badStrategiesNameTheLine_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("words");
    QTest::newRow("unknown setting") << "- name: a\n  overrides: {batch: 4}\n- name: b\n"
                                        "  overrides:\n    btach: 4\n"
                                     << 5 << "batch";
    QTest::newRow("bad value") << "- name: a\n  overrides:\n    amp: maybe\n" << 3 << "amp";
    QTest::newRow("unknown strategy key") << "- name: a\n  overides: {batch: 4}\n"
                                          << 2 << "overrides";
    QTest::newRow("duplicate name") << "- name: a\n- name: b\n- name: a\n" << 3 << "second";
    QTest::newRow("no name") << "- name: a\n- overrides: {batch: 2}\n" << 2 << "no name";
    QTest::newRow("name with a slash") << "- name: a/b\n" << 1 << "folder";
    QTest::newRow("claim not a number") << "- name: a\n  claim:\n    memory_gb: lots\n"
                                        << 3 << "number";
    QTest::newRow("mAP in percent") << "- name: a\n  claim: {map50: 68}\n" << 2 << "fraction";
    QTest::newRow("broken YAML") << "- name: a\n  overrides: {batch: 4\n" << 3 << "YAML";
    QTest::newRow("not a list") << "strategies: 3\n" << 1 << "no list";
}

void TestCompare::badStrategiesNameTheLine() {
    QFETCH(QString, yaml);
    QFETCH(int, line);
    QFETCH(QString, words);
    const hr::StrategiesResult r = hr::parseStrategies(yaml.toStdString(), "bad.yaml");
    QVERIFY(r.strategies.empty());
    QVERIFY(hr::hasErrors(r.diagnostics));
    const std::string text = hr::formatDiagnostics(r.diagnostics);
    QVERIFY2(text.find("bad.yaml:" + std::to_string(line) + ":") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find(words.toStdString()) != std::string::npos, text.c_str());

    // The same through a file on disk.
    const std::string path = m_dir.filePath("bad.yaml").toStdString();
    QVERIFY(hr::writeFileAtomically(path, yaml.toStdString()));
    const hr::StrategiesResult fromFile = hr::loadStrategies(path);
    QVERIFY(fromFile.strategies.empty());
    QVERIFY(hr::formatDiagnostics(fromFile.diagnostics).find(path + ":" + std::to_string(line)) !=
            std::string::npos);
}

void TestCompare::paretoFrontOnHandMadePoints() {
    // (memory, mAP): lower memory and higher mAP are better.
    const std::vector<std::pair<double, double>> points = {
        {100, 0.60}, // front: the best mAP
        {50, 0.55},  // front
        {60, 0.50},  // dominated by (50, 0.55)
        {20, 0.30},  // front: the least memory
        {50, 0.55},  // equal to a front point: kept
        {120, 0.60}, // dominated by (100, 0.60): same mAP, more memory
        {30, 0.30},  // dominated by (20, 0.30)
    };
    const std::vector<size_t> front = hr::paretoFront(points);
    QCOMPARE(front, (std::vector<size_t>{3, 1, 4, 0}));
    QVERIFY(hr::paretoFront({}).empty());
    QCOMPARE(hr::paretoFront({{1, 1}}), std::vector<size_t>{0});

    hr::Comparison c;
    for (const auto& [memory, map] : points) {
        hr::ComparisonRow row;
        row.status = "done";
        row.hasMetrics = true;
        row.trainPeakBytes = static_cast<std::int64_t>(memory);
        row.valPeakBytes = 1; // the front is of training peaks: validation does not count
        row.map = map;
        c.rows.push_back(row);
    }
    c.rows[2].status = "OOM"; // an OOM row is never on the front, even when it would be
    c.rows[2].map = 0.99;
    hr::markParetoFront(c);
    std::vector<bool> marked;
    for (const auto& row : c.rows)
        marked.push_back(row.pareto);
    QCOMPARE(marked, (std::vector<bool>{true, true, false, true, true, false, false}));
}

void TestCompare::peaksSplitTrainingFromValidation() {
    // The trainer records both peaks apart: batch_end and epoch_end's train_peak_bytes are the
    // training steps', epoch_end's val_peak_bytes validation's. The combined peak_bytes and the
    // memory samples decide nothing.
    hr::RunRecord run;
    const auto event = [&](const std::string& type, std::map<std::string, std::string> fields) {
        hr::EventRecord e;
        e.type = type;
        e.fields = std::move(fields);
        run.events.push_back(e);
    };
    event("run_started", {});
    event("batch_end", {{"epoch", "0"}, {"peak_bytes", "80"}});
    event("batch_end", {{"epoch", "0"}, {"peak_bytes", "100"}});
    event("epoch_end", {{"epoch", "0"},
                        {"peak_bytes", "150"},
                        {"train_peak_bytes", "100"},
                        {"val_peak_bytes", "150"}});
    event("batch_end", {{"epoch", "1"}, {"peak_bytes", "120"}});
    event("epoch_end", {{"epoch", "1"},
                        {"peak_bytes", "125"},
                        {"train_peak_bytes", "125"},
                        {"val_peak_bytes", "70"}});
    hr::MemorySample s;
    s.phase = hr::Phase::Validation;
    s.allocated = s.peakSinceLastStep = 900;
    run.memory.push_back(s);
    hr::RunPeaks peaks = hr::runPeaks(run);
    QCOMPARE(peaks.trainPeak(), std::int64_t(125));
    QCOMPARE(peaks.valPeak(), std::int64_t(150));

    // A run folder from before train_peak_bytes: batch_end says the training peak; one from
    // before val_peak_bytes has no validation peak (not a guess from the combined one).
    run.events.clear();
    event("batch_end", {{"epoch", "0"}, {"peak_bytes", "100"}});
    event("epoch_end", {{"epoch", "0"}, {"peak_bytes", "150"}});
    peaks = hr::runPeaks(run);
    QCOMPARE(peaks.trainPeak(), std::int64_t(100));
    QCOMPARE(peaks.valPeak(), std::int64_t(0));

    // An OOM's peak counts where it happened.
    event("oom", {{"phase", "validation"}, {"peak_bytes", "400"}});
    event("oom", {{"phase", "forward"}, {"peak_bytes", "300"}});
    peaks = hr::runPeaks(run);
    QCOMPARE(peaks.trainPeak(), std::int64_t(300));
    QCOMPARE(peaks.valPeak(), std::int64_t(400));

    // The row reads both, the memory ratio and the Pareto front use the training peak.
    hr::Comparison c;
    for (const auto& [train, val, map] :
         std::vector<std::tuple<int, int, double>>{{100, 500, 0.5}, {50, 900, 0.5}}) {
        hr::ComparisonRow row;
        row.status = "done";
        row.hasMetrics = true;
        row.trainPeakBytes = train;
        row.valPeakBytes = val;
        row.map = map;
        c.rows.push_back(row);
    }
    hr::markParetoFront(c);
    QVERIFY(!c.rows[0].pareto);
    QVERIFY(c.rows[1].pareto);
    QCOMPARE(*hr::measuredMemoryRatio(c, 1), 0.5);
}

void TestCompare::eventTimesKeepMilliseconds() {
    // A unix time has ten digits before the point: events.jsonl keeps three after it.
    const double now = 1795996020.125;
    const std::string line =
        hr::eventToJson(hr::LogMessage{hr::LogMessage::Level::Info, "x", {}, {}}, now);
    QVERIFY2(line.find("\"time\":1795996020.125") != std::string::npos, line.c_str());
    const auto parsed = hr::RunStore::parseEvent(line);
    QVERIFY(parsed);
    QCOMPARE(parsed->time, now);
}

void TestCompare::failureReasonCodesRoundTrip() {
    // A failure's code and values reach events.jsonl and come back unchanged (quotes, slashes,
    // line breaks and non-ASCII included), for the Runs page to word them.
    hr::RunFailed failed{"out of memory",
                         hr::RunState::StoppedByOom,
                         "oom_no_fix",
                         {"forward", "1", "2", "runs/训练 \"a\"\\b\nc/last.pt"}};
    const auto parsed = hr::RunStore::parseEvent(hr::eventToJson(failed, 1.0));
    QVERIFY(parsed);
    QCOMPARE(parsed->text("reason_code"), failed.code);
    QVERIFY(parsed->texts("reason_args") == failed.args);
    hr::RunFinished finished;
    finished.state = hr::RunState::Failed;
    finished.reason = "x";
    finished.reasonCode = "aborted";
    finished.reasonArgs = {"y"};
    const auto end = hr::RunStore::parseEvent(hr::eventToJson(finished, 1.0));
    QVERIFY(end);
    QCOMPARE(end->text("reason_code"), std::string("aborted"));
    QVERIFY(end->texts("reason_args") == finished.reasonArgs);
    // Uncoded reasons write no code.
    hr::RunFailed uncoded;
    uncoded.message = "bad";
    const auto plain = hr::RunStore::parseEvent(hr::eventToJson(uncoded, 1.0));
    QVERIFY(plain);
    QVERIFY(plain->text("reason_code").empty());
    QVERIFY(plain->texts("reason_args").empty());
}

void TestCompare::checksStrategiesWithoutAFile() {
    QVERIFY2(hr::checkStrategies(hr::defaultStrategies()).empty(),
             hr::formatDiagnostics(hr::checkStrategies(hr::defaultStrategies())).c_str());
    const auto problems = [](const hr::Strategy& s) {
        return hr::formatDiagnostics(hr::checkStrategy(s));
    };
    std::string text = problems(strategy("zero", {{"batch", "0"}}));
    QVERIFY2(text.find("strategy 'zero'") != std::string::npos, text.c_str());
    QVERIFY2(text.find("batch") != std::string::npos, text.c_str());
    text = problems(strategy("typo", {{"btach", "4"}}));
    QVERIFY2(text.find("did you mean 'batch'") != std::string::npos, text.c_str());
    text = problems(strategy("a/b", {}));
    QVERIFY2(text.find("folder name") != std::string::npos, text.c_str());
    text = problems(strategy("", {{"amp", "true"}}));
    QVERIFY2(text.find("no name") != std::string::npos, text.c_str());
    text = problems(strategy("twice", {{"amp", "true"}, {"amp", "false"}}));
    QVERIFY2(text.find("set twice") != std::string::npos, text.c_str());
    text = problems(strategy("nokey", {{"", "3"}}));
    QVERIFY2(text.find("without a name") != std::string::npos, text.c_str());
    hr::Strategy claimed = strategy("claimed", {});
    claimed.claim = hr::PublishedClaim{1, 2, 68, ""};
    QVERIFY(problems(claimed).find("fraction") != std::string::npos);
    QVERIFY(hr::checkStrategy(strategy("fine", {{"batch", "B/4"}, {"amp", "on"}})).empty());

    const std::string list = hr::formatDiagnostics(
        hr::checkStrategies({strategy("a", {}), strategy("b", {}), strategy("a", {})}));
    QVERIFY2(list.find("second strategy named 'a'") != std::string::npos, list.c_str());
    QVERIFY(hr::hasErrors(hr::checkStrategies({})));
}

void TestCompare::strategiesYamlRoundTrip() {
    std::vector<hr::Strategy> strategies = hr::defaultStrategies();
    hr::Strategy odd = strategy("odd.name_2", {{"batch", "B*2"},
                                               {"freeze", "[0, 1]"},
                                               {"lr0", "0.005"},
                                               {"project", "runs/odd dir"},
                                               {"amp", "true"}});
    odd.description = "a: description # with YAML syntax";
    strategies.push_back(odd);
    hr::Strategy bare = strategy("bare", {});
    bare.claim = hr::PublishedClaim{0.1, 0, 0.5, "my notes"};
    strategies.push_back(bare);

    const std::string path = m_dir.filePath("roundtrip.yaml").toStdString();
    std::string error;
    QVERIFY2(hr::saveStrategies(strategies, path, &error), error.c_str());
    const hr::StrategiesResult back = hr::loadStrategies(path);
    QVERIFY2(!hr::hasErrors(back.diagnostics), hr::formatDiagnostics(back.diagnostics).c_str());
    QCOMPARE(back.strategies.size(), strategies.size());
    for (size_t i = 0; i < strategies.size(); ++i) {
        const hr::Strategy& a = strategies[i];
        const hr::Strategy& b = back.strategies[i];
        QCOMPARE(b.name, a.name);
        QCOMPARE(b.description, a.description);
        QCOMPARE(b.overrides, a.overrides);
        QCOMPARE(b.claim.has_value(), a.claim.has_value());
        if (a.claim) {
            QCOMPARE(b.claim->memoryGb, a.claim->memoryGb);
            QCOMPARE(b.claim->epochMinutes, a.claim->epochMinutes);
            QCOMPARE(b.claim->map50, a.claim->map50);
            QCOMPARE(b.claim->source, a.claim->source);
        }
    }
    // Saved again, the text is the same.
    QCOMPARE(hr::strategiesToYaml(back.strategies), hr::strategiesToYaml(strategies));
}

void TestCompare::matrixRunEndToEnd() {
    hr::TrainConfig base;
    base.model = "yolov8n.yaml";
    base.data = m_data;
    base.epochs = 1;
    base.batch = 8;
    base.imgsz = 128;
    base.workers = 0;
    base.threads = 2;
    base.project = m_dir.filePath("runs").toStdString();
    base.name = "cmp";
    base.amp = false;
    base.optimizer = "SGD";
    base.warmup_epochs = 0;
    base.close_mosaic = 0;
    base.memory_sample_hz = 50;
    const std::vector<hr::Strategy> strategies = {
        strategy("native", {{"batch", "B"}, {"nbs", "B"}}),
        strategy("amp", {{"batch", "B"}, {"nbs", "B"}, {"amp", "true"}}),
        strategy("ckpt", {{"batch", "B"}, {"nbs", "B"}, {"checkpointing", "all"}}),
        strategy("small-budget", {{"batch", "B*2"}, {"imgsz", "160"}, {"memory_budget", "64MiB"}}),
    };
    hr::StrategyRunner runner(base, strategies);
    std::vector<size_t> started;
    runner.setEventSink([&](size_t index, const hr::TrainEvent& event) {
        if (std::holds_alternative<hr::RunStarted>(event))
            started.push_back(index);
    });
    hr::Comparison c = runner.run();
    QCOMPARE(started, (std::vector<size_t>{0, 1, 2, 3}));
    QCOMPARE(c.rows.size(), strategies.size());
    for (size_t i = 0; i < 3; ++i) {
        const hr::ComparisonRow& row = c.rows[i];
        QVERIFY2(row.status == "done",
                 (row.strategy + ": " + row.status + " " + row.message).c_str());
        QCOMPARE(row.strategy, strategies[i].name);
        QCOMPARE(QDir(QString::fromStdString(row.runDir)).dirName().toStdString(),
                 "cmp-" + strategies[i].name);
        QVERIFY(row.hasMetrics);
        QCOMPARE(row.batch, 8);
        QCOMPARE(row.accumulate, 1);
        QCOMPARE(row.run.epochs.size(), size_t(1));
        QVERIFY(row.trainPeakBytes > 0);
        QVERIFY(row.valPeakBytes > 0); // sampled at 50 Hz during validation
        QVERIFY(row.meanEpochSeconds > 0);
        QVERIFY(row.imagesPerSecond > 0);
        QVERIFY(row.map >= 0 && row.map <= row.map50 && row.map50 <= 1);
        QVERIFY(!row.run.memory.empty());
        // mAP over wall time comes from the events' times: the epoch ends after its own
        // seconds (and the checkpoint it saves) have passed since the run started.
        const auto wall = row.mapOverWallTime();
        QCOMPARE(wall.size(), size_t(1));
        QVERIFY2(wall[0].first >= row.run.epochs[0].epochSeconds - 0.01,
                 (std::to_string(wall[0].first) + " s vs epoch " +
                  std::to_string(row.run.epochs[0].epochSeconds) + " s")
                     .c_str());
    }
    QVERIFY(c.rows[1].amp);
    QCOMPARE(c.rows[2].checkpointing, std::string("all"));
    qInfo("training peak: native %lld, AMP %lld, checkpointing %lld bytes; validation peak: "
          "%lld, %lld, %lld",
          static_cast<long long>(c.rows[0].trainPeakBytes),
          static_cast<long long>(c.rows[1].trainPeakBytes),
          static_cast<long long>(c.rows[2].trainPeakBytes),
          static_cast<long long>(c.rows[0].valPeakBytes),
          static_cast<long long>(c.rows[1].valPeakBytes),
          static_cast<long long>(c.rows[2].valPeakBytes));
    QVERIFY(c.rows[1].trainPeakBytes < c.rows[0].trainPeakBytes);
    QVERIFY(c.rows[2].trainPeakBytes < c.rows[0].trainPeakBytes);
    // The training peak is the last batch_end's, never the epoch's (which includes validation).
    for (size_t i = 0; i < 3; ++i) {
        std::int64_t lastBatch = 0;
        for (const hr::EventRecord& e : c.rows[i].run.events)
            if (e.type == "batch_end")
                lastBatch = static_cast<std::int64_t>(e.number("peak_bytes"));
        QVERIFY(lastBatch > 0);
        QVERIFY(c.rows[i].trainPeakBytes >= lastBatch);
        // results.csv's epoch peak is the larger of the two (one epoch here).
        const std::int64_t epochPeak = c.rows[i].run.epochs.back().peakMemoryBytes;
        QVERIFY(c.rows[i].trainPeakBytes <= epochPeak);
        QVERIFY(std::max(c.rows[i].trainPeakBytes, c.rows[i].valPeakBytes) >= epochPeak);
    }

    // The advisor's accuracy figures come from these runs when a fix's settings match one.
    const hr::AccuracyLookup lookup = hr::measuredAccuracyOfRuns(base.project);
    hr::TrainConfig withAmp = base;
    withAmp.nbs = 8;
    withAmp.amp = true;
    const std::optional<hr::MeasuredAccuracy> measured = lookup(withAmp);
    QVERIFY(measured);
    QVERIFY(std::abs(measured->map - c.rows[1].map) < 1e-4);
    QCOMPARE(measured->run, c.rows[1].runDir);
    withAmp.imgsz = 160; // no run trained so
    QVERIFY(!lookup(withAmp));

    const hr::ComparisonRow& oom = c.rows[3];
    QCOMPARE(oom.status, std::string("OOM"));
    QVERIFY(!oom.oomPhase.empty());
    QVERIFY(!oom.hasMetrics);
    QVERIFY(!oom.pareto);
    QVERIFY(!oom.message.empty());
    QVERIFY(QFileInfo::exists(QString::fromStdString(oom.runDir + "/events.jsonl")));
    qInfo("OOM row: phase %s, %s", oom.oomPhase.c_str(), oom.message.substr(0, 120).c_str());

    // The front holds at least one finished row, and no finished row dominates a front row.
    const auto onFront = std::count_if(c.rows.begin(), c.rows.end(),
                                       [](const hr::ComparisonRow& r) { return r.pareto; });
    QVERIFY(onFront >= 1);

    // CSV: a header and one row per strategy, all with the header's columns.
    const std::string out = m_dir.filePath("report").toStdString();
    std::string error;
    QVERIFY2(hr::writeComparison(c, out, &error), error.c_str());
    std::string csv, html;
    QVERIFY(hr::readFile(out + "/compare.csv", csv));
    QVERIFY(hr::readFile(out + "/compare.html", html));
    std::vector<std::string> lines;
    for (const std::string& line : hr::split(csv, '\n'))
        if (!line.empty())
            lines.push_back(line);
    QCOMPARE(lines.size(), strategies.size() + 1);
    const std::vector<std::string> header = csvCells(lines[0]);
    for (const char* column :
         {"strategy", "status", "oom_phase", "train_peak_bytes", "val_peak_bytes", "mean_epoch_s",
          "images_per_s", "map50", "map50_95", "pareto", "train_peak_ratio", "claim_memory_ratio"})
        QVERIFY2(std::find(header.begin(), header.end(), column) != header.end(), column);
    const auto column = [&](const char* name) {
        return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    for (size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string> cells = csvCells(lines[i]);
        QCOMPARE(cells.size(), header.size());
        QCOMPARE(cells[column("strategy")], strategies[i - 1].name);
        QCOMPARE(cells[column("status")], c.rows[i - 1].status);
        QCOMPARE(std::stoll(cells[column("train_peak_bytes")]),
                 static_cast<long long>(c.rows[i - 1].trainPeakBytes));
        QCOMPARE(std::stoll(cells[column("val_peak_bytes")]),
                 static_cast<long long>(c.rows[i - 1].valPeakBytes));
    }
    QCOMPARE(csvCells(lines[4])[column("oom_phase")], oom.oomPhase);

    // HTML: one <svg> per chart (memory, mAP/epoch, mAP/time, loss, memory vs mAP), the table
    // with a row per strategy, nothing fetched from anywhere.
    QCOMPARE(count(html, "<svg"), size_t(5));
    QCOMPARE(count(html, "http://"), size_t(0));
    QCOMPARE(count(html, "https://"), size_t(0));
    QCOMPARE(count(html, "<script"), size_t(0));
    QCOMPARE(count(html, "<tr class="), strategies.size());
    QVERIFY(html.find("Pareto front") != std::string::npos);
    QVERIFY(html.find("OOM (" + oom.oomPhase + ")") != std::string::npos);
    QVERIFY(html.find("<th>training peak</th><th>validation peak</th>") != std::string::npos);
    QVERIFY(html.find("Training peak vs mAP") != std::string::npos);
    const std::string text = hr::comparisonText(c);
    QVERIFY(count(text, "\n") >= strategies.size() + 1);
    QVERIFY(text.find("small-budget") != std::string::npos);
    QVERIFY(text.find("train peak") != std::string::npos);
    QVERIFY(text.find("val peak") != std::string::npos);

    // The same folders compared without training give the same measurements.
    std::vector<std::string> dirs;
    for (const auto& row : c.rows)
        dirs.push_back(row.runDir);
    const hr::Comparison again = hr::compareRunFolders(dirs);
    QCOMPARE(again.rows.size(), c.rows.size());
    for (size_t i = 0; i < c.rows.size(); ++i) {
        QCOMPARE(again.rows[i].status, c.rows[i].status);
        QCOMPARE(again.rows[i].trainPeakBytes, c.rows[i].trainPeakBytes);
        QCOMPARE(again.rows[i].valPeakBytes, c.rows[i].valPeakBytes);
        QCOMPARE(again.rows[i].map, c.rows[i].map);
        QCOMPARE(again.rows[i].pareto, c.rows[i].pareto);
    }
    const hr::Comparison missing = hr::compareRunFolders({m_dir.filePath("nope").toStdString()});
    QCOMPARE(missing.rows.size(), size_t(1));
    QCOMPARE(missing.rows[0].status, std::string("not run"));
    QVERIFY(!missing.rows[0].message.empty());
}

// With `weights` in the settings every strategy's run starts from that file: each reports the
// whole transfer, and with a learning rate too small to move anything each run's saved weights
// are the file's own. The file's BatchNorm scales are 1.5 where a fresh model's are 1, so a
// run that started from the seed's initialisation instead could not pass.
void TestCompare::strategiesStartFromTheSameWeights() {
    const std::string start = m_dir.filePath("start.pt").toStdString();
    torch::manual_seed(4242);
    hr::ModelBuild built = hr::buildModel("yolov8n.yaml", 7);
    QVERIFY(built.model);
    {
        torch::NoGradGuard noGrad;
        for (auto& p : built.model->named_parameters())
            if (p.key().find(".bn.weight") != std::string::npos)
                p.value().add_(0.5);
    }
    std::string error;
    QVERIFY2(hr::saveModel(start, built.model, hr::syntheticClassNames(), &error), error.c_str());

    hr::TrainConfig base;
    base.model = "yolov8n.yaml";
    base.weights = start;
    base.data = m_data;
    base.epochs = 1;
    base.batch = 4;
    base.imgsz = 64;
    base.workers = 0;
    base.threads = 2;
    base.project = m_dir.filePath("runs").toStdString();
    base.name = "same-start";
    base.optimizer = "SGD";
    base.lr0 = 1e-12;
    base.warmup_epochs = 0;
    base.close_mosaic = 0;
    const std::vector<hr::Strategy> strategies = {
        strategy("native", {{"batch", "B"}, {"nbs", "B"}}),
        strategy("accumulate", {{"batch", "B/2"}, {"nbs", "B"}}),
        strategy("amp", {{"batch", "B"}, {"nbs", "B"}, {"amp", "true"}}),
    };
    hr::StrategyRunner runner(base, strategies);
    std::map<size_t, std::vector<std::string>> transfers;
    runner.setEventSink([&](size_t index, const hr::TrainEvent& event) {
        if (const auto* log = std::get_if<hr::LogMessage>(&event))
            if (log->text.rfind("Transferred ", 0) == 0)
                transfers[index].push_back(log->text);
    });
    const hr::Comparison c = runner.run();
    QCOMPARE(c.rows.size(), strategies.size());
    const int items = static_cast<int>(built.model->named_parameters().size() +
                                       built.model->named_buffers().size());
    const std::string whole = "Transferred " + std::to_string(items) + "/" + std::to_string(items) +
                              " items from start.pt";
    auto stored = built.model->named_parameters();
    for (size_t i = 0; i < strategies.size(); ++i) {
        const hr::ComparisonRow& row = c.rows[i];
        QVERIFY2(row.status == "done",
                 (row.strategy + ": " + row.status + " " + row.message).c_str());
        QCOMPARE(transfers[i], std::vector<std::string>{whole});
        const hr::LoadedModel saved = hr::loadModel(row.runDir + "/weights/last.pt");
        QVERIFY2(saved.model, saved.error.c_str());
        for (const auto& p : saved.model->named_parameters())
            QVERIFY2(torch::allclose(p.value(), stored[p.key()], 1e-5, 1e-6),
                     (row.strategy + " " + p.key()).c_str());
    }
}

void TestCompare::classesSideBySide() {
    // Two run folders whose validations found different things; the second lost AP on "dog" and
    // has a class the first never saw.
    const auto makeRun = [&](const QString& name, const std::vector<hr::PerClassRow>& rows) {
        const QString dir = m_dir.filePath("by-class/" + name);
        QDir().mkpath(dir);
        std::string error;
        QVERIFY2(hr::writeFileAtomically((dir + "/config.yaml").toStdString(),
                                         "model: yolov8n.yaml\nbatch: 4\n", &error),
                 error.c_str());
        QVERIFY2(hr::writeFileAtomically((dir + "/per_class.csv").toStdString(),
                                         hr::perClassCsv(rows), &error),
                 error.c_str());
    };
    makeRun("native", {{"all", 4, 6, 0.8, 0.7, 0.75, 0.5},
                       {"cat", 3, 4, 0.9, 0.8, 0.85, 0.6},
                       {"dog", 2, 2, 0.7, 0.6, 0.65, 0.4}});
    makeRun("checkpointed", {{"all", 4, 7, 0.7, 0.6, 0.7, 0.45},
                             {"cat", 3, 4, 0.9, 0.8, 0.85, 0.6},
                             {"dog", 2, 2, 0.6, 0.5, 0.55, 0.3},
                             {"bird", 1, 1, 0.5, 0.5, 0.5, 0.25}});
    const hr::Comparison comparison =
        hr::compareRunFolders({m_dir.filePath("by-class/native").toStdString(),
                               m_dir.filePath("by-class/checkpointed").toStdString(),
                               m_dir.filePath("by-class/missing").toStdString()});
    QCOMPARE(int(comparison.rows.size()), 3);
    QCOMPARE(int(comparison.rows[0].perClass.size()), 3);
    const hr::ClassComparison table = hr::compareByClass(comparison);
    QCOMPARE(int(table.runs.size()), 3);
    QCOMPARE(table.hasResults, (std::vector<bool>{true, true, false}));
    QCOMPARE(int(table.classes.size()), 4); // all, cat, dog, then bird
    QCOMPARE(table.classes[0].name, std::string("all"));
    QCOMPARE(table.classes[3].name, std::string("bird"));
    QVERIFY(qFuzzyCompare(*table.classes[2].apChange(1), -0.1));
    QVERIFY(qFuzzyIsNull(*table.classes[1].apChange(1)));
    QVERIFY(!table.classes[3].apChange(1)); // the first run has no bird
    QVERIFY(!table.classes[0].ap[2]);       // the missing run has nothing
    QCOMPARE(*table.classes[2].instances[0], 2);

    const std::string csv = hr::classComparisonCsv(table);
    QVERIFY2(csv.rfind("class,native AP50,native AP50-95,checkpointed AP50,", 0) == 0, csv.c_str());
    QVERIFY2(csv.find("\ndog,0.6500,0.4000,0.5500,0.3000,-0.1000,,,\n") != std::string::npos,
             csv.c_str());
    const std::string text = hr::classComparisonText(table);
    QVERIFY2(text.find("(-0.100)") != std::string::npos, text.c_str());

    const QString out = m_dir.filePath("by-class/report");
    std::string error;
    QVERIFY2(hr::writeComparison(comparison, out.toStdString(), &error), error.c_str());
    std::string written;
    QVERIFY(hr::readFile((out + "/compare_classes.csv").toStdString(), written));
    QCOMPARE(written, csv);
}

QTEST_GUILESS_MAIN(TestCompare)
#include "test_compare.moc"
