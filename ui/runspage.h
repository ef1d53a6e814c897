// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace hr::ui {

class PlotWidget;

/// The Runs page: the runs under a runs folder (runs/<name>/ with results.csv) with their key
/// numbers (epochs, best mAP50 and mAP50-95, the training peak and the validation peak apart as
/// core's PeakSplit measures them for the Compare page; their bytes are the cells' UserRole
/// data); opening one shows its curves.
class RunsPage : public QWidget {
    Q_OBJECT
public:
    explicit RunsPage(QWidget* parent = nullptr);

    void setRunsFolder(const QString& folder);
    QString runsFolder() const { return m_folder; }
    /// Shows the curves of one run folder. Returns false when it has no readable results.csv.
    bool openRun(const QString& runDir);

    QTreeWidget* runList() const { return m_list; }
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* mapPlot() const { return m_map; }
    PlotWidget* memoryPlot() const { return m_memory; }
    /// The folders of the selected runs, in list order.
    QStringList selectedRuns() const;

public slots:
    /// Re-reads the runs folder.
    void refresh();
    /// Asks for the selected runs to be compared (compareRequested) when two or more are selected.
    void compareSelected();

signals:
    void runOpened(const QString& runDir);
    /// "Compare selected": lay these run folders over each other on the Compare page.
    void compareRequested(const QStringList& runDirs);

private:
    QString m_folder;
    QLabel* m_folderLabel;
    QLabel* m_runLabel;
    QTreeWidget* m_list;
    QPushButton* m_compare;
    PlotWidget* m_loss;
    PlotWidget* m_map;
    PlotWidget* m_memory;
};

} // namespace hr::ui
