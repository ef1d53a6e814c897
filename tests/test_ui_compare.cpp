// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare page (issue 9), offscreen: two finished tiny runs (trained here through the
// comparison session, the same path as the page's "Run strategy matrix" button) are laid over
// each other - a table row each, one series per run in every plot with the run's point counts,
// and the training-peak-vs-mAP chart with the Pareto front; the same runs picked on the main
// window's Runs page; and the strategy editor: add, edit, remove, reorder, problems in words,
// save and load the CLI's strategies file, and a run of the edited list.
#include "comparepage.h"
#include "comparisonsession.h"
#include "mainwindow.h"
#include "plotwidget.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "strategyeditor.h"
#include "ui_test_env.h"

#include "compare/strategy.h"
#include "config/train_config.h"
#include "data/synthetic_dataset.h"
#include "util/atomic_file.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QtTest>

#include <algorithm>
#include <functional>

class TestUiCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void runsTwoStrategiesAndComparesThem();
    void mainWindowComparesRunsPickedOnTheRunsPage();
    void editsSavesLoadsAndRunsStrategies();
    void matrixAsksFirstBlocksStartAndReloadsAfterRestart();
    void everyTableNumberNamesItsSource();

private:
    hr::TrainConfig tinyBase(const std::string& name) const;

    QTemporaryDir m_dir;
    std::string m_data;
};

void TestUiCompare::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_compare");
    std::string error;
    m_data = hr::testing::makeTinyDataset(m_dir, 4, 2, &error).toStdString();
    QVERIFY2(!m_data.empty(), error.c_str());
}

hr::TrainConfig TestUiCompare::tinyBase(const std::string& name) const {
    hr::TrainConfig base;
    base.data = m_data;
    base.epochs = 1;
    base.batch = 2;
    base.imgsz = 64;
    base.workers = 0;
    base.threads = 2;
    base.project = m_dir.filePath("runs").toStdString();
    base.name = name;
    base.amp = false;
    base.optimizer = "SGD";
    base.warmup_epochs = 0;
    base.close_mosaic = 0;
    base.memory_sample_hz = 50;
    return base;
}

void TestUiCompare::runsTwoStrategiesAndComparesThem() {
    const hr::TrainConfig base = tinyBase("ui");
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
    const QStringList dirs = requested.at(0).at(0).toStringList();
    QCOMPARE(dirs.size(), 2);
    // Oldest first, whatever the list's order: the first strategy is the baseline.
    QVERIFY2(dirs[0].endsWith("ui-plain") && dirs[1].endsWith("ui-amp"),
             qPrintable(dirs.join(' ')));
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
        // Training and validation peaks apart; the chart's point is the training peak.
        QVERIFY(row.trainPeakBytes > 0);
        QVERIFY(row.valPeakBytes > 0);
        QVERIFY(!table->item(i, 5)->text().isEmpty());
        QVERIFY(!table->item(i, 7)->text().isEmpty());
        QCOMPARE(page.scatterPlot()->plot()->graph(i)->data()->at(0)->key,
                 row.trainPeakBytes / (1024.0 * 1024.0));
        onFront += row.pareto ? 1 : 0;
        QCOMPARE(table->item(i, 12)->text().isEmpty(), !row.pareto);
    }
    QVERIFY(onFront >= 1);
    QCOMPARE(page.scatterPlot()->pointCount(2), onFront);

    // One legend for the five charts; none of them gives its own rows to a legend.
    const QString legend = page.legendLabel()->text();
    QVERIFY2(legend.contains("ui-plain") && legend.contains("ui-amp") &&
                 legend.contains("Pareto front"),
             qPrintable(legend));
    for (hr::ui::PlotWidget* plot : {page.memoryPlot(), page.mapEpochPlot(), page.mapTimePlot(),
                                     page.lossPlot(), page.scatterPlot()})
        QVERIFY(plot->plot()->legend->layout() == nullptr);
    // An exported chart stands alone, so it carries the legend; the page's chart stays without.
    const QString image = m_dir.filePath("memory.png");
    QVERIFY(page.memoryPlot()->exportTo(image));
    QVERIFY(QFileInfo(image).size() > 0);
    QVERIFY(page.memoryPlot()->plot()->legend->layout() == nullptr);
}

