// SPDX-License-Identifier: GPL-3.0-or-later
// The Runs page's Results view (issue 42), driven with clicks and keys only: the per-class
// table sorts, the confusion matrix switches between counts and shares and says what a clicked
// cell holds, the curves follow the pickers, and a damaged file is named.
#include "classcomparetable.h"
#include "comparepage.h"
#include "confusionmatrixview.h"
#include "mainwindow.h"
#include "plotwidget.h"
#include "resultsview.h"
#include "runspage.h"
#include "trainingsession.h"
#include "trainpage.h"

#include "eval/average_precision.h"
#include "results/validation_results.h"

#include "ui_test_env.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

namespace {

const std::vector<std::string> kNames = {"cat", "dog", "bird"};

/// Two images: the cat found twice (0.9, 0.8), the dog taken for a cat (0.6), a bird found
/// (0.7) and a cat where there is nothing (0.3). Confusion (conf > 0.25):
/// [cat][cat] 2, [cat][dog] 1, [bird][bird] 1, [cat][background] 1.
hr::MetricsResult twoImages() {
    hr::ScoredDetection cat1{0.9, 0, {}}, cat2{0.8, 0, {}}, dogAsCat{0.6, 0, {}};
    hr::ScoredDetection bird{0.7, 2, {}}, nothing{0.3, 0, {}};
    cat1.correct.fill(true);
    cat2.correct.fill(true);
    bird.correct.fill(true);
    hr::MetricsResult m =
        hr::apPerClass({dogAsCat, nothing, cat1, cat2, bird}, {0, 0, 1, 2}, {2, 1, 1, 1}, 3);
    m.images = 2;
    m.confusion = {{2, 1, 0, 1}, {0, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}};
    // The images behind the cells: a cat in each, the dog and the bird in a.jpg, the
    // false cat in b.jpg.
    m.confusionImages = {"/data/a.jpg", "/data/b.jpg"};
    m.confusionHits = {{0, 0, 0, 1}, {0, 0, 1, 1}, {0, 1, 0, 1}, {2, 2, 0, 1}, {0, 3, 1, 1}};
    return m;
}

/// The y of the table row whose class cell says `name`, -1 when none does.
int rowOf(QTableWidget* table, const QString& name) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, hr::ui::ResultsView::ClassColumn)->text() == name)
            return r;
    return -1;
}

void clickHeader(QTableWidget* table, int column) {
    QHeaderView* header = table->horizontalHeader();
    const int x = header->sectionViewportPosition(column) + header->sectionSize(column) / 2;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
}

} // namespace

class TestUiResults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void runsPageShowsTheResults();
    void damagedFileIsNamed();
    void trainPageOpensTheResultsAfterAValidation();
    void comparePageShowsRunsClassByClass();

private:
    QTemporaryDir m_dir;
    QString m_run;
    QString m_other;
};

void TestUiResults::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_results");
    m_run = m_dir.filePath("runs/fine");
    QVERIFY(QDir().mkpath(m_run));
    QFile config(m_run + "/config.yaml");
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("model: yolov8n.yaml\nimgsz: 64\nepochs: 1\n");
    config.close();
    std::string error;
    QVERIFY2(hr::writeValidationResults(m_run.toStdString(), kNames, twoImages(), &error),
             error.c_str());
    // A second run that missed the bird: its bird AP is 0.
    m_other = m_dir.filePath("other/missed");
    QVERIFY(QDir().mkpath(m_other));
    QVERIFY(QFile::copy(m_run + "/config.yaml", m_other + "/config.yaml"));
    hr::MetricsResult missed = hr::apPerClass({}, {0, 0, 1, 2}, {2, 1, 1, 1}, 3);
    missed.images = 2;
    missed.confusion = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {2, 1, 1, 0}};
    QVERIFY2(hr::writeValidationResults(m_other.toStdString(), kNames, missed, &error),
             error.c_str());
}

