// SPDX-License-Identifier: GPL-3.0-or-later
// The studio under zh_CN, offscreen: every page, the menus, the dialogs (getting started,
// shortcuts, about, Start without a data set, the strategy matrix's question, the advisor with
// core's real fixes), the memory panel after a real estimate, the strategy editor with bad
// entries, and real runs - one whose out-of-memory error the trainer fixes itself ("Fix
// applied" in the log), one that stops for it (the status line, the Runs page's tooltip) - are
// walked, and every visible string - labels, status lines, buttons, group titles, tabs, combo
// items, placeholders, table headers, item tooltips, plot titles, axes and legends - must be
// Chinese. Numbers, units, file names, model names and a short list of technical terms (AMP,
// EMA, NMS, mAP ...) may stay as they are.
#include "comparepage.h"
#include "confusionmatrixview.h"
#include "datapage.h"
#include "datasetservice.h"
#include "diagnosticwording.h"
#include "elidedlabel.h"
#include "failurewording.h"
#include "fitwording.h"
#include "fixwording.h"
#include "language.h"
#include "logwording.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "oomadvisordialog.h"
#include "plotwidget.h"
#include "resultsview.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "startquestion.h"
#include "strategyeditor.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"

#include "advisor/fix_advisor.h"
#include "compare/comparison.h"
#include "compare/strategy.h"
#include "compare/strategy_runner.h"
#include "config/data_config.h"
#include "config/train_config.h"
#include "config/yaml_read.h"
#include "estimate/auto_fit.h"
#include "eval/average_precision.h"
#include "results/validation_results.h"
#include "train/log_code.h"
#include "util/bytes.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QToolBar>
#include <QTreeWidget>
#include <QtTest>

#include <functional>

namespace {

/// Words that read the same in a Chinese UI: units, acronyms, product and model names.
const QSet<QString>& allowedWords() {
    static const QSet<QString> words = {
        "B",         "KiB",      "MiB",      "GiB",         "TiB",   "KB",     "MB",     "GB",
        "px",        "s",        "ms",       "min",         "h",     "AMP",    "EMA",    "NMS",
        "IoU",       "CIoU",     "DFL",      "mAP",         "SGD",   "Adam",   "AdamW",  "ZeRO",
        "BatchNorm", "GPU",      "CPU",      "RAM",         "YAML",  "CSV",    "HTML",   "PNG",
        "PDF",       "Headroom", "LibTorch", "Ultralytics", "YOLO",  "YOLOv8", "YOLOv9", "Qt",
        "GPL",       "or",       "later",    "Ctrl",        "Shift", "Alt",    "Del",    "Esc",
        "English",   "cpu",      "cuda",     "auto",        "bf16",  "fp16",   "fp32",   "OOM",
        "headroom",  "cli",      "ETA",      "box",         "cls",   "dfl",    "lr",     "val",
        "batch",     "nbs",      "key",      "value",       "imgsz", "PgUp",   "PgDown", "F",
        "TAG",       "Unicode"};
    return words;
}

bool hasChinese(const QString& text) {
    for (const QChar c : text)
        if ((c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff) ||
            (c.unicode() >= 0x3000 && c.unicode() <= 0x303f) ||
            (c.unicode() >= 0xff00 && c.unicode() <= 0xffef))
            return true;
    return false;
}

/// True when `text` would show English to a Chinese reader: no Chinese at all and a word that
/// is not a number, unit, file name, path, model name, setting as typed (key=value), headroom-cli
/// command or allowed term. `everyWord`: also a Chinese sentence with such a word (for the studio's
/// own log lines, which hold no user-chosen names; elsewhere strategy names and typed values would
/// count).
bool looksEnglish(QString text, bool everyWord = false) {
    text = text.trimmed();
    if (text.isEmpty() || (!everyWord && hasChinese(text)))
        return false;
    static const QRegularExpression fileOrPath(
        QStringLiteral(R"((\S*/\S*)|(\S+\.(yaml|yml|pt|csv|html|jsonl|png|pdf|txt))|(yolov\S*)|)"
                       R"((\S+=[^\s,]*)|(headroom-cli( [a-z][a-z-]*)?( --[a-z-]+)*))"),
        QRegularExpression::CaseInsensitiveOption);
    text.replace(fileOrPath, QStringLiteral(" "));
    static const QRegularExpression word(QStringLiteral("[A-Za-z]{2,}"));
    for (auto it = word.globalMatch(text); it.hasNext();) {
        const QString w = it.next().captured();
        if (!allowedWords().contains(w))
            return true;
    }
    return false;
}

QString plain(const QString& text) {
    if (!Qt::mightBeRichText(text))
        return text;
    QTextDocument doc;
    doc.setHtml(text);
    return doc.toPlainText();
}

/// Every string `root` shows (visible widgets only), with where it was found.
/// The failure message of a check that found English: how many strings, one per line.
QString englishReport(const QStringList& english) {
    return QString("%1 English strings under zh_CN:\n").arg(english.size()) + english.join('\n');
}

QStringList visibleStrings(QWidget* root) {
    QStringList out;
    auto add = [&out](const QString& where, const QString& text) {
        const QString p = plain(text);
        for (const QString& line : p.split(QLatin1Char('\n')))
            if (looksEnglish(line))
                out << QStringLiteral("%1: \"%2\"").arg(where, line.trimmed());
    };
    QList<QWidget*> widgets = root->findChildren<QWidget*>();
    widgets.prepend(root);
    for (QWidget* w : widgets) {
        if (!w->isVisible())
            continue;
        const QString where =
            QString::fromLatin1(w->metaObject()->className()) + QLatin1Char(' ') + w->objectName();
        add(where + " tooltip", w->toolTip());
        if (w->isWindow())
            add(where + " title", w->windowTitle());
        if (auto* label = qobject_cast<QLabel*>(w))
            add(where, label->text());
        else if (auto* elided = qobject_cast<hr::ui::ElidedLabel*>(w))
            add(where, elided->text());
        else if (auto* button = qobject_cast<QAbstractButton*>(w))
            add(where, button->text());
        else if (auto* group = qobject_cast<QGroupBox*>(w))
            add(where, group->title());
        else if (auto* tabs = qobject_cast<QTabBar*>(w)) {
            for (int i = 0; i < tabs->count(); ++i)
                add(where, tabs->tabText(i));
        } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
            for (int i = 0; i < combo->count(); ++i)
                add(where + " item", combo->itemText(i));
        } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            if (!qobject_cast<QComboBox*>(edit->parentWidget()))
                add(where + " placeholder", edit->placeholderText());
        } else if (auto* text = qobject_cast<QPlainTextEdit*>(w)) {
            add(where + " placeholder", text->placeholderText());
        } else if (auto* spin = qobject_cast<QAbstractSpinBox*>(w)) {
            add(where + " special", spin->specialValueText());
        } else if (auto* tree = qobject_cast<QTreeWidget*>(w)) {
            // The first column holds names (runs, strategies), chosen by the user.
            for (int i = 0; i < tree->topLevelItemCount(); ++i)
                for (int c = 0; c < tree->columnCount(); ++c) {
                    if (c > 0)
                        add(where + " item", tree->topLevelItem(i)->text(c));
                    add(where + " item tooltip", tree->topLevelItem(i)->toolTip(c));
                }
        } else if (auto* table = qobject_cast<QTableWidget*>(w)) {
            for (int r = 0; r < table->rowCount(); ++r)
                for (int c = 0; c < table->columnCount(); ++c)
                    if (const QTableWidgetItem* item = table->item(r, c)) {
                        if (c > 0)
                            add(where + " item", item->text());
                        add(where + " item tooltip", item->toolTip());
                    }
        } else if (auto* header = qobject_cast<QHeaderView*>(w)) {
            for (int i = 0; i < header->count(); ++i)
                add(where, header->model()
                               ->headerData(i, header->orientation(), Qt::DisplayRole)
                               .toString());
        } else if (auto* menuBar = qobject_cast<QMenuBar*>(w)) {
            std::function<void(QMenu*)> walk = [&](QMenu* menu) {
                for (QAction* action : menu->actions()) {
                    if (action->isSeparator())
                        continue;
                    if (action->menu())
                        walk(action->menu());
                    // Recent runs are folder paths; everything else is an action's name.
                    if (!action->text().contains(QLatin1Char('/')))
                        add("menu " + menu->title(), action->text());
                }
            };
            for (QAction* action : menuBar->actions()) {
                add("menu bar", action->text());
                if (action->menu())
                    walk(action->menu());
            }
        } else if (auto* toolBar = qobject_cast<QToolBar*>(w)) {
            for (QAction* action : toolBar->actions())
                add("tool bar", action->text());
        } else if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
            for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
                if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
                    add(where + " title", title->text());
            for (QCPAxis* axis : plot->axisRect()->axes())
                if (axis->visible())
                    add(where + " axis", axis->label());
            for (int i = 0; i < plot->graphCount(); ++i)
                add(where + " legend", plot->graph(i)->name());
            for (int i = 0; i < plot->itemCount(); ++i)
                if (auto* item = qobject_cast<QCPItemText*>(plot->item(i)); item && item->visible())
                    add(where + " text", item->text());
            if (const auto ticker = plot->yAxis->ticker().dynamicCast<QCPAxisTickerText>())
                for (const QString& tick : ticker->ticks())
                    add(where + " tick", tick);
        }
    }
    return out;
}

