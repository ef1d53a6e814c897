// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/data_config.h"
#include "config/model_name.h"
#include "config/settings_table.h"
#include "config/train_config.h"
#include "config/train_rules.h"
#include "config/yaml_read.h"
#include "util/atomic_file.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

using hr::Diagnostic;
using hr::Diagnostics;
using hr::TrainConfig;

namespace {

const QString kData = QStringLiteral(HEADROOM_TEST_DATA "/config");

std::string dataPath(const QString& relative) {
    return (kData + "/" + relative).toStdString();
}

std::string absoluteData(const QString& relative) {
    return QDir::cleanPath(QDir(kData).absoluteFilePath(relative)).toStdString();
}

int count(const Diagnostics& diagnostics, Diagnostic::Severity severity) {
    int n = 0;
    for (const auto& d : diagnostics)
        n += d.severity == severity ? 1 : 0;
    return n;
}

const Diagnostic* findKey(const Diagnostics& diagnostics, const std::string& key) {
    for (const auto& d : diagnostics)
        if (d.key == key)
            return &d;
    return nullptr;
}

// "key: value" lines of toYaml(), for comparing two configs setting by setting.
std::map<std::string, std::string> yamlLines(const std::string& yaml) {
    std::map<std::string, std::string> lines;
    for (const QString& line : QString::fromStdString(yaml).split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const int colon = line.indexOf(':');
        lines[line.left(colon).toStdString()] = line.mid(colon + 1).trimmed().toStdString();
    }
    return lines;
}

// A config with every setting away from its default.
TrainConfig everythingChanged() {
    TrainConfig c;
    c.model = "yolov9c.yaml";
    c.data = "/data/my set/data.yaml";
    c.model_scale = "m";
    c.weights = "runs/a/weights/last.pt";
    c.epochs = 7;
    c.patience = 3;
    c.batch = -1;
    c.imgsz = 96;
    c.device = "cuda:1";
    c.workers = 0;
    c.threads = 2;
    c.project = "elsewhere";
    c.name = "true"; // text that looks like a bool must stay text
    c.exist_ok = true;
    c.resume = true;
    c.seed = 42;
    c.deterministic = false;
    c.fraction = 0.25;
    c.save_period = 5;
    c.optimizer = "AdamW";
    c.lr0 = 0.001;
    c.lrf = 0.1;
    c.momentum = 0.9;
    c.weight_decay = 0.1 + 0.2; // not a short decimal: must still round-trip exactly
    c.warmup_epochs = 1.5;
    c.warmup_momentum = 0.5;
    c.warmup_bias_lr = 0.05;
    c.cos_lr = true;
    c.nbs = 32;
    c.box = 5.0;
    c.cls = 1.0;
    c.dfl = 2.0;
    c.amp = false;
    c.freeze = {0, 1, 5};
    c.single_cls = true;
    c.hsv_h = 0.1;
    c.hsv_s = 0.2;
    c.hsv_v = 0.3;
    c.degrees = 10.0;
    c.translate = 0.2;
    c.scale = 0.25;
    c.shear = 2.0;
    c.perspective = 0.0005;
    c.flipud = 0.5;
    c.fliplr = 0.0;
    c.mosaic = 0.5;
    c.mixup = 0.1;
    c.close_mosaic = 0;
    c.cache = "disk";
    c.rect = true;
    c.val = false;
    c.conf = 0.25;
    c.iou = 0.5;
    c.max_det = 100;
    c.val_batch = 8;
    c.memory_budget = 1536LL * 1024 * 1024;
    c.checkpointing = hr::Checkpointing::Backbone;
    c.on_oom = hr::OomPolicy::Auto;
    c.optimizer_offload = true;
    c.assign_chunk = 16;
    c.memory_sample_hz = 5.0;
    c.nproc = 2;
    c.zero = 1;
    c.sync_bn = true;
    return c;
}

} // namespace

class TestConfig : public QObject {
    Q_OBJECT
private slots:
    void defaultsFollowUltralytics();
    void defaultRoundTrip();
    void everyFieldRoundTrip();
    void saveAndLoad();
    void loadsUltralyticsArgs();
    void loadsHeadroomKeys();
    void scaleIsOverloaded();
    void renamedFieldsReadBothWays();
    void tableDrivesTheChecks();
    void tableFlagsDriveTheKeys();
    void tableListsEverySetting();
    void overrides_data();
    void overrides();
    void badOverrideLeavesConfigUnchanged();
    void unknownOverrideIsAnError();
    void badInput_data();
    void badInput();
    void malformedFileNamesFileAndLine();
    void syntaxErrorsAreCoded();
    void missingFile();
    void modelFileIsChecked();
    void diagnosticsTravelAsArgs();
    void validateReportsCommandLine();
    void accumulateSteps_data();
    void accumulateSteps();
    void batchRules();
    void modelNames_data();
    void modelNames();
    void enumNames();

    void dataListNames();
    void dataMapNamesAndDownloadNote();
    void dataTxtLists();
    void dataListOfFolders();
    void dataWithoutPathUsesYamlFolder();
    void dataRelativePathFromSubfolder();
    void badData_data();
    void badData();
    void dataSaveRoundTrip();
    void dataMissingTestIsAWarning();
    void dataRoboflowExport();
    void dataDatasetsFolderFallback();
    void dataUltralyticsSettingsDatasetsDir();
    void dataValidationKeyIsVal();
};

void TestConfig::defaultsFollowUltralytics() {
    const TrainConfig c;
    QCOMPARE(c.epochs, 100);
    QCOMPARE(c.batch, 16);
    QCOMPARE(c.imgsz, 640);
    QCOMPARE(c.lr0, 0.01);
    QCOMPARE(c.momentum, 0.937);
    QCOMPARE(c.nbs, 64);
    QCOMPARE(c.scale, 0.5);
    QCOMPARE(c.close_mosaic, 10);
    QCOMPARE(hr::trainConfigKeys().size(), size_t(64));
    QCOMPARE(QString::fromStdString(hr::trainConfigKeys().front()), QString("model"));
}

void TestConfig::defaultRoundTrip() {
    const TrainConfig defaults;
    const std::string yaml = hr::toYaml(defaults);
    const auto result = hr::parseTrainConfig(yaml, "defaults.yaml");
    QVERIFY2(result.config.has_value(), hr::formatDiagnostics(result.diagnostics).c_str());
    QVERIFY(result.diagnostics.empty());
    QVERIFY(*result.config == defaults);
    // Every key is written, in trainConfigKeys() order.
    const auto lines = yamlLines(yaml);
    QCOMPARE(lines.size(), hr::trainConfigKeys().size());
    for (const auto& key : hr::trainConfigKeys())
        QVERIFY2(lines.count(key), key.c_str());
    QCOMPARE(QString::fromStdString(lines.at("memory_sample_hz")), QString("20.0"));
    QCOMPARE(QString::fromStdString(lines.at("weight_decay")), QString("0.0005"));
    QCOMPARE(QString::fromStdString(lines.at("data")), QString("\"\""));
    // Parsing onto a changed base must override every field back to the defaults.
    const auto onto = hr::parseTrainConfig(yaml, "defaults.yaml", everythingChanged());
    QVERIFY(onto.config.has_value());
    QVERIFY(*onto.config == defaults);
}