void TestUiResults::runsPageShowsTheResults() {
    hr::ui::RunsPage page;
    page.resize(1200, 800);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.setRunsFolder(m_dir.filePath("runs"));
    QTRY_COMPARE(page.runList()->topLevelItemCount(), 1);
    QTreeWidgetItem* item = page.runList()->topLevelItem(0);
    const QRect row = page.runList()->visualItemRect(item);
    // A person's double-click: the first click selects, the second press opens.
    QTest::mouseClick(page.runList()->viewport(), Qt::LeftButton, {}, row.center());
    QTest::mouseDClick(page.runList()->viewport(), Qt::LeftButton, {}, row.center());
    hr::ui::ResultsView* view = page.resultsView();
    QTRY_VERIFY(view->runDir() == m_run && !view->isLoading());

    // The Results tab, picked with the mouse.
    QTabBar* bar = page.views()->tabBar();
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(1).center());
    QCOMPARE(page.views()->currentWidget(), static_cast<QWidget*>(view));
    QVERIFY2(view->summaryText().contains("2 images, 4 objects"), qPrintable(view->summaryText()));

    // The per-class table: one row per class, sorted by a click on a column's title.
    QTableWidget* table = view->classTable();
    QCOMPARE(table->rowCount(), 3);
    const int dog = rowOf(table, "dog");
    QVERIFY(dog >= 0);
    QCOMPARE(table->item(dog, hr::ui::ResultsView::InstancesColumn)->text(), QString("1"));
    QCOMPARE(table->item(dog, hr::ui::ResultsView::Map50Column)->text(), QString("0.000"));
    clickHeader(table, hr::ui::ResultsView::InstancesColumn);
    clickHeader(table, hr::ui::ResultsView::InstancesColumn); // descending: the cats first
    const Qt::SortOrder order = table->horizontalHeader()->sortIndicatorOrder();
    QCOMPARE(table->item(order == Qt::DescendingOrder ? 0 : 2, 0)->text(), QString("cat"));

    // The confusion matrix: normalised by default; a click on a cell says what it holds.
    QTabBar* inner = view->tabs()->tabBar();
    QTest::mouseClick(inner, Qt::LeftButton, {}, inner->tabRect(1).center());
    hr::ui::ConfusionMatrixView* matrix = view->confusionView();
    QTRY_VERIFY(matrix->isVisible());
    QCOMPARE(matrix->table().names.size(), std::size_t(4)); // three classes and background
    QVERIFY(qFuzzyCompare(matrix->cellValue(0, 0), 1.0));   // every cat went to cat
    QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cellCentre(0, 1));
    QVERIFY2(view->cellLabel()->text().contains("dog") &&
                 view->cellLabel()->text().contains("predicted as cat"),
             qPrintable(view->cellLabel()->text()));
    QCOMPARE(view->cellImages()->count(), 1);
    QVERIFY2(view->cellImages()->item(0)->text().contains("a.jpg (1 object"),
             qPrintable(view->cellImages()->item(0)->text()));
    QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cellCentre(0, 3));
    QVERIFY2(view->cellLabel()->text().contains("no object"),
             qPrintable(view->cellLabel()->text()));
    QCOMPARE(view->cellImages()->count(), 1);
    QVERIFY(view->cellImages()->item(0)->text().contains("b.jpg"));
    QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cellCentre(0, 0));
    QCOMPARE(view->cellImages()->count(), 2);
    QCheckBox* normalised = view->normalisedBox();
    QTest::mouseClick(normalised, Qt::LeftButton, {}, QPoint(8, normalised->height() / 2));
    QVERIFY(!matrix->normalised());
    QCOMPARE(matrix->cellValue(0, 0), 2.0);

    // The curves: F1 against confidence with the best-F1 confidence marked, then one class.
    QTest::mouseClick(inner, Qt::LeftButton, {}, inner->tabRect(2).center());
    QComboBox* curve = view->curvePicker();
    curve->setFocus();
    QTest::keyClick(curve, Qt::Key_Down);
    QCOMPARE(curve->currentIndex(), int(hr::ui::ResultsView::F1Curve));
    hr::ui::PlotWidget* plot = view->curvePlot();
    QCOMPARE(plot->pointCount(0), 1000);
    QCOMPARE(plot->markerKeys().size(), 1);
    QVERIFY(plot->markerKeys().front() > 0.25 && plot->markerKeys().front() < 0.95);
    QComboBox* cls = view->classPicker();
    QCOMPARE(cls->count(), 4); // all classes, then each
    cls->setFocus();
    QTest::keyClick(cls, Qt::Key_Down);
    QCOMPARE(plot->seriesName(1), QString("cat"));
    QCOMPARE(plot->pointCount(1), 1000);
    curve->setFocus();
    QTest::keyClick(curve, Qt::Key_Up); // back to precision against recall: no marker
    QCOMPARE(plot->markerKeys().size(), 0);
}