/// Collects the strings of the next modal dialog, then closes it with `button` (or Escape).
void walkNextDialog(QStringList* found, QString* seen, const QString& button = {}) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [=] {
        QWidget* dialog = QApplication::activeModalWidget();
        if (!dialog || !dialog->isVisible())
            return;
        timer->stop();
        timer->deleteLater();
        *seen = dialog->objectName();
        *found << visibleStrings(dialog);
        for (QAbstractButton* b : dialog->findChildren<QAbstractButton*>())
            if (!button.isEmpty() && b->text() == button) {
                QTest::mouseClick(b, Qt::LeftButton);
                return;
            }
        QTest::keyClick(dialog, Qt::Key_Escape);
    });
    timer->start();
}

} // namespace

/// A budget the first step at 256 px and batch 8 overflows and a smaller batch fits.
constexpr int kOomBudgetMiB = 96;

class TestUiZh : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void checkerSeesEnglish();
    void everyPageAndDialogIsChinese();
    void advisorDialogIsChinese();
    void compareRowTooltipsAreChinese();
    void resultsViewIsChinese();
    void strategyProblemsAreChinese();
    void runsThatRunOutOfMemoryAreChinese();
    void everyLogCodeIsChinese();
    void dataParallelRunIsChinese();
    void failuresOnTheStatusLineAreChinese();
    void compareRunnerMessagesAreChinese();
    void dataProblemsAreChinese();
    void autoFitIsChinese();
    void yamlSyntaxErrorsAreChinese();
    void failedWorkerIsChinese();
    void estimatorAndSetupFailuresAreChinese();

private:
    /// The small settings the page walks use (one calibration per process serves them all).
    hr::TrainConfig smallSettings(hr::TrainConfig c, const QString& project) const;

    QTemporaryDir m_dir;
    QString m_data;
};

void TestUiZh::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_zh");
    std::string error;
    m_data = hr::testing::makeTinyDataset(m_dir, 8, 2, &error);
    QVERIFY2(!m_data.isEmpty(), error.c_str());
    QVERIFY(hr::ui::installTranslations("zh_CN"));
}

void TestUiZh::checkerSeesEnglish() {
    // The check itself: English is caught, Chinese, numbers, units and names pass.
    QVERIFY(looksEnglish("Start training"));
    QVERIFY(looksEnglish("How: calibrated with real training steps"));
    QVERIFY(looksEnglish("none"));
    QVERIFY(!looksEnglish("开始训练"));
    QVERIFY(!looksEnglish("160 MiB"));
    QVERIFY(!looksEnglish("yolov8n.yaml"));
    QVERIFY(!looksEnglish("/tmp/runs/train3"));
    QVERIFY(!looksEnglish("mAP50-95"));
    QVERIFY(!looksEnglish("×1.25"));
    QVERIFY(!looksEnglish("batch=B/4, amp=true"));
    QVERIFY(looksEnglish("batch B/4 + accumulate 4"));
    QVERIFY(!looksEnglish("第 1 轮在 forward 阶段"));
    QVERIFY(looksEnglish("第 1 轮在 forward 阶段", true));
}

hr::TrainConfig TestUiZh::smallSettings(hr::TrainConfig c, const QString& project) const {
    c.data = m_data.toStdString();
    c.imgsz = 64;
    c.batch = 2;
    c.workers = 0;
    c.memory_budget = std::int64_t(160) << 20;
    c.project = m_dir.filePath(project).toStdString();
    return c;
}

