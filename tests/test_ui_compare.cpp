// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare page (issue 9), offscreen: two finished tiny runs (trained here through the
// comparison session, the same path as the page's "Run strategy matrix" button) are laid over
// each other - a table row each, one series per run in every plot with the run's point counts,
// and the memory-vs-mAP chart with the Pareto front.
#include "comparepage.h"
#include "comparisonsession.h"
#include "plotwidget.h"
#include "runspage.h"

#include "data/synthetic_dataset.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

class TestUiCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void runsTwoStrategiesAndComparesThem();

private:
    QTemporaryDir m_dir;
    std::string m_data;
};

void TestUiCompare::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::SyntheticOptions options;
    options.train = 4;
    options.val = 2;
    options.imgsz = 64;
    std::string error;
    const std::string dir = m_dir.filePath("data").toStdString();
    QVERIFY2(hr::makeSyntheticDataset(dir, options, &error), error.c_str());
    m_data = dir + "/data.yaml";
}

void TestUiCompare::runsTwoStrategiesAndComparesThem() {
    hr::TrainConfig base;
    base.data = m_data;
    base.epochs = 1;
    base.batch = 2;
    base.imgsz = 64;
    base.workers = 0;
    base.threads = 2;
    base.project = m_dir.filePath("runs").toStdString();
    base.name = "ui";
    base.amp = false;
    base.optimizer = "SGD";
    base.warmup_epochs = 0;
    base.close_mosaic = 0;
    base.memory_sample_hz = 50;
    hr::Strategy plain, amp;
    plain.name = "plain";
    amp.name = "amp";
    amp.overrides = {{"amp", "true"}};

    hr::ui::ComparePage page;
    page.resize(1200, 800);
    page.show();
    hr::ui::ComparisonSession* session = page.session();
    QSignalSpy ready(session, &hr::ui::ComparisonSession::comparisonReady);
    QSignalSpy started(session, &hr::ui::ComparisonSession::strategyStarted);
    QString error;
    QVERIFY2(session->start(base, {plain, amp}, &error), qPrintable(error));
    QVERIFY(session->isRunning());
    QVERIFY(!session->start(base, {plain}, &error)); // one matrix at a time
    QVERIFY(ready.wait(600000));
    QVERIFY(!session->isRunning());
    QCOMPARE(started.count(), 2);

    // The finished matrix is on the page.
    QTableWidget* table = page.table();
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(0, 0)->text(), QString("plain"));
    QCOMPARE(table->item(1, 0)->text(), QString("amp"));
    QCOMPARE(table->item(0, 1)->text(), QString("done"));
    QCOMPARE(table->item(1, 1)->text(), QString("done"));

    // "Compare selected" on the Runs page: enabled from two selected runs, asks for them.
    hr::ui::RunsPage runs;
    runs.setRunsFolder(m_dir.filePath("runs"));
    QTreeWidget* list = runs.runList();
    QCOMPARE(list->topLevelItemCount(), 2);
    auto* compare = runs.findChild<QPushButton*>(QStringLiteral("compareSelected"));
    QVERIFY(compare);
    list->topLevelItem(0)->setSelected(true);
    QVERIFY(!compare->isEnabled());
    list->topLevelItem(1)->setSelected(true);
    QVERIFY(compare->isEnabled());
    QSignalSpy requested(&runs, &hr::ui::RunsPage::compareRequested);
    compare->click();
    QCOMPARE(requested.count(), 1);
    QStringList dirs = requested.at(0).at(0).toStringList();
    QCOMPARE(dirs.size(), 2);
    // In the order the strategies ran, as the window would pass them on.
    dirs.sort();
    if (!dirs[0].endsWith("ui-plain"))
        std::swap(dirs[0], dirs[1]);
    page.compareRuns(dirs);
    QCOMPARE(ready.count(), 2);
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(0, 0)->text(), QString("ui-plain"));
    QCOMPARE(table->item(1, 0)->text(), QString("ui-amp"));
    QCOMPARE(table->item(1, 3)->text(), QString("yes"));

    const hr::Comparison& c = page.comparison();
    QCOMPARE(page.memoryPlot()->seriesCount(), 2);
    QCOMPARE(page.mapEpochPlot()->seriesCount(), 2);
    QCOMPARE(page.mapTimePlot()->seriesCount(), 2);
    QCOMPARE(page.lossPlot()->seriesCount(), 2);
    QCOMPARE(page.scatterPlot()->seriesCount(), 3); // a point per run + the front
    int onFront = 0;
    for (int i = 0; i < 2; ++i) {
        const auto& row = c.rows[static_cast<size_t>(i)];
        QVERIFY(!row.run.memory.empty());
        QCOMPARE(page.memoryPlot()->pointCount(i), static_cast<int>(row.run.memory.size()));
        QCOMPARE(page.mapEpochPlot()->pointCount(i), 1);
        QCOMPARE(page.lossPlot()->pointCount(i), 1);
        QCOMPARE(page.mapTimePlot()->pointCount(i), 1);
        QCOMPARE(page.scatterPlot()->pointCount(i), 1);
        onFront += row.pareto ? 1 : 0;
        QCOMPARE(table->item(i, 11)->text().isEmpty(), !row.pareto);
    }
    QVERIFY(onFront >= 1);
    QCOMPARE(page.scatterPlot()->pointCount(2), onFront);
}

QTEST_MAIN(TestUiCompare)
#include "test_ui_compare.moc"