void TestConfig::everyFieldRoundTrip() {
    const TrainConfig changed = everythingChanged();
    QVERIFY(hr::validate(changed).empty());
    // The fixture really changes every setting: no toYaml line equals the default's.
    const auto defaultLines = yamlLines(hr::toYaml(TrainConfig{}));
    const auto changedLines = yamlLines(hr::toYaml(changed));
    for (const auto& [key, value] : defaultLines)
        QVERIFY2(changedLines.at(key) != value, key.c_str());

    const auto result = hr::parseTrainConfig(hr::toYaml(changed), "changed.yaml");
    QVERIFY2(result.config.has_value(), hr::formatDiagnostics(result.diagnostics).c_str());
    QVERIFY(result.diagnostics.empty());
    QCOMPARE(hr::toYaml(*result.config), hr::toYaml(changed));
    QVERIFY(*result.config == changed);
    QVERIFY(*result.config != TrainConfig{});
    QCOMPARE(QString::fromStdString(changedLines.at("memory_budget")), QString("1536MiB"));
    QCOMPARE(QString::fromStdString(changedLines.at("name")), QString("\"true\""));
}

void TestConfig::saveAndLoad() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("config.yaml").toStdString();
    std::string error;
    QVERIFY(hr::saveTrainConfig(everythingChanged(), path, &error));
    const auto loaded = hr::loadTrainConfig(path);
    QVERIFY(loaded.config.has_value());
    QVERIFY(*loaded.config == everythingChanged());
    QVERIFY(
        !hr::saveTrainConfig(TrainConfig{}, dir.filePath("missing/x.yaml").toStdString(), &error));
    QVERIFY(!error.empty());
}

void TestConfig::loadsUltralyticsArgs() {
    const std::string file = dataPath("ultralytics_args.yaml");
    const auto result = hr::loadTrainConfig(file);
    QVERIFY2(result.config.has_value(), hr::formatDiagnostics(result.diagnostics).c_str());
    QCOMPARE(count(result.diagnostics, Diagnostic::Severity::Error), 0);
    QCOMPARE(count(result.diagnostics, Diagnostic::Severity::Warning), 0);
    // Ultralytics-only keys (task, save, plots, ...) are notes naming the key and line.
    QVERIFY(count(result.diagnostics, Diagnostic::Severity::Note) > 40);
    const Diagnostic* plots = findKey(result.diagnostics, "plots");
    QVERIFY(plots);
    QCOMPARE(plots->line, 45);
    QCOMPARE(plots->file, file);
    QVERIFY(plots->message.find("ignores") != std::string::npos);

    const TrainConfig& c = *result.config;
    QCOMPARE(c.epochs, 50);
    QCOMPARE(c.batch, 8);
    QCOMPARE(c.imgsz, 320);
    QCOMPARE(c.workers, 4);
    QCOMPARE(QString::fromStdString(c.data), QString("coco8.yaml"));
    QCOMPARE(QString::fromStdString(c.name), QString("exp"));
    QCOMPARE(QString::fromStdString(c.project), QString("runs")); // null = default
    QCOMPARE(QString::fromStdString(c.device), QString("auto"));
    QCOMPARE(QString::fromStdString(c.cache), QString("none"));
    QCOMPARE(c.conf, 0.001);
    QCOMPARE(c.lr0, 0.02);
    QCOMPARE(c.scale, 0.5);
    QVERIFY(c.model_scale.empty());
    QVERIFY(c.freeze.empty());
}

