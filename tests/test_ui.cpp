// SPDX-License-Identifier: GPL-3.0-or-later
// GUI tests that need no training: the settings form, plots, the Data page, the advisor dialog,
// persistence and translations. Run offscreen (QT_QPA_PLATFORM=offscreen).
#include "barchart.h"
#include "datapage.h"
#include "datasetservice.h"
#include "imageview.h"
#include "language.h"
#include "logview.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "oomadvisordialog.h"
#include "plotwidget.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"

#include "config/settings_table.h"
#include "config/train_config.h"
#include "data/synthetic_dataset.h"
#include "util/bytes.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTranslator>
#include <QTreeWidget>
#include <QXmlStreamReader>
#include <QtTest>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <functional>

using hr::TrainConfig;

namespace {

/// Calls `answer` with the next modal dialog once it is shown (a QMessageBox::exec() blocks the
/// test until then).
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

/// Clicks the dialog's button whose text (without &) is `text`.
bool clickButton(QWidget* dialog, const QString& text) {
    for (QAbstractButton* button : dialog->findChildren<QAbstractButton*>())
        if (button->text().remove('&') == text && button->isVisible()) {
            QTest::mouseClick(button, Qt::LeftButton);
            return true;
        }
    return false;
}

} // namespace

class TestUi : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void formCoversEveryKey();
    void formFollowsTheTable();
    void formRoundTrip();
    void formEditEmitsChange();
    void wheelPassesUnfocusedFields();
    void budgetText();
    void yamlOpenSave();
    void plotCoalescesReplots();
    void plotExports();
    void dataPageShowsBuiltinStyleData();
    void dataPageListsProblems();
    void advisorDialogAppliesChosenFix();
    void windowPersistsSettings();
    void languageFollowsLocale();
    void translationIsComplete();
    void translationLoads();
    void typedFieldsUseCoresChecks();
    void startWithoutDataSetAsks();
    void plotsShowSinglePointsAndKeepAxesAndLegendClear();
    void legendWrapsLongNamesInsideANarrowPlot();
    void markerLabelsNeverCrossLinesOrEachOther();
    void trainPageMarksEachOomOnce();
    void logFollowsUntilScrolledUp();
    void menusListEveryPageAndHelp();
    void windowFitsSmallScreen();

private:
    QTemporaryDir m_dir;
};

void TestUi::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui");
}

void TestUi::formCoversEveryKey() {
    hr::ui::SettingsForm form;
    const QStringList keys = form.keys();
    for (const std::string& key : hr::trainConfigKeys()) {
        const QString k = QString::fromStdString(key);
        QVERIFY2(keys.contains(k), qPrintable("no field for " + k));
        QWidget* editor = form.editor(k);
        QVERIFY(editor);
        QVERIFY2(editor->toolTip().contains("Memory:") && editor->toolTip().contains("Speed:") &&
                     editor->toolTip().contains("Accuracy:"),
                 qPrintable("tooltip of " + k + " lacks the memory/speed/accuracy effect"));
    }
    QCOMPARE(keys.size(), int(hr::trainConfigKeys().size()));
}

void TestUi::formFollowsTheTable() {
    hr::ui::SettingsForm form;
    const auto translated = [](const char* text) {
        return QCoreApplication::translate(hr::kSettingsContext, text);
    };
    for (const hr::SettingRow& row : hr::settingRows()) {
        QWidget* editor = form.editor(row.key);
        QVERIFY2(editor, row.key);
        // The row's help and its effects are the tooltip; its label names the field.
        const QString tip = editor->toolTip();
        QVERIFY2(tip.contains(translated(row.help).toHtmlEscaped()), row.key);
        for (const char* effect : {row.memory, row.speed, row.accuracy})
            if (effect)
                QVERIFY2(tip.contains(translated(effect).toHtmlEscaped()), row.key);
        bool labelled = false;
        for (QLabel* label : form.findChildren<QLabel*>())
            labelled |= label->buddy() == editor && label->text() == translated(row.label);
        QVERIFY2(labelled, row.key);
        // The row's range is the editor's, its choices the list's.
        if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
            QCOMPARE(spin->minimum(), int(row.lo));
            QCOMPARE(spin->maximum(), int(row.hi));
        } else if (auto* spin = qobject_cast<QDoubleSpinBox*>(editor)) {
            // An open bound is one shown digit inside it.
            const double digit = std::pow(10.0, -row.decimals) + 1e-9;
            QVERIFY2(spin->minimum() >= row.lo && spin->minimum() - row.lo <= digit, row.key);
            QVERIFY2(spin->maximum() <= row.hi && row.hi - spin->maximum() <= digit, row.key);
            QCOMPARE(spin->decimals(), row.decimals);
        } else if (auto* combo = qobject_cast<QComboBox*>(editor);
                   combo && row.editor != hr::SettingEditor::ModelFile) {
            QCOMPARE(combo->count(), int(row.choices.size()));
        }
    }
    // A wrong input gets the check's words under the field, and the field is named invalid.
    auto* imgsz = qobject_cast<QSpinBox*>(form.editor("imgsz"));
    imgsz->setValue(100);
    QVERIFY(!form.isValid());
    QVERIFY(form.fieldMessage("imgsz").contains("96"));
    QCOMPARE(form.invalidFields(), QStringList{translated(hr::findSettingRow("imgsz")->label)});
    // The rows' texts are translated through their context.
    QVERIFY(hr::ui::installTranslations("zh_CN"));
    hr::ui::SettingsForm chinese;
    const hr::SettingRow* batch = hr::findSettingRow("batch");
    QVERIFY(!chinese.editor("batch")->toolTip().contains(batch->help));
    QVERIFY(chinese.editor("batch")->toolTip().contains(translated(batch->help)));
    QVERIFY(hr::ui::installTranslations("en"));
}

