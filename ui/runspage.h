// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <optional>

class QLabel;
class QMenu;
class QPushButton;
class QTabWidget;
class QTreeWidget;
class QTreeWidgetItem;

namespace hr {
struct RunRecord;
}

namespace hr::ui {

class PlotWidget;
class ResultsView;

/// The Runs page: the runs under a runs folder (runs/<name>/ with results.csv) with their state
/// (finished / stopped / failed / stopped by OOM, or running for the studio's own run, whose
/// row follows its progress; a failure's reason is the cell's tooltip),
/// model, image size, epochs done of planned, duration, the training peak against the budget
/// and the validation peak apart as core's RunPeaks measures them (the Train page and the
/// Compare page use the same; their bytes are the cells' UserRole data), and the best mAP.
/// Opening one shows its curves and, under a second tab, what its last validation found
/// (ResultsView). A context menu opens the folder, resumes the run, compares
/// the selected runs or deletes the run after asking.
class RunsPage : public QWidget {
    Q_OBJECT
public:
    /// The list's columns.
    enum Column {
        RunColumn,
        StateColumn,
        ModelColumn,
        ImageSizeColumn,
        EpochsColumn,
        DurationColumn,
        TrainPeakColumn,
        ValPeakColumn,
        Map50Column,
        MapColumn,
        ModifiedColumn,
        FolderColumn
    };

    explicit RunsPage(QWidget* parent = nullptr);

    void setRunsFolder(const QString& folder);
    QString runsFolder() const { return m_folder; }
    /// Shows the curves of one run folder. Returns false when it has no readable results.csv.
    bool openRun(const QString& runDir);

    QTreeWidget* runList() const { return m_list; }
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* mapPlot() const { return m_map; }
    PlotWidget* memoryPlot() const { return m_memory; }
    /// The tabs under the list: the opened run's training curves, and its Results view.
    QTabWidget* views() const { return m_views; }
    ResultsView* resultsView() const { return m_results; }
    /// The folders of the selected runs, in list order.
    QStringList selectedRuns() const;
    /// The row of a run folder, nullptr when it is not listed.
    QTreeWidgetItem* itemOf(const QString& runDir) const;
    /// The run being trained now: it cannot be deleted or resumed ("" = none).
    void setActiveRun(const QString& runDir);
    /// The context menu of a row (built anew for each right-click; the caller owns it).
    QMenu* contextMenuFor(QTreeWidgetItem* item);
    /// Deletes a run folder after asking; returns true when it was deleted.
    bool deleteRun(const QString& runDir);

    /// A listed run that can be continued from its weights/last.pt.
    struct Resumable {
        QString dir;
        QString name;
        QString state; ///< RunSummary's state: "unfinished", "stopped", ...
        int epochsDone = 0;
        int epochsPlanned = 0; ///< 0 when unknown
    };
    /// The newest listed run, by its newest file, when it has no end event and a checkpoint
    /// (the studio or the machine ended mid-run). Read from the list: no folder is re-read.
    std::optional<Resumable> newestInterrupted() const;
    /// The newest listed run that did not finish all its epochs and has a checkpoint, other
    /// than the active run.
    std::optional<Resumable> newestResumable() const;

public slots:
    /// Re-reads the runs folder.
    void refresh();
    /// Re-reads the active run's folder only: its state, epochs, duration and peak so far.
    void refreshActiveRun();
    /// Asks for the selected runs to be compared (compareRequested) when two or more are selected.
    void compareSelected();

signals:
    void runOpened(const QString& runDir);
    /// "Compare selected": lay these run folders over each other on the Compare page.
    void compareRequested(const QStringList& runDirs);
    /// "Resume": continue this run from its weights/last.pt.
    void resumeRequested(const QString& runDir);
    /// The list was read again (refresh()).
    void listRefreshed();

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// Fills a row's cells from a run folder's record.
    void fillRow(QTreeWidgetItem* item, const RunRecord& record);
    std::optional<Resumable> resumableOf(const QTreeWidgetItem* item) const;

    QString m_folder;
    QString m_activeRun;
    QLabel* m_folderLabel;
    QLabel* m_runLabel;
    QTreeWidget* m_list;
    QPushButton* m_compare;
    PlotWidget* m_loss;
    PlotWidget* m_map;
    PlotWidget* m_memory;
    QTabWidget* m_views;
    ResultsView* m_results;
};

/// A run state as events.jsonl names it ("finished", "stopped", "failed", "stopped_by_oom",
/// "unfinished"), or "running" for the run this studio trains now, in the user's words.
QString runStateWords(const QString& state);

} // namespace hr::ui
