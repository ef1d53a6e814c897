// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPBars;
class QCPBarsGroup;
class QCPItemText;

namespace hr::ui {

/// A categorical bar chart (class counts, box-size histograms) on QCustomPlot, one or more bar
/// series side by side, with hover values and PNG/PDF export from the context menu. Colours
/// follow the palette.
class BarChart : public QWidget {
    Q_OBJECT
public:
    explicit BarChart(const QString& title, QWidget* parent = nullptr);

    /// Adds a bar series; returns its index.
    int addSeries(const QString& name, int colorIndex);
    /// Sets the category labels of the x axis and clears every series.
    void setCategories(const QStringList& categories);
    void setValues(int series, const QVector<double>& values);
    /// Empties every series (the chart then shows its empty text); the categories stay.
    void clearValues();
    void setAxisLabels(const QString& x, const QString& y);
    int categoryCount() const { return static_cast<int>(m_categories.size()); }
    /// What the empty chart says will appear (shown instead of axes while it has no bars).
    void setEmptyText(const QString& text);
    bool showsEmptyText() const;
    double value(int series, int category) const;
    bool exportTo(const QString& path);

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyPalette();
    void rescale();

    QCustomPlot* m_plot;
    QCPBarsGroup* m_group;
    QCPItemText* m_empty = nullptr;
    QString m_emptyText; ///< unwrapped
    QVector<QCPBars*> m_bars;
    QVector<int> m_colorIndex;
    QStringList m_categories;
};

} // namespace hr::ui
