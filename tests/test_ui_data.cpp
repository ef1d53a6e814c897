// SPDX-License-Identifier: GPL-3.0-or-later
// The Data page's Open folder door: an annotation tool's export is recognised and converted
// off the GUI thread, images with YOLO labels get a written data.yaml, a Roboflow export opens
// as it is - each ending in the Data page's report. Driven through the page's buttons and
// fields only.
#include "convert_fixtures.h"

#include "barchart.h"
#include "data/synthetic_dataset.h"
#include "datapage.h"
#include "datasetservice.h"
#include "ui_test_env.h"

#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

namespace {

/// A built-in data set of 2 training and 1 validation image at `root` whose first training
/// label file then holds `labels`.
bool writeFirstLabelFile(const QString& root, const QByteArray& labels) {
    hr::SyntheticOptions options;
    options.train = 2;
    options.val = 1;
    options.imgsz = 64;
    std::string error;
    if (!hr::makeSyntheticDataset(root.toStdString(), options, &error))
        return false;
    const QString first =
        QDir(root + "/labels/train").entryList({"*.txt"}, QDir::Files, QDir::Name).first();
    return fixtures::writeBytes(root + "/labels/train/" + first, labels);
}

/// The text of every label on the page, joined (what a person reads).
QString pageText(const QWidget& page) {
    QStringList parts;
    for (const QLabel* label : page.findChildren<QLabel*>())
        parts << label->text();
    return parts.join('\n');
}

QStringList problemSplits(const hr::ui::DataPage& page) {
    QStringList splits;
    for (int i = 0; i < page.problemList()->topLevelItemCount(); ++i)
        splits << page.problemList()->topLevelItem(i)->text(1);
    return splits;
}

} // namespace

class TestUiData : public QObject {
    Q_OBJECT
private slots:
    void cocoFolderIsOfferedAndConverted();
    void imagesAndLabelsGetADataYaml();
    void roboflowExportOpensAsItIs();
    void unknownFolderSaysWhatItAccepts();
    void droppedFolderTakesTheSameDoor();
    void problemTableShowsCoreEnglish();
    void problemTableIsBounded();
    void unusableYamlClearsTheCharts();
    void largeScanAsksFirst();

private:
    QTemporaryDir m_dir;
};

void TestUiData::cocoFolderIsOfferedAndConverted() {
    const QString in = m_dir.filePath("coco");
    QVERIFY(fixtures::makeCoco(in));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    page.resize(1100, 700);
    page.show();
    QSignalSpy chosen(&page, &hr::ui::DataPage::datasetChosen);
    QVERIFY(page.openPath(in));
    QMessageBox* prompt = nullptr;
    QTRY_VERIFY((prompt = page.findChild<QMessageBox*>("convertPrompt")) != nullptr);
    QVERIFY2(prompt->text().contains("COCO JSON"), qPrintable(prompt->text()));
    QVERIFY(prompt->text().contains(in + "-yolo"));
    QPushButton* convert = prompt->findChild<QPushButton*>("convertButton");
    QVERIFY(convert);
    QTest::mouseClick(convert, Qt::LeftButton);
    QVERIFY(chosen.wait(30000));
    QCOMPARE(chosen.first().first().toString(), in + "-yolo/data.yaml");
    QCOMPARE(page.dataYaml(), in + "-yolo/data.yaml");
    QCOMPARE(page.classChart()->categoryCount(), 3);
    QVERIFY2(pageText(page).contains("converted from COCO JSON: training: 4 images, 3 objects, "
                                     "1 backgrounds; validation: 1 images, 1 objects"),
             qPrintable(pageText(page)));
    // What the conversion left out is in the problem list, under "convert".
    QCOMPARE(problemSplits(page).count("convert"), 4);
}

void TestUiData::imagesAndLabelsGetADataYaml() {
    const QString root = m_dir.filePath("folder");
    QVERIFY(fixtures::makeFolder(root, 20));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    page.show();
    QSignalSpy chosen(&page, &hr::ui::DataPage::datasetChosen);
    QVERIFY(page.openPath(root));
    QDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = page.findChild<QDialog*>("writeDataYamlDialog")) != nullptr);
    QVERIFY(pageText(*dialog).contains(root + " holds images/ and labels/ but no data.yaml. "
                                              "Images found: 20."));
    auto* names = dialog->findChild<QLineEdit*>("classNames");
    QVERIFY(names);
    QCOMPARE(names->text(), QString("class0, class1, class2")); // from the labels' ids
    QCOMPARE(dialog->findChild<QSpinBox*>("valPercent")->value(), 10);
    names->selectAll();
    QTest::keyClicks(names, "bolt, nut, washer");
    QTest::mouseClick(dialog->findChild<QPushButton*>("writeButton"), Qt::LeftButton);
    QVERIFY(chosen.wait(30000));
    QCOMPARE(page.dataYaml(), root + "/data.yaml");
    QVERIFY(QFile::exists(root + "/autosplit_train.txt"));
    QCOMPARE(page.classChart()->categoryCount(), 3);
    QCOMPARE(page.imageList()->model()->rowCount(), 16); // the training images; 4 went to val
    const auto loaded = hr::loadDataConfig((root + "/data.yaml").toStdString());
    QVERIFY(loaded.config);
    QCOMPARE(loaded.config->names, (std::vector<std::string>{"bolt", "nut", "washer"}));
}