void TestUiResults::damagedFileIsNamed() {
    QTemporaryDir copy;
    QVERIFY(copy.isValid());
    for (const char* name : {"per_class.csv", "confusion_matrix.csv", "curves.csv"})
        QVERIFY(QFile::copy(m_run + "/" + name, copy.filePath(name)));
    QFile damaged(copy.filePath("confusion_matrix.csv"));
    QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
    damaged.write("Predicted,a,background\na,1,2\n");
    damaged.close();
    hr::ui::ResultsView view;
    QSignalSpy loaded(&view, &hr::ui::ResultsView::loaded);
    view.showRun(copy.path());
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(loaded.first().at(1).toBool(), false);
    QVERIFY2(view.summaryText().contains("confusion_matrix.csv"), qPrintable(view.summaryText()));
    QCOMPARE(view.classTable()->rowCount(), 0);
}

void TestUiResults::trainPageOpensTheResultsAfterAValidation() {
    // The session's events as a run sends them: started, then an epoch that validated.
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.runsPage()->setRunsFolder(m_dir.filePath("runs"));
    window.showPage(hr::ui::MainWindow::Page::Train);
    QToolButton* results = window.trainPage()->resultsButton();
    hr::RunStarted started;
    started.runDir = m_run.toStdString();
    emit window.session()->started(started);
    QVERIFY(!results->isEnabled()); // nothing validated yet
    hr::EpochEnd epoch;
    epoch.epochs = 1;
    epoch.valPeakBytes = 1 << 20;
    emit window.session()->epochEnded(epoch);
    QVERIFY(results->isEnabled());
    QTest::mouseClick(results, Qt::LeftButton);
    QVERIFY(window.runsPage()->isVisible());
    hr::ui::ResultsView* view = window.runsPage()->resultsView();
    QVERIFY(view->isVisible());
    QTRY_VERIFY(view->runDir() == m_run && !view->isLoading());
    QCOMPARE(view->classTable()->rowCount(), 3);
}

void TestUiResults::comparePageShowsRunsClassByClass() {
    hr::ui::ComparePage page;
    page.resize(1280, 720);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.compareRuns({m_run, m_other});
    QTRY_COMPARE(page.table()->rowCount(), 2);
    QTabBar* bar = page.views()->tabBar();
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(1).center());
    hr::ui::ClassCompareTable* table = page.byClassTable();
    QVERIFY(table->isVisible());
    QCOMPARE(table->rowCount(), 4);    // all classes, cat, dog, bird
    QCOMPARE(table->columnCount(), 4); // class, fine, missed, missed's change
    int bird = -1;
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == "bird")
            bird = r;
    QVERIFY(bird >= 0);
    const double first = table->item(bird, 1)->data(Qt::UserRole).toDouble();
    QVERIFY(first > 0.5);
    QCOMPARE(table->item(bird, 2)->text(), QString("0.000"));
    QVERIFY2(table->item(bird, 3)->text().startsWith("-"),
             qPrintable(table->item(bird, 3)->text()));
    QVERIFY(table->horizontalHeaderItem(3)->text().contains("missed"));
}

QTEST_MAIN(TestUiResults)
#include "test_ui_results.moc"