void TestUiCompare::mainWindowComparesRunsPickedOnTheRunsPage() {
    // The runs of the first test, picked on the window's Runs page, land on its Compare page.
    hr::ui::MainWindow window;
    window.resize(1400, 900);
    window.runsPage()->setRunsFolder(m_dir.filePath("runs"));
    QTreeWidget* list = window.runsPage()->runList();
    QVERIFY(list->topLevelItemCount() >= 2);
    QStringList picked;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        const QString dir = list->topLevelItem(i)->data(0, Qt::UserRole).toString();
        if (dir.endsWith("ui-plain") || dir.endsWith("ui-amp")) {
            list->topLevelItem(i)->setSelected(true);
            picked << dir;
        }
    }
    QCOMPARE(picked.size(), 2);
    auto* compare = window.runsPage()->findChild<QPushButton*>(QStringLiteral("compareSelected"));
    QVERIFY(compare && compare->isEnabled());
    compare->click();
    hr::ui::ComparePage* page = window.comparePage();
    QVERIFY(page->isVisibleTo(&window)); // the window switched to the Compare page
    QVERIFY(!window.runsPage()->isVisibleTo(&window));
    QTRY_COMPARE(page->table()->rowCount(), 2);
    QCOMPARE(page->table()->item(0, 0)->text(), QString("ui-plain"));
    QCOMPARE(page->table()->item(1, 0)->text(), QString("ui-amp"));
    QCOMPARE(page->memoryPlot()->seriesCount(), 2);
    QCOMPARE(page->mapEpochPlot()->seriesCount(), 2);
    QCOMPARE(page->scatterPlot()->seriesCount(), 3);
    // The second row's training peak is set against the first's.
    QVERIFY(page->table()->item(1, 6)->text().startsWith(QStringLiteral("×")));
}

