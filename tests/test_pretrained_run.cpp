// SPDX-License-Identifier: GPL-3.0-or-later
// Training that starts from an Ultralytics checkpoint (model=x.pt), as `YOLO("x.pt").train()`:
// the architecture comes from the file, matching tensors are transferred and counted, class
// names are compared, and freeze keeps the frozen rows' weights.
#include "data/synthetic_dataset.h"
#include "model/model_io.h"
#include "train/trainer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <map>
#include <mutex>

namespace {

const std::string kCheckpoint = HEADROOM_TEST_DATA "/ultralytics/yolov8n-tiny.pt";

struct Messages {
    std::mutex mutex;
    std::vector<std::string> info, warnings;
    std::string failure;
    hr::EventSink sink() {
        return [this](const hr::TrainEvent& event) {
            std::lock_guard<std::mutex> lock(mutex);
            if (const auto* m = std::get_if<hr::LogMessage>(&event))
                (m->level == hr::LogMessage::Level::Info ? info : warnings).push_back(m->text);
            else if (const auto* f = std::get_if<hr::RunFailed>(&event))
                failure = f->message;
        };
    }
    bool saw(const std::vector<std::string>& list, const std::string& text) const {
        for (const auto& m : list)
            if (m.find(text) != std::string::npos)
                return true;
        return false;
    }
};

std::map<std::string, torch::Tensor> parameters(hr::DetectionModel& model) {
    std::map<std::string, torch::Tensor> out;
    for (const auto& p : model->named_parameters())
        out[p.key()] = p.value().detach().clone();
    return out;
}

} // namespace

class TestPretrainedRun : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        torch::set_num_threads(2);
        QVERIFY(m_dir.isValid());
    }

    void sameClassesTransferAllAndFreezeHolds() {
        const std::string data = makeData("three", 3);
        Messages messages;
        hr::TrainConfig config = tinyConfig(data, "same");
        config.model = kCheckpoint; // model=yolov8n.pt
        config.freeze = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        hr::Trainer trainer(config, messages.sink());
        QCOMPARE(trainer.run(), 0);
        QVERIFY2(messages.failure.empty(), messages.failure.c_str());
        hr::LoadedModel start = hr::loadModel(kCheckpoint);
        QVERIFY(start.model);
        const int total = static_cast<int>(start.model->named_parameters().size() +
                                           start.model->named_buffers().size());
        const std::string transferred = "Transferred " + std::to_string(total) + "/" +
                                        std::to_string(total) + " items from yolov8n-tiny.pt";
        QVERIFY2(messages.saw(messages.info, transferred), transferred.c_str());
        QVERIFY(!messages.saw(messages.warnings, "other classes"));

        hr::LoadedModel trained = hr::loadModel(config.project + "/same/weights/last.pt");
        QVERIFY2(trained.model, trained.error.c_str());
        const auto before = parameters(start.model), after = parameters(trained.model);
        int frozenSame = 0, trainedChanged = 0;
        for (const auto& [name, value] : before) {
            const int row = std::stoi(name.substr(6, name.find('.', 6) - 6)); // "model.<row>."
            // EMA arithmetic may move an unchanged weight by rounding only.
            const bool same = (value - after.at(name)).abs().max().item<double>() < 1e-6;
            if (row < 10) {
                QVERIFY2(same, name.c_str());
                ++frozenSame;
            } else if (!same && name.find(".dfl.") == std::string::npos) {
                ++trainedChanged;
            }
        }
        QVERIFY(frozenSame > 50);
        QVERIFY(trainedChanged > 20);
    }

    void otherClassesReinitialiseClassLayersAndWarn() {
        const std::string data = makeData("seven", 7);
        hr::TrainConfig config = tinyConfig(data, "other");
        config.weights = kCheckpoint; // weights= (or pretrained=) on the checkpoint's model
        config.model = kCheckpoint;   // its architecture, nc from the data set
        Messages again;
        hr::Trainer second(config, again.sink());
        QCOMPARE(second.run(), 0);
        QVERIFY2(again.failure.empty(), again.failure.c_str());
        bool counted = false;
        for (const auto& m : again.info)
            if (m.rfind("Transferred ", 0) == 0) {
                const auto slash = m.find('/');
                const int got = std::stoi(m.substr(12, slash - 12));
                const int total = std::stoi(m.substr(slash + 1));
                QCOMPARE(got, total - 6); // the three levels' class conv weight + bias
                counted = true;
            }
        QVERIFY(counted);
        QVERIFY(again.saw(again.warnings, "other classes (circle, square, triangle)"));
    }

    // A weights file that is not one, a missing one and the legacy format each end the run
    // before it starts, with the file named and what to do, not a run-checkpoint remedy.
    void wrongStartingWeightsNameTheFile_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("says");
        QTest::newRow("not a checkpoint")
            << m_dir.filePath("junk.pt") << "not a PyTorch checkpoint";
        QTest::newRow("missing") << m_dir.filePath("missing.pt") << "no such file";
        QTest::newRow("legacy") << QString(HEADROOM_TEST_DATA "/ultralytics/yolov8n-tiny_legacy.pt")
                                << "legacy (pre-1.6) format";
    }
    void wrongStartingWeightsNameTheFile() {
        QFETCH(QString, file);
        QFETCH(QString, says);
        QFile junk(m_dir.filePath("junk.pt"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("hello\n");
        junk.close();
        hr::TrainConfig config = tinyConfig(makeData("three-wrong", 3), "wrong");
        config.model = "yolov8n.yaml";
        config.weights = file.toStdString();
        Messages messages;
        hr::Trainer trainer(config, messages.sink());
        QVERIFY(trainer.run() != 0);
        QVERIFY2(messages.failure.find(config.weights) != std::string::npos,
                 messages.failure.c_str());
        QVERIFY2(messages.failure.find(says.toStdString()) != std::string::npos,
                 messages.failure.c_str());
        QVERIFY2(messages.failure.find("last.pt.bak") == std::string::npos,
                 messages.failure.c_str());
    }

private:
    std::string makeData(const QString& name, int classes) {
        hr::SyntheticOptions options;
        options.train = 8;
        options.val = 4;
        options.imgsz = 64;
        options.classes = classes;
        std::string error;
        const std::string dir = m_dir.filePath(name).toStdString();
        if (!hr::makeSyntheticDataset(dir, options, &error))
            qFatal("%s", error.c_str());
        return dir + "/data.yaml";
    }
    hr::TrainConfig tinyConfig(const std::string& data, const std::string& name) const {
        hr::TrainConfig c;
        c.data = data;
        c.epochs = 1;
        c.batch = 4;
        c.imgsz = 64;
        c.workers = 0;
        c.threads = 2;
        c.project = m_dir.filePath("runs").toStdString();
        c.name = name;
        c.amp = false;
        c.optimizer = "SGD";
        c.lr0 = 0.01;
        c.warmup_epochs = 0;
        c.close_mosaic = 0;
        c.nbs = 4; // an optimizer step every batch: the unfrozen rows must move
        return c;
    }
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestPretrainedRun)
#include "test_pretrained_run.moc"