void TestConfig::loadsHeadroomKeys() {
    const std::string file = dataPath("headroom_memory.yaml");
    const auto result = hr::loadTrainConfig(file);
    QVERIFY2(result.config.has_value(), hr::formatDiagnostics(result.diagnostics).c_str());
    const TrainConfig& c = *result.config;
    QCOMPARE(QString::fromStdString(c.model_scale), QString("m"));
    QCOMPARE(c.scale, 0.5);
    QCOMPARE(c.batch, -1);
    QCOMPARE(c.memory_budget, std::int64_t(3) << 30);
    QVERIFY(c.checkpointing == hr::Checkpointing::Backbone);
    QVERIFY(c.on_oom == hr::OomPolicy::Auto);
    QVERIFY(c.optimizer_offload);
    QCOMPARE(c.freeze, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QCOMPARE(QString::fromStdString(c.cache), QString("ram"));
    // The typo is a warning naming the nearest key; the file still loads.
    QCOMPARE(result.diagnostics.size(), size_t(1));
    const Diagnostic& typo = result.diagnostics.front();
    QCOMPARE(int(typo.severity), int(Diagnostic::Severity::Warning));
    QCOMPARE(typo.file, file);
    QCOMPARE(typo.line, 13);
    QCOMPARE(QString::fromStdString(typo.key), QString("bacth"));
    QVERIFY(typo.toString().find("did you mean 'batch'?") != std::string::npos);
}

void TestConfig::scaleIsOverloaded() {
    auto r = hr::parseTrainConfig("scale: 0.9\n", "a.yaml");
    QVERIFY(r.config);
    QCOMPARE(r.config->scale, 0.9);
    QVERIFY(r.config->model_scale.empty());
    r = hr::parseTrainConfig("scale: X\nmodel_scale: n\nscale_aug: 0.1\n", "b.yaml");
    QVERIFY(r.config);
    QCOMPARE(QString::fromStdString(r.config->model_scale), QString("n")); // the later key wins
    QCOMPARE(r.config->scale, 0.1);
}

void TestConfig::renamedFieldsReadBothWays() {
    // A saved run config as Headroom wrote it before the fields took their YAML keys' names
    // (model_scale was TrainConfig::scale, scale was TrainConfig::scale_aug): same keys.
    auto r = hr::parseTrainConfig("model: yolov8.yaml\nmodel_scale: s\nscale: 0.25\n", "old.yaml");
    QVERIFY(r.config && r.diagnostics.empty());
    QCOMPARE(QString::fromStdString(r.config->model_scale), QString("s"));
    QCOMPARE(r.config->scale, 0.25);
    // The old C++ name is still read, and a letter as `scale` is the model scale.
    r = hr::parseTrainConfig("scale_aug: 0.4\n", "alias.yaml");
    QVERIFY(r.config && r.diagnostics.empty());
    QCOMPARE(r.config->scale, 0.4);
    r = hr::parseTrainConfig("scale: m\n", "letter.yaml");
    QVERIFY(r.config && r.diagnostics.empty());
    QCOMPARE(QString::fromStdString(r.config->model_scale), QString("m"));
    QCOMPARE(r.config->scale, 0.5);
    // The command line, both ways.
    TrainConfig c;
    QVERIFY(hr::applyOverride(c, "scale_aug", "0.3").empty());
    QVERIFY(hr::applyOverride(c, "model-scale", "S").empty());
    QCOMPARE(c.scale, 0.3);
    QCOMPARE(QString::fromStdString(c.model_scale), QString("s"));
    QVERIFY(hr::applyOverride(c, "scale", "0.6").empty());
    QCOMPARE(c.scale, 0.6);
    // Written under the field names, read back the same.
    const std::string yaml = hr::toYaml(c);
    QVERIFY(yaml.find("\nmodel_scale: s\n") != std::string::npos);
    QVERIFY(yaml.find("\nscale: 0.6\n") != std::string::npos);
    QVERIFY(yaml.find("scale_aug") == std::string::npos);
    r = hr::parseTrainConfig(yaml, "new.yaml");
    QVERIFY(r.config && *r.config == c);
}

namespace {

// A value of the row's member one step away from `c`'s.
void changeSetting(TrainConfig& c, const hr::SettingRow& row) {
    std::visit(
        [&c](auto member) {
            using T = std::decay_t<decltype(c.*member)>;
            if constexpr (std::is_same_v<T, bool>)
                c.*member = !(c.*member);
            else if constexpr (std::is_same_v<T, std::string>)
                c.*member += "x";
            else if constexpr (std::is_same_v<T, std::vector<int>>)
                (c.*member).push_back(7);
            else if constexpr (std::is_same_v<T, hr::Checkpointing>)
                c.*member = hr::Checkpointing::All;
            else if constexpr (std::is_same_v<T, hr::OomPolicy>)
                c.*member = hr::OomPolicy::Stop;
            else
                c.*member = c.*member + 1;
        },
        row.member);
}

} // namespace

void TestConfig::tableDrivesTheChecks() {
    int checked = 0;
    for (const hr::SettingRow& row : hr::settingRows()) {
        QVERIFY2(*row.label && *row.help, row.key);
        // A number just outside the row's bound is refused with the row's words and fix.
        double bad = 0;
        switch (row.bound) {
        case hr::SettingBound::AtLeast:
        case hr::SettingBound::Closed:
        case hr::SettingBound::ClosedOpen:
            bad = row.lo - 1;
            break;
        case hr::SettingBound::NotNegative:
            bad = -1;
            break;
        case hr::SettingBound::Above:
        case hr::SettingBound::OpenClosed:
            bad = row.lo;
            break;
        default:
            continue;
        }
        TrainConfig c;
        if (const auto* i = std::get_if<int TrainConfig::*>(&row.member))
            c.** i = static_cast<int>(bad);
        else if (const auto* d = std::get_if<double TrainConfig::*>(&row.member))
            c.** d = bad;
        else
            QFAIL(row.key);
        const Diagnostics found = hr::validate(c);
        const Diagnostic* d = findKey(found, row.key);
        QVERIFY2(d, row.key);
        QVERIFY2(d->message.rfind(row.what, 0) == 0, d->message.c_str());
        QCOMPARE(QString::fromStdString(d->fix), QString(row.fix));
        QVERIFY(!d->code.empty());
        // The same value read from a file is refused there too, at its line.
        const auto file = hr::parseTrainConfig(
            std::string(row.key) + ": " + hr::settingText(c, row) + "\n", "bad.yaml");
        QVERIFY2(!file.config, row.key);
        QCOMPARE(file.diagnostics.front().line, 1);
        ++checked;
    }
    QVERIFY(checked >= 30);
    // A choice row refuses what is not among its choices.
    TrainConfig c;
    const auto bad = hr::applyOverride(c, "cache", "tape");
    QCOMPARE(bad.size(), size_t(1));
    QCOMPARE(QString::fromStdString(bad.front().code), QString("unknown_choice"));
}

void TestConfig::tableFlagsDriveTheKeys() {
    const TrainConfig base;
    const std::pair<hr::SettingFlag, int> flags[] = {{hr::kAffectsLoader, 0},
                                                     {hr::kAffectsMemory, 0},
                                                     {hr::kRuntime, 0},
                                                     {hr::kCalibrationKey, 0}};
    for (auto [flag, rows] : flags) {
        for (const hr::SettingRow& row : hr::settingRows()) {
            TrainConfig changed = base;
            changeSetting(changed, row);
            QVERIFY2(changed != base, row.key);
            const bool flagged = (row.flags & flag) != 0;
            rows += flagged ? 1 : 0;
            // The key and the comparison see exactly the rows with the flag.
            QCOMPARE(hr::settingsKey(changed, flag) != hr::settingsKey(base, flag), flagged);
            QCOMPARE(!hr::sameSettings(changed, base, flag), flagged);
            // Copying takes exactly those rows.
            TrainConfig copy = base;
            hr::copySettings(copy, changed, flag);
            QCOMPARE(copy == changed, flagged);
        }
        QVERIFY(rows > 0);
    }
    // The calibration key leaves the image size to the caller (scaled calibrations).
    const hr::SettingRow* imgsz = hr::findSettingRow("imgsz");
    QVERIFY(imgsz && (imgsz->flags & hr::kCalibrationKey));
    TrainConfig larger = base;
    larger.imgsz = 320;
    QCOMPARE(hr::settingsKey(larger, hr::kCalibrationKey, "imgsz"),
             hr::settingsKey(base, hr::kCalibrationKey, "imgsz"));
    // What each key holds (the advisor's levers, the estimator's calibration, resume).
    for (const char* key : {"batch", "imgsz", "amp", "checkpointing", "nproc", "zero", "freeze"})
        QVERIFY2(hr::findSettingRow(key)->flags & hr::kAffectsMemory, key);
    for (const char* key : {"memory_budget", "on_oom", "threads", "workers", "device"})
        QVERIFY2(hr::findSettingRow(key)->flags & hr::kRuntime, key);
    QVERIFY(!(hr::findSettingRow("epochs")->flags & hr::kRuntime));
}

void TestConfig::tableListsEverySetting() {
    const QString help = QString::fromStdString(hr::settingsHelp());
    const TrainConfig defaults;
    for (const hr::SettingRow& row : hr::settingRows()) {
        const QString line =
            QStringLiteral("  %1 (default %2")
                .arg(row.key, QString::fromStdString(hr::settingText(defaults, row)));
        QVERIFY2(help.contains(line), qPrintable(line));
        QVERIFY2(help.simplified().contains(QString::fromUtf8(row.help).simplified()), row.key);
    }
    QVERIFY(help.contains("  imgsz (default 640; a multiple of 32)"));
    QVERIFY(help.contains("  mosaic (default 1.0; 0 to 1)"));
    QVERIFY(help.contains("  cache (default none; one of none ram disk)"));
}

void TestConfig::overrides_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("yamlKey"); // which toYaml() line must change
    QTest::addColumn<QString>("written"); // and to what
    QTest::newRow("batch") << "batch"
                           << "32"
                           << "batch"
                           << "32";
    QTest::newRow("auto batch") << "batch"
                                << "-1"
                                << "batch"
                                << "-1";
    QTest::newRow("scale letter") << "scale"
                                  << "s"
                                  << "model_scale"
                                  << "s";
    QTest::newRow("scale gain") << "scale"
                                << "0.3"
                                << "scale"
                                << "0.3";
    QTest::newRow("freeze count") << "freeze"
                                  << "3"
                                  << "freeze"
                                  << "[0, 1, 2]";
    QTest::newRow("freeze list") << "freeze"
                                 << "[1, 3]"
                                 << "freeze"
                                 << "[1, 3]";
    QTest::newRow("freeze none") << "freeze"
                                 << "none"
                                 << "freeze"
                                 << "[]";
    QTest::newRow("budget GiB") << "memory_budget"
                                << "3GiB"
                                << "memory_budget"
                                << "3GiB";
    QTest::newRow("budget GB") << "memory_budget"
                               << "1.5GB"
                               << "memory_budget"
                               << "1500000000";
    QTest::newRow("budget dash") << "memory-budget"
                                 << "512MiB"
                                 << "memory_budget"
                                 << "512MiB";
    QTest::newRow("budget bytes") << "memory_budget"
                                  << "134217728"
                                  << "memory_budget"
                                  << "128MiB";
    QTest::newRow("cache true") << "cache"
                                << "true"
                                << "cache"
                                << "ram";
    QTest::newRow("cache disk") << "cache"
                                << "disk"
                                << "cache"
                                << "disk";
    QTest::newRow("checkpointing true") << "checkpointing"
                                        << "true"
                                        << "checkpointing"
                                        << "all";
    QTest::newRow("on_oom") << "on_oom"
                            << "stop"
                            << "on_oom"
                            << "stop";
    QTest::newRow("device index") << "device"
                                  << "0"
                                  << "device"
                                  << "cuda:0";
    QTest::newRow("optimizer case") << "optimizer"
                                    << "adamw"
                                    << "optimizer"
                                    << "AdamW";
    QTest::newRow("bool") << "amp"
                          << "False"
                          << "amp"
                          << "false";
    QTest::newRow("number") << "lr0"
                            << "1e-3"
                            << "lr0"
                            << "0.001";
}