void TestUiCompare::editsSavesLoadsAndRunsStrategies() {
    hr::ui::ComparePage page;
    page.resize(1400, 900);
    page.show();
    hr::ui::StrategyEditor* editor = page.strategyEditor();
    QTableWidget* list = editor->list();
    const std::vector<hr::Strategy> defaults = hr::defaultStrategies();
    QCOMPARE(editor->strategies().size(), defaults.size());
    QCOMPARE(list->rowCount(), static_cast<int>(defaults.size()));
    QVERIFY(editor->problemsText().isEmpty());

    // The form shows a strategy's settings: quarter-acc4 is B/4, accumulate 4, AMP off.
    editor->setCurrentIndex(1);
    QCOMPARE(editor->nameEdit()->text(), QString("quarter-acc4"));
    QCOMPARE(editor->batchEdit()->text(), QString("B/4"));
    QCOMPARE(editor->accumulateSpin()->value(), 4);
    QCOMPARE(editor->ampCombo()->currentIndex(), 2);           // off
    QCOMPARE(editor->checkpointingCombo()->currentIndex(), 1); // none

    // Add: a new strategy after the selected one, selected.
    auto button = [&](const char* name) {
        auto* b = editor->findChild<QPushButton*>(QString::fromLatin1(name));
        return b;
    };
    QVERIFY(button("addStrategy") && button("removeStrategy") && button("strategyUp"));
    button("addStrategy")->click();
    QCOMPARE(editor->strategies().size(), defaults.size() + 1);
    QCOMPARE(editor->currentIndex(), 2);
    editor->nameEdit()->clear();
    QTest::keyClicks(editor->nameEdit(), "tiny");
    QCOMPARE(editor->strategies()[2].name, std::string("tiny"));
    QCOMPARE(list->item(2, 0)->text(), QString("tiny"));

    // A batch of 0: the message worded from core's check, the row marked, the matrix refuses to
    // run.
    editor->batchEdit()->setText("0");
    QVERIFY(hr::hasErrors(editor->problems()));
    QVERIFY2(editor->problemsLabel()->text().contains("strategy 'tiny'"),
             qPrintable(editor->problemsLabel()->text()));
    QVERIFY2(editor->problemsLabel()->text().contains("batch: must be a positive number"),
             qPrintable(editor->problemsLabel()->text()));
    QVERIFY(!list->item(2, 0)->icon().isNull());
    QVERIFY(!page.runMatrix(tinyBase("ed")));
    QVERIFY(page.statusLabel()->text().contains("batch: must be a positive number"));
    const QString shots = qEnvironmentVariable("HEADROOM_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        // The layout makes room for the problem text before the grab.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QVERIFY(page.grab().save(QDir(shots).filePath("compare-problem.png")));
    }
    QVERIFY(!page.session()->isRunning());

    // An unknown key: named, with the nearest known one.
    editor->batchEdit()->setText("B");
    editor->otherEdit()->setPlainText("btach=2");
    QVERIFY2(editor->problemsText().contains("did you mean 'batch'"),
             qPrintable(editor->problemsText()));
    // A name used twice.
    editor->otherEdit()->setPlainText("lr0=0.02\nwarmup_epochs = 0\n");
    editor->nameEdit()->setText("native");
    QVERIFY(editor->problemsText().contains("second strategy named 'native'"));
    editor->nameEdit()->setText("tiny");
    editor->accumulateSpin()->setValue(2);
    editor->ampCombo()->setCurrentIndex(1); // on
    QVERIFY2(editor->problemsText().isEmpty(), qPrintable(editor->problemsText()));
    QVERIFY(list->item(2, 0)->icon().isNull());
    const std::vector<std::pair<std::string, std::string>> tinyOverrides = {
        {"batch", "B"}, {"nbs", "B*2"}, {"amp", "true"}, {"lr0", "0.02"}, {"warmup_epochs", "0"}};
    QCOMPARE(editor->strategies()[2].overrides, tinyOverrides);

    // Remove everything but "tiny": [native, quarter-acc4, tiny, quarter-amp, eighth, ckpt].
    editor->setCurrentIndex(0);
    button("removeStrategy")->click();
    button("removeStrategy")->click();
    QCOMPARE(editor->strategies()[0].name, std::string("tiny"));
    editor->setCurrentIndex(1);
    for (int i = 0; i < 3; ++i)
        button("removeStrategy")->click();
    QCOMPARE(editor->strategies().size(), size_t(1));

    // Add a second one and move it to the top.
    editor->setCurrentIndex(0);
    button("addStrategy")->click();
    editor->nameEdit()->setText("plain");
    editor->ampCombo()->setCurrentIndex(2); // off
    QCOMPARE(editor->currentIndex(), 1);
    button("strategyUp")->click();
    QCOMPARE(editor->currentIndex(), 0);
    QVERIFY(!button("strategyUp")->isEnabled());
    QCOMPARE(editor->strategies()[0].name, std::string("plain"));
    QCOMPARE(editor->strategies()[1].name, std::string("tiny"));
    const std::vector<hr::Strategy> edited = editor->strategies();

    // Save, and the CLI's reader reads the same list back.
    const QString path = m_dir.filePath("edited.yaml");
    QString error;
    QVERIFY2(editor->saveFile(path, &error), qPrintable(error));
    const hr::StrategiesResult cli = hr::loadStrategies(path.toStdString());
    QVERIFY2(!hr::hasErrors(cli.diagnostics), hr::formatDiagnostics(cli.diagnostics).c_str());
    QCOMPARE(cli.strategies.size(), edited.size());
    for (size_t i = 0; i < edited.size(); ++i) {
        QCOMPARE(cli.strategies[i].name, edited[i].name);
        QCOMPARE(cli.strategies[i].overrides, edited[i].overrides);
    }
    // Defaults, then load: the edited list is back.
    button("resetStrategies")->click();
    QCOMPARE(editor->strategies().size(), defaults.size());
    QVERIFY2(editor->loadFile(path, &error), qPrintable(error));
    QCOMPARE(editor->strategies().size(), edited.size());
    for (size_t i = 0; i < edited.size(); ++i) {
        QCOMPARE(editor->strategies()[i].name, edited[i].name);
        QCOMPARE(editor->strategies()[i].overrides, edited[i].overrides);
    }
    editor->setCurrentIndex(1);
    QCOMPARE(editor->accumulateSpin()->value(), 2);
    QCOMPARE(editor->ampCombo()->currentIndex(), 1);
    QCOMPARE(editor->otherEdit()->toPlainText(), QString("lr0=0.02\nwarmup_epochs=0\n"));

    // A bad file is refused with its file:line; the list stays.
    const QString bad = m_dir.filePath("bad-strategies.yaml");
    QVERIFY(hr::writeFileAtomically(bad.toStdString(), "- name: a\n  overrides:\n    batch: 0\n"));
    QVERIFY(!editor->loadFile(bad, &error));
    QVERIFY2(error.contains("bad-strategies.yaml:3"), qPrintable(error));
    QVERIFY(error.contains("batch"));
    QCOMPARE(editor->strategies().size(), edited.size());
    // A list with problems is not saved.
    editor->batchEdit()->setText("B/x");
    editor->otherEdit()->setPlainText("lr0=fast");
    QVERIFY(!editor->saveFile(m_dir.filePath("not-saved.yaml"), &error));
    QVERIFY(!QFileInfo::exists(m_dir.filePath("not-saved.yaml")));
    QVERIFY2(error.contains("lr0"), qPrintable(error));
    QVERIFY(editor->loadFile(path, &error));

    // Running the page's matrix runs the edited strategies, in the edited order.
    QSignalSpy ready(page.session(), &hr::ui::ComparisonSession::comparisonReady);
    QSignalSpy started(page.session(), &hr::ui::ComparisonSession::strategyStarted);
    QVERIFY2(page.runMatrix(tinyBase("ed")), qPrintable(page.statusLabel()->text()));
    QVERIFY(!editor->isEnabled()); // no editing while it runs
    QVERIFY(ready.wait(600000));
    QCOMPARE(started.count(), 2);
    QCOMPARE(started.at(0).at(1).toString(), QString("plain"));
    QCOMPARE(started.at(1).at(1).toString(), QString("tiny"));
    QVERIFY(editor->isEnabled());
    const hr::Comparison& c = page.comparison();
    QCOMPARE(c.rows.size(), size_t(2));
    QCOMPARE(c.rows[0].strategy, std::string("plain"));
    QCOMPARE(c.rows[1].strategy, std::string("tiny"));
    for (const auto& row : c.rows)
        QVERIFY2(row.status == "done", (row.strategy + ": " + row.message).c_str());
    QVERIFY(!c.rows[0].amp);
    QCOMPARE(c.rows[1].batch, 2);
    QCOMPARE(c.rows[1].accumulate, 2);
    QVERIFY(c.rows[1].amp);
    // The run's own config.yaml holds the edited settings.
    const hr::TrainConfigResult saved = hr::loadTrainConfig(c.rows[1].runDir + "/config.yaml");
    QVERIFY2(saved.config, hr::formatDiagnostics(saved.diagnostics).c_str());
    QCOMPARE(saved.config->name, std::string("ed-tiny"));
    QCOMPARE(saved.config->nbs, 4);
    QCOMPARE(saved.config->lr0, 0.02);
    QVERIFY(saved.config->amp);
    QCOMPARE(page.table()->item(1, 0)->text(), QString("tiny"));
    QCOMPARE(page.table()->item(1, 2)->text(), QString("2×2"));

    // HEADROOM_SCREENSHOT_DIR=DIR saves the page as it looks now, to check it by eye.
    if (!shots.isEmpty()) {
        editor->setCurrentIndex(1);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QVERIFY(page.grab().save(QDir(shots).filePath("compare.png")));
    }
}

