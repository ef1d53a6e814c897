// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's actions, menus, tool bar and Help dialogs, the recent-runs menu and the
// language choice (mainwindow.cpp has the pages, the run's life and the window's state).
#include "mainwindow.h"

#include "language.h"
#include "runspage.h"
#include "trainingsession.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QTabWidget>
#include <QToolBar>

namespace hr::ui {

namespace {
const QString kRecentKey = QStringLiteral("runs/recent");
constexpr int kMaxRecent = 8;
} // namespace

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

    m_resumeLast = new QAction(tr("&Resume last run"), this);
    m_resumeLast->setObjectName(QStringLiteral("resumeLast"));
    connect(m_resumeLast, &QAction::triggered, this, [this] {
        if (const auto run = m_runs->newestResumable())
            resumeRun(run->dir);
    });
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
    train->addSeparator();
    train->addAction(m_resumeLast);

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

} // namespace hr::ui