void TestUiZh::everyPageAndDialogIsChinese() {
    QStringList english;
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    hr::TrainConfig c = smallSettings(form->config(), "runs");
    form->setConfig(c);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    auto* tabs = window.findChild<QTabWidget*>();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents();
        if (tabs->currentWidget() == window.settingsPage()) {
            // The memory panel after a real estimate: its "how" note is worded by the UI.
            QTRY_VERIFY_WITH_TIMEOUT(window.memoryPanel()->hasEstimate(), 120000);
            QVERIFY(!window.memoryPanel()->noteText().isEmpty());
        }
        english << visibleStrings(&window);
    }

    // A field with an error: its name and the summary line are Chinese too.
    window.showPage(hr::ui::MainWindow::Page::Settings);
    auto* imgsz = qobject_cast<QSpinBox*>(form->editor("imgsz"));
    imgsz->setValue(100);
    QVERIFY(!form->isValid());
    QVERIFY(!form->fieldMessage("imgsz").isEmpty());
    english << visibleStrings(window.settingsPage());
    imgsz->setValue(64);
    // Typed text core's parser refuses: its message under the field is worded by the UI.
    auto* budget = qobject_cast<QLineEdit*>(form->editor("memory_budget"));
    QVERIFY(budget);
    budget->clear();
    QTest::keyClicks(budget, "lots");
    QVERIFY(!form->isValid());
    QVERIFY(form->fieldMessage("memory_budget").contains("lots"));
    english << visibleStrings(window.settingsPage());
    budget->clear();
    QTest::keyClicks(budget, "160MiB");
    QVERIFY(form->isValid());

    // Dialogs.
    QString seen;
    walkNextDialog(&english, &seen);
    window.findChild<QAction*>("gettingStarted")->trigger();
    QCOMPARE(seen, QString("gettingStartedBox"));
    walkNextDialog(&english, &seen);
    window.findChild<QAction*>("shortcuts")->trigger();
    QCOMPARE(seen, QString("shortcutsBox"));

    c.data.clear();
    form->setConfig(c);
    walkNextDialog(&english, &seen);
    QVERIFY(!window.startTraining());
    QCOMPARE(seen, QString("confirmBuiltin"));

    window.showPage(hr::ui::MainWindow::Page::Compare);
    walkNextDialog(&english, &seen);
    QVERIFY(!window.comparePage()->confirmAndRunMatrix());
    QCOMPARE(seen, QString("confirmMatrix"));

    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::advisorDialogIsChinese() {
    // The advisor with the fixes core's advisor really offers for a backward-pass OOM.
    hr::TrainConfig c;
    c.data = m_data.toStdString();
    hr::OomReport report;
    report.phase = hr::Phase::Backward;
    report.requestedBytes = 64 << 20;
    report.allocatedBytes = 900 << 20;
    report.budgetBytes = std::int64_t(1) << 30;
    report.breakdown.weights = 12 << 20;
    report.breakdown.activations = 800 << 20;
    report.config = c;
    report.config.batch = 16;
    report.config.imgsz = 320;
    const auto predictor = [](const hr::TrainConfig& config) -> std::optional<std::int64_t> {
        return std::int64_t(config.batch) * config.imgsz * config.imgsz * (config.amp ? 40 : 80);
    };
    const std::vector<hr::FixSuggestion> fixes = hr::suggestFixes(report, predictor);
    QVERIFY(!fixes.empty());
    hr::ui::OomAdvisorDialog advisor(report, fixes);
    advisor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&advisor));
    QStringList english = visibleStrings(&advisor);
    advisor.reject();
    // The cards' figure tooltips, word by word: core's detail ("the estimator's probe steps
    // on this machine", the FLOP count, the citation) is worded in Chinese, not dropped.
    int detailed = 0;
    for (const hr::FixSuggestion& fix : fixes) {
        for (const QString& line : hr::ui::FixWording::figuresTooltip(fix).split(QLatin1Char('\n')))
            if (looksEnglish(line, true))
                english << "figures: " + line;
        for (const hr::FigureBasis* b : {&fix.memoryBasis, &fix.speedBasis, &fix.accuracyBasis}) {
            if (b->detail.empty())
                continue;
            const QString kindAlone = hr::ui::FixWording::basis(hr::FigureBasis(b->source));
            const QString worded = hr::ui::FixWording::basis(*b);
            if (worded == kindAlone)
                english << "figure detail dropped: " + QString::fromStdString(b->detail);
            else
                ++detailed;
        }
    }
    QVERIFY(detailed >= 3);
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::compareRowTooltipsAreChinese() {
    // A row of the default matrix whose run failed with a coded reason: its tooltip words the
    // strategy's description and the failure, word by word (the folder is a path).
    hr::Comparison comparison;
    hr::ComparisonRow row;
    const hr::Strategy strategy = hr::defaultStrategies().at(2);
    row.strategy = strategy.name;
    row.description = strategy.description;
    row.runDir = m_dir.filePath("compare-" + QString::fromStdString(strategy.name)).toStdString();
    row.status = "OOM";
    row.run.summary.failed = true;
    row.run.summary.state = "stopped_by_oom";
    row.run.summary.reason = "out of memory 3 times in a row without a completed step";
    row.run.summary.reasonCode = "oom_repeated";
    row.run.summary.reasonArgs = {"3"};
    row.message = row.run.summary.reason;
    comparison.rows.push_back(row);
    hr::ui::ComparePage page;
    page.showComparison(comparison);
    QCOMPARE(page.table()->rowCount(), 1);
    const QString tip = page.table()->item(0, 0)->toolTip();
    QCOMPARE(tip.split(QLatin1Char('\n')).size(), 3);
    QStringList english;
    for (const QString& line : tip.split(QLatin1Char('\n')))
        if (looksEnglish(line, true))
            english << "compare row: " + line;
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::resultsViewIsChinese() {
    // A validation's files (an object of class c1 found, one of c2 taken for c1; names a user
    // chose stay as they are): every tab of the Results view, and what a clicked cell says.
    const QString run = m_dir.filePath("results-run");
    QVERIFY(QDir().mkpath(run));
    hr::ScoredDetection found{0.9, 0, {}}, dogAsCat{0.6, 0, {}};
    found.correct.fill(true);
    hr::MetricsResult m = hr::apPerClass({dogAsCat, found}, {0, 1}, {1, 1}, 2);
    m.images = 1;
    m.confusion = {{1, 1, 0}, {0, 0, 0}, {0, 0, 0}};
    std::string error;
    QVERIFY2(hr::writeValidationResults(run.toStdString(), {"c1", "c2"}, m, &error), error.c_str());
    QStringList english;
    hr::ui::ResultsView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy loaded(&view, &hr::ui::ResultsView::loaded);
    view.showRun(run);
    QTRY_COMPARE(loaded.count(), 1);
    for (int i = 0; i < view.tabs()->count(); ++i) {
        view.tabs()->setCurrentIndex(i);
        english << visibleStrings(&view);
    }
    view.curvePicker()->setCurrentIndex(hr::ui::ResultsView::F1Curve);
    english << visibleStrings(&view);
    for (int predicted = 0; predicted < 3; ++predicted)
        for (int actual = 0; actual < 3; ++actual)
            if (looksEnglish(view.confusionView()->cellText(predicted, actual)))
                english << view.confusionView()->cellText(predicted, actual);
    hr::ui::ResultsView empty;
    QSignalSpy emptyLoaded(&empty, &hr::ui::ResultsView::loaded);
    empty.showRun(m_dir.filePath("no-such-run"));
    QTRY_COMPARE(emptyLoaded.count(), 1);
    if (looksEnglish(empty.summaryText()))
        english << empty.summaryText();
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::strategyProblemsAreChinese() {
    // Bad entries of every kind the editor checks: its problem list and each row's tooltip.
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showPage(hr::ui::MainWindow::Page::Compare);
    hr::ui::StrategyEditor* editor = window.comparePage()->strategyEditor();
    hr::Strategy badName{"bad name!", {{"batch", "0"}, {"lr0", "fast"}}, {}, {}};
    hr::Strategy twice{"twice",
                       {{"amp", "true"}, {"amp", "false"}, {"", "5"}, {"nosuch", "1"}},
                       hr::PublishedClaim{},
                       {}};
    twice.claim->memoryGb = -1;
    twice.claim->map50 = 68;
    hr::Strategy unnamed{"", {{"imgsz", "100"}}, {}, {}};
    // A default strategy's description field is worded like its table cell, and saving the
    // form keeps core's English description.
    editor->setStrategies(hr::defaultStrategies());
    editor->setCurrentIndex(0);
    auto* description = editor->findChild<QLineEdit*>("strategyDescription");
    QVERIFY(description);
    QVERIFY2(hasChinese(description->text()), qPrintable(description->text()));
    editor->setCurrentIndex(1);
    QCOMPARE(editor->strategies()[0].description, hr::defaultStrategies()[0].description);
    editor->setStrategies({badName, twice, twice, unnamed});
    QApplication::processEvents();
    const QString problems = editor->problemsText();
    QVERIFY2(problems.count(QLatin1Char('\n')) >= 8, qPrintable(problems));
    QStringList english = visibleStrings(&window);
    editor->setStrategies({});
    QApplication::processEvents();
    QVERIFY(!editor->problemsText().isEmpty());
    english << visibleStrings(&window);
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::runsThatRunOutOfMemoryAreChinese() {
    // Real runs whose first step runs out of memory: 256 px and batch 8 under a small budget.
    // With on_oom auto the trainer applies the best fix (the log says so); with stop the run
    // ends "stopped by OOM" (the status line and the Runs page's tooltip say why).
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::TrainConfig c;
    c.data = m_data.toStdString();
    c.imgsz = 256;
    c.batch = 8;
    c.epochs = 1;
    c.workers = 0;
    c.threads = 1; // leave a core to the GUI thread on a 2-core machine
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.warmup_epochs = 0;
    c.device = "cpu";
    c.memory_budget = std::int64_t(kOomBudgetMiB) << 20;
    c.project = m_dir.filePath("oomruns").toStdString();
    hr::ui::TrainingSession* session = window.session();
    hr::ui::TrainPage* page = window.trainPage();
    QStringList english;
    // Every line of the Train page's log: the studio's own (fixes, failures) and core's progress
    // notes (LogMessage, worded from its code), word by word.
    const auto logLines = [page] {
        QStringList lines;
        for (const QString& line : page->log()->toPlainText().split(QLatin1Char('\n')))
            if (!line.trimmed().isEmpty())
                lines << line;
        return lines;
    };

    c.name = "auto";
    c.on_oom = hr::OomPolicy::Auto;
    window.settingsPage()->form()->setConfig(c);
    QSignalSpy applied(session, &hr::ui::TrainingSession::fixApplied);
    QVERIFY(window.startTraining());
    english << visibleStrings(page); // "starting", before the trainer's first event
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 300000);
    QVERIFY2(applied.count() >= 1, qPrintable(page->log()->toPlainText()));
    // Core's optimizer line (optimizer auto is the default) is among the lines checked.
    QVERIFY2(!logLines().filter(QStringLiteral("lr=")).isEmpty(),
             qPrintable(page->log()->toPlainText()));
    for (const QString& line : logLines()) {
        qInfo("log: %s", qPrintable(line));
        if (looksEnglish(line, true))
            english << "log: " + line;
    }

    c.name = "stop";
    c.on_oom = hr::OomPolicy::Stop;
    window.settingsPage()->form()->setConfig(c);
    QSignalSpy finished(session, &hr::ui::TrainingSession::finished);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning() && finished.count() == 1, 300000);
    const auto end = finished.first().first().value<hr::RunFinished>();
    QVERIFY2(end.state == hr::RunState::StoppedByOom, end.reason.c_str());
    QVERIFY(!end.reasonCode.empty());
    window.showPage(hr::ui::MainWindow::Page::Train);
    QVERIFY(!page->statusLine()->text().isEmpty());
    qInfo("status: %s", qPrintable(page->statusLine()->text()));
    english << visibleStrings(page);
    for (const QString& line : logLines())
        if (looksEnglish(line, true))
            english << "log: " + line;

    window.showPage(hr::ui::MainWindow::Page::Runs);
    hr::ui::RunsPage* runs = window.runsPage();
    QTreeWidgetItem* item = nullptr;
    QTRY_VERIFY((item = runs->itemOf(QString::fromStdString(end.runDir))) != nullptr);
    QVERIFY(!item->toolTip(hr::ui::RunsPage::StateColumn).isEmpty());
    english << visibleStrings(runs);
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::everyLogCodeIsChinese() {
    // Every code in core's list (LogCode) has a Chinese wording: numbers and paths as values.
    QStringList english;
    for (hr::LogCode code : hr::kLogCodes) {
        const std::vector<std::string> args = {"/tmp/r/last.pt", "/tmp/r/last.pt.bak", "3", "8"};
        const QString line = hr::ui::LogWording::line(hr::toString(code), args, "ENGLISH");
        if (line == QLatin1String("ENGLISH") || looksEnglish(line, true))
            english << QString("%1: %2").arg(hr::toString(code), line);
    }
    QVERIFY2(english.isEmpty(), qPrintable(english.join('\n')));
}

void TestUiZh::dataParallelRunIsChinese() {
#ifndef HEADROOM_CLI_PATH
    QSKIP("needs headroom-cli for the workers (not built)");
#else
    // Two processes from the Train page, as test_ui_dist runs them (64 px, one epoch): the
    // ranks' notes - sync_bn, the all-reduce buckets - are worded in Chinese in the log.
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::TrainConfig c;
    c.data = m_data.toStdString();
    c.imgsz = 64;
    c.batch = 4; // 2 per rank
    c.epochs = 1;
    c.workers = 0;
    c.threads = 1;
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.warmup_epochs = 0;
    c.device = "cpu";
    c.nproc = 2;
    c.sync_bn = true;
    c.project = m_dir.filePath("dpruns").toStdString();
    c.name = "dp";
    window.settingsPage()->form()->setConfig(c);
    hr::ui::TrainingSession* session = window.session();
    session->setWorkerProgram(QStringLiteral(HEADROOM_CLI_PATH));
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 180000);
    const QString log = window.trainPage()->log()->toPlainText();
    QVERIFY2(failed.isEmpty(), qPrintable(log));
    // The ranks' own notes are there, in their Chinese wording.
    QVERIFY2(log.contains(hr::ui::LogWording::line("sync_bn", {"2"}, "")), qPrintable(log));
    QStringList english;
    for (const QString& line : log.split(QLatin1Char('\n')))
        if (!line.trimmed().isEmpty() && looksEnglish(line, true))
            english << "log: " + line;
    QVERIFY2(english.isEmpty(), qPrintable(english.join('\n')));
#endif
}

void TestUiZh::failuresOnTheStatusLineAreChinese() {
    // A run whose data.yaml points at no images fails before its first step: the status line
    // and the Runs page's tooltip frame core's diagnostic in Chinese (its file names, keys and
    // numbers may stay as they are). The other coded failures' framing is Chinese too.
    QDir(m_dir.path()).mkpath("broken");
    const QString yaml = m_dir.filePath("broken/data.yaml");
    {
        QFile f(yaml);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("path: .\ntrain: nosuch/images\nval: nosuch/images\nnames: [a, b]\n");
    }
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::TrainConfig c;
    c.data = yaml.toStdString();
    c.imgsz = 64;
    c.batch = 2;
    c.epochs = 1;
    c.workers = 0;
    c.device = "cpu";
    c.project = m_dir.filePath("brokenruns").toStdString();
    window.settingsPage()->form()->setConfig(c);
    hr::ui::TrainingSession* session = window.session();
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
    QCOMPARE(failed.count(), 1);
    const QString status = window.trainPage()->statusLine()->text();
    qInfo("status: %s", qPrintable(status));
    // The first line is the UI's own sentence; the diagnostic lines below it are core's.
    const QString framing = status.split(QLatin1Char('\n')).first();
    QVERIFY2(hasChinese(framing), qPrintable(status));
    // The diagnostic lines below it are worded from their codes too.
    for (const QString& line : status.split(QLatin1Char('\n')))
        QVERIFY2(!looksEnglish(line), qPrintable(status));

    // Every code a failure can carry, with a detail that is a path: Chinese framing.
    QStringList english;
    for (const char* code : {"data_config", "no_train_images", "launch_env", "rank_connect",
                             "device", "model_build", "weights_load", "run_folder", "resume_config",
                             "fix_broadcast", "unexpected", "machine_limits", "scan_too_large"}) {
        const QString text =
            hr::ui::FailureWording::reason(code, {"/tmp/x.yaml", "/tmp/y.pt"}, "ENGLISH");
        if (text == QLatin1String("ENGLISH") || !hasChinese(text) || looksEnglish(text, true))
            english << QString("%1: %2").arg(code, text);
    }
    // What the studio says after a No to the question such a failure asks.
    for (const char* code : {"machine_limits", "scan_too_large"}) {
        const QString text = hr::ui::StartQuestion::declined(code);
        if (!hasChinese(text) || looksEnglish(text, true))
            english << QString("declined %1: %2").arg(code, text);
    }
    QVERIFY2(english.isEmpty(), qPrintable(english.join('\n')));
}

void TestUiZh::compareRunnerMessagesAreChinese() {
    // Core's strategy runner for real: a comparison stopped before it began ("not run") and one
    // whose strategies' settings are rejected ("invalid"). Their status cells and tooltips are
    // Chinese - no training runs in either.
    hr::TrainConfig base;
    base.data = m_data.toStdString();
    base.batch = 8;
    base.project = m_dir.filePath("cmp").toStdString();
    std::vector<hr::Strategy> strategies = hr::defaultStrategies();
    strategies.resize(2);
    hr::StrategyRunner stopped(base, strategies);
    stopped.requestStop();
    hr::Comparison comparison = stopped.run();
    QCOMPARE(comparison.rows.size(), std::size_t(2));
    QCOMPARE(comparison.rows[0].status, std::string("not run"));
    hr::StrategyRunner invalid(base, {hr::Strategy{"s1", {{"batch", "0"}, {"lr0", "9x"}}, {}, {}}});
    hr::Comparison rejected = invalid.run();
    QCOMPARE(rejected.rows.size(), std::size_t(1));
    QCOMPARE(rejected.rows[0].status, std::string("invalid"));
    comparison.rows.push_back(rejected.rows[0]);
    comparison.rows[0].checkpointing = "none"; // as a run's config.yaml gives it

    hr::ui::ComparePage page;
    page.resize(1280, 720);
    page.showComparison(comparison);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QStringList english = visibleStrings(page.table());
    for (int r = 0; r < page.table()->rowCount(); ++r)
        for (const QString& line : page.table()->item(r, 0)->toolTip().split(QLatin1Char('\n')))
            if (looksEnglish(line, true))
                english << "row tooltip: " + line;
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::dataProblemsAreChinese() {
    // A data set with bad label lines, an unreadable image and a label without an image: the
    // Data page's problem table words core's scan problems (file names and numbers allowed).
    const QString root = m_dir.filePath("bad-data");
    hr::SyntheticOptions options;
    options.train = 3;
    options.val = 1;
    options.imgsz = 64;
    std::string error;
    QVERIFY2(hr::makeSyntheticDataset(root.toStdString(), options, &error), error.c_str());
    const QDir labels(root + "/labels/train");
    const QStringList files = labels.entryList({"*.txt"}, QDir::Files, QDir::Name);
    QVERIFY(!files.isEmpty());
    QFile label(labels.filePath(files.first()));
    QVERIFY(label.open(QIODevice::Append));
    label.write("0 0.5 0.5\n"
                "x 0.5 0.5 0.1 0.1\n"
                "99 0.5 0.5 0.1 0.1\n"
                "0 0.5 0.5 0 0.1\n"
                "0 1.5 1.5 0.1 0.1\n"
                "0 0.98 0.5 0.1 0.1\n"
                "0 0.3 0.3 0.1 0.1\n"
                "0 0.3 0.3 0.1 0.1\n");
    label.close();
    QFile orphan(labels.filePath("ghost.txt"));
    QVERIFY(orphan.open(QIODevice::WriteOnly));
    orphan.write("0 0.5 0.5 0.1 0.1\n");
    orphan.close();
    QFile broken(root + "/images/train/broken.jpg");
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not an image");
    broken.close();

    hr::ui::DatasetService service;
    hr::ui::DataPage page(&service);
    page.resize(1280, 720);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(page.openPath(root + "/data.yaml"));
    QTreeWidget* list = page.problemList();
    QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() >= 9, 30000);
    QStringList english;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = list->topLevelItem(i);
        if (!hasChinese(item->text(4)) || looksEnglish(item->text(4)))
            english << "problem: " + item->text(4);
        if (looksEnglish(item->text(5)))
            english << "fix: " + item->text(5);
    }
    english << visibleStrings(&page);

    // A data.yaml with a missing folder, a wrong class count, an unknown key and a download
    // script: its problems in the same table.
    const QString yaml = root + "/bad.yaml";
    QFile bad(yaml);
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("path: .\ntrain: images/missing\nval: images/train\nnc: 3\nnames: [a, b]\n"
              "download: x\ncolour: red\n");
    bad.close();
    QVERIFY(page.openPath(yaml));
    QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() == 4, 30000);
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = list->topLevelItem(i);
        if (!hasChinese(item->text(4)) || looksEnglish(item->text(4)))
            english << "yaml problem: " + item->text(4);
        if (looksEnglish(item->text(5)))
            english << "yaml fix: " + item->text(5);
    }
    english << visibleStrings(&page);
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::autoFitIsChinese() {
    // Every decision and outcome auto-fit reports, worded from its code and values.
    QStringList english;
    hr::FitResult fit;
    fit.config.model = "yolov8s.yaml";
    fit.config.batch = 6;
    fit.config.amp = true;
    fit.config.checkpointing = hr::Checkpointing::All;
    fit.budget = std::int64_t(160) << 20;
    fit.target = std::int64_t(144) << 20;
    fit.trainPeak = std::int64_t(120) << 20;
    fit.valPeak = std::int64_t(60) << 20;
    fit.accumulate = 11;
    fit.minimumBudget = std::int64_t(300) << 20;
    fit.smallestVariant = {128, true, hr::Checkpointing::All};
    fit.smallestPeak = std::int64_t(250) << 20;
    fit.configuredPeak = std::int64_t(900) << 20;
    fit.floor.weights = fit.floor.gradients = fit.floor.ema = std::int64_t(40) << 20;
    fit.floor.optimizerState = std::int64_t(80) << 20;
    fit.floor.total = std::int64_t(200) << 20;
    using Kind = hr::FitDecision::Kind;
    for (const Kind kind :
         {Kind::AmpOn, Kind::CheckpointingOn, Kind::TooLargeAtSmallest, Kind::ImgszLowered,
          Kind::LargestBatch, Kind::Accumulate, Kind::ResidentFloor}) {
        for (const hr::Checkpointing mode :
             {hr::Checkpointing::None, hr::Checkpointing::Backbone, hr::Checkpointing::All}) {
            hr::FitDecision d;
            d.kind = kind;
            d.variant = {320, mode == hr::Checkpointing::None, mode};
            d.batch = 6;
            d.imgsz = 288;
            d.fromImgsz = 320;
            d.accumulate = 11;
            d.nbs = 64;
            d.trainPeak = fit.trainPeak;
            d.valPeak = fit.valPeak;
            d.floor = fit.floor;
            const QString text = hr::ui::FitWording::decision(d, fit);
            if (text.isEmpty() || looksEnglish(text, true))
                english << "decision: " + text;
        }
    }
    for (const hr::FitOutcome outcome :
         {hr::FitOutcome::Fits, hr::FitOutcome::AsConfigured, hr::FitOutcome::ResidentFloor,
          hr::FitOutcome::NothingFits}) {
        fit.outcome = outcome;
        for (const std::int64_t state : {std::int64_t(40) << 20, std::int64_t(80) << 20}) {
            fit.floor.optimizerState = state; // SGD's one state tensor, Adam's two
            const QString text = hr::ui::FitWording::summary(fit);
            if (text.isEmpty() || looksEnglish(text, true))
                english << "summary: " + text;
        }
    }

    // The memory panel after real fits: one that fits, one where nothing fits; and Start with
    // batch -1 where nothing fits says so in its dialog.
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    // everyPageAndDialogIsChinese's settings: their calibration is made once per process.
    hr::TrainConfig c = smallSettings(form->config(), "fitruns");
    form->setConfig(c);
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    QSignalSpy fitted(panel, &hr::ui::MemoryPanel::fitFinished);
    QTRY_VERIFY_WITH_TIMEOUT(panel->autoFitButton()->isEnabled(), 120000);
    QVERIFY(panel->autoFit());
    QTRY_COMPARE_WITH_TIMEOUT(fitted.count(), 1, 120000);
    QVERIFY(fitted.first().first().value<hr::FitResult>().fits);
    qInfo("fit: %s", qPrintable(panel->fitText()));
    QVERIFY(hasChinese(panel->fitText()));
    for (const QString& line : panel->fitText().split(QLatin1Char('\n')))
        if (looksEnglish(line, true))
            english << "panel: " + line;
    english << visibleStrings(window.settingsPage());

    c = form->config();
    c.model = "yolov8s.yaml";
    c.imgsz = 128;
    c.memory_budget = std::int64_t(64) << 20;
    form->setConfig(c);
    QTRY_VERIFY_WITH_TIMEOUT(panel->autoFitButton()->isEnabled(), 120000);
    QVERIFY(panel->autoFit());
    QTRY_COMPARE_WITH_TIMEOUT(fitted.count(), 2, 120000);
    const auto none = fitted.at(1).first().value<hr::FitResult>();
    QVERIFY(!none.fits);
    qInfo("nothing fits: %s", qPrintable(panel->fitText()));
    for (const QString& line : panel->fitText().split(QLatin1Char('\n')))
        if (looksEnglish(line, true))
            english << "panel: " + line;

    c.batch = -1;
    form->setConfig(c);
    panel->refresh();
    // The panel's own prediction for batch -1 says that nothing fits (naming the smallest
    // budget), in Chinese.
    const QString minimum = QString::fromStdString(hr::formatBytes(none.minimumBudget));
    QTRY_VERIFY2_WITH_TIMEOUT(panel->statusText().contains(minimum),
                              qPrintable(panel->statusText()), 120000);
    qInfo("status: %s", qPrintable(panel->statusText()));
    if (looksEnglish(panel->statusText(), true))
        english << "status: " + panel->statusText();
    english << visibleStrings(window.settingsPage());
    QString seen = QStringLiteral("no dialog yet");
    walkNextDialog(&english, &seen);
    QVERIFY(window.startTraining());
    QTRY_COMPARE_WITH_TIMEOUT(fitted.count(), 3, 120000);
    QTRY_VERIFY(seen != QLatin1String("no dialog yet")); // "Cannot start", with the summary
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::yamlSyntaxErrorsAreChinese() {
    // Every message of yaml-cpp's parser has a code, and each is worded with its line and
    // column; a message core does not know still says where, in Chinese.
    QStringList english;
    const std::vector<std::string> messages = {
        YAML::ErrorMsg::YAML_DIRECTIVE_ARGS,
        YAML::ErrorMsg::YAML_MAJOR_VERSION,
        YAML::ErrorMsg::REPEATED_YAML_DIRECTIVE,
        YAML::ErrorMsg::TAG_DIRECTIVE_ARGS,
        YAML::ErrorMsg::REPEATED_TAG_DIRECTIVE,
        YAML::ErrorMsg::CHAR_IN_TAG_HANDLE,
        YAML::ErrorMsg::TAG_WITH_NO_SUFFIX,
        YAML::ErrorMsg::END_OF_VERBATIM_TAG,
        YAML::ErrorMsg::END_OF_MAP,
        YAML::ErrorMsg::END_OF_MAP_FLOW,
        YAML::ErrorMsg::END_OF_SEQ,
        YAML::ErrorMsg::END_OF_SEQ_FLOW,
        YAML::ErrorMsg::MULTIPLE_TAGS,
        YAML::ErrorMsg::MULTIPLE_ANCHORS,
        YAML::ErrorMsg::MULTIPLE_ALIASES,
        YAML::ErrorMsg::ALIAS_CONTENT,
        YAML::ErrorMsg::INVALID_HEX,
        YAML::ErrorMsg::UNKNOWN_TOKEN,
        YAML::ErrorMsg::DOC_IN_SCALAR,
        YAML::ErrorMsg::EOF_IN_SCALAR,
        YAML::ErrorMsg::CHAR_IN_SCALAR,
        YAML::ErrorMsg::TAB_IN_INDENTATION,
        YAML::ErrorMsg::FLOW_END,
        YAML::ErrorMsg::BLOCK_ENTRY,
        YAML::ErrorMsg::MAP_KEY,
        YAML::ErrorMsg::MAP_VALUE,
        YAML::ErrorMsg::ALIAS_NOT_FOUND,
        YAML::ErrorMsg::ANCHOR_NOT_FOUND,
        YAML::ErrorMsg::CHAR_IN_ALIAS,
        YAML::ErrorMsg::CHAR_IN_ANCHOR,
        YAML::ErrorMsg::ZERO_INDENT_IN_BLOCK,
        YAML::ErrorMsg::CHAR_IN_BLOCK,
        YAML::ErrorMsg::AMBIGUOUS_ANCHOR,
        YAML::ErrorMsg::UNKNOWN_ANCHOR,
        std::string(YAML::ErrorMsg::YAML_VERSION) + "9.9",
        std::string(YAML::ErrorMsg::INVALID_UNICODE) + "d800",
        std::string(YAML::ErrorMsg::INVALID_ESCAPE) + "q",
    };
    hr::Diagnostic unknown = hr::makeDiagnostic(hr::Diagnostic::Severity::Error, "/tmp/a.yaml", 4,
                                                {}, "malformed YAML: a message of yaml-cpp 9");
    unknown.code = "malformed_yaml";
    unknown.args = {"", "7", ""};
    const QString generic = hr::ui::DiagnosticWording::message(unknown);
    QVERIFY2(hasChinese(generic) && generic.contains(QLatin1Char('4')) &&
                 generic.contains(QLatin1Char('7')),
             qPrintable(generic));
    for (const std::string& message : messages) {
        const hr::yaml::SyntaxError syntax = hr::yaml::syntaxError(message);
        if (syntax.code.empty()) {
            english << "no code: " + QString::fromStdString(message);
            continue;
        }
        hr::Diagnostic d = unknown;
        d.args = {syntax.code, "7", syntax.value};
        const QString text = hr::ui::DiagnosticWording::message(d);
        if (text == generic || looksEnglish(text, true))
            english << QString::fromStdString(message) + ": " + text;
    }

    // Real files: the settings page's "open" error, the Data page's problem table, and the
    // field-level message of a typed value all word yaml-cpp's errors.
    const QString settings = m_dir.filePath("broken-settings.yaml");
    {
        QFile f(settings);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("epochs: 5\nimgsz: [320, 256\nbatch: 4\n");
    }
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QString problems;
    QVERIFY(!window.settingsPage()->openYaml(settings, &problems));
    qInfo("open settings: %s", qPrintable(problems));
    QVERIFY(problems.contains(QStringLiteral("broken-settings.yaml")));
    for (const QString& line : problems.split(QLatin1Char('\n')))
        if (!hasChinese(line) || looksEnglish(line, true))
            english << "open settings: " + line;

    const QString data = m_dir.filePath("broken-data.yaml");
    {
        QFile f(data);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("path: .\ntrain: images/train\nval: images/val\nnames: {0: a, 1: b\n");
    }
    window.showPage(hr::ui::MainWindow::Page::Data);
    hr::ui::DataPage* page = window.findChild<hr::ui::DataPage*>();
    QVERIFY(page);
    QVERIFY(page->openPath(data));
    QTreeWidget* list = page->problemList();
    QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() >= 1, 30000);
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = list->topLevelItem(i);
        qInfo("data problem: %s | %s", qPrintable(item->text(4)), qPrintable(item->text(5)));
        if (!hasChinese(item->text(4)) || looksEnglish(item->text(4), true))
            english << "data problem: " + item->text(4);
        if (looksEnglish(item->text(5), true))
            english << "data fix: " + item->text(5);
    }
    english << visibleStrings(page);
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::failedWorkerIsChinese() {
    // Rank 1 of a data-parallel run says what is wrong in English and exits 3: the failure on
    // the status line is Chinese, and its output is in the log only under a line that marks
    // it as the program's raw output.
    const QString program = m_dir.filePath("dying-worker.sh");
    {
        QFile script(program);
        QVERIFY(script.open(QIODevice::WriteOnly | QIODevice::Text));
        script.write("#!/bin/sh\n"
                     "echo \"rank $RANK: training failed: batch: not a number\" >&2\n"
                     "exit 3\n");
        script.close();
        QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
    }
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::TrainConfig c;
    c.data = m_data.toStdString();
    c.imgsz = 64;
    c.batch = 4;
    c.epochs = 1;
    c.workers = 0;
    c.threads = 1;
    c.device = "cpu";
    c.nproc = 2;
    c.project = m_dir.filePath("deadworker").toStdString();
    c.name = "dead";
    window.settingsPage()->form()->setConfig(c);
    hr::ui::TrainingSession* session = window.session();
    session->setWorkerProgram(program);
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 60000);
    QStringList english;
    const QString message = failed.first().first().toString();
    qInfo("failure: %s", qPrintable(message));
    for (const QString& line : message.split(QLatin1Char('\n')))
        if (looksEnglish(line, true))
            english << "failure: " + line;
    english << visibleStrings(window.trainPage());
    // The log: the raw output block is a marked line and the worker's lines indented under it.
    const QString header =
        hr::ui::TrainingSession::tr("The raw output of rank %1 (the program's own words, not "
                                    "translated):")
            .arg(1);
    const QString rankZero = hr::ui::TrainingSession::tr(
        "Rank 0 stopped as well, as the run had already failed. Its own words (the program's, "
        "not translated):");
    QVERIFY(hasChinese(header) && hasChinese(rankZero));
    const QStringList log = window.trainPage()->log()->toPlainText().split(QLatin1Char('\n'));
    bool inRaw = false, sawRaw = false;
    for (const QString& line : log) {
        qInfo("log: %s", qPrintable(line));
        if (line.trimmed().isEmpty())
            continue;
        if (line.contains(header) || line.contains(rankZero)) {
            inRaw = true;
            continue;
        }
        if (inRaw && line.startsWith(QStringLiteral("    "))) {
            sawRaw = sawRaw || line.contains(QStringLiteral("batch: not a number"));
            continue;
        }
        inRaw = false;
        if (looksEnglish(line, true))
            english << "log: " + line;
    }
    QVERIFY2(sawRaw, qPrintable(log.join('\n')));
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