void TestUi::formRoundTrip() {
    TrainConfig c;
    c.model = "yolov8s.yaml";
    c.data = "/tmp/some/data.yaml";
    c.model_scale = "m";
    c.weights = "/tmp/w.pt";
    c.epochs = 7;
    c.patience = 3;
    c.batch = -1;
    c.imgsz = 416;
    c.device = "cpu";
    c.workers = 3;
    c.threads = 2;
    c.project = "/tmp/runs";
    c.name = "exp";
    c.exist_ok = true;
    c.resume = true;
    c.seed = 42;
    c.deterministic = false;
    c.fraction = 0.5;
    c.save_period = 5;
    c.optimizer = "AdamW";
    c.lr0 = 0.002;
    c.lrf = 0.05;
    c.momentum = 0.9;
    c.weight_decay = 0.0001;
    c.warmup_epochs = 1.5;
    c.warmup_momentum = 0.7;
    c.warmup_bias_lr = 0.05;
    c.cos_lr = true;
    c.nbs = 32;
    c.box = 5.0;
    c.cls = 1.0;
    c.dfl = 2.0;
    c.amp = false;
    c.freeze = {0, 1, 2};
    c.single_cls = true;
    c.hsv_h = 0.02;
    c.hsv_s = 0.5;
    c.hsv_v = 0.3;
    c.degrees = 10;
    c.translate = 0.2;
    c.scale = 0.4;
    c.shear = 2;
    c.perspective = 0.0005;
    c.flipud = 0.1;
    c.fliplr = 0.4;
    c.mosaic = 0.5;
    c.mixup = 0.1;
    c.close_mosaic = 2;
    c.cache = "ram";
    c.rect = true;
    c.val = false;
    c.conf = 0.01;
    c.iou = 0.6;
    c.max_det = 100;
    c.val_batch = 8;
    c.memory_budget = std::int64_t(3) << 30;
    c.checkpointing = hr::Checkpointing::Backbone;
    c.on_oom = hr::OomPolicy::Auto;
    c.optimizer_offload = true;
    c.memory_sample_hz = 10;
    c.nproc = 2;
    c.zero = 1;
    c.sync_bn = true;
    QVERIFY(c != TrainConfig{});

    hr::ui::SettingsForm form;
    QCOMPARE(QString::fromStdString(hr::toYaml(form.config())),
             QString::fromStdString(hr::toYaml(TrainConfig{})));
    form.setConfig(c);
    QCOMPARE(QString::fromStdString(hr::toYaml(form.config())),
             QString::fromStdString(hr::toYaml(c)));
    QVERIFY(form.config() == c);
}

void TestUi::formEditEmitsChange() {
    hr::ui::SettingsForm form;
    QSignalSpy changed(&form, &hr::ui::SettingsForm::configChanged);
    form.setConfig(TrainConfig{});
    QCOMPARE(changed.count(), 0); // programmatic loads are silent
    auto* batch = qobject_cast<QSpinBox*>(form.editor("batch"));
    QVERIFY(batch);
    batch->setValue(4);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(form.config().batch, 4);

    auto* budget = qobject_cast<QLineEdit*>(form.editor("memory_budget"));
    QVERIFY(budget);
    budget->clear();
    QTest::keyClicks(budget, "512MiB");
    QCOMPARE(form.config().memory_budget, std::int64_t(512) << 20);
}

