// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "startquestion.h"

#include "config/train_config.h"

#include <QMainWindow>

#include <string>
#include <vector>

class QAction;
class QMenu;
class QTabWidget;

namespace hr {
struct FixSuggestion;
struct OomReport;
} // namespace hr

namespace hr::ui {

class ComparePage;
class DataPage;
class DatasetService;
class EstimatorService;
class ExportService;
class MemoryPanel;
class RunsPage;
class SettingsPage;
class TrainPage;
class TrainingSession;
class OomAdvisorDialog;
class InterruptedRunBanner;

/// Headroom's main window: the Data, Settings, Train and Runs pages, menus and shortcuts
/// (open Ctrl+O, start Ctrl+R/F5, stop Ctrl+./Shift+F5), language choice, and QSettings
/// persistence of the settings, the last data set, the window layout and recent runs.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class Page { Data, Settings, Train, Runs, Compare };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void showPage(Page page);
    DataPage* dataPage() const { return m_data; }
    SettingsPage* settingsPage() const { return m_settings; }
    TrainPage* trainPage() const { return m_train; }
    RunsPage* runsPage() const { return m_runs; }
    ComparePage* comparePage() const { return m_compare; }
    MemoryPanel* memoryPanel() const { return m_memory; }
    TrainingSession* session() const { return m_session; }
    /// The advisor dialog while one is open, else nullptr.
    OomAdvisorDialog* advisor() const { return m_advisor; }

    QAction* startAction() const { return m_start; }
    QAction* pauseAction() const { return m_pause; }
    QAction* stopAction() const { return m_stop; }
    QAction* resumeLastAction() const { return m_resumeLast; }
    InterruptedRunBanner* interruptedRunBanner() const { return m_banner; }
    /// View → the page actions, in tab order.
    QList<QAction*> pageActions() const { return m_pageActions; }

public slots:
    /// Starts training with the Settings page's config. Returns false (and says why) when the
    /// config has errors or a run is in progress.
    bool startTraining();
    /// Continues a run folder from its weights/last.pt (the Runs page's "Resume").
    bool resumeRun(const QString& runDir);
    void openDataset();
    void openSettings();
    bool saveSettings();
    void saveSettingsAs();
    /// Help → Getting started: the journey in five steps.
    void showGettingStarted();
    /// Help → Keyboard shortcuts: every shortcut of the window's actions.
    void showShortcuts();
    void exportWeights();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createMenus();
    void restoreState();
    void saveState();
    /// Writes the Settings page's config to QSettings and syncs it to disk.
    void saveSettingsNow();
    void updateActions();
    void showAdvisor(const hr::OomReport& report);
    /// Writes a fix's changes into the Settings page and marks the fields it changed.
    void writeBackFix(const QList<QPair<QString, QString>>& changes);
    void clearAdvisorMarks();
    void addRecentRun(const QString& runDir);
    void updateRecentRuns();
    void chooseLanguage(const QString& language);
    /// Start with no data set: asks before training on the built-in sample; true to go on.
    bool confirmBuiltinSample(const TrainConfig& config);
    /// Starts `config` with what the person agreed to; nproc past this machine's cores is
    /// asked about here, before any worker starts.
    bool startRun(const TrainConfig& config, StartConsent consent);
    /// After a run refused for what the person may still want (StartQuestion): asks, and
    /// starts the same settings again on Yes.
    void askAboutRefusal();

    TrainingSession* m_session;
    DatasetService* m_datasets;
    QTabWidget* m_tabs;
    DataPage* m_data = nullptr;
    SettingsPage* m_settings = nullptr;
    TrainPage* m_train = nullptr;
    RunsPage* m_runs = nullptr;
    ComparePage* m_compare = nullptr;
    OomAdvisorDialog* m_advisor = nullptr;
    EstimatorService* m_estimator = nullptr;
    MemoryPanel* m_memory = nullptr;

    QAction* m_openData = nullptr;
    QAction* m_openSettings = nullptr;
    QAction* m_saveSettings = nullptr;
    QAction* m_saveSettingsAs = nullptr;
    QAction* m_export = nullptr;
    ExportService* m_exporter = nullptr;
    QAction* m_start = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_stop = nullptr;
    QAction* m_resumeLast = nullptr; ///< Train → resume the newest resumable run
    InterruptedRunBanner* m_banner = nullptr;
    QAction* m_quit = nullptr;
    QMenu* m_recentMenu = nullptr;
    QList<QAction*> m_pageActions;  ///< View → one per page, in tab order
    QList<QWidget*> m_advisorMarks; ///< Settings widgets marked as changed by the advisor
    // The last start, for a refusal the person overrides (GUI thread).
    TrainConfig m_startConfig;
    StartConsent m_startConsent;
    std::string m_refusalCode; ///< set when the run ended so, until asked
    std::vector<std::string> m_refusalArgs;
};

} // namespace hr::ui