void TestUiData::roboflowExportOpensAsItIs() {
    const QString root = m_dir.filePath("roboflow");
    for (const char* split : {"train", "valid"})
        for (int i = 0; i < 2; ++i) {
            const QString name = QStringLiteral("%1/%2/images/i%3.png").arg(root, split).arg(i);
            QVERIFY(fixtures::writeImage(name, 64, 48));
            QVERIFY(
                fixtures::writeBytes(QStringLiteral("%1/%2/labels/i%3.txt").arg(root, split).arg(i),
                                     "0 0.5 0.5 0.5 0.5\n"));
        }
    QVERIFY(fixtures::writeBytes(root + "/data.yaml",
                                 "train: ../train/images\nval: ../valid/images\n"
                                 "test: ../test/images\n\nnc: 1\nnames: ['crack']\n\n"
                                 "roboflow:\n  workspace: w\n  version: 1\n"));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    QSignalSpy chosen(&page, &hr::ui::DataPage::datasetChosen);
    QVERIFY(page.openPath(root));
    QVERIFY(chosen.wait(30000));
    QCOMPARE(page.imageList()->model()->rowCount(), 2);
    QVERIFY2(pageText(page).contains("a Roboflow export"), qPrintable(pageText(page)));
}

void TestUiData::unknownFolderSaysWhatItAccepts() {
    const QString root = m_dir.filePath("plain");
    QVERIFY(fixtures::writeBytes(root + "/readme.txt", "nothing here"));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    QVERIFY(page.openPath(root));
    QTRY_VERIFY(pageText(page).contains("no data set Headroom recognises"));
    QVERIFY(!page.findChild<QDialog*>());
}

void TestUiData::droppedFolderTakesTheSameDoor() {
    const QString in = m_dir.filePath("dropped-cvat");
    QVERIFY(fixtures::makeCvat(in));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(in)});
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&page, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&page, &drop);
    QMessageBox* prompt = nullptr;
    QTRY_VERIFY2((prompt = page.findChild<QMessageBox*>("convertPrompt")) != nullptr,
                 qPrintable(pageText(page)));
    QVERIFY2(prompt->text().contains("a CVAT YOLO export"), qPrintable(prompt->text()));
    // Cancel leaves everything as it was.
    QTest::mouseClick(prompt->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_VERIFY(pageText(page).contains("Not converted."));
    QVERIFY(!QFileInfo::exists(in + "-yolo"));
}

void TestUiData::unusableYamlClearsTheCharts() {
    // A usable data set, then a data.yaml with a YAML error: the page says it cannot be used,
    // and its charts no longer show the first set's classes and box sizes.
    const QString root = m_dir.filePath("charts");
    QVERIFY(fixtures::makeFolder(root, 6));
    QVERIFY(fixtures::writeBytes(root + "/data.yaml", "path: " + root.toUtf8() +
                                                          "\ntrain: images\nval: images\n"
                                                          "names: [a, b, c]\n"));
    QVERIFY(fixtures::writeBytes(root + "/broken.yaml",
                                 "path: " + root.toUtf8() + "\ntrain: images\nnames: [a, b\n"));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    page.show();
    QSignalSpy chosen(&page, &hr::ui::DataPage::datasetChosen);
    QVERIFY(page.openPath(root + "/data.yaml"));
    QVERIFY(chosen.wait(30000));
    QVERIFY(!page.classChart()->showsEmptyText());
    QVERIFY(!page.sizeChart()->showsEmptyText());
    QVERIFY(page.openPath(root + "/broken.yaml"));
    QTRY_VERIFY(pageText(page).contains("This data.yaml cannot be used"));
    QVERIFY(page.classChart()->showsEmptyText());
    QVERIFY(page.sizeChart()->showsEmptyText());
}

