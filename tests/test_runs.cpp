// SPDX-License-Identifier: GPL-3.0-or-later
// Reading run folders: results.csv, events.jsonl, memory.csv, config.yaml and the run list.
#include "memory/memory_sampler.h"
#include "runs/run_store.h"
#include "util/atomic_file.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const char* kHeader = "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),"
                      "metrics/recall(B),metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,"
                      "val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2,epoch_seconds,"
                      "images_per_s,peak_memory_bytes\n";

void writeRun(const QString& dir, const std::string& results, const std::string& events,
              const std::string& config) {
    QVERIFY(QDir().mkpath(dir));
    const std::string base = dir.toStdString();
    QVERIFY(hr::writeFileAtomically(base + "/results.csv", results));
    QVERIFY(hr::writeFileAtomically(base + "/events.jsonl", events));
    QVERIFY(hr::writeFileAtomically(base + "/config.yaml", config));
    hr::MemorySample a;
    a.seconds = 0.5;
    a.allocated = 1000;
    a.peak = 5000;
    a.phase = hr::Phase::Forward;
    hr::MemorySample b = a;
    b.seconds = 1.0;
    b.peak = 9000;
    b.phase = hr::Phase::Backward;
    QVERIFY(hr::writeFileAtomically(base + "/memory.csv", hr::MemorySampler::csvHeader() + "\n" +
                                                              hr::MemorySampler::csvLine(a) + "\n" +
                                                              hr::MemorySampler::csvLine(b) +
                                                              "\n"));
}

} // namespace

class TestRuns : public QObject {
    Q_OBJECT
private slots:
    void parsesEventLines();
    void rejectsBadEventLines();
    void parsesResultsSkippingTornLines();
    void loadsRunAndSummarises();
    void listsRunsAndIgnoresOtherFolders();
    void runStateFromEvents_data();
    void runStateFromEvents();
    void durationAndBudget();
    void probeStepsAreNotTheRunsPeak();
};

void TestRuns::parsesEventLines() {
    const auto e = hr::RunStore::parseEvent(
        R"({"type":"fix_applied","time":1700000000.5,"fix_id":"batch-8","description":"batch 16 \u2192 8, \"same\" nominal\n","predicted_peak":123456789,"amp":true,"nested":{"a":[1,2,{"b":"}"}]},"x":null})");
    QVERIFY(e.has_value());
    QCOMPARE(e->type, std::string("fix_applied"));
    QCOMPARE(e->time, 1700000000.5);
    QCOMPARE(e->text("fix_id"), std::string("batch-8"));
    QCOMPARE(e->text("description"), std::string("batch 16 \xe2\x86\x92 8, \"same\" nominal\n"));
    QCOMPARE(e->number("predicted_peak"), 123456789.0);
    QCOMPARE(e->text("amp"), std::string("true"));
    QCOMPARE(e->text("nested"), std::string(R"({"a":[1,2,{"b":"}"}]})"));
    QCOMPARE(e->number("x", -1), -1.0);
    QCOMPARE(e->number("missing", 7), 7.0);
}

void TestRuns::rejectsBadEventLines() {
    QVERIFY(!hr::RunStore::parseEvent("").has_value());
    QVERIFY(!hr::RunStore::parseEvent(R"({"time":1})").has_value());            // no type
    QVERIFY(!hr::RunStore::parseEvent(R"({"type":"oom","time":)").has_value()); // torn
    QVERIFY(!hr::RunStore::parseEvent("[1,2]").has_value());
}

void TestRuns::parsesResultsSkippingTornLines() {
    const std::string csv = std::string(kHeader) +
                            "1,1.5,2.5,1.2,0.4,0.3,0.35,0.2,1.4,2.4,1.1,0.001,0.001,0.09,12.5,"
                            "40.2,800000000\n"
                            "2,1.4,2.2,1.1,0.5,0.4,0.45,0.3,1.3,2.3,1.0,0.002,0.002,0.08,12.0,"
                            "41.0,810000000\n"
                            "3,1.3,2.1\n";
    const auto rows = hr::RunStore::parseResults(csv);
    QCOMPARE(int(rows.size()), 2);
    QCOMPARE(rows[0].epoch, 1);
    QCOMPARE(rows[1].map50, 0.45);
    QCOMPARE(rows[1].map, 0.3);
    QCOMPARE(rows[0].lr2, 0.09);
    QCOMPARE(rows[1].peakMemoryBytes, std::int64_t(810000000));
    QCOMPARE(rows[1].imagesPerSecond, 41.0);
    QVERIFY(std::abs(rows[1].fitness() - (0.1 * 0.45 + 0.9 * 0.3)) < 1e-12);
}

