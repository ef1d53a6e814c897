// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "comparepage.h"
#include "comparisonsession.h"
#include "datapage.h"
#include "datasetservice.h"
#include "estimatorservice.h"
#include "exportservice.h"
#include "language.h"
#include "memorypanel.h"
#include "oomadvisordialog.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "util/bytes.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>

#include <algorithm>

namespace hr::ui {

namespace {
const QString kConfigKey = QStringLiteral("settings/config");
const QString kDataKey = QStringLiteral("data/last");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kPageKey = QStringLiteral("window/page");
const QString kRecentKey = QStringLiteral("runs/recent");
const QString kSettingsFileKey = QStringLiteral("settings/file");
constexpr int kMaxRecent = 8;
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_session(new TrainingSession(this)),
      m_datasets(new DatasetService(this)), m_tabs(new QTabWidget(this)) {
    setWindowTitle(tr("Headroom"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/headroom.svg")));
    setObjectName(QStringLiteral("mainWindow"));
    createActions();

    m_data = new DataPage(m_datasets, m_tabs);
    m_settings = new SettingsPage(m_tabs);
    m_estimator = new EstimatorService(this);
    m_memory = new MemoryPanel(m_estimator, m_settings->form(), m_settings);
    m_settings->setSidePanel(m_memory);
    m_train = new TrainPage(m_session, m_start, m_pause, m_stop, m_tabs);
    m_runs = new RunsPage(m_tabs);
    m_tabs->addTab(m_data, QIcon(QStringLiteral(":/icons/data.svg")), tr("Data"));
    m_tabs->addTab(m_settings, QIcon(QStringLiteral(":/icons/settings.svg")), tr("Settings"));
    m_tabs->addTab(m_train, QIcon(QStringLiteral(":/icons/train.svg")), tr("Train"));
    m_tabs->addTab(m_runs, QIcon(QStringLiteral(":/icons/runs.svg")), tr("Runs"));
    m_compare = new ComparePage(m_tabs);
    m_compare->setBaseConfigSource([this] { return m_settings->form()->config(); });
    m_tabs->addTab(m_compare, QIcon(QStringLiteral(":/icons/runs.svg")), tr("Compare"));
    connect(m_runs, &RunsPage::compareRequested, this, [this](const QStringList& dirs) {
        m_compare->compareRuns(dirs);
        showPage(Page::Compare);
    });
    connect(m_compare, &ComparePage::matrixFinished, m_runs, &RunsPage::refresh);
    m_tabs->setDocumentMode(true);
    setCentralWidget(m_tabs);
    createMenus();

    connect(m_data, &DataPage::datasetChosen, this, [this](const QString& yaml) {
        SettingsForm* form = m_settings->form();
        TrainConfig config = form->config();
        config.data = yaml.toStdString();
        form->setConfig(config);
        emit form->configChanged();
        QSettings().setValue(kDataKey, yaml);
        statusBar()->showMessage(tr("Data set %1 ready.").arg(QDir::toNativeSeparators(yaml)),
                                 5000);
    });
    connect(m_settings, &SettingsPage::openRequested, this, &MainWindow::openSettings);
    connect(m_settings, &SettingsPage::saveRequested, this, &MainWindow::saveSettingsAs);
    connect(m_settings->form(), &SettingsForm::configChanged, this, [this] {
        m_runs->setRunsFolder(QString::fromStdString(m_settings->form()->config().project));
    });
    connect(m_session, &TrainingSession::runningChanged, this, &MainWindow::updateActions);
    connect(m_settings->form(), &SettingsForm::validityChanged, this, &MainWindow::updateActions);
    connect(m_compare->session(), &ComparisonSession::runningChanged, this,
            &MainWindow::updateActions);
    connect(m_session, &TrainingSession::runningChanged, m_memory, &MemoryPanel::setRunActive);
    connect(m_session, &TrainingSession::runningChanged, m_compare,
            &ComparePage::setTrainingActive);
    connect(m_session, &TrainingSession::oomDecisionNeeded, this, &MainWindow::showAdvisor);
    connect(m_session, &TrainingSession::fixesFound, this, [this](const hr::FixSearchProgress& p) {
        if (m_advisor)
            m_advisor->showProgress(p);
    });
    connect(m_session, &TrainingSession::fixChanges, this, &MainWindow::writeBackFix);
    connect(m_session, &TrainingSession::stopping, this, &MainWindow::updateActions);
    connect(m_session, &TrainingSession::started, this, [this](const hr::RunStarted& event) {
        addRecentRun(QString::fromStdString(event.runDir));
        m_runs->setActiveRun(QString::fromStdString(event.runDir));
        m_runs->refresh();
    });
    connect(m_session, &TrainingSession::runningChanged, this, [this](bool running) {
        if (!running) {
            m_runs->setActiveRun(QString());
            m_runs->refresh();
        }
    });
    connect(m_runs, &RunsPage::resumeRequested, this, &MainWindow::resumeRun);
    connect(m_session, &TrainingSession::finished, this, [this](const hr::RunFinished& event) {
        statusBar()->showMessage(
            tr("Run %1: %2")
                .arg(QString::fromStdString(event.runDir),
                     runStateWords(QString::fromLatin1(hr::toString(event.state)))),
            10000);
    });
    connect(m_runs, &RunsPage::runOpened, this, &MainWindow::addRecentRun);

    restoreState();
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
    m_openData =
        new QAction(QIcon(QStringLiteral(":/icons/open.svg")), tr("&Open data set…"), this);
    m_openData->setShortcut(QKeySequence::Open);
    m_openData->setStatusTip(tr("Open a data.yaml or a folder holding one"));
    connect(m_openData, &QAction::triggered, this, &MainWindow::openDataset);

    m_openSettings = new QAction(tr("Open &settings YAML…"), this);
    m_openSettings->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(m_openSettings, &QAction::triggered, this, &MainWindow::openSettings);
    m_saveSettings =
        new QAction(QIcon(QStringLiteral(":/icons/save.svg")), tr("&Save settings"), this);
    m_saveSettings->setShortcut(QKeySequence::Save);
    connect(m_saveSettings, &QAction::triggered, this, &MainWindow::saveSettings);
    m_saveSettingsAs = new QAction(tr("Save settings &as…"), this);
    m_saveSettingsAs->setShortcut(QKeySequence::SaveAs);
    connect(m_saveSettingsAs, &QAction::triggered, this, &MainWindow::saveSettingsAs);

    m_start = new QAction(QIcon(QStringLiteral(":/icons/start.svg")), tr("&Start training"), this);
    m_start->setObjectName(QStringLiteral("start"));
    m_start->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    m_start->setToolTip(tr("Start training with the current settings (Ctrl+R, F5)"));
    connect(m_start, &QAction::triggered, this, &MainWindow::startTraining);

    m_pause = new QAction(QIcon(QStringLiteral(":/icons/pause.svg")), tr("&Pause"), this);
    m_pause->setObjectName(QStringLiteral("pause"));
    m_pause->setCheckable(true);
    m_pause->setShortcut(QKeySequence(Qt::Key_F6));
    m_pause->setToolTip(tr("Pause or resume between steps (F6)"));
    connect(m_pause, &QAction::toggled, this, [this](bool on) { m_session->setPaused(on); });

    m_stop = new QAction(QIcon(QStringLiteral(":/icons/stop.svg")), tr("S&top"), this);
    m_stop->setObjectName(QStringLiteral("stop"));
    m_stop->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Period), QKeySequence(Qt::SHIFT | Qt::Key_F5)});
    m_stop->setToolTip(tr("Stop after the current step; the run keeps its last checkpoint "
                          "(Ctrl+., Shift+F5)"));
    // The button says "Stopping…" at once; the run ends after its current step.
    connect(m_stop, &QAction::triggered, this, [this] { m_session->stop(); });