void TestConfig::overrides() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, yamlKey);
    QFETCH(QString, written);
    TrainConfig c;
    c.memory_budget = 1LL << 30;
    const Diagnostics d = hr::applyOverride(c, key.toStdString(), value.toStdString());
    QVERIFY2(d.empty(), hr::formatDiagnostics(d).c_str());
    QCOMPARE(QString::fromStdString(yamlLines(hr::toYaml(c)).at(yamlKey.toStdString())), written);
    QVERIFY(hr::validate(c).empty());
}

void TestConfig::badOverrideLeavesConfigUnchanged() {
    TrainConfig c;
    c.batch = 8;
    const TrainConfig before = c;
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"batch", "0"}, {"batch", "many"}, {"freeze", "[1, x]"}, {"imgsz", "[1, 2"}}) {
        const Diagnostics d = hr::applyOverride(c, key, value);
        QCOMPARE(d.size(), size_t(1));
        QCOMPARE(int(d[0].severity), int(Diagnostic::Severity::Error));
        QCOMPARE(d[0].key, key);
        QVERIFY(d[0].file.empty());
        QCOMPARE(d[0].line, 0);
        QVERIFY(c == before);
    }
    // An Ultralytics-only key is a note and changes nothing.
    const Diagnostics note = hr::applyOverride(c, "plots", "false");
    QCOMPARE(note.size(), size_t(1));
    QCOMPARE(int(note[0].severity), int(Diagnostic::Severity::Note));
    QVERIFY(c == before);
}

void TestConfig::unknownOverrideIsAnError() {
    TrainConfig c;
    const Diagnostics d = hr::applyOverride(c, "imgsize", "320");
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(int(d[0].severity), int(Diagnostic::Severity::Error));
    QVERIFY(d[0].toString().find("did you mean 'imgsz'?") != std::string::npos);
    QCOMPARE(c.imgsz, 640);
}

void TestConfig::badInput_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("message");
    // Two good lines first, so the reported line is checked against a real position.
    const QString head = "epochs: 5\n# a comment\n";
    QTest::newRow("batch text") << head + "batch: sixteen\n"
                                << 3 << "batch"
                                << "'batch': expected a whole number, got 'sixteen'";
    QTest::newRow("batch zero") << head + "batch: 0\n"
                                << 3 << "batch"
                                << "positive number of images or -1";
    QTest::newRow("batch -2") << head + "batch: -2\n"
                              << 3 << "batch"
                              << "got -2";
    QTest::newRow("batch fraction") << head + "batch: 0.7\n"
                                    << 3 << "batch"
                                    << "fix: use batch: -1";
    QTest::newRow("imgsz 500") << head + "imgsz: 500\n"
                               << 3 << "imgsz"
                               << "multiple of 32 (the largest stride), got 500 (fix: use 480 "
                                  "or 512)";
    QTest::newRow("imgsz 0") << head + "imgsz: 0\n"
                             << 3 << "imgsz"
                             << "use 32";
    QTest::newRow("imgsz list") << head + "imgsz: [640, 480]\n"
                                << 3 << "imgsz"
                                << "expected a whole number, got a list";
    QTest::newRow("lr0 negative") << head + "lr0: -0.01\n"
                                  << 3 << "lr0"
                                  << "must be above 0, got -0.01";
    QTest::newRow("lr0 zero") << head + "lr0: 0\n"
                              << 3 << "lr0"
                              << "must be above 0";
    QTest::newRow("lrf 1.5") << head + "lrf: 1.5\n"
                             << 3 << "lrf"
                             << "in (0, 1], got 1.5";
    QTest::newRow("momentum 1") << head + "momentum: 1.0\n"
                                << 3 << "momentum"
                                << "between 0 and 1 (1 excluded), got 1.0";
    QTest::newRow("epochs 0") << "epochs: 0\n"
                              << 1 << "epochs"
                              << "at least one epoch";
    QTest::newRow("workers -1") << head + "workers: -1\n"
                                << 3 << "workers"
                                << "cannot be negative";
    QTest::newRow("mosaic 1.5") << head + "mosaic: 1.5\n"
                                << 3 << "mosaic"
                                << "mosaic probability must be between 0 and 1, got 1.5";
    QTest::newRow("mixup -0.1") << head + "mixup: -0.1\n"
                                << 3 << "mixup"
                                << "got -0.1";
    QTest::newRow("fliplr 2") << head + "fliplr: 2\n"
                              << 3 << "fliplr"
                              << "left-right flip";
    QTest::newRow("flipud text") << head + "flipud: often\n"
                                 << 3 << "flipud"
                                 << "expected a number, got 'often'";
    QTest::newRow("optimizer") << head + "optimizer: SDG\n"
                               << 3 << "optimizer"
                               << "did you mean 'SGD'?";
    QTest::newRow("optimizer nadam") << head + "optimizer: NAdam\n"
                                     << 3 << "optimizer"
                                     << "unknown optimizer 'NAdam'";
    QTest::newRow("on_oom") << head + "on_oom: panic\n"
                            << 3 << "on_oom"
                            << "expected ask, auto or stop, got 'panic'";
    QTest::newRow("checkpointing") << head + "checkpointing: head\n"
                                   << 3 << "checkpointing"
                                   << "expected none, backbone or all";
    QTest::newRow("budget malformed") << head + "memory_budget: lots\n"
                                      << 3 << "memory_budget"
                                      << "expected a size like 3GiB";
    QTest::newRow("budget too small") << head + "memory_budget: 10MiB\n"
                                      << 3 << "memory_budget"
                                      << "at least 64MiB";
    QTest::newRow("nbs 0") << head + "nbs: 0\n"
                           << 3 << "nbs"
                           << "at least 1, got 0";
    QTest::newRow("close_mosaic") << head + "close_mosaic: -1\n"
                                  << 3 << "close_mosaic"
                                  << "cannot be negative";
    QTest::newRow("zero 2") << head + "zero: 2\n"
                            << 3 << "zero"
                            << "must be 0 or 1";
    QTest::newRow("nproc 0") << head + "nproc: 0\n"
                             << 3 << "nproc"
                             << "at least 1";
    QTest::newRow("assign_chunk negative") << head + "assign_chunk: -4\n"
                                           << 3 << "assign_chunk"
                                           << "cannot be negative";
    QTest::newRow("amp maybe") << head + "amp: maybe\n"
                               << 3 << "amp"
                               << "expected true or false, got 'maybe'";
    QTest::newRow("freeze negative") << head + "freeze: [0, -1]\n"
                                     << 3 << "freeze"
                                     << "got '-1'";
    QTest::newRow("cache tape") << head + "cache: tape\n"
                                << 3 << "cache"
                                << "unknown cache mode 'tape'";
    QTest::newRow("scale word") << head + "scale: huge\n"
                                << 3 << "scale"
                                << "augmentation gain (a number like 0.5) or a model scale";
    QTest::newRow("device") << head + "device: tpu\n"
                            << 3 << "device"
                            << "unknown device";
    QTest::newRow("value on next line") << head + "batch:\n  - 1\n"
                                        << 4 << "batch"
                                        << "got a list";
    QTest::newRow("syntax") << head + "batch: [16\nimgsz: 640\n"
                            << 4 << ""
                            << "malformed YAML";
    QTest::newRow("not a map") << "- epochs\n- batch\n"
                               << 1 << ""
                               << "must be a map of settings";
    QTest::newRow("scalar document")
        << "just text\n"
        << 1 << ""
        << "must be a map of settings (key: value lines), got 'just text'";
}