void TestUi::wheelPassesUnfocusedFields() {
    // Scrolling the long settings form must not change the fields that pass under the pointer.
    hr::ui::SettingsPage page;
    page.resize(900, 400);
    page.show();
    QVERIFY(QTest::qWaitForWindowActive(&page));
    auto* dfl = qobject_cast<QDoubleSpinBox*>(page.form()->editor("dfl"));
    auto* batch = qobject_cast<QSpinBox*>(page.form()->editor("batch"));
    auto* optimizer = qobject_cast<QComboBox*>(page.form()->editor("optimizer"));
    QVERIFY(dfl && batch && optimizer);
    const auto wheel = [](QWidget* target) {
        const QPointF at(target->width() / 2.0, target->height() / 2.0);
        QWheelEvent down(at, target->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                         Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(target, &down);
        return down.isAccepted();
    };
    const double gain = dfl->value();
    const int images = batch->value();
    const int choice = optimizer->currentIndex();
    for (QWidget* field : std::initializer_list<QWidget*>{dfl, batch, optimizer}) {
        QVERIFY(!field->hasFocus());
        QVERIFY(!wheel(field)); // left to the scroll area behind it
    }
    QCOMPARE(dfl->value(), gain);
    QCOMPARE(batch->value(), images);
    QCOMPARE(optimizer->currentIndex(), choice);

    // A field the user clicked into takes the wheel, as spin boxes do.
    dfl->setFocus();
    QTRY_VERIFY(dfl->hasFocus());
    QVERIFY(wheel(dfl));
    QVERIFY(dfl->value() < gain);
}

void TestUi::budgetText() {
    QCOMPARE(hr::ui::budgetText(0), QString());
    QCOMPARE(hr::ui::budgetText(std::int64_t(3) << 30), QString("3 GiB"));
    QCOMPARE(hr::ui::budgetText(std::int64_t(1536) << 20), QString("1536 MiB"));
    QCOMPARE(hr::ui::budgetText(1000), QString("1000 B"));
    for (std::int64_t bytes :
         {std::int64_t(1), std::int64_t(4096), std::int64_t(123456789), std::int64_t(5) << 30})
        QCOMPARE(*hr::parseByteSize(hr::ui::budgetText(bytes).toStdString()), bytes);
}

void TestUi::yamlOpenSave() {
    hr::ui::SettingsPage page;
    TrainConfig c;
    c.epochs = 12;
    c.imgsz = 256;
    c.memory_budget = std::int64_t(2) << 30;
    page.form()->setConfig(c);
    QString error;
    const QString path = m_dir.filePath("train.yaml");
    QVERIFY2(page.saveYaml(path, &error), qPrintable(error));
    page.form()->setConfig(TrainConfig{});
    QVERIFY2(page.openYaml(path, &error), qPrintable(error));
    QVERIFY(page.form()->config() == c);

    QFile bad(m_dir.filePath("bad.yaml"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("epochs: 5\nimgsz: 100\n");
    bad.close();
    QVERIFY(!page.openYaml(bad.fileName(), &error));
    QVERIFY2(error.contains("imgsz"), qPrintable(error));
    QVERIFY(page.form()->config() == c); // unchanged by a file with errors
}

void TestUi::plotCoalescesReplots() {
    hr::ui::PlotWidget plot("test");
    plot.resize(400, 300);
    plot.show();
    const int series = plot.addSeries("y", 0);
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QTRY_VERIFY(!plot.replotPending()); // what showing it asked for is drawn
    const int before = plot.replotCount();
    for (int i = 0; i < 1000; ++i)
        plot.append(series, i, i * 0.5);
    QCOMPARE(plot.pointCount(series), 1000);
    QCOMPARE(plot.replotCount(), before); // nothing drawn synchronously
    QTRY_VERIFY_WITH_TIMEOUT(plot.replotCount() > before, 1000);
    QTRY_VERIFY(!plot.replotPending()); // the burst is drawn and no redraw is left to come
    QVERIFY2(plot.replotCount() - before <= 2,
             qPrintable(QString("%1 redraws for one burst").arg(plot.replotCount() - before)));
}

void TestUi::plotExports() {
    hr::ui::PlotWidget plot("export");
    plot.resize(400, 300);
    const int s = plot.addSeries("y", 1);
    plot.append(s, 0, 1);
    plot.append(s, 1, 2);
    plot.setReferenceLine(1.5, "budget");
    const QString png = m_dir.filePath("plot.png");
    const QString pdf = m_dir.filePath("plot.pdf");
    QVERIFY(plot.exportTo(png));
    QVERIFY(plot.exportTo(pdf));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 400);
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.read(5).startsWith("%PDF"));
}

void TestUi::dataPageShowsBuiltinStyleData() {
    hr::SyntheticOptions options;
    options.train = 6;
    options.val = 2;
    options.imgsz = 64;
    std::string error;
    const QString root = m_dir.filePath("synthetic");
    QVERIFY2(hr::makeSyntheticDataset(root.toStdString(), options, &error), error.c_str());

    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    page.resize(1000, 700);
    QSignalSpy chosen(&page, &hr::ui::DataPage::datasetChosen);
    QVERIFY(page.openPath(root)); // a folder with a data.yaml
    QVERIFY(chosen.wait(30000));
    QCOMPARE(chosen.first().first().toString(), QDir(root).filePath("data.yaml"));
    QCOMPARE(page.imageList()->model()->rowCount(), 6);
    QCOMPARE(page.classChart()->categoryCount(), int(hr::syntheticClassNames().size()));
    double objects = 0;
    for (int i = 0; i < page.classChart()->categoryCount(); ++i)
        objects += page.classChart()->value(0, i);
    QVERIFY(objects > 0);
    int boxes = 0;
    for (int row = 0; row < page.imageList()->model()->rowCount(); ++row) {
        page.imageList()->setCurrentIndex(page.imageList()->model()->index(row, 0));
        boxes += page.imageView()->boxCount();
    }
    QCOMPARE(double(boxes), objects);
    double sized = 0;
    for (int i = 0; i < 10; ++i)
        sized += page.sizeChart()->value(0, i);
    QCOMPARE(sized, objects);
}

void TestUi::dataPageListsProblems() {
    const QString root = m_dir.filePath("broken");
    QDir().mkpath(root + "/images/train");
    QDir().mkpath(root + "/labels/train");
    QImage image(32, 32, QImage::Format_RGB32);
    image.fill(Qt::gray);
    QVERIFY(image.save(root + "/images/train/a.png"));
    QVERIFY(image.save(root + "/images/train/b.png"));
    QFile label(root + "/labels/train/a.txt");
    QVERIFY(label.open(QIODevice::WriteOnly));
    label.write("0 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.2 0.2\nnot a label\n");
    label.close();
    QFile yaml(root + "/data.yaml");
    QVERIFY(yaml.open(QIODevice::WriteOnly));
    yaml.write("path: .\ntrain: images/train\nval: images/train\nnames: [thing]\n");
    yaml.close();

    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    QSignalSpy chosen(&page, &hr::ui::DataPage::datasetChosen);
    QVERIFY(page.openPath(root + "/data.yaml"));
    QVERIFY(chosen.wait(30000));
    // The class id 7 line (2) and the malformed line (3) are both reported against a.txt.
    QSet<QString> lines;
    for (int i = 0; i < page.problemList()->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = page.problemList()->topLevelItem(i);
        if (item->text(2).endsWith("a.txt"))
            lines << item->text(3);
    }
    QVERIFY2(lines.contains("2") && lines.contains("3"),
             qPrintable(QStringList(lines.values()).join(",")));
    QCOMPARE(page.imageList()->model()->rowCount(), 2);
    QVERIFY(!page.openPath(m_dir.filePath("nowhere")));
}

void TestUi::advisorDialogAppliesChosenFix() {
    hr::OomReport report;
    report.phase = hr::Phase::Backward;
    report.requestedBytes = 64 << 20;
    report.allocatedBytes = 900 << 20;
    report.budgetBytes = std::int64_t(1) << 30;
    report.breakdown.weights = 12 << 20;
    report.breakdown.activations = 800 << 20;
    report.config.batch = 16;
    report.config.imgsz = 320;
    for (int i = 0; i < 20; ++i) {
        hr::MemorySample s;
        s.seconds = i * 0.05;
        s.allocated = std::int64_t(i) * (45 << 20);
        report.timeline.push_back(s);
    }
    std::vector<hr::FixSuggestion> fixes(2);
    fixes[0].id = "batch";
    fixes[0].title = "batch 8 + accumulate 8";
    fixes[0].config = report.config;
    fixes[0].config.batch = 8;
    fixes[0].predictedPeak = 600 << 20;
    fixes[0].fits = true;
    fixes[1].id = "amp";
    fixes[1].title = "AMP";
    fixes[1].config = report.config;
    fixes[1].config.amp = true;
    fixes[1].predictedPeak = 700 << 20;
    fixes[1].speedFactor = 0.9;
    fixes[1].fits = true;
    fixes[0].memoryBasis = {hr::FigureSource::MeasuredHere, "the estimator's probe steps"};
    fixes[0].speedBasis = {hr::FigureSource::FlopCount, "activations scale with the batch"};
    fixes[0].accuracyBasis = {hr::FigureSource::Published, "YOLOv9-c table"};
    fixes[1].memoryBasis = {hr::FigureSource::Assumption, "scaled from the failed step"};
    fixes[1].speedBasis = {hr::FigureSource::MeasuredHere, "timed on this machine"};

    const QString text = hr::ui::OomAdvisorDialog::describe(report);
    QVERIFY2(text.contains("backward") && text.contains("1.00 GiB"), qPrintable(text));
    // Host RAM that ran out inside a CPU step: device settings help there; in the loader not.
    hr::OomReport host = report;
    host.hostMemory = true;
    host.device = "cpu";
    const QString inStep = hr::ui::OomAdvisorDialog::describe(host);
    QVERIFY2(inStep.contains("free it as well as the host fixes"), qPrintable(inStep));
    host.phase = hr::Phase::Data;
    const QString inLoader = hr::ui::OomAdvisorDialog::describe(host);
    QVERIFY2(inLoader.contains("do not free device memory"), qPrintable(inLoader));

    hr::ui::OomAdvisorDialog dialog(report, fixes);
    // Every figure on a card names its source in the tooltip; a figure without one says so.
    auto* figures0 = dialog.findChild<QLabel*>("fixFigures0");
    auto* figures1 = dialog.findChild<QLabel*>("fixFigures1");
    QVERIFY(figures0 && figures1);
    QCOMPARE(figures0->toolTip(),
             QString("Memory figure: measured here (the estimator's probe steps)\n"
                     "Speed figure: FLOP count (activations scale with the batch)\n"
                     "Accuracy figure: published figure (YOLOv9-c table)"));
    QVERIFY2(figures1->toolTip().contains("Memory figure: assumption, not measured (scaled") &&
                 figures1->toolTip().contains("Speed figure: measured here (timed") &&
                 figures1->toolTip().contains("Accuracy figure: not measured"),
             qPrintable(figures1->toolTip()));
    // The card itself says whether its speed was measured here.
    QVERIFY2(figures0->text().contains("time per epoch ×1.00 (estimate: FLOP count, not measured "
                                       "here)"),
             qPrintable(figures0->text()));
    QVERIFY2(figures1->text().contains("time per epoch ×0.90 (faster) (measured here)"),
             qPrintable(figures1->text()));
    QSignalSpy chosen(&dialog, &hr::ui::OomAdvisorDialog::fixChosen);
    QSignalSpy stopped(&dialog, &hr::ui::OomAdvisorDialog::stopChosen);
    dialog.findChild<QCheckBox*>("alwaysBest")->setChecked(true);
    auto* apply = dialog.findChild<QPushButton*>("apply1");
    QVERIFY(apply);
    QTest::mouseClick(apply, Qt::LeftButton);
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.first().at(0).toInt(), 1);
    QCOMPARE(chosen.first().at(1).toBool(), true);
    dialog.reject(); // after a choice, closing is not a second decision
    QCOMPARE(stopped.count(), 0);
}

