// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "results/results_files.h"

#include <QList>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QTabWidget;
class QTableWidget;
class QThread;

namespace hr::ui {

class ConfusionMatrixView;
class PlotWidget;

/// What a run's last validation found, from the files it wrote (per_class.csv,
/// confusion_matrix.csv, curves.csv): a sortable per-class table, the confusion matrix (counts
/// or normalised, a click on a cell says what it holds) and the P, R, F1 and PR curves per class
/// and for all classes with the best-F1 confidence marked. The files are read off the GUI
/// thread; only the newest request is shown.
class ResultsView : public QWidget {
    Q_OBJECT
public:
    /// The per-class table's columns.
    enum Column {
        ClassColumn,
        ImagesColumn,
        InstancesColumn,
        PrecisionColumn,
        RecallColumn,
        Map50Column,
        MapColumn
    };
    /// The curve picker's entries.
    enum Curve { PrCurve, F1Curve, PrecisionCurve, RecallCurve };

    explicit ResultsView(QWidget* parent = nullptr);
    ~ResultsView() override;

    /// Reads a run folder's validation files and shows them (loaded() when done).
    void showRun(const QString& runDir);
    QString runDir() const { return m_runDir; }
    bool isLoading() const { return m_loading; }
    /// What the view says above its tabs: the run and its "all" row, or why nothing is shown.
    QString summaryText() const;

    QTabWidget* tabs() const { return m_tabs; }
    QTableWidget* classTable() const { return m_classes; }
    ConfusionMatrixView* confusionView() const { return m_confusion; }
    QCheckBox* normalisedBox() const { return m_normalised; }
    QLabel* cellLabel() const { return m_cell; }
    /// The images behind the clicked cell, most objects first ("image (count)").
    QListWidget* cellImages() const { return m_cellImages; }
    QComboBox* curvePicker() const { return m_curve; }
    QComboBox* classPicker() const { return m_class; }
    PlotWidget* curvePlot() const { return m_plot; }

signals:
    /// The files of `runDir` were read; `ok` is false when the run has none (yet) or they are
    /// damaged (summaryText() says which).
    void loaded(const QString& runDir, bool ok);

private:
    struct Loaded;
    void apply(const std::shared_ptr<const Loaded>& result);
    void fillClasses();
    void showCurve();
    void showCell(int predicted, int actual);

    QString m_runDir;
    int m_generation = 0;
    bool m_loading = false;
    QList<QThread*> m_threads; ///< readers still running; the destructor waits for them
    std::shared_ptr<const hr::ValidationTables> m_tables;

    QLabel* m_summary;
    QTabWidget* m_tabs;
    QTableWidget* m_classes;
    ConfusionMatrixView* m_confusion;
    QCheckBox* m_normalised;
    QLabel* m_cell;
    QListWidget* m_cellImages;
    QComboBox* m_curve;
    QComboBox* m_class;
    PlotWidget* m_plot;
};

} // namespace hr::ui
