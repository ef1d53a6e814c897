// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "bytestext.h"
#include "comparepage.h"
#include "comparisonsession.h"
#include "datapage.h"
#include "datasetservice.h"
#include "estimatorservice.h"
#include "exportservice.h"
#include "interruptedrunbanner.h"
#include "memorypanel.h"
#include "oomadvisordialog.h"
#include "resultsview.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"

#include "config/machine_limits.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace hr::ui {

namespace {
const QString kConfigKey = QStringLiteral("settings/config");
const QString kDataKey = QStringLiteral("data/last");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kPageKey = QStringLiteral("window/page");
const QString kSettingsFileKey = QStringLiteral("settings/file");
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
    m_banner = new InterruptedRunBanner(this);
    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_banner);
    column->addWidget(m_tabs, 1);
    setCentralWidget(central);
    connect(m_banner, &InterruptedRunBanner::resumeClicked, this, &MainWindow::resumeRun);
    connect(m_banner, &InterruptedRunBanner::openClicked, this, [this](const QString& dir) {
        m_runs->openRun(dir);
        showPage(Page::Runs);
    });
    connect(m_runs, &RunsPage::listRefreshed, this, &MainWindow::updateActions);
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
        saveSettingsNow();
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
    // An epoch's row is written by now: the Runs page's row of the live run follows it, when shown.
    connect(m_session, &TrainingSession::epochEnded, this, [this] {
        if (m_runs->isVisible())
            m_runs->refreshActiveRun();
    });
    connect(m_session, &TrainingSession::runningChanged, this, [this](bool running) {
        if (!running) {
            m_runs->setActiveRun(QString());
            m_runs->refresh();
            if (!m_refusalCode.empty()) // asked once the signal is done: a new start may follow
                QTimer::singleShot(0, this, &MainWindow::askAboutRefusal);
        }
    });
    connect(m_runs, &RunsPage::resumeRequested, this, &MainWindow::resumeRun);
    connect(m_train, &TrainPage::resultsRequested, this, [this](const QString& runDir) {
        showPage(Page::Runs);
        if (m_runs->openRun(runDir))
            m_runs->views()->setCurrentWidget(m_runs->resultsView());
    });
    connect(m_session, &TrainingSession::finished, this, [this](const hr::RunFinished& event) {
        if (event.state == RunState::Failed && StartQuestion::asksAbout(event.reasonCode)) {
            m_refusalCode = event.reasonCode;
            m_refusalArgs = event.reasonArgs;
        }
        statusBar()->showMessage(
            tr("Run %1: %2")
                .arg(QString::fromStdString(event.runDir),
                     runStateWords(QString::fromLatin1(hr::toString(event.state)))),
            10000);
    });
    connect(m_runs, &RunsPage::runOpened, this, &MainWindow::addRecentRun);

    restoreState();
    // Said once, at start-up: the runs folder's newest run ended without an end event.
    if (const auto run = m_runs->newestInterrupted())
        m_banner->showRun(run->dir, run->name, run->epochsDone, run->epochsPlanned);
    updateActions();
}

MainWindow::~MainWindow() = default;

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
            [this](const hr::FitResult& fit, const QString& summary) {
                if (fit.fits)
                    startTraining();
                else
                    QMessageBox::warning(this, tr("Cannot start"), summary);
            },
            Qt::SingleShotConnection);
        return true;
    }
    m_train->log()->clear();
    showPage(Page::Train);
    if (!startRun(config, {}))
        return false;
    clearAdvisorMarks();
    return true;
}

bool MainWindow::startRun(const TrainConfig& config, StartConsent consent) {
    if (config.nproc > 1 && !consent.machineLimits) {
        // Constant work (the cores); the memory needs the data set, so the trainer checks it.
        const Diagnostics problems = hr::checkMachineLimits(config, 0, hr::machineFacts(), {});
        if (hasErrors(problems)) {
            if (!StartQuestion::askMachineLimits(this, problems)) {
                statusBar()->showMessage(StartQuestion::declined("machine_limits"));
                return false;
            }
            consent.machineLimits = true;
        }
    }
    m_startConfig = config;
    m_startConsent = consent;
    m_refusalCode.clear();
    return m_session->start(config, consent);
}

void MainWindow::askAboutRefusal() {
    const std::string code = std::exchange(m_refusalCode, std::string());
    if (code.empty() || m_session->isRunning())
        return;
    if (!StartQuestion::ask(this, code, m_refusalArgs)) {
        const QString why = StartQuestion::declined(code);
        statusBar()->showMessage(why);
        m_train->appendLog(why);
        return;
    }
    StartConsent consent = m_startConsent;
    StartQuestion::asksAbout(code, &consent);
    startRun(m_startConfig, consent);
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
    return startRun(config, {});
}

bool MainWindow::confirmBuiltinSample(const TrainConfig& config) {
    QMessageBox box(QMessageBox::Question, tr("No data set chosen"),
                    tr("No data set is chosen. Train on the built-in sample?"),
                    QMessageBox::NoButton, this);
    box.setObjectName(QStringLiteral("confirmBuiltin"));
    const QString budget = config.memory_budget > 0 ? bytesText(config.memory_budget) : tr("none");
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
    const auto resumable = m_runs->newestResumable();
    m_resumeLast->setEnabled(!running && !matrix && resumable.has_value());
    m_resumeLast->setToolTip(resumable ? tr("Continue %1 from its last checkpoint (epoch %2)")
                                             .arg(resumable->name)
                                             .arg(resumable->epochsDone)
                                       : tr("No run to resume: every run finished or has no "
                                            "checkpoint."));
    if (!running && m_pause->isChecked()) {
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(false);
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

void MainWindow::saveSettingsNow() {
    // Written and synced at each change: a crash or kill -9 must not take the settings with it.
    // QSettings writes a temporary file and renames it, so a kill mid-write keeps the old file.
    QSettings settings;
    settings.setValue(kConfigKey, QString::fromStdString(hr::toYaml(m_settings->form()->config())));
    settings.sync();
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