void TestConfig::badInput() {
    QFETCH(QString, yaml);
    QFETCH(int, line);
    QFETCH(QString, key);
    QFETCH(QString, message);
    const auto result = hr::parseTrainConfig(yaml.toStdString(), "bad.yaml");
    QVERIFY(!result.config.has_value());
    QCOMPARE(count(result.diagnostics, Diagnostic::Severity::Error), 1);
    const Diagnostic* error = nullptr;
    for (const auto& d : result.diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            error = &d;
    QCOMPARE(QString::fromStdString(error->file), QString("bad.yaml"));
    QCOMPARE(error->line, line);
    QCOMPARE(QString::fromStdString(error->key), key);
    const QString text = QString::fromStdString(error->toString());
    QVERIFY2(text.contains(message), qPrintable(text));
    QVERIFY2(text.startsWith(QString("bad.yaml:%1: error: ").arg(line)), qPrintable(text));
}

void TestConfig::malformedFileNamesFileAndLine() {
    const std::string file = dataPath("bad_syntax.yaml");
    const auto result = hr::loadTrainConfig(file);
    QVERIFY(!result.config);
    QCOMPARE(result.diagnostics.size(), size_t(1));
    QCOMPARE(result.diagnostics[0].file, file);
    QCOMPARE(result.diagnostics[0].line, 3);
    QVERIFY(result.diagnostics[0].message.find("malformed YAML") != std::string::npos);
}

void TestConfig::syntaxErrorsAreCoded() {
    // yaml-cpp's message as a code, the column and the text some messages end with, for a UI;
    // the CLI's English message stays yaml-cpp's own.
    const auto result = hr::parseTrainConfig("epochs: 5\nimgsz: [320, 256\nbatch: 4\n", "s.yaml");
    QCOMPARE(result.diagnostics.size(), size_t(1));
    const hr::Diagnostic& d = result.diagnostics[0];
    QCOMPARE(d.code, std::string("malformed_yaml"));
    QCOMPARE(d.message, "malformed YAML: " + std::string(YAML::ErrorMsg::END_OF_SEQ_FLOW));
    QCOMPARE(d.args.size(), size_t(3));
    QCOMPARE(d.args[0], std::string("end_of_seq_flow"));
    QVERIFY2(std::stoi(d.args[1]) > 0, d.args[1].c_str());
    QCOMPARE(hr::yaml::syntaxError(YAML::ErrorMsg::TAB_IN_INDENTATION).code,
             std::string("tab_in_indentation"));
    const hr::yaml::SyntaxError escape =
        hr::yaml::syntaxError(std::string(YAML::ErrorMsg::INVALID_ESCAPE) + "q");
    QCOMPARE(escape.code, std::string("invalid_escape"));
    QCOMPARE(escape.value, std::string("q"));
    QVERIFY(hr::yaml::syntaxError("something yaml-cpp 9 says").code.empty());
    QVERIFY(hr::yaml::syntaxError(std::string(YAML::ErrorMsg::MAP_VALUE) + "x").code.empty());
}

void TestConfig::missingFile() {
    const auto result = hr::loadTrainConfig(dataPath("no_such_file.yaml"));
    QVERIFY(!result.config);
    QCOMPARE(result.diagnostics.size(), size_t(1));
    QVERIFY(result.diagnostics[0].message.find("cannot read") != std::string::npos);
}

void TestConfig::modelFileIsChecked() {
    // The model row finds the file the way the model builder does: a shipped name, a scaled
    // name of a shipped file, a path. Anything else is an error at the key's line.
    TrainConfig c;
    for (const char* found : {"yolov8n.yaml", "yolov8s.yaml", "yolov9t", "yolov8.yaml"}) {
        c.model = found;
        QVERIFY2(hr::validate(c).empty(), found);
    }
    c.model = std::string(HEADROOM_RESOURCES_DIR) + "/models/yolov8.yaml";
    QVERIFY2(hr::validate(c).empty(), c.model.c_str());
    const auto r = hr::parseTrainConfig("epochs: 3\nmodel: yolov8s.yam\n", "run.yaml");
    QVERIFY(!r.config);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    const hr::Diagnostic& d = r.diagnostics.front();
    QCOMPARE(d.line, 2);
    QCOMPARE(d.key, std::string("model"));
    QCOMPARE(d.code, std::string("model_not_found"));
    QCOMPARE(d.args, std::vector<std::string>{"yolov8s.yam"});
    QVERIFY2(d.toString().find("yolov8s.yam") != std::string::npos, d.toString().c_str());
    c.model = "/nonexistent/best.pt"; // a weights file as the model must exist too
    const hr::Diagnostics problems = hr::validate(c);
    QCOMPARE(problems.size(), std::size_t(1));
    QCOMPARE(problems.front().code, std::string("model_not_found"));
    c.model.clear();
    QCOMPARE(hr::validate(c).front().code, std::string("empty"));
}

void TestConfig::diagnosticsTravelAsArgs() {
    // A failure's values carry its diagnostics whole, after their English.
    hr::Diagnostics in(2);
    in[0] = hr::makeDiagnostic(hr::Diagnostic::Severity::Error, "/d/data.yaml", 4, "names",
                               "expected a list", "write names: [a, b]");
    in[0].code = "names_not_list";
    in[0].args = {"7", ""};
    in[1] = hr::makeDiagnostic(hr::Diagnostic::Severity::Warning, "", 0, "", "note: x");
    const std::vector<std::string> args = hr::diagnosticArgs(in);
    QCOMPARE(args.size(), std::size_t(3));
    QCOMPARE(args[0], hr::formatDiagnostics(in));
    std::vector<std::string> withHead = {"model.yaml"};
    withHead.insert(withHead.end(), args.begin(), args.end());
    const hr::Diagnostics out = hr::diagnosticsFromArgs(withHead, 1);
    QCOMPARE(out.size(), std::size_t(2));
    for (std::size_t i = 0; i < 2; ++i) {
        QCOMPARE(out[i].severity, in[i].severity);
        QCOMPARE(out[i].file, in[i].file);
        QCOMPARE(out[i].line, in[i].line);
        QCOMPARE(out[i].key, in[i].key);
        QCOMPARE(out[i].message, in[i].message);
        QCOMPARE(out[i].fix, in[i].fix);
        QCOMPARE(out[i].code, in[i].code);
        QCOMPARE(out[i].args, in[i].args);
    }
    // Values written before diagnostics were coded: the English alone.
    QVERIFY(hr::diagnosticsFromArgs({"a.yaml:1: error: x"}, 0).empty());
    QVERIFY(hr::diagnosticsFromArgs({"text", "not encoded"}, 0).empty());
}

void TestConfig::validateReportsCommandLine() {
    TrainConfig c;
    QVERIFY(hr::validate(c, "command line").empty());
    c.batch = 0;
    c.imgsz = 100;
    c.lr0 = -1;
    const Diagnostics d = hr::validate(c, "command line");
    QCOMPARE(count(d, Diagnostic::Severity::Error), 3);
    for (const auto& diagnostic : d)
        QCOMPARE(QString::fromStdString(diagnostic.file), QString("command line"));
    QCOMPARE(QString::fromStdString(d[1].key), QString("imgsz"));
    QVERIFY(d[1].fix.find("96 or 128") != std::string::npos);

    TrainConfig z;
    z.zero = 1;
    const Diagnostics w = hr::validate(z);
    QCOMPARE(w.size(), size_t(1));
    QCOMPARE(int(w[0].severity), int(Diagnostic::Severity::Warning));
}

void TestConfig::accumulateSteps_data() {
    QTest::addColumn<int>("nbs");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("steps");
    QTest::newRow("16") << 64 << 16 << 4;
    QTest::newRow("24 rounds up") << 64 << 24 << 3;
    QTest::newRow("5 rounds up") << 64 << 5 << 13;
    QTest::newRow("half to even") << 5 << 2 << 2;
    QTest::newRow("larger than nbs") << 64 << 128 << 1;
    QTest::newRow("auto batch") << 64 << -1 << 1;
}

void TestConfig::accumulateSteps() {
    QFETCH(int, nbs);
    QFETCH(int, batch);
    QFETCH(int, steps);
    TrainConfig c;
    c.nbs = nbs;
    c.batch = batch;
    QCOMPARE(hr::accumulateSteps(c), steps);
}

void TestConfig::batchRules() {
    TrainConfig c;
    c.batch = 8;
    QCOMPARE(hr::validationBatch(c), 8); // the training batch while val_batch is 0
    c.val_batch = 5;
    QCOMPARE(hr::validationBatch(c), 5);
    c.val_batch = 0;
    c.batch = -1; // auto-fit: the batch is not known yet
    QCOMPARE(hr::validationBatch(c), 1);
    QCOMPARE(hr::validationBatch(c, 16), 16);
    QCOMPARE(hr::rankBatch(16, 4), 4);
    QCOMPARE(hr::rankBatch(10, 4), 2); // not a multiple: each rank takes the floor
    QCOMPARE(hr::rankBatch(2, 4), 1);  // at least one image
    QCOMPARE(hr::rankBatch(16, 0), 16);
    QCOMPARE(hr::accumulateSteps(64, 24), 3);
    QCOMPARE(hr::accumulateSteps(0, 24), 1);
}

void TestConfig::modelNames_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("family");
    QTest::addColumn<QString>("scale");
    QTest::addColumn<QString>("unscaled");
    QTest::newRow("v8 n") << "yolov8n.yaml" << 8 << "n"
                          << "yolov8.yaml";
    QTest::newRow("v8 x, path") << "/m/yolov8x.yaml" << 8 << "x"
                                << "/m/yolov8.yaml";
    QTest::newRow("no extension") << "yolov8s" << 8 << "s"
                                  << "yolov8.yaml";
    QTest::newRow("unscaled") << "yolov8.yaml" << 8 << ""
                              << "";
    QTest::newRow("v9 t") << "yolov9t.yaml" << 9 << "t"
                          << "yolov9.yaml";
    QTest::newRow("v9 c") << "yolov9c.pt" << 9 << "c"
                          << "";
    QTest::newRow("v9 e, any case") << "YOLOv9E.yaml" << 9 << "e"
                                    << "YOLOv9.yaml";
    QTest::newRow("yolo11") << "yolo11m.yaml" << 11 << "m"
                            << "yolo11.yaml";
    QTest::newRow("folder named like a model") << "yolov8s/custom.yaml" << 0 << ""
                                               << "";
    QTest::newRow("not a scale letter") << "yolov8-p2.yaml" << 8 << ""
                                        << "";
}