void TestRuns::loadsRunAndSummarises() {
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("runs/exp");
    writeRun(dir,
             std::string(kHeader) +
                 "1,1.5,2.5,1.2,0.4,0.3,0.35,0.20,1.4,2.4,1.1,0.001,0.001,0.09,10,40,800\n"
                 "2,1.4,2.2,1.1,0.5,0.4,0.60,0.40,1.3,2.3,1.0,0.002,0.002,0.08,12,44,900\n"
                 "3,1.3,2.1,1.0,0.5,0.4,0.70,0.30,1.3,2.3,1.0,0.002,0.002,0.08,14,42,700\n",
             "{\"type\":\"run_started\",\"time\":1}\n"
             "{\"type\":\"oom\",\"time\":2,\"phase\":\"backward\"}\n"
             "{\"type\":\"fix_applied\",\"time\":3,\"fix_id\":\"amp\"}\n"
             "garbage line\n"
             "{\"type\":\"fix_checked\",\"time\":4}\n"
             "{\"type\":\"run_finished\",\"time\":5}\n",
             "model: yolov8n.yaml\nepochs: 30\nbatch: 16\nimgsz: 320\namp: true\n"
             "checkpointing: none\n");
    std::string error;
    const auto run = hr::RunStore::load(dir.toStdString(), &error);
    QVERIFY2(run, error.c_str());
    QCOMPARE(int(run->epochs.size()), 3);
    QCOMPARE(int(run->events.size()), 5); // the garbage line is skipped
    QCOMPARE(int(run->memory.size()), 2);
    QCOMPARE(run->memory[1].phase, hr::Phase::Backward);
    const hr::RunSummary& s = run->summary;
    QCOMPARE(s.name, std::string("exp"));
    QCOMPARE(s.model, std::string("yolov8n.yaml"));
    QCOMPARE(s.epochsDone, 3);
    QCOMPARE(s.epochsPlanned, 30);
    QCOMPARE(s.batch, 16);
    QCOMPARE(s.imgsz, 320);
    QVERIFY(s.amp);
    QCOMPARE(s.bestEpoch, 2); // fitness 0.42 beats epoch 3's 0.34
    QCOMPARE(s.bestMap50, 0.60);
    QCOMPARE(s.totalSeconds, 36.0);
    QCOMPARE(s.meanImagesPerSecond, 42.0);
    QCOMPARE(s.peakMemoryBytes, std::int64_t(9000)); // the memory timeline's peak
    QCOMPARE(s.ooms, 1);
    QCOMPARE(s.fixes, 1);
    QVERIFY(s.finished);
    QVERIFY(!s.failed);
    QVERIFY(!hr::RunStore::load(tmp.filePath("nothing").toStdString(), &error));
    QVERIFY(!error.empty());
}

void TestRuns::listsRunsAndIgnoresOtherFolders() {
    QTemporaryDir tmp;
    writeRun(tmp.filePath("runs/a"), kHeader, "", "epochs: 3\n");
    writeRun(tmp.filePath("runs/b"), kHeader, "{\"type\":\"run_failed\",\"time\":1}\n", "");
    QVERIFY(QDir().mkpath(tmp.filePath("runs/not-a-run")));
    const auto runs = hr::RunStore::list(tmp.filePath("runs").toStdString());
    QCOMPARE(int(runs.size()), 2);
    QStringList names;
    for (const auto& r : runs)
        names << QString::fromStdString(r.name);
    names.sort();
    QCOMPARE(names, QStringList({"a", "b"}));
    for (const auto& r : runs)
        if (r.name == "b")
            QVERIFY(r.failed);
    QVERIFY(hr::RunStore::list(tmp.filePath("missing").toStdString()).empty());
}