void TestUi::windowPersistsSettings() {
    QSettings().clear();
    // A size that fits the screen with room for the frame: Qt 6.8 shrinks a restored window to
    // the screen (offscreen's is 800 x 800), as it should, where 6.4 kept any size.
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    const QSize wanted(std::min(1111, screen.width() - 111), std::min(777, screen.height() - 77));
    {
        hr::ui::MainWindow window;
        window.resize(wanted);
        TrainConfig c = window.settingsPage()->form()->config();
        c.epochs = 33;
        c.memory_budget = std::int64_t(768) << 20;
        window.settingsPage()->form()->setConfig(c);
        window.showPage(hr::ui::MainWindow::Page::Train);
        window.close();
    }
    hr::ui::MainWindow again;
    QCOMPARE(again.settingsPage()->form()->config().epochs, 33);
    QCOMPARE(again.settingsPage()->form()->config().memory_budget, std::int64_t(768) << 20);
    QCOMPARE(again.size(), wanted);
    QVERIFY(!again.startAction()->shortcuts().isEmpty());
    QVERIFY(!again.stopAction()->shortcuts().isEmpty());
}

void TestUi::languageFollowsLocale() {
    QCOMPARE(hr::ui::effectiveLanguage("zh_CN"), QString("zh_CN"));
    QCOMPARE(hr::ui::effectiveLanguage("zh_SG"), QString("zh_CN"));
    QCOMPARE(hr::ui::effectiveLanguage("zh_TW"), QString("en"));
    QCOMPARE(hr::ui::effectiveLanguage("de_DE"), QString("en"));
    QCOMPARE(hr::ui::effectiveLanguage("en"), QString("en"));
}

void TestUi::translationIsComplete() {
    QFile ts(QStringLiteral(HEADROOM_TEST_DATA "/../../translations/headroom_zh_CN.ts"));
    QVERIFY(ts.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&ts);
    int messages = 0;
    QStringList missing;
    QString source;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            const QString type = xml.attributes().value("type").toString();
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (type == "obsolete" || type == "vanished")
                continue;
            ++messages;
            if (type == "unfinished" || text.trimmed().isEmpty())
                missing << source;
        }
    }
    QVERIFY(!xml.hasError());
    QVERIFY2(messages > 300, qPrintable(QString::number(messages)));
    QVERIFY2(missing.isEmpty(), qPrintable("untranslated: " + missing.mid(0, 10).join(" | ")));
}

void TestUi::translationLoads() {
    QVERIFY(hr::ui::installTranslations("zh_CN"));
    const QString start = hr::ui::MainWindow::tr("&Start training");
    QVERIFY2(start != "&Start training", qPrintable(start));
    hr::ui::SettingsForm form;
    QVERIFY(!form.editor("batch")->toolTip().contains("Memory:"));
    QVERIFY(hr::ui::installTranslations("en"));
    QCOMPARE(hr::ui::MainWindow::tr("&Start training"), QString("&Start training"));
}