void TestConfig::modelNames() {
    QFETCH(QString, name);
    QFETCH(int, family);
    QFETCH(QString, scale);
    QFETCH(QString, unscaled);
    const hr::ModelName parsed = hr::parseModelName(name.toStdString());
    QCOMPARE(parsed.family, family);
    QCOMPARE(parsed.scale == 0 ? QString() : QString(QChar(parsed.scale)), scale);
    QCOMPARE(QString::fromStdString(hr::unscaledModelFile(name.toStdString())), unscaled);
    QCOMPARE(QString::fromStdString(hr::scaleLettersOf(9)), QString("tsmce"));
    QVERIFY(hr::isScaleLetter('c') && hr::isScaleLetter('l') && !hr::isScaleLetter('z'));
}

void TestConfig::enumNames() {
    QCOMPARE(QString(hr::toString(hr::OomPolicy::Ask)), QString("ask"));
    QCOMPARE(QString(hr::toString(hr::OomPolicy::Stop)), QString("stop"));
    QCOMPARE(QString(hr::toString(hr::Checkpointing::Backbone)), QString("backbone"));
    QVERIFY(hr::parseOomPolicy("AUTO") == hr::OomPolicy::Auto);
    QVERIFY(!hr::parseOomPolicy("sometimes"));
    QVERIFY(hr::parseCheckpointing("false") == hr::Checkpointing::None);
    QVERIFY(hr::parseCheckpointing("all") == hr::Checkpointing::All);
    QVERIFY(!hr::parseCheckpointing("half"));
}

// ---- data.yaml ------------------------------------------------------------------------------

void TestConfig::dataListNames() {
    const auto result = hr::loadDataConfig(dataPath("data_list.yaml"));
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    QVERIFY(result.diagnostics.empty());
    const hr::DataConfig& d = *result.config;
    const std::string root = absoluteData("datasets/ds");
    QCOMPARE(d.root, root);
    QCOMPARE(d.train, std::vector<std::string>{root + "/images/train"});
    QCOMPARE(d.val, std::vector<std::string>{root + "/images/val"});
    QVERIFY(d.test.empty()); // `test:` with nothing
    QCOMPARE(d.names, (std::vector<std::string>{"cat", "dog", "bird"}));
    QCOMPARE(d.nc(), 3);
}

void TestConfig::dataMapNamesAndDownloadNote() {
    const std::string file = dataPath("data_map.yaml");
    const auto result = hr::loadDataConfig(file);
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    QCOMPARE(result.config->names, (std::vector<std::string>{"person", "bicycle", "car"}));
    QCOMPARE(result.diagnostics.size(), size_t(1));
    const Diagnostic& note = result.diagnostics[0];
    QCOMPARE(int(note.severity), int(Diagnostic::Severity::Note));
    QCOMPARE(note.key, std::string("download"));
    QCOMPARE(note.line, 11);
    QVERIFY(note.message.find("never downloads") != std::string::npos);
}

void TestConfig::dataTxtLists() {
    const auto result = hr::loadDataConfig(dataPath("data_txt.yaml"));
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    const std::string root = absoluteData("datasets/ds");
    QCOMPARE(result.config->train, std::vector<std::string>{root + "/train.txt"});
    QCOMPARE(result.config->val, std::vector<std::string>{root + "/val.txt"});
    QCOMPARE(result.config->names, (std::vector<std::string>{"cat", "dog"}));
}

