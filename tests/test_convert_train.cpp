// SPDX-License-Identifier: GPL-3.0-or-later
// The round trip of every import: convert the format's small export, check the data set, then
// train one step on it (tiny images, one batch) - what a person does after `convert`.
#include "convert_fixtures.h"

#include "config/data_config.h"
#include "config/train_config.h"
#include "data/convert.h"
#include "data/dataset.h"
#include "train/trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <mutex>

class TestConvertTrain : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void convertCheckTrain_data();
    void convertCheckTrain();

private:
    QTemporaryDir m_dir;
};

void TestConvertTrain::initTestCase() {
    torch::set_num_threads(2);
    QVERIFY(m_dir.isValid());
}

void TestConvertTrain::convertCheckTrain_data() {
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("classes");
    QTest::newRow("coco") << int(hr::SourceFormat::Coco) << 3;
    QTest::newRow("voc") << int(hr::SourceFormat::Voc) << 2;
    QTest::newRow("cvat-yolo") << int(hr::SourceFormat::CvatYolo) << 2;
    QTest::newRow("labelstudio-yolo") << int(hr::SourceFormat::LabelStudioYolo) << 2;
    QTest::newRow("folder") << int(hr::SourceFormat::Folder) << 3;
}

void TestConvertTrain::convertCheckTrain() {
    QFETCH(int, format);
    QFETCH(int, classes);
    const auto from = static_cast<hr::SourceFormat>(format);
    const QString in = m_dir.filePath(hr::toString(from));
    const QString out = in + "-yolo";
    const std::map<hr::SourceFormat, std::function<bool(const QString&)>> make = {
        {hr::SourceFormat::Coco, fixtures::makeCoco},
        {hr::SourceFormat::Voc, fixtures::makeVoc},
        {hr::SourceFormat::CvatYolo, fixtures::makeCvat},
        {hr::SourceFormat::LabelStudioYolo, fixtures::makeLabelStudio},
        {hr::SourceFormat::Folder,
         [](const QString& root) { return fixtures::makeFolder(root, 6); }},
    };
    QVERIFY(make.at(from)(in));

    // 1. convert
    const hr::ConvertReport report = hr::convertDataset(from, in.toStdString(), out.toStdString());
    QVERIFY2(report.ok(), report.format().c_str());

    // 2. check: the data set loads and both splits have usable images with objects
    const auto loaded = hr::loadDataConfig(report.dataYaml, hr::DataConfigOptions{});
    QVERIFY2(loaded.config, hr::formatDiagnostics(loaded.diagnostics).c_str());
    QCOMPARE(loaded.config->nc(), classes);
    hr::ScanOptions scan;
    scan.useCache = false;
    const hr::DatasetReport train = hr::scanDataset(*loaded.config, hr::Split::Train, scan);
    const hr::DatasetReport val = hr::scanDataset(*loaded.config, hr::Split::Val, scan);
    QVERIFY(train.usable() && val.usable());
    QVERIFY(train.stats.instances > 0);
    for (const auto* split : {&train, &val})
        for (const auto& d : split->problems)
            QVERIFY2(d.severity == hr::Diagnostic::Severity::Note, d.toString().c_str());

    // 3. train one step
    hr::TrainConfig config;
    config.model = "yolov8n.yaml";
    config.data = report.dataYaml;
    config.epochs = 1;
    config.batch = 16; // every training image in one step
    config.imgsz = 32;
    config.workers = 0;
    config.threads = 2;
    config.val = false;
    config.amp = false;
    config.warmup_epochs = 0;
    config.close_mosaic = 0;
    config.project = m_dir.filePath("runs").toStdString();
    config.name = hr::toString(from);
    std::mutex mutex;
    std::vector<hr::BatchEnd> batches;
    std::string failure;
    hr::Trainer trainer(config, [&](const hr::TrainEvent& event) {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto* b = std::get_if<hr::BatchEnd>(&event))
            batches.push_back(*b);
        else if (const auto* f = std::get_if<hr::RunFailed>(&event))
            failure = f->message;
    });
    QCOMPARE(trainer.run(), 0);
    QVERIFY2(failure.empty(), failure.c_str());
    QCOMPARE(int(batches.size()), 1);
    const double loss = batches[0].boxLoss + batches[0].clsLoss + batches[0].dflLoss;
    QVERIFY2(std::isfinite(loss) && loss > 0, std::to_string(loss).c_str());
}

QTEST_APPLESS_MAIN(TestConvertTrain)
#include "test_convert_train.moc"