void TestUi::typedFieldsUseCoresChecks() {
    QSettings().clear();
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    TrainConfig c = form->config();
    c.data = "/tmp/any/data.yaml"; // the panel's estimate fails at once, no probe steps
    c.imgsz = 64;
    c.batch = 2;
    form->setConfig(c);
    QVERIFY(form->isValid());
    QVERIFY(window.startAction()->isEnabled());

    // A budget of "lots": core's message (the CLI's words) under the field, Start off, named.
    auto* budget = qobject_cast<QLineEdit*>(form->editor("memory_budget"));
    QVERIFY(budget);
    budget->clear();
    QTest::mouseClick(budget, Qt::LeftButton);
    QTest::keyClicks(budget, "lots");
    TrainConfig scratch;
    const hr::Diagnostics cli = hr::applyOverride(scratch, "memory_budget", "lots");
    QVERIFY(hr::hasErrors(cli));
    const QString message = form->fieldMessage("memory_budget");
    QVERIFY2(message.contains(QString::fromStdString(cli.front().message)), qPrintable(message));
    QVERIFY(!form->isValid());
    QCOMPARE(form->invalidFields(), QStringList{"Memory budget"});
    QVERIFY(!window.startAction()->isEnabled());
    QVERIFY2(window.startAction()->toolTip().contains("Memory budget"),
             qPrintable(window.startAction()->toolTip()));
    QString refusal;
    answerNextDialog([&refusal](QWidget* dialog) {
        refusal = qobject_cast<QMessageBox*>(dialog)->text();
        dialog->close();
    });
    QVERIFY(!window.startTraining()); // Ctrl+R still reaches it: it says which field
    QVERIFY2(refusal.contains("Memory budget"), qPrintable(refusal));
    // The panel names the field instead of a bare "not valid".
    QTRY_VERIFY2(window.memoryPanel()->statusText().contains("Memory budget"),
                 qPrintable(window.memoryPanel()->statusText()));
    QLabel* summary = window.settingsPage()->statusLabel();
    QVERIFY2(summary->isVisible() && summary->text().contains("Memory budget"),
             qPrintable(summary->text()));

    // Fixed by typing: no stale message anywhere.
    budget->selectAll();
    QTest::keyClicks(budget, "160 MiB");
    QCOMPARE(form->config().memory_budget, std::int64_t(160) << 20);
    QVERIFY(form->isValid());
    QVERIFY(form->fieldMessage("memory_budget").isEmpty());
    QVERIFY2(!summary->text().contains("Start is off"), qPrintable(summary->text()));
    QVERIFY(window.startAction()->isEnabled());
    QVERIFY2(!window.memoryPanel()->statusText().contains("No prediction"),
             qPrintable(window.memoryPanel()->statusText()));
    // Below core's floor: its own message, not a silent "no budget".
    budget->selectAll();
    QTest::keyClicks(budget, "1 MiB");
    QVERIFY(!form->isValid());
    QVERIFY2(form->fieldMessage("memory_budget").contains("64MiB"),
             qPrintable(form->fieldMessage("memory_budget")));
    budget->selectAll();
    QTest::keyClick(budget, Qt::Key_Backspace);
    QVERIFY(form->isValid());
    QCOMPARE(form->config().memory_budget, std::int64_t(0));

    // Lists: the CLI's forms, "N" (the first N layers) and [a, b]; anything else is named.
    auto* freeze = qobject_cast<QLineEdit*>(form->editor("freeze"));
    QVERIFY(freeze);
    QTest::keyClicks(freeze, "[0, 2]");
    QCOMPARE(form->config().freeze, (std::vector<int>{0, 2}));
    freeze->selectAll();
    QTest::keyClicks(freeze, "3");
    QCOMPARE(form->config().freeze, (std::vector<int>{0, 1, 2}));
    freeze->selectAll();
    QTest::keyClicks(freeze, "two");
    QVERIFY(!form->isValid());
    QCOMPARE(form->invalidFields(), QStringList{"Frozen layers"});
    QVERIFY(!form->fieldMessage("freeze").isEmpty());
    freeze->selectAll();
    QTest::keyClick(freeze, Qt::Key_Backspace);
    QVERIFY(form->isValid());

    // Numbers: an image size core rejects (not a multiple of 32), typed into the spin box.
    auto* imgsz = qobject_cast<QSpinBox*>(form->editor("imgsz"));
    QVERIFY(imgsz);
    imgsz->selectAll();
    QTest::keyClicks(imgsz, "100");
    QTest::keyClick(imgsz, Qt::Key_Tab);
    QCOMPARE(form->config().imgsz, 100);
    QVERIFY(!form->isValid());
    QVERIFY2(form->fieldMessage("imgsz").contains("32"), qPrintable(form->fieldMessage("imgsz")));
    QCOMPARE(form->invalidFields(), QStringList{"Image size"});
    QVERIFY(!window.startAction()->isEnabled());
    // A config loaded from elsewhere (the advisor, Auto-fit, a YAML file) clears old messages.
    c.imgsz = 96;
    form->setConfig(c);
    QVERIFY(form->isValid());
    QVERIFY(form->fieldMessage("imgsz").isEmpty());
    QVERIFY(window.startAction()->isEnabled());
}

void TestUi::startWithoutDataSetAsks() {
    QSettings().clear();
    hr::ui::MainWindow window;
    window.show();
    TrainConfig c = window.settingsPage()->form()->config();
    c.data.clear();
    window.settingsPage()->form()->setConfig(c);
    window.showPage(hr::ui::MainWindow::Page::Train);

    QString text;
    answerNextDialog([&text](QWidget* dialog) {
        auto* box = qobject_cast<QMessageBox*>(dialog);
        text = box ? box->text() + "\n" + box->informativeText() : QString();
        QVERIFY(clickButton(dialog, "Cancel"));
    });
    QVERIFY(!window.startTraining());
    QVERIFY2(text.contains("built-in sample") && text.contains("100 epochs") &&
                 text.contains("640 px") && text.contains("batch 16"),
             qPrintable(text));
    QVERIFY(!window.session()->isRunning());

    // "Choose a data set…" goes to the Data page and does not train.
    answerNextDialog([](QWidget* dialog) { QVERIFY(clickButton(dialog, "Choose a data set…")); });
    QVERIFY(!window.startTraining());
    QVERIFY(!window.session()->isRunning());
    QCOMPARE(window.findChild<QTabWidget*>()->currentWidget(),
             static_cast<QWidget*>(window.dataPage()));
}