void TestConfig::dataListOfFolders() {
    const auto result = hr::loadDataConfig(dataPath("data_folders.yaml"));
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    const std::string root = absoluteData("datasets/ds");
    QCOMPARE(result.config->train,
             (std::vector<std::string>{root + "/images/train", root + "/images/extra"}));
    QCOMPARE(result.config->val, std::vector<std::string>{root + "/images/val"});
    // nc alone: generated names and a note saying so.
    QCOMPARE(result.config->names, (std::vector<std::string>{"class0", "class1"}));
    QCOMPARE(result.diagnostics.size(), size_t(1));
    QCOMPARE(int(result.diagnostics[0].severity), int(Diagnostic::Severity::Note));
    QCOMPARE(result.diagnostics[0].key, std::string("nc"));
}

void TestConfig::dataWithoutPathUsesYamlFolder() {
    const auto result = hr::loadDataConfig(dataPath("datasets/ds/data.yaml"));
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    QCOMPARE(result.config->root, absoluteData("datasets/ds"));
    QCOMPARE(result.config->train,
             std::vector<std::string>{absoluteData("datasets/ds/images/train")});
}

void TestConfig::dataRelativePathFromSubfolder() {
    // Loaded through a relative file name: `path: ../datasets/ds` is read against the YAML's
    // folder, not against the working directory.
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(kData + "/bad_data"));
    const auto result = hr::loadDataConfig("../nested/data.yaml");
    QDir::setCurrent(previous);
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    QCOMPARE(result.config->root, absoluteData("datasets/ds"));
    QCOMPARE(result.config->val, std::vector<std::string>{absoluteData("datasets/ds/images/val")});
}

void TestConfig::badData_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing train folder")
        << "missing_train_folder.yaml" << 2 << "train"
        << "'images/training' does not exist (resolved to " +
               QString::fromStdString(absoluteData("datasets/ds/images/training")) + ")";
    QTest::newRow("names gap") << "names_gap.yaml" << 5 << "names"
                               << "id 1 is missing";
    QTest::newRow("nc mismatch") << "nc_mismatch.yaml" << 4 << "nc"
                                 << "nc says 3 classes but 'names' lists 2";
    QTest::newRow("no val") << "no_val.yaml" << 1 << "val"
                            << "no 'val' images given";
    QTest::newRow("no names") << "no_names.yaml" << 1 << "names"
                              << "class names are missing";
    QTest::newRow("missing root") << "missing_path.yaml" << 2 << "path"
                                  << "folder '../datasets/nowhere' does not exist";
    QTest::newRow("not a map") << "not_a_map.yaml" << 1 << ""
                               << "must be a map";
    QTest::newRow("names scalar") << "bad_names_type.yaml" << 4 << "names"
                                  << "expected a list of class names or a map";
}

void TestConfig::badData() {
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(QString, key);
    QFETCH(QString, message);
    const std::string path = dataPath("bad_data/" + file);
    const auto result = hr::loadDataConfig(path);
    QVERIFY(!result.config);
    QCOMPARE(count(result.diagnostics, Diagnostic::Severity::Error), 1);
    const Diagnostic& error = result.diagnostics.back();
    QCOMPARE(int(error.severity), int(Diagnostic::Severity::Error));
    QCOMPARE(error.file, path);
    QCOMPARE(error.line, line);
    QCOMPARE(QString::fromStdString(error.key), key);
    QVERIFY2(QString::fromStdString(error.toString()).contains(message), error.toString().c_str());
}

void TestConfig::dataSaveRoundTrip() {
    const auto loaded = hr::loadDataConfig(dataPath("data_folders.yaml"));
    QVERIFY(loaded.config);
    hr::DataConfig config = *loaded.config;
    config.names = {"a: tricky", "true"};
    config.test = {config.root + "/images/val"};

    // Saved elsewhere: the root is written absolute, the splits relative to it.
    QTemporaryDir dir;
    const std::string elsewhere = dir.filePath("data.yaml").toStdString();
    std::string error;
    QVERIFY2(hr::saveDataConfig(config, elsewhere, &error), error.c_str());
    auto again = hr::loadDataConfig(elsewhere);
    QVERIFY2(again.config, hr::formatDiagnostics(again.diagnostics).c_str());
    QVERIFY(*again.config == config);
    std::string text;
    QVERIFY(hr::readFile(elsewhere, text));
    QVERIFY(text.find("  - images/extra\n") != std::string::npos);

    // Saved inside its root: `path: .`, so the folder can move.
    QTemporaryDir copy;
    for (const char* sub : {"images/train", "images/val", "images/extra"})
        QVERIFY(QDir(copy.path()).mkpath(sub));
    hr::DataConfig moved = config;
    moved.root = QDir::cleanPath(copy.path()).toStdString();
    for (auto* paths : {&moved.train, &moved.val, &moved.test})
        for (auto& p : *paths)
            p = moved.root + p.substr(config.root.size());
    const std::string inside = copy.filePath("data.yaml").toStdString();
    QVERIFY(hr::saveDataConfig(moved, inside, &error));
    QVERIFY(hr::readFile(inside, text));
    QVERIFY(text.find("path: .\n") != std::string::npos);
    again = hr::loadDataConfig(inside);
    QVERIFY(again.config);
    QVERIFY(*again.config == moved);
}

void TestConfig::dataMissingTestIsAWarning() {
    QTemporaryDir dir;
    const std::string file = dir.filePath("data.yaml").toStdString();
    const std::string text = "path: " + absoluteData("datasets/ds") +
                             "\ntrain: images/train\nval: images/val\ntest: images/test\n"
                             "names: [cat]\nkpt_shape: [17, 3]\nnmes: [dog]\n";
    QVERIFY(hr::writeFileAtomically(file, text));
    const auto result = hr::loadDataConfig(file);
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    QVERIFY(result.config->test.empty());
    QCOMPARE(result.diagnostics.size(), size_t(3));
    const Diagnostic* test = findKey(result.diagnostics, "test");
    QVERIFY(test);
    QCOMPARE(int(test->severity), int(Diagnostic::Severity::Warning));
    QCOMPARE(test->line, 4);
    const Diagnostic* pose = findKey(result.diagnostics, "kpt_shape");
    QVERIFY(pose);
    QCOMPARE(int(pose->severity), int(Diagnostic::Severity::Note));
    const Diagnostic* typo = findKey(result.diagnostics, "nmes");
    QVERIFY(typo);
    QCOMPARE(int(typo->severity), int(Diagnostic::Severity::Warning));
    QCOMPARE(typo->line, 7);
    QVERIFY(typo->toString().find("did you mean 'names'?") != std::string::npos);
}

namespace {

// A Roboflow YOLOv8 export as downloaded: data.yaml beside train/, valid/, test/.
void makeRoboflowExport(const QString& root) {
    for (const char* split : {"train", "valid", "test"}) {
        QVERIFY(QDir().mkpath(root + "/" + split + "/images"));
        QVERIFY(QDir().mkpath(root + "/" + split + "/labels"));
    }
    QVERIFY(hr::writeFileAtomically((root + "/data.yaml").toStdString(),
                                    "train: ../train/images\nval: ../valid/images\n"
                                    "test: ../test/images\n\nnc: 2\nnames: ['helmet', 'head']\n\n"
                                    "roboflow:\n  workspace: w\n  project: p\n  version: 3\n"
                                    "  license: CC BY 4.0\n  url: https://universe.roboflow.com/"
                                    "w/p/dataset/3\n"));
}

} // namespace