    m_export = new QAction(tr("&Export to ONNX…"), this);
    m_export->setObjectName(QStringLiteral("export"));
    m_export->setStatusTip(tr("Write a weights file (Headroom or Ultralytics .pt) as an ONNX "
                              "model, checked with OpenCV"));
    connect(m_export, &QAction::triggered, this, &MainWindow::exportWeights);

    m_quit = new QAction(tr("&Quit"), this);
    m_quit->setShortcut(QKeySequence::Quit);
    connect(m_quit, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openData);
    file->addSeparator();
    file->addAction(m_openSettings);
    file->addAction(m_saveSettings);
    file->addAction(m_saveSettingsAs);
    file->addSeparator();
    file->addAction(m_export);
    file->addSeparator();
    m_recentMenu = file->addMenu(tr("&Recent runs"));
    file->addSeparator();
    file->addAction(m_quit);

    QMenu* train = menuBar()->addMenu(tr("&Train"));
    train->addAction(m_start);
    train->addAction(m_pause);
    train->addAction(m_stop);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QList<QPair<QString, QString>> pages = {{tr("&Data"), QStringLiteral("Ctrl+1")},
                                                  {tr("&Settings"), QStringLiteral("Ctrl+2")},
                                                  {tr("T&rain"), QStringLiteral("Ctrl+3")},
                                                  {tr("R&uns"), QStringLiteral("Ctrl+4")},
                                                  {tr("&Compare"), QStringLiteral("Ctrl+5")}};
    for (int i = 0; i < pages.size(); ++i) {
        QAction* action =
            view->addAction(pages[i].first, this, [this, i] { m_tabs->setCurrentIndex(i); });
        action->setShortcut(QKeySequence(pages[i].second));
        m_pageActions << action;
    }
    view->addSeparator();
    QMenu* language = view->addMenu(tr("&Language"));
    auto* group = new QActionGroup(language);
    const QString current = languageSetting();
    const QList<QPair<QString, QString>> choices = {
        {QStringLiteral("system"), tr("System default")},
        {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
    for (const auto& [code, name] : choices) {
        QAction* action = language->addAction(name);
        action->setCheckable(true);
        action->setChecked(code == current);
        action->setData(code);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, code = code] { chooseLanguage(code); });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* start = help->addAction(tr("&Getting started"), this, &MainWindow::showGettingStarted);
    start->setShortcut(QKeySequence::HelpContents);
    start->setObjectName(QStringLiteral("gettingStarted"));
    help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts)
        ->setObjectName(QStringLiteral("shortcuts"));
    help->addSeparator();
    help->addAction(tr("&About Headroom"), this, [this] {
        QMessageBox::about(this, tr("About Headroom"),
                           tr("<h3>Headroom %1</h3><p>A training studio for YOLO detectors that "
                              "predicts memory before a run, watches it live, and turns an "
                              "out-of-memory error into a choice of fixes that continue the same "
                              "run.</p><p>GPL-3.0-or-later.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    QToolBar* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tools->addAction(m_openData);
    tools->addAction(m_saveSettings);
    tools->addSeparator();
    tools->addAction(m_start);
    tools->addAction(m_pause);
    tools->addAction(m_stop);
}

void MainWindow::showGettingStarted() {
    QMessageBox box(QMessageBox::NoIcon, tr("Getting started"),
                    tr("<h3>From data to a trained detector in five steps</h3><ol>"
                       "<li><b>Data</b>: open a data.yaml or a folder (Ctrl+O), or use the "
                       "built-in sample. The page lists problems in the labels.</li>"
                       "<li><b>Settings</b>: pick the model, image size, batch and epochs. Set a "
                       "memory budget to make this device behave like a smaller GPU.</li>"
                       "<li><b>Predicted memory</b>: the panel beside the settings predicts the "
                       "training and validation peaks; Auto-fit picks settings that fit the "
                       "budget.</li>"
                       "<li><b>Train</b>: Start (Ctrl+R) and watch memory, losses and mAP live. "
                       "If a step runs out of memory, the advisor offers fixes that continue the "
                       "same run.</li>"
                       "<li><b>Runs and Compare</b>: every run keeps its curves and weights; pick "
                       "runs to lay them over each other, or run a strategy matrix.</li></ol>"),
                    QMessageBox::Close, this);
    box.setObjectName(QStringLiteral("gettingStartedBox"));
    box.setTextFormat(Qt::RichText);
    box.exec();
}

void MainWindow::showShortcuts() {
    QStringList rows;
    const auto row = [&rows](const QKeySequence& keys, const QString& what) {
        rows << QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(keys.toString(QKeySequence::NativeText).toHtmlEscaped(),
                         what.toHtmlEscaped());
    };
    for (QAction* action : {m_openData, m_openSettings, m_saveSettings, m_saveSettingsAs, m_start,
                            m_pause, m_stop, m_quit})
        for (const QKeySequence& keys : action->shortcuts())
            row(keys, QString(action->text()).remove(QLatin1Char('&')));
    for (QAction* action : m_pageActions)
        row(action->shortcut(),
            tr("Show the %1 page").arg(QString(action->text()).remove(QLatin1Char('&'))));
    QMessageBox box(QMessageBox::NoIcon, tr("Keyboard shortcuts"),
                    QStringLiteral("<table cellspacing='4'>%1</table>").arg(rows.join(QString())),
                    QMessageBox::Close, this);
    box.setObjectName(QStringLiteral("shortcutsBox"));
    box.setTextFormat(Qt::RichText);
    box.exec();
}

void MainWindow::showPage(Page page) {
    m_tabs->setCurrentIndex(static_cast<int>(page));
}

bool MainWindow::startTraining() {
    if (m_session->isRunning() || m_compare->session()->isRunning())
        return false;
    SettingsForm* form = m_settings->form();
    if (!form->isValid()) {
        showPage(Page::Settings);
        QMessageBox::warning(this, tr("Cannot start"),
                             tr("These settings are not valid: %1. Each says why under its "
                                "field on the Settings page.")
                                 .arg(form->invalidFields().join(QStringLiteral(", "))));
        return false;
    }
    TrainConfig config = form->config();
    const Diagnostics problems = hr::validate(config);
    if (hasErrors(problems)) {
        QMessageBox::warning(this, tr("Cannot start"),
                             tr("The settings have errors:\n%1")
                                 .arg(QString::fromStdString(formatDiagnostics(problems))));
        showPage(Page::Settings);
        return false;
    }
    if (config.data.empty() && !config.resume && !confirmBuiltinSample(config))
        return false;
    if (config.batch == -1 && !config.resume) {
        // batch -1: auto-fit first, in the background; the form then holds the chosen batch and
        // the memory panel says why, and the run starts with it.
        if (!m_memory->autoFit())
            return false;
        showPage(Page::Settings);
        connect(
            m_memory, &MemoryPanel::fitFinished, this,
            [this](const hr::FitResult& fit) {
                if (fit.fits)
                    startTraining();
                else
                    QMessageBox::warning(this, tr("Cannot start"),
                                         QString::fromStdString(fit.summary));
            },
            Qt::SingleShotConnection);
        return true;
    }
    m_train->log()->clear();
    showPage(Page::Train);
    if (!m_session->start(config))
        return false;
    clearAdvisorMarks();
    return true;
}

bool MainWindow::resumeRun(const QString& runDir) {
    if (m_session->isRunning())
        return false;
    // The run's own settings come from its checkpoint; this process's (budget, OOM policy,
    // threads, device) from the Settings page, as the trainer's resume does.
    TrainConfig config = m_settings->form()->config();
    const QFileInfo dir(runDir);
    config.project = dir.absolutePath().toStdString();
    config.name = dir.fileName().toStdString();
    config.resume = true;
    m_train->log()->clear();
    showPage(Page::Train);
    return m_session->start(config);
}

bool MainWindow::confirmBuiltinSample(const TrainConfig& config) {
    QMessageBox box(QMessageBox::Question, tr("No data set chosen"),
                    tr("No data set is chosen. Train on the built-in sample?"),
                    QMessageBox::NoButton, this);
    box.setObjectName(QStringLiteral("confirmBuiltin"));
    const QString budget = config.memory_budget > 0
                               ? QString::fromStdString(hr::formatBytes(config.memory_budget))
                               : tr("none");
    box.setInformativeText(
        tr("It would train %1 for %2 epochs at %3 px, batch %4, memory "
           "budget %5.")
            .arg(QString::fromStdString(config.model))
            .arg(config.epochs)
            .arg(config.imgsz)
            .arg(config.batch == -1 ? tr("auto-fit") : QString::number(config.batch))
            .arg(budget));
    QPushButton* train = box.addButton(tr("Train on the sample"), QMessageBox::AcceptRole);
    QPushButton* choose = box.addButton(tr("Choose a data set…"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() == choose)
        showPage(Page::Data);
    return box.clickedButton() == train;
}

void MainWindow::openDataset() {
    m_data->chooseFile();
    showPage(Page::Data);
}

void MainWindow::openSettings() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open settings"), QString(),
                                                      tr("Training settings (*.yaml *.yml)"));
    if (path.isEmpty())
        return;
    QString problems;
    if (!m_settings->openYaml(path, &problems)) {
        QMessageBox::warning(this, tr("Cannot open settings"), problems);
        return;
    }
    if (!problems.isEmpty())
        QMessageBox::information(this, tr("Settings opened with warnings"), problems);
    QSettings().setValue(kSettingsFileKey, path);
    showPage(Page::Settings);
}

bool MainWindow::saveSettings() {
    const QString path = m_settings->currentFile();
    if (path.isEmpty()) {
        saveSettingsAs();
        return !m_settings->currentFile().isEmpty();
    }
    QString error;
    if (!m_settings->saveYaml(path, &error)) {
        QMessageBox::warning(this, tr("Cannot save settings"), error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
    return true;
}

void MainWindow::saveSettingsAs() {
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save settings"), QStringLiteral("train.yaml"),
                                     tr("Training settings (*.yaml *.yml)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".yaml");
    QString error;
    if (!m_settings->saveYaml(path, &error)) {
        QMessageBox::warning(this, tr("Cannot save settings"), error);
        return;
    }
    QSettings().setValue(kSettingsFileKey, path);
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
}

void MainWindow::exportWeights() {
    if (m_exporter && m_exporter->isRunning()) {
        statusBar()->showMessage(tr("An export is already running"), 5000);
        return;
    }
    const QString weights = QFileDialog::getOpenFileName(this, tr("Weights to export"), QString(),
                                                         tr("Weights (*.pt *.pth);;All files (*)"));
    if (weights.isEmpty())
        return;
    QString onnx = QFileDialog::getSaveFileName(this, tr("Save ONNX model"),
                                                QFileInfo(weights).path() + QLatin1Char('/') +
                                                    QFileInfo(weights).completeBaseName() +
                                                    QStringLiteral(".onnx"),
                                                tr("ONNX models (*.onnx)"));
    if (onnx.isEmpty())
        return;
    if (QFileInfo(onnx).suffix().isEmpty())
        onnx += QStringLiteral(".onnx");
    if (!m_exporter) {
        m_exporter = new ExportService(this);
        connect(m_exporter, &ExportService::finished, this, [this](bool ok, const QString& detail) {
            m_export->setEnabled(true);
            statusBar()->clearMessage();
            if (ok)
                QMessageBox::information(this, tr("Export finished"), detail);
            else
                QMessageBox::warning(this, tr("Export failed"), detail);
        });
    }
    m_export->setEnabled(false);
    statusBar()->showMessage(tr("Exporting %1…").arg(QDir::toNativeSeparators(weights)));
    m_exporter->start(weights, onnx);
}

void MainWindow::showAdvisor(const hr::OomReport& report) {
    if (m_advisor)
        m_advisor->deleteLater();
    showPage(Page::Train);
    m_train->appendLog(OomAdvisorDialog::describe(report), int(LogMessage::Level::Warning));
    // Opens with the diagnosis at once; the fixes arrive through fixesFound().
    m_advisor = new OomAdvisorDialog(report, {}, false, this);
    m_advisor->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_advisor, &OomAdvisorDialog::fixChosen, this, [this](int index, bool always) {
        m_session->setAlwaysApplyBestFix(always);
        m_session->answerOom(m_advisor->fixes().at(size_t(index)));
    });
    connect(m_advisor, &OomAdvisorDialog::stopChosen, this,
            [this] { m_session->answerOom(std::nullopt); });
    connect(m_advisor, &QObject::destroyed, this, [this] { m_advisor = nullptr; });
    m_advisor->open();
}

void MainWindow::writeBackFix(const QList<QPair<QString, QString>>& changes) {
    SettingsForm* form = m_settings->form();
    TrainConfig config = form->config();
    QStringList applied;
    for (const auto& [key, value] : changes) {
        const Diagnostics problems =
            hr::applyOverride(config, key.toStdString(), value.toStdString());
        if (hasErrors(problems)) {
            m_train->appendLog(
                tr("Could not write the fix's %1 = %2 back to Settings: %3")
                    .arg(key, value, QString::fromStdString(formatDiagnostics(problems))),
                int(LogMessage::Level::Warning));
            continue;
        }
        applied << QStringLiteral("%1 = %2").arg(key, value);
    }
    if (applied.isEmpty())
        return;
    form->setConfig(config);
    emit form->configChanged();
    // Marked until the next Start, so that the person sees what the advisor changed.
    for (const auto& change : changes) {
        QWidget* editor = form->editor(change.first);
        if (!editor || m_advisorMarks.contains(editor))
            continue;
        const QString note = tr("Changed by the OOM advisor to %1 so that the next run fits "
                                "the memory budget.")
                                 .arg(change.second);
        editor->setProperty("changedByAdvisor", true);
        editor->setProperty("toolTipBeforeAdvisor", editor->toolTip());
        editor->setToolTip(QStringLiteral("<p><b>%1</b></p>").arg(note.toHtmlEscaped()) +
                           editor->toolTip());
        editor->setStyleSheet(QStringLiteral("background-color: #fff1b8; color: black;"));
        m_advisorMarks << editor;
        for (QLabel* label : form->findChildren<QLabel*>())
            if (label->buddy() == editor) {
                label->setStyleSheet(QStringLiteral("background-color: #fff1b8; color: black;"));
                m_advisorMarks << label;
            }
    }
    const QString line = tr("The advisor's fix is in Settings now (%1); the next Start uses it.")
                             .arg(applied.join(QStringLiteral(", ")));
    m_train->appendLog(line);
    statusBar()->showMessage(line, 15000);
}

void MainWindow::clearAdvisorMarks() {
    for (QWidget* widget : std::as_const(m_advisorMarks)) {
        widget->setStyleSheet(QString());
        if (widget->property("changedByAdvisor").toBool()) {
            widget->setToolTip(widget->property("toolTipBeforeAdvisor").toString());
            widget->setProperty("changedByAdvisor", false);
        }
    }
    m_advisorMarks.clear();
}

void MainWindow::updateActions() {
    const bool running = m_session->isRunning();
    const bool stopping = running && m_session->isStopping();
    m_stop->setText(stopping ? tr("Stopping…") : tr("S&top"));
    const bool matrix = m_compare->session()->isRunning();
    const bool valid = m_settings->form()->isValid();
    m_start->setEnabled(!running && !matrix && valid);
    if (matrix)
        m_start->setToolTip(tr("The strategy matrix on the Compare page is training; Start is "
                               "back when it ends or is stopped."));
    else if (!valid)
        m_start->setToolTip(
            tr("Fix these settings first: %1")
                .arg(m_settings->form()->invalidFields().join(QStringLiteral(", "))));
    else
        m_start->setToolTip(tr("Start training with the current settings (Ctrl+R, F5)"));
    m_pause->setEnabled(running && m_session->canPause());
    // A data-parallel run offers no pause; the tooltip says why.
    m_pause->setToolTip(running && !m_session->canPause()
                            ? m_session->pauseUnavailableReason()
                            : tr("Pause or resume between steps (F6)"));
    m_stop->setEnabled(running && !stopping);
    if (!running && m_pause->isChecked()) {
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(false);
    }
}

void MainWindow::addRecentRun(const QString& runDir) {
    if (runDir.isEmpty())
        return;
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString path = QFileInfo(runDir).absoluteFilePath();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    updateRecentRuns();
}

void MainWindow::updateRecentRuns() {
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& run : recent) {
        m_recentMenu->addAction(QDir::toNativeSeparators(run), this, [this, run] {
            m_runs->openRun(run);
            showPage(Page::Runs);
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::chooseLanguage(const QString& language) {
    if (language == languageSetting())
        return;
    setLanguageSetting(language);
    const auto answer = QMessageBox::question(
        this, tr("Language"),
        tr("The new language is used from the next start. Restart Headroom now?"),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer == QMessageBox::Yes && !m_session->isRunning()) {
        saveState();
        QProcess::startDetached(QApplication::applicationFilePath(),
                                QApplication::arguments().mid(1));
        QApplication::quit();
    }
}

void MainWindow::restoreState() {
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
        // First start: 1280×720, or the screen when it is smaller; every page fits that.
        const QSize screen = QGuiApplication::primaryScreen()
                                 ? QGuiApplication::primaryScreen()->availableSize()
                                 : QSize(1280, 720);
        resize(std::min(1280, screen.width()), std::min(720, screen.height()));
    }
    QMainWindow::restoreState(settings.value(kStateKey).toByteArray());
    const QString yaml = settings.value(kConfigKey).toString();
    if (!yaml.isEmpty()) {
        const TrainConfigResult saved =
            hr::parseTrainConfig(yaml.toStdString(), "QSettings settings/config");
        if (saved.config)
            m_settings->form()->setConfig(*saved.config);
    }
    m_runs->setRunsFolder(QString::fromStdString(m_settings->form()->config().project));
    m_tabs->setCurrentIndex(settings.value(kPageKey, 0).toInt());
    const QString lastData = settings.value(kDataKey).toString();
    if (!lastData.isEmpty() && QFileInfo::exists(lastData))
        m_data->openPath(lastData);
    updateRecentRuns();
}

void MainWindow::saveState() {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, QMainWindow::saveState());
    settings.setValue(kPageKey, m_tabs->currentIndex());
    settings.setValue(kConfigKey, QString::fromStdString(hr::toYaml(m_settings->form()->config())));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_session->isRunning()) {
        const auto answer = QMessageBox::question(
            this, tr("Training in progress"),
            tr("A run is in progress. Stop it (keeping its last checkpoint) and quit?"));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        m_session->stop();
    }
    saveState();
    event->accept();
}

} // namespace hr::ui