void TestUi::plotsShowSinglePointsAndKeepAxesAndLegendClear() {
    hr::ui::PlotWidget plot("losses");
    plot.resize(420, 300);
    plot.setEmptyText("Losses appear after the first batch.");
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const int train = plot.addSeries("box", 0);
    const int val = plot.addSeries("val box", 0, true);
    // Empty: words instead of made-up 0..5 axes.
    QTRY_VERIFY(plot.replotCount() > 0);
    QVERIFY(plot.showsEmptyText());
    QVERIFY(!plot.plot()->xAxis->tickLabels());
    QCOMPARE(plot.emptyText(), QString("Losses appear after the first batch."));

    // The first validation point (epoch 1) stands alone: drawn as a marker, axes not negative.
    plot.append(val, 1.0, 2.5);
    QTRY_VERIFY(!plot.showsEmptyText());
    QCPGraph* valGraph = plot.plot()->graph(val);
    QVERIFY(!valGraph->scatterStyle().isNone());
    QVERIFY(plot.plot()->xAxis->range().lower >= 0);
    QVERIFY(plot.plot()->xAxis->range().contains(1.0));
    QVERIFY(plot.plot()->yAxis->range().lower >= 0);
    QVERIFY(plot.plot()->xAxis->tickLabels());
    // A single point at time 0: the axis starts at 0, not at -2.
    hr::ui::PlotWidget time("memory");
    time.resize(420, 300);
    const int mem = time.addSeries("allocated", 0);
    time.append(mem, 0.0, 100.0);
    time.resetView();
    QCOMPARE(time.plot()->xAxis->range().lower, 0.0);
    QVERIFY(time.plot()->xAxis->range().upper > 0);
    QVERIFY(time.plot()->yAxis->range().lower >= 0);

    // A curve at zero (an mAP of 0 in the first epochs) is drawn above the axis line, not on
    // it, and no tick label goes below zero.
    hr::ui::PlotWidget accuracy("accuracy");
    accuracy.resize(420, 300);
    accuracy.show();
    QVERIFY(QTest::qWaitForWindowExposed(&accuracy));
    const int map = accuracy.addSeries("mAP50", 0);
    accuracy.append(map, 1.0, 0.0);
    accuracy.append(map, 2.0, 0.0);
    accuracy.resetView();
    accuracy.plot()->replot();
    QCPAxis* axis = accuracy.plot()->yAxis;
    QVERIFY(axis->coordToPixel(0.0) < accuracy.plot()->axisRect()->bottom() - 1);
    QVERIFY(axis->range().upper >= 1.0);
    QVERIFY(!axis->tickVector().isEmpty());
    for (const double tick : axis->tickVector())
        if (axis->range().contains(tick))
            QVERIFY2(tick >= 0, qPrintable(QString::number(tick)));

    // More points: lines, both curves drawn from epoch 1 on.
    for (int i = 1; i <= 20; ++i)
        plot.append(train, i * 0.1, 3.0 - i * 0.05);
    plot.append(val, 2.0, 2.2);
    plot.resetView();
    plot.plot()->replot();
    QCOMPARE(plot.pointCount(val), 2);
    QVERIFY(plot.plot()->xAxis->range().contains(1.0) && plot.plot()->xAxis->range().contains(2.0));
    // The legend sits outside the plot area: above it, never over a curve.
    const QRect legend = plot.plot()->legend->outerRect();
    const QRect area = plot.plot()->axisRect()->outerRect();
    QVERIFY2(!legend.intersects(plot.plot()->axisRect()->rect()),
             qPrintable(QString("legend %1,%2 %3x%4 in the plot area")
                            .arg(legend.x())
                            .arg(legend.y())
                            .arg(legend.width())
                            .arg(legend.height())));
    QVERIFY(legend.bottom() <= area.top());
    QVERIFY(plot.plot()->legend->visible() && plot.plot()->legend->itemCount() == 2);

    // A bar chart's legend sits above its bars too, even in the Data page's small chart.
    hr::ui::BarChart bars("Classes");
    bars.resize(200, 200);
    bars.addSeries("objects", 0);
    bars.addSeries("images", 2);
    bars.setCategories({"circle", "square", "triangle"});
    bars.setValues(0, {170, 150, 140});
    bars.setValues(1, {120, 100, 110});
    bars.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bars));
    auto* barPlot = bars.findChild<QCustomPlot*>();
    QVERIFY(barPlot);
    barPlot->replot();
    QVERIFY(barPlot->legend->visible());
    QVERIFY2(!barPlot->legend->outerRect().intersects(barPlot->axisRect()->rect()),
             "the bar chart's legend is in its plot area");

    // The budget line's label stays whole inside the plot area, even at the top.
    plot.setReferenceLine(3.0, "budget 160 MiB");
    plot.resetView();
    plot.plot()->replot();
    const QRect inner = plot.plot()->axisRect()->rect();
    auto* label = qobject_cast<QCPItemText*>(plot.plot()->item(plot.plot()->itemCount() - 1));
    QVERIFY(label && label->text() == "budget 160 MiB");
    const QRectF box(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition());
    QVERIFY2(inner.contains(box.toAlignedRect().adjusted(1, 1, -1, -1)),
             qPrintable(QString("label %1,%2 %3x%4 outside %5,%6 %7x%8")
                            .arg(box.x())
                            .arg(box.y())
                            .arg(box.width())
                            .arg(box.height())
                            .arg(inner.x())
                            .arg(inner.y())
                            .arg(inner.width())
                            .arg(inner.height())));
}