void TestConfig::dataRoboflowExport() {
    QTemporaryDir dir;
    const QString root = QDir(dir.path()).canonicalPath() + "/export";
    makeRoboflowExport(root);
    hr::DataConfigOptions options; // no datasets folder: only the "../" rule may rescue it
    const auto result = hr::loadDataConfig((root + "/data.yaml").toStdString(), options);
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    const std::string r = root.toStdString();
    QCOMPARE(result.config->root, r);
    QCOMPARE(result.config->train, std::vector<std::string>{r + "/train/images"});
    QCOMPARE(result.config->val, std::vector<std::string>{r + "/valid/images"});
    QCOMPARE(result.config->test, std::vector<std::string>{r + "/test/images"});
    QCOMPARE(result.config->names, (std::vector<std::string>{"helmet", "head"}));
    QCOMPARE(count(result.diagnostics, Diagnostic::Severity::Error), 0);
    QCOMPARE(count(result.diagnostics, Diagnostic::Severity::Warning), 0);
    // Each retried path says so, on its own line.
    const Diagnostic* train = findKey(result.diagnostics, "train");
    QVERIFY(train);
    QCOMPARE(train->line, 1);
    QVERIFY2(train->message.find("used 'train/images'") != std::string::npos,
             train->message.c_str());

    // The rule is Ultralytics': only a single path, and only when the first try is missing.
    QVERIFY(hr::writeFileAtomically((root + "/list.yaml").toStdString(),
                                    "train: [../train/images]\nval: ../valid/images\nnc: 2\n"));
    const auto list = hr::loadDataConfig((root + "/list.yaml").toStdString(), options);
    QVERIFY(!list.config);
    const Diagnostic* listed = findKey(list.diagnostics, "train");
    QVERIFY(listed);
    QCOMPARE(int(listed->severity), int(Diagnostic::Severity::Error));
    QVERIFY(QDir().mkpath(dir.path() + "/train/images")); // now "../train/images" exists
    const auto first = hr::loadDataConfig((root + "/data.yaml").toStdString(), options);
    QVERIFY(first.config);
    QCOMPARE(
        first.config->train,
        std::vector<std::string>{QDir(dir.path()).canonicalPath().toStdString() + "/train/images"});
}

void TestConfig::dataDatasetsFolderFallback() {
    QTemporaryDir dir;
    const QString datasets = QDir(dir.path()).canonicalPath() + "/datasets";
    QVERIFY(QDir().mkpath(datasets + "/coco8/images/train"));
    QVERIFY(QDir().mkpath(datasets + "/coco8/images/val"));
    QVERIFY(QDir().mkpath(dir.path() + "/yamls"));
    const std::string yaml = (dir.path() + "/yamls/coco8.yaml").toStdString();
    QVERIFY(hr::writeFileAtomically(
        yaml, "path: coco8\ntrain: images/train\nval: images/val\nnames:\n  0: person\n"));

    // Without a datasets folder: the error says where it looked and how to set the fallback.
    const auto missing = hr::loadDataConfig(yaml, hr::DataConfigOptions{});
    QVERIFY(!missing.config);
    const Diagnostic* path = findKey(missing.diagnostics, "path");
    QVERIFY(path);
    QVERIFY2(path->fix.find("HEADROOM_DATASETS_DIR") != std::string::npos, path->fix.c_str());

    hr::DataConfigOptions options;
    options.datasetsDir = datasets.toStdString();
    const auto found = hr::loadDataConfig(yaml, options);
    QVERIFY2(found.config, hr::formatDiagnostics(found.diagnostics).c_str());
    QCOMPARE(found.config->root, (datasets + "/coco8").toStdString());
    QCOMPARE(found.config->train,
             std::vector<std::string>{(datasets + "/coco8/images/train").toStdString()});
    // The message names the folder used.
    const Diagnostic* note = findKey(found.diagnostics, "path");
    QVERIFY(note);
    QCOMPARE(int(note->severity), int(Diagnostic::Severity::Note));
    QVERIFY(note->message.find((datasets + "/coco8").toStdString()) != std::string::npos);
    QVERIFY(note->fix.find(datasets.toStdString()) != std::string::npos);

    // A path beside the YAML wins over the datasets folder.
    QVERIFY(QDir().mkpath(dir.path() + "/yamls/coco8/images/train"));
    QVERIFY(QDir().mkpath(dir.path() + "/yamls/coco8/images/val"));
    const auto beside = hr::loadDataConfig(yaml, options);
    QVERIFY(beside.config);
    QCOMPARE(beside.config->root,
             (QDir(dir.path()).canonicalPath() + "/yamls/coco8").toStdString());
}

void TestConfig::dataUltralyticsSettingsDatasetsDir() {
    QTemporaryDir dir;
    const QByteArray previousOwn = qgetenv("HEADROOM_DATASETS_DIR");
    const QByteArray previousYolo = qgetenv("YOLO_CONFIG_DIR");
    qunsetenv("HEADROOM_DATASETS_DIR");
    qputenv("YOLO_CONFIG_DIR", dir.path().toUtf8());
    QVERIFY(hr::writeFileAtomically(
        (dir.path() + "/settings.json").toStdString(),
        "{\n  \"settings_version\": \"0.0.6\",\n  \"datasets_dir\": \"/srv/yolo data\",\n"
        "  \"weights_dir\": \"weights\"\n}\n"));
    const std::string fromUltralytics = hr::defaultDatasetsDir();
    qputenv("HEADROOM_DATASETS_DIR", "/srv/own");
    const std::string own = hr::defaultDatasetsDir();
    qunsetenv("HEADROOM_DATASETS_DIR");
    QVERIFY(QFile::remove(dir.path() + "/settings.json"));
    const std::string none = hr::defaultDatasetsDir();
    previousOwn.isNull() ? qunsetenv("HEADROOM_DATASETS_DIR")
                         : qputenv("HEADROOM_DATASETS_DIR", previousOwn);
    previousYolo.isNull() ? qunsetenv("YOLO_CONFIG_DIR") : qputenv("YOLO_CONFIG_DIR", previousYolo);
    QCOMPARE(fromUltralytics, std::string("/srv/yolo data"));
    QCOMPARE(own, std::string("/srv/own"));
    QCOMPARE(none, std::string());
}

void TestConfig::dataValidationKeyIsVal() {
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.path() + "/images/train"));
    QVERIFY(QDir().mkpath(dir.path() + "/images/validation"));
    const std::string yaml = (dir.path() + "/data.yaml").toStdString();
    QVERIFY(hr::writeFileAtomically(
        yaml, "train: images/train\nvalidation: images/validation\nnames: [a]\n"));
    const auto result = hr::loadDataConfig(yaml, hr::DataConfigOptions{});
    QVERIFY2(result.config, hr::formatDiagnostics(result.diagnostics).c_str());
    QCOMPARE(
        result.config->val,
        std::vector<std::string>{
            QDir::cleanPath(QDir(dir.path()).absoluteFilePath("images/validation")).toStdString()});
    const Diagnostic* note = findKey(result.diagnostics, "validation");
    QVERIFY(note);
    QCOMPARE(note->line, 2);
}

QTEST_APPLESS_MAIN(TestConfig)
#include "test_config.moc"
