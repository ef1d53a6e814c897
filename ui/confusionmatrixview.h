// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "results/results_files.h"

#include <QWidget>

namespace hr::ui {

/// A validation's confusion matrix as Ultralytics draws it: a row per predicted class and a
/// column per true class, each ending with "background" (objects nothing predicted, predictions
/// that matched nothing). Counts, or each column divided by its total (the share of a true
/// class that went to each prediction). Names and figures are drawn while they fit; hovering a
/// cell always says what it holds, and a click reports it (cellClicked).
class ConfusionMatrixView : public QWidget {
    Q_OBJECT
public:
    explicit ConfusionMatrixView(QWidget* parent = nullptr);

    void setTable(const hr::ConfusionTable& table);
    const hr::ConfusionTable& table() const { return m_table; }
    void setNormalised(bool on);
    bool normalised() const { return m_normalised; }

    /// The value a cell shows: its count, or its share of the column when normalised.
    double cellValue(int predicted, int actual) const;
    /// The cell under a point of the widget; false outside the matrix.
    bool cellAt(const QPoint& point, int* predicted, int* actual) const;
    /// The centre of a cell, in widget coordinates (for tests that click it).
    QPoint cellCentre(int predicted, int actual) const;
    /// What a cell holds, in words ("12 objects of car were predicted as truck").
    QString cellText(int predicted, int actual) const;

    QSize sizeHint() const override { return {520, 440}; }
    QSize minimumSizeHint() const override { return {200, 160}; }

signals:
    void cellClicked(int predicted, int actual);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    /// Where the matrix goes: its square, one cell's side, and whether the names fit beside
    /// it (they do while a cell is at least a line of text tall).
    struct Layout {
        QRectF matrix;
        double side = 0;
        bool names = false;
        double nameRoom = 0; ///< the longest name's width, up to a limit
    };
    Layout layout() const;
    int size() const { return static_cast<int>(m_table.names.size()); }
    int columnTotal(int actual) const;

    hr::ConfusionTable m_table;
    bool m_normalised = true;
};

} // namespace hr::ui
