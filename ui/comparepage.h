// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"
#include "config/train_config.h"

#include <QStringList>
#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace hr::ui {

class ClassCompareTable;
class ComparisonSession;
class PlotWidget;
class StrategyEditor;

/// The Compare page: runs picked on the Runs page (or added here), or a strategy matrix run
/// from the current settings, laid over each other - memory over time, mAP over epochs and over
/// wall time, training loss over epochs - with the table (training and validation peaks apart,
/// published claims beside the measured training-peak ratios) and a training-peak-vs-mAP chart
/// with the Pareto front. The matrix is the StrategyEditor's list at the left.
class ComparePage : public QWidget {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);

    /// Where the "Run strategy matrix" button gets its base settings (the Settings page).
    void setBaseConfigSource(std::function<TrainConfig()> source) {
        m_baseConfig = std::move(source);
    }

    /// Compares these run folders (no training); replaces what the page shows.
    void compareRuns(const QStringList& runDirs);
    /// Shows a comparison (from compareRuns() or a finished matrix).
    void showComparison(const hr::Comparison& comparison);
    /// What "Run strategy matrix" would do with `base`: strategies × epochs × image size and
    /// an estimated time from the speed a finished run of the same model and image size
    /// measured (or that no such run exists yet).
    QString matrixPlan(const TrainConfig& base) const;
    /// The button: shows matrixPlan() and runs the matrix when the user agrees.
    bool confirmAndRunMatrix();
    /// Runs the editor's strategies on `base` on a worker thread. Returns false (and shows
    /// why) when one is running, the list has problems or a strategy's settings are rejected.
    bool runMatrix(const TrainConfig& base);

    /// While a run trains on the Train page the matrix waits (both would share the device).
    void setTrainingActive(bool active);

    ComparisonSession* session() const { return m_session; }
    StrategyEditor* strategyEditor() const { return m_editor; }
    QLabel* statusLabel() const { return m_status; }
    /// The one legend of the five charts: each compared run's colour and name.
    QLabel* legendLabel() const { return m_legend; }
    QTableWidget* table() const { return m_table; }
    /// The tabs under the table: the charts, and the runs class by class.
    QTabWidget* views() const { return m_views; }
    ClassCompareTable* byClassTable() const { return m_byClass; }
    QPushButton* runButton() const { return m_run; }
    PlotWidget* memoryPlot() const { return m_memory; }
    PlotWidget* mapEpochPlot() const { return m_mapEpochs; }
    PlotWidget* mapTimePlot() const { return m_mapTime; }
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* scatterPlot() const { return m_scatter; }
    const hr::Comparison& comparison() const { return m_comparison; }

signals:
    /// A matrix finished: its runs are new folders under the runs folder.
    void matrixFinished();

private:
    enum class Chart { Memory, MapEpochs, MapTime, Loss, Scatter };
    PlotWidget* makePlot(Chart chart);
    /// The table's rows from m_comparison, each cell's tooltip saying where its number comes
    /// from (comparetable.cpp).
    void fillTable();
    void addRuns();
    void exportReport();
    void updateButtons(bool running);

    ComparisonSession* m_session;
    StrategyEditor* m_editor;
    std::function<TrainConfig()> m_baseConfig;
    hr::Comparison m_comparison;
    QLabel* m_status;
    QLabel* m_legend;
    QPushButton* m_add;
    QPushButton* m_run;
    QPushButton* m_stop;
    QPushButton* m_export;
    QTableWidget* m_table;
    QTabWidget* m_views;
    ClassCompareTable* m_byClass;
    PlotWidget* m_memory;
    PlotWidget* m_mapEpochs;
    PlotWidget* m_mapTime;
    PlotWidget* m_loss;
    PlotWidget* m_scatter;
    bool m_trainingActive = false;
    bool m_showsProblems = false; ///< m_status shows the strategies' problems
    /// What the page offers, shown until something else is going on.
    static QString hint();
    static QString problemsLine(const QString& problems);
};

} // namespace hr::ui