void TestUi::markerLabelsNeverCrossLinesOrEachOther() {
    // The Train page's memory plot after an OOM at the start of a run (the advisor's probe
    // steps before it): the OOM marker sits where the budget's label would go, at the left. No
    // label crosses a marker line, and no two labels touch - with one marker, two close ones,
    // and in a short plot.
    hr::ui::PlotWidget plot("memory");
    plot.resize(900, 200);
    const int s = plot.addSeries("allocated", 0);
    for (int i = 0; i <= 100; ++i)
        plot.append(s, i, 40 + (i % 10) * 12);
    plot.setReferenceLine(160, "budget 160 MiB");
    plot.addMarker(0.5, "out of memory", Qt::red);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const auto check = [&plot](const char* when) {
        QTRY_VERIFY(!plot.replotPending());
        plot.plot()->replot();
        const QRectF budget = plot.referenceLabelRect();
        QVERIFY2(!budget.isEmpty(), when);
        const QVector<QRectF> labels = plot.markerLabelRects();
        const QVector<double> lines = plot.markerPixels();
        QCOMPARE(labels.size(), lines.size());
        const QRect area = plot.plot()->axisRect()->rect();
        QVector<QRectF> all = labels;
        all << budget;
        // A marker without a label of its own shares that of an earlier one close to it.
        for (int i = 0; i < labels.size(); ++i) {
            bool shares = false;
            for (int j = 0; j < i && !shares; ++j)
                shares =
                    !labels[j].isEmpty() && std::abs(lines[j] - lines[i]) < labels[j].width() + 10;
            QVERIFY2(!labels[i].isEmpty() || shares,
                     qPrintable(QString("%1: marker %2 has no label").arg(when).arg(i)));
        }
        for (const QRectF& r : labels)
            if (r.isEmpty())
                all.removeOne(r);
        for (int i = 0; i < all.size(); ++i) {
            QVERIFY2(area.contains(all[i].toAlignedRect().adjusted(1, 1, -1, -1)), when);
            for (double x : lines)
                QVERIFY2(!all[i].intersects(QRectF(x - 1, area.top(), 2, area.height())),
                         qPrintable(QString("%1: label %2 (%3..%4) crosses the marker at %5")
                                        .arg(when)
                                        .arg(i)
                                        .arg(all[i].left())
                                        .arg(all[i].right())
                                        .arg(x)));
            for (int j = i + 1; j < all.size(); ++j)
                QVERIFY2(
                    !all[i].intersects(all[j]),
                    qPrintable(QString("%1: labels %2 and %3 overlap").arg(when).arg(i).arg(j)));
        }
        // The first marker's label is drawn where the layout put it.
        QCPItemText* label = nullptr;
        for (int i = 0; i < plot.plot()->itemCount() && !label; ++i)
            if (auto* text = qobject_cast<QCPItemText*>(plot.plot()->item(i));
                text && text->text() == "out of memory")
                label = text;
        QVERIFY(label && label->visible());
        QVERIFY2(std::abs(label->topLeft->pixelPosition().x() - labels.first().left()) < 1.5, when);
    };
    check("one marker at the left");
    if (QTest::currentTestFailed())
        return;
    plot.addMarker(3, "out of memory", Qt::red);
    check("two markers close together");
    if (QTest::currentTestFailed())
        return;
    plot.resize(900, 130);
    check("a short plot");
    if (QTest::currentTestFailed())
        return;
    // Two markers far apart each get their own label, clear of the budget's.
    plot.resize(900, 200);
    plot.addMarker(60, "out of memory", Qt::red);
    check("a third marker far from the others");
    if (QTest::currentTestFailed())
        return;
    QVERIFY(!plot.markerLabelRects().last().isEmpty());
    plot.clearMarkers();
    QTRY_VERIFY(!plot.replotPending());
    plot.plot()->replot();
    QVERIFY(plot.markerLabelRects().isEmpty());
}

void TestUi::trainPageMarksEachOomOnce() {
    // The OOM report and the sampler's OOM sample name the same moment: one mark, kept on the
    // memory plot; another OOM later gets its own; a new run starts without any.
    QSettings().clear();
    QTemporaryDir dir;
    hr::ui::MainWindow window;
    hr::ui::TrainingSession* session = window.session();
    hr::ui::TrainPage* page = window.trainPage();
    hr::RunStarted started;
    started.runDir = dir.path().toStdString();
    emit session->started(started);
    hr::MemorySample sample;
    sample.seconds = 12.25;
    sample.oom = true;
    emit session->memorySampled(sample);
    hr::OomReport report;
    report.seconds = 12.5;
    emit session->oomOccurred(report);
    QCOMPARE(page->oomMarks(), QVector<double>{12.25});
    report.seconds = 40;
    emit session->oomOccurred(report);
    QCOMPARE(page->oomMarks(), (QVector<double>{12.25, 40}));
    QCOMPARE(page->memoryPlot()->markerKeys(), page->oomMarks());
    emit session->started(started);
    QVERIFY(page->oomMarks().isEmpty());
}

void TestUi::legendWrapsLongNamesInsideANarrowPlot() {
    // The Compare page's small plots: five long strategy names in a plot 320 px wide. Every
    // legend entry is drawn whole inside the plot (the entries wrap to more rows).
    hr::ui::PlotWidget plot("mAP50-95");
    plot.resize(320, 240);
    const QStringList names = {"native-with-a-long-name", "quarter-acc4-and-more",
                               "quarter-amp-long-name", "eighth-amp-acc8-long",
                               "quarter-amp-ckpt-long"};
    for (int i = 0; i < names.size(); ++i)
        plot.setData(plot.addSeries(names[i], i), {1, 2}, {0.1 * i, 0.2 * i});
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QTRY_VERIFY(!plot.replotPending());
    plot.plot()->replot();
    QCPLegend* legend = plot.plot()->legend;
    const QRect whole = plot.plot()->rect();
    for (int i = 0; i < legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = legend->item(i);
        if (!item)
            continue;
        const QRect r = item->outerRect();
        QVERIFY2(whole.contains(r) && r.width() >= item->minimumOuterSizeHint().width(),
                 qPrintable(QString("entry %1 at %2..%3 of %4 px, needs %5 px")
                                .arg(i)
                                .arg(r.left())
                                .arg(r.right())
                                .arg(whole.width())
                                .arg(item->minimumOuterSizeHint().width())));
    }
    QVERIFY(legend->rowCount() > 1);
    QVERIFY(!legend->outerRect().intersects(plot.plot()->axisRect()->rect()));
    QCOMPARE(plot.plot()->graph(0)->name(), names[0]); // it fits: not shortened

    // A name wider than the plot is shortened in the middle; the series keeps its whole name.
    const QString huge = "quarter-amp-ckpt-" + QString("x").repeated(80) + "-end";
    const int last = plot.addSeries(huge, 5);
    plot.setData(last, {1, 2}, {0.3, 0.4});
    QTRY_VERIFY(!plot.replotPending());
    QCOMPARE(plot.seriesName(last), huge);
    const QString shown = plot.plot()->graph(last)->name();
    QVERIFY2(shown.startsWith("quarter-amp") && shown.endsWith("-end") &&
                 shown.contains(QChar(0x2026)),
             qPrintable(shown));
    QCPAbstractLegendItem* item = legend->itemWithPlottable(plot.plot()->graph(last));
    QVERIFY(item && whole.contains(item->outerRect()));
}