void TestUiZh::estimatorAndSetupFailuresAreChinese() {
    // What the field checks let through to the estimator or the trainer's setup: a model name
    // with no file, and a data.yaml that does not load. The field, the memory panel and each
    // failure's reason word core's codes in Chinese, and so does a data-parallel run whose
    // ranks cannot meet.
    QStringList english;
    hr::ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    hr::ui::MemoryPanel* panel = window.memoryPanel();
    window.showPage(hr::ui::MainWindow::Page::Settings);
    hr::TrainConfig c = smallSettings(form->config(), "failruns");
    c.model = "yolov8s.yam";
    form->setConfig(c);
    panel->refresh();
    // The model row's own check finds it, so the panel waits for valid settings.
    QTRY_VERIFY2_WITH_TIMEOUT(!form->fieldMessage("model").isEmpty(), "no field message", 10000);
    qInfo("model field: %s", qPrintable(form->fieldMessage("model")));
    QVERIFY(form->fieldMessage("model").contains(QLatin1String("yolov8s.yam")));
    QVERIFY(!form->isValid());
    english << visibleStrings(window.settingsPage());

    QDir(m_dir.path()).mkpath("badnames");
    const QString badYaml = m_dir.filePath("badnames/data.yaml");
    {
        QFile f(badYaml);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("path: .\ntrain: images\nval: images\nnames: 7\n");
    }
    c.model = "yolov8n.yaml";
    c.data = badYaml.toStdString();
    form->setConfig(c);
    panel->refresh();
    QTRY_VERIFY2_WITH_TIMEOUT(panel->statusText().contains(QLatin1String("badnames")),
                              qPrintable(panel->statusText()), 120000);
    qInfo("panel: %s", qPrintable(panel->statusText()));
    for (const QString& line : panel->statusText().split(QLatin1Char('\n')))
        if (looksEnglish(line))
            english << "panel: " + line;
    english << visibleStrings(window.settingsPage());

    // The reasons a run's setup fails with, from core's real diagnostics.
    const hr::DataConfigResult loaded = hr::loadDataConfig(badYaml.toStdString());
    QVERIFY(!loaded.config);
    hr::TrainConfig noModel;
    noModel.model = "nosuch.yaml";
    const hr::Diagnostics modelProblems = hr::validate(noModel);
    QCOMPARE(modelProblems.size(), std::size_t(1));
    QCOMPARE(modelProblems.front().code, std::string("model_not_found"));
    hr::Diagnostics scanProblems(1);
    scanProblems.front().file = "/data/images/a.jpg";
    scanProblems.front().code = "image_unreadable";
    scanProblems.front().message = "cannot decode";
    std::vector<std::string> modelArgs{"nosuch.yaml"};
    for (const std::string& arg : hr::diagnosticArgs(modelProblems))
        modelArgs.push_back(arg);
    const std::vector<std::pair<std::string, std::vector<std::string>>> reasons = {
        {"data_config", hr::diagnosticArgs(loaded.diagnostics)},
        {"no_train_images", hr::diagnosticArgs(scanProblems)},
        {"model_build", modelArgs},
        {"rank_connect", {"1", "2", "127.0.0.1:29500", "timeout", "1", "60"}},
        {"rank_connect", {"0", "2", "127.0.0.1:29500", "abandoned", "进程 1 已退出"}},
        {"rank_connect", {"1", "2", "127.0.0.1:29500", "error", "Connection refused"}}};
    for (const auto& [code, args] : reasons) {
        const QString text = hr::ui::FailureWording::reason(code, args, "ENGLISH");
        qInfo("%s: %s", code.c_str(), qPrintable(text));
        for (QString line : text.split(QLatin1Char('\n'))) {
            // The network library's own text is quoted as such, like a worker's raw output.
            line.remove(QLatin1String("Connection refused"));
            if (looksEnglish(line, code == "rank_connect"))
                english << QString::fromStdString(code) + ": " + line;
        }
    }
    english.removeDuplicates();
    QVERIFY2(english.isEmpty(), qPrintable(englishReport(english)));
}

QTEST_MAIN(TestUiZh)
#include "test_ui_zh.moc"