void TestRuns::runStateFromEvents_data() {
    QTest::addColumn<QString>("events");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("failed");
    // The reason as a code and its values ("" when not coded), joined by "|".
    QTest::addColumn<QString>("code");
    const QString start = R"({"type":"run_started","time":1})"
                          "\n";
    QTest::newRow("finished") << start + R"({"type":"run_finished","time":5,"state":"finished"})"
                              << "finished"
                              << "" << false << "";
    QTest::newRow("stopped") << start + R"({"type":"run_finished","time":5,"state":"stopped"})"
                             << "stopped"
                             << "" << false << "";
    QTest::newRow("failed")
        << start +
               R"({"type":"run_failed","time":4,"message":"disk full"})"
               "\n"
               R"({"type":"run_finished","time":5,"state":"failed","reason":"disk full: free space"})"
        << "failed"
        << "disk full: free space" << true << "";
    QTest::newRow("stopped by OOM")
        << start +
               R"({"type":"oom","time":2})"
               "\n"
               R"({"type":"run_finished","time":5,"state":"stopped_by_oom","reason":"no fix fits"})"
        << "stopped_by_oom"
        << "no fix fits" << true << "";
    // The trainer writes the reason also as a code and its values (a UI words them).
    QTest::newRow("coded")
        << start +
               R"({"type":"run_failed","time":4,"message":"out of memory","reason_code":"oom_no_fix","reason_args":["forward","1","2","w/last.pt"]})"
               "\n"
               R"({"type":"run_finished","time":5,"state":"stopped_by_oom","reason":"out of memory","reason_code":"oom_no_fix","reason_args":["forward","1","2","w/last \"a\".pt"]})"
        << "stopped_by_oom"
        << "out of memory" << true << "oom_no_fix|forward|1|2|w/last \"a\".pt";
    QTest::newRow("coded failure, uncoded end")
        << start +
               R"({"type":"run_failed","time":4,"message":"disk full","reason_code":"checkpoint_write","reason_args":["last.pt","disk full"]})"
               "\n"
               R"({"type":"run_finished","time":5,"state":"failed"})"
        << "failed"
        << "disk full" << true << "checkpoint_write|last.pt|disk full";
    // Runs written before run states: the flags and run_failed decide.
    QTest::newRow("old stopped") << start +
                                        R"({"type":"run_finished","time":5,"stopped_by_user":true})"
                                 << "stopped"
                                 << "" << false << "";
    QTest::newRow("old failed") << start + R"({"type":"run_failed","time":5,"message":"bad"})"
                                << "failed"
                                << "bad" << true << "";
    QTest::newRow("old finished") << start + R"({"type":"run_finished","time":5})"
                                  << "finished"
                                  << "" << false << "";
    QTest::newRow("running or killed") << start << "unfinished"
                                       << "" << false << "";
    // A resumed run: only the last attempt's end counts.
    QTest::newRow("resumed") << start +
                                    R"({"type":"run_failed","time":2,"message":"killed"})"
                                    "\n" +
                                    start + R"({"type":"run_finished","time":5,"state":"finished"})"
                             << "finished"
                             << "" << false << "";
}

void TestRuns::runStateFromEvents() {
    QFETCH(QString, events);
    QFETCH(QString, state);
    QFETCH(QString, reason);
    QFETCH(bool, failed);
    QFETCH(QString, code);
    QTemporaryDir tmp;
    writeRun(tmp.filePath("run"), kHeader, (events + "\n").toStdString(), "epochs: 3\n");
    const auto run = hr::RunStore::load(tmp.filePath("run").toStdString());
    QVERIFY(run);
    QCOMPARE(QString::fromStdString(run->summary.state), state);
    QCOMPARE(QString::fromStdString(run->summary.reason), reason);
    QCOMPARE(run->summary.failed, failed);
    QStringList coded;
    if (!run->summary.reasonCode.empty())
        coded << QString::fromStdString(run->summary.reasonCode);
    for (const std::string& arg : run->summary.reasonArgs)
        coded << QString::fromStdString(arg);
    QCOMPARE(coded.join('|'), code);
}

void TestRuns::durationAndBudget() {
    QTemporaryDir tmp;
    writeRun(tmp.filePath("run"), kHeader,
             "{\"type\":\"run_started\",\"time\":100.5}\n"
             "{\"type\":\"run_finished\",\"time\":160.5,\"state\":\"finished\"}\n",
             "epochs: 3\nmemory_budget: 167772160\n");
    const auto run = hr::RunStore::load(tmp.filePath("run").toStdString());
    QVERIFY(run);
    QCOMPARE(run->summary.durationSeconds, 60.0);
    QCOMPARE(run->summary.budgetBytes, std::int64_t(160) << 20);
}

void TestRuns::probeStepsAreNotTheRunsPeak() {
    // The advisor's probe steps (phase probe) measure other settings: a run's peak leaves them
    // out, whatever they reached.
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("run");
    writeRun(dir, kHeader, "", "epochs: 3\n");
    hr::MemorySample run;
    run.seconds = 1;
    run.allocated = 1000;
    run.peak = 9000;
    run.phase = hr::Phase::Forward;
    hr::MemorySample probe = run;
    probe.seconds = 2;
    probe.allocated = 270000;
    probe.peak = 280000;
    probe.phase = hr::Phase::Probe;
    QVERIFY(hr::writeFileAtomically(dir.toStdString() + "/memory.csv",
                                    hr::MemorySampler::csvHeader() + "\n" +
                                        hr::MemorySampler::csvLine(run) + "\n" +
                                        hr::MemorySampler::csvLine(probe) + "\n"));
    const auto loaded = hr::RunStore::load(dir.toStdString());
    QVERIFY(loaded);
    QCOMPARE(int(loaded->memory.size()), 2);
    QCOMPARE(loaded->memory[1].phase, hr::Phase::Probe);
    QCOMPARE(loaded->summary.peakMemoryBytes, std::int64_t(9000));
}

QTEST_APPLESS_MAIN(TestRuns)
#include "test_runs.moc"