void TestUi::logFollowsUntilScrolledUp() {
    hr::ui::LogView log;
    log.resize(400, 120);
    log.show();
    QVERIFY(QTest::qWaitForWindowExposed(&log));
    QScrollBar* bar = log.verticalScrollBar();
    for (int i = 0; i < 200; ++i)
        log.appendLine(QString("line %1").arg(i));
    QTRY_VERIFY(bar->maximum() > 0);
    QTRY_COMPARE(bar->value(), bar->maximum());
    QVERIFY(log.isFollowing());

    // The user scrolls up with the wheel: new lines do not pull the view down.
    QWheelEvent up(QPointF(50, 50), log.viewport()->mapToGlobal(QPointF(50, 50)), QPoint(),
                   QPoint(0, 360), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(log.viewport(), &up);
    QVERIFY(bar->value() < bar->maximum());
    QVERIFY(!log.isFollowing());
    const int held = bar->value();
    const int range = bar->maximum();
    for (int i = 0; i < 50; ++i)
        log.appendLine(QString("more %1").arg(i));
    QTRY_VERIFY(bar->maximum() > range); // the new lines are laid out
    QCoreApplication::processEvents();   // and whatever they posted has run
    QCOMPARE(bar->value(), held);

    // Dragged back to the bottom: it follows again.
    bar->triggerAction(QAbstractSlider::SliderToMaximum);
    QTRY_VERIFY(log.isFollowing());
    for (int i = 0; i < 50; ++i)
        log.appendLine(QString("last %1").arg(i));
    QTRY_COMPARE(bar->value(), bar->maximum());
    QVERIFY(log.toPlainText().endsWith("last 49"));
}

void TestUi::menusListEveryPageAndHelp() {
    QSettings().clear();
    hr::ui::MainWindow window;
    window.show();
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    const QList<QAction*> pages = window.pageActions();
    QCOMPARE(pages.size(), tabs->count());
    for (int i = 0; i < pages.size(); ++i) {
        QCOMPARE(pages[i]->text().remove('&'), tabs->tabText(i).remove('&'));
        pages[i]->trigger();
        QCOMPARE(tabs->currentIndex(), i);
    }
    QVERIFY(tabs->tabText(tabs->count() - 1).contains("Compare"));
    // Help: Getting started (five steps) and the shortcuts, each a dialog.
    QMenu* help = nullptr;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->text().remove('&') == "Help")
            help = menu->menu();
    QVERIFY(help);
    QStringList items;
    for (QAction* action : help->actions())
        items << action->text().remove('&');
    QVERIFY2(items.contains("Getting started") && items.contains("Keyboard shortcuts"),
             qPrintable(items.join(", ")));
    QString steps;
    answerNextDialog([&steps](QWidget* dialog) {
        steps = qobject_cast<QMessageBox*>(dialog)->text();
        dialog->close();
    });
    window.findChild<QAction*>("gettingStarted")->trigger();
    QCOMPARE(steps.count("<li>"), 5);
    QString keys;
    answerNextDialog([&keys](QWidget* dialog) {
        keys = qobject_cast<QMessageBox*>(dialog)->text();
        dialog->close();
    });
    window.findChild<QAction*>("shortcuts")->trigger();
    for (const char* shortcut : {"Ctrl+R", "F5", "Ctrl+O", "Ctrl+5", "Shift+F5"})
        QVERIFY2(keys.contains(shortcut), qPrintable(QString(shortcut) + " missing: " + keys));
}

void TestUi::windowFitsSmallScreen() {
    QSettings().clear();
    hr::ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // First start: 1280×720 (less on a smaller screen, as far as the pages allow); every page
    // fits 1280×720.
    const QSize screen = QGuiApplication::primaryScreen()->availableSize();
    QCOMPARE(window.size(),
             QSize(1280, 720).boundedTo(screen).expandedTo(window.minimumSizeHint()));
    window.resize(1280, 720);
    QTRY_COMPARE(window.size(), QSize(1280, 720));
    QVERIFY(window.minimumSizeHint().width() <= 1280 && window.minimumSizeHint().height() <= 720);
    auto* tabs = window.findChild<QTabWidget*>();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents();
        QCOMPARE(window.size(), QSize(1280, 720));
        QWidget* page = tabs->widget(i);
        QVERIFY2(page->minimumSizeHint().width() <= page->width(),
                 qPrintable(QString("page %1 needs %2 px of %3")
                                .arg(tabs->tabText(i))
                                .arg(page->minimumSizeHint().width())
                                .arg(page->width())));
        for (QScrollArea* area : page->findChildren<QScrollArea*>()) {
            if (!area->isVisible() || !area->widget())
                continue;
            QTRY_VERIFY2(area->widget()->width() <= area->viewport()->width(),
                         qPrintable(QString("%1: %2 px wide in %3")
                                        .arg(tabs->tabText(i))
                                        .arg(area->widget()->width())
                                        .arg(area->viewport()->width())));
            QVERIFY(!area->horizontalScrollBar()->isVisible());
        }
        // Every column header is wide enough for its words and its sort arrow.
        for (QHeaderView* header : page->findChildren<QHeaderView*>()) {
            if (!header->isVisible() || header->orientation() != Qt::Horizontal)
                continue;
            for (int s = 0; s < header->count(); ++s)
                QVERIFY2(
                    header->isSectionHidden(s) ||
                        header->sectionSize(s) >= header->sectionSizeHint(s),
                    qPrintable(QString("%1: header \"%2\" is %3 px of the %4 it needs")
                                   .arg(tabs->tabText(i))
                                   .arg(header->model()->headerData(s, Qt::Horizontal).toString())
                                   .arg(header->sectionSize(s))
                                   .arg(header->sectionSizeHint(s))));
        }
    }
    // Settings: every field of both columns (or of the one) lies inside the visible width.
    window.showPage(hr::ui::MainWindow::Page::Settings);
    QApplication::processEvents();
    QScrollArea* scroll = window.settingsPage()->scrollArea();
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    for (const QString& key : form->keys()) {
        QWidget* editor = form->editor(key);
        const QPoint right = editor->mapTo(scroll->viewport(), QPoint(editor->width(), 0));
        QVERIFY2(right.x() <= scroll->viewport()->width(),
                 qPrintable(QString("%1 ends at %2 of %3")
                                .arg(key)
                                .arg(right.x())
                                .arg(scroll->viewport()->width())));
    }
    // A narrow window: one column, still no sideways scrolling.
    window.resize(900, 700);
    QTRY_COMPARE(form->columnCount(), 1);
    window.resize(1280, 720);
    QTRY_COMPARE(form->columnCount(), 2);
}

QTEST_MAIN(TestUi)
#include "test_ui.moc"