namespace {

/// Calls `answer` with the next modal dialog once it is shown.
void answerNextDialog(std::function<void(QWidget*)> answer) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, answer] {
        if (QWidget* dialog = QApplication::activeModalWidget(); dialog && dialog->isVisible()) {
            timer->stop();
            timer->deleteLater();
            answer(dialog);
        }
    });
    timer->start();
}

void clickButton(QWidget* dialog, const QString& text) {
    for (QAbstractButton* button : dialog->findChildren<QAbstractButton*>())
        if (button->text().remove('&') == text) {
            QTest::mouseClick(button, Qt::LeftButton);
            return;
        }
    QFAIL(qPrintable("no button " + text));
}

} // namespace

void TestUiCompare::matrixAsksFirstBlocksStartAndReloadsAfterRestart() {
    hr::Strategy first, second;
    first.name = "first";
    second.name = "second";
    second.overrides = {{"amp", "true"}};
    QStringList dirs;
    {
        hr::ui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        window.settingsPage()->form()->setConfig(tinyBase("asked"));
        hr::ui::ComparePage* page = window.comparePage();
        page->strategyEditor()->setStrategies({first, second});
        window.showPage(hr::ui::MainWindow::Page::Compare);
        QPushButton* run = page->runButton();
        QVERIFY(run->isEnabled());

        // The question names strategies × epochs × image size and the time the earlier runs of
        // this model at 64 px measured; Cancel trains nothing.
        QString question;
        answerNextDialog([&question](QWidget* dialog) {
            question = qobject_cast<QMessageBox*>(dialog)->text();
            clickButton(dialog, "Cancel");
        });
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY2(question.contains("2 strategies × 1 epochs at 64 px") &&
                     question.contains("s per epoch") && question.contains("about"),
                 qPrintable(question));
        QVERIFY(!page->session()->isRunning());

        // Run it: Start is off (and refuses) while the matrix trains.
        QSignalSpy ready(page->session(), &hr::ui::ComparisonSession::comparisonReady);
        answerNextDialog([](QWidget* dialog) { clickButton(dialog, "Run the matrix"); });
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(page->session()->isRunning());
        QVERIFY(!window.startAction()->isEnabled());
        QVERIFY(!window.startTraining());
        QVERIFY(ready.wait(600000));
        QVERIFY(window.startAction()->isEnabled());
        QCOMPARE(page->table()->rowCount(), 2);
        for (int i = 0; i < 2; ++i)
            dirs << page->table()->item(i, 0)->data(Qt::UserRole).toString();
        QVERIFY(dirs[0].endsWith("asked-first") && dirs[1].endsWith("asked-second"));
        window.close();
    }
    // A restarted studio shows the same comparison, read back from the run folders.
    hr::ui::MainWindow again;
    hr::ui::ComparePage* page = again.comparePage();
    QCOMPARE(page->table()->rowCount(), 2);
    for (int i = 0; i < 2; ++i)
        QCOMPARE(page->table()->item(i, 0)->data(Qt::UserRole).toString(), dirs[i]);
    QCOMPARE(page->memoryPlot()->seriesCount(), 2);
}