void TestUiData::largeScanAsksFirst() {
    // Past the file limit (5 here, through the variable only tests set; 100000 otherwise) the
    // scan stops off the GUI thread and the page asks: No shows the stop in the problem table,
    // Yes scans them all.
    const QString root = m_dir.filePath("wide");
    hr::SyntheticOptions options;
    options.train = 8;
    options.val = 1;
    options.imgsz = 64;
    std::string error;
    QVERIFY2(hr::makeSyntheticDataset(root.toStdString(), options, &error), error.c_str());
    const hr::testing::ScopedEnv limit("HEADROOM_SCAN_FILE_LIMIT", "5");
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    const auto stopRow = [&page] {
        for (int i = 0; i < page.problemList()->topLevelItemCount(); ++i)
            if (page.problemList()->topLevelItem(i)->text(4).contains("holds more than 5 files"))
                return page.problemList()->topLevelItem(i)->text(4) + " (" +
                       page.problemList()->topLevelItem(i)->text(5) + ")";
        return QString();
    };
    QString asked;
    hr::testing::answerWhenAsked("confirmLargeScan", QMessageBox::No, &asked);
    QVERIFY(page.openPath(root + "/data.yaml"));
    QTRY_VERIFY_WITH_TIMEOUT(!stopRow().isEmpty(), 30000);
    QVERIFY2(asked.contains(root + "/data.yaml") && asked.contains("holds more than 5 files"),
             qPrintable(asked));
    QVERIFY2(stopRow().contains("path: '" + root +
                                "' holds more than 5 files, so the scan "
                                "stopped there (point 'path' at the data set's own folder"),
             qPrintable(stopRow()));
    QCOMPARE(page.imageList()->model()->rowCount(), 0);

    asked.clear();
    hr::testing::answerWhenAsked("confirmLargeScan", QMessageBox::Yes, &asked);
    QVERIFY(page.openPath(root + "/data.yaml"));
    QTRY_VERIFY_WITH_TIMEOUT(page.imageList()->model()->rowCount() == 8, 30000);
    QVERIFY(!asked.isEmpty());
    QVERIFY2(stopRow().isEmpty(), qPrintable(stopRow()));
}

QTEST_MAIN(TestUiData)
void TestUiData::problemTableShowsCoreEnglish() {
    // The English UI words a scan problem as core's CLI does (the UI words coded problems).
    const QString root = m_dir.filePath("bad-labels");
    // Two boxes, then a short line: line 3.
    QVERIFY(writeFirstLabelFile(root, "0 0.5 0.5 0.2 0.2\n0 0.3 0.3 0.1 0.1\n0 0.5 0.5\n"));
    QVERIFY(fixtures::writeBytes(root + "/labels/train/ghost.txt", "7 0.5 0.5\n"));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    QVERIFY(page.openPath(root + "/data.yaml"));
    QTreeWidget* list = page.problemList();
    QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() >= 1, 30000);
    const QTreeWidgetItem* item = list->topLevelItem(0);
    QVERIFY(item->text(2).endsWith("ghost.txt"));
    QCOMPARE(item->text(4), QString("label file without an image: ignored it"));
    QCOMPARE(item->text(5), QString("add the image or delete the label file"));
    QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() >= 2, 30000);
    item = list->topLevelItem(1);
    QCOMPARE(item->text(3), QString("3"));
    QCOMPARE(item->text(4),
             QString("expected 5 columns 'class cx cy w h', found 3: dropped the line"));
    QCOMPARE(item->text(5),
             QString("write one object per line as 'class cx cy w h' with coordinates in 0..1"));
}

void TestUiData::problemTableIsBounded() {
    // A problem on each of 1,005 lines: the table lists 1,000 and says where the rest are, so
    // opening a data set never makes a widget row per problem on the GUI thread.
    const QString root = m_dir.filePath("many-problems");
    QByteArray lines;
    for (int i = 0; i < 1005; ++i)
        lines += "0 0.5 0.5\n";
    QVERIFY(writeFirstLabelFile(root, lines));
    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    QVERIFY(page.openPath(root + "/data.yaml"));
    QTreeWidget* list = page.problemList();
    QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() > 0, 30000);
    QCOMPARE(list->topLevelItemCount(), 1001);
    const QTreeWidgetItem* last = list->topLevelItem(1000);
    QCOMPARE(last->text(4), QString("Problems not listed here: 5"));
    QVERIFY2(last->text(5).startsWith("headroom-cli data-check --data ") &&
                 last->text(5).endsWith("data.yaml lists them all"),
             qPrintable(last->text(5)));
    QVERIFY2(pageText(page).contains("1005 problems listed below"), qPrintable(pageText(page)));
}

#include "test_ui_data.moc"