void TestUiCompare::everyTableNumberNamesItsSource() {
    // Two rows as a finished matrix leaves them (no training needed for the table's words).
    hr::Comparison comparison;
    for (int i = 0; i < 2; ++i) {
        hr::ComparisonRow row;
        row.strategy = i == 0 ? "native" : "amp";
        row.runDir = i == 0 ? "/runs/a-native" : "/runs/a-amp";
        row.status = "done";
        row.batch = 8;
        row.accumulate = 1;
        row.amp = i == 1;
        row.checkpointing = "none";
        row.trainPeakBytes = (300 - 100 * i) * 1024LL * 1024;
        row.valPeakBytes = 120 * 1024LL * 1024;
        row.meanEpochSeconds = 12.5;
        row.imagesPerSecond = 40.0;
        row.map50 = 0.5;
        row.map = 0.3;
        row.hasMetrics = true;
        row.claim = hr::PublishedClaim{10.0 - 4.0 * i, 15, 0.68, "the cited table"};
        comparison.rows.push_back(row);
    }
    hr::markParetoFront(comparison);
    QSettings().remove(QStringLiteral("compare/runs")); // no earlier comparison comes back
    hr::ui::ComparePage page;
    page.showComparison(comparison);
    QTableWidget* table = page.table();
    QCOMPARE(table->rowCount(), 2);
    const QStringList sources = {"Source: measured here", "Source: published figure",
                                 "Source: FLOP count", "Source: assumption",
                                 "Source: the run's settings"};
    int numbers = 0;
    for (int r = 0; r < table->rowCount(); ++r)
        for (int c = 0; c < table->columnCount(); ++c) {
            const QTableWidgetItem* item = table->item(r, c);
            if (!item || !item->text().contains(QRegularExpression("[0-9★]")) || c == 0)
                continue;
            ++numbers;
            const QString tip = item->toolTip();
            QVERIFY2(
                std::any_of(sources.begin(), sources.end(),
                            [&tip](const QString& s) { return tip.startsWith(s); }),
                qPrintable(
                    QString("row %1 column %2 (%3): %4").arg(r).arg(c).arg(item->text(), tip)));
        }
    QVERIFY2(numbers >= 16, qPrintable(QString::number(numbers)));
    // The measured peak names its run; a claim beside a measurement cites where it is from.
    QVERIFY(table->item(1, 5)->toolTip().contains("(run /runs/a-amp)"));
    QVERIFY2(table->item(1, 6)->text().contains("claim") &&
                 table->item(1, 6)->toolTip().contains("published figure (the cited table)"),
             qPrintable(table->item(1, 6)->toolTip()));
    QVERIFY(table->item(0, 10)->toolTip().contains("published figure (the cited table)"));
    QVERIFY(!table->item(0, 11)->toolTip().contains("published"));
    QVERIFY(table->item(0, 2)->toolTip().startsWith("Source: the run's settings"));
}

QTEST_MAIN(TestUiCompare)
#include "test_ui_compare.moc"
