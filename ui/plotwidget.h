// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QTimer>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace hr::ui {

/// A live line plot on QCustomPlot: series are appended from queued signals and the widget
/// replots on a ~40 ms single-shot timer, so bursts of points cost one redraw. Drag to pan,
/// wheel to zoom, hover for values, right-click to export PNG/PDF or reset the view.
/// Colours come from the current palette so the plot reads in light and dark themes. The
/// legend sits above the plot area, never over the data; a series of one point is drawn as a
/// marker; key axes of non-negative data never show negative values; an empty plot says what
/// will appear instead of showing made-up axes.
class PlotWidget : public QWidget {
    Q_OBJECT
public:
    explicit PlotWidget(const QString& title, QWidget* parent = nullptr);

    /// Adds a line series; returns its index. `dashed` draws it dashed (e.g. validation).
    int addSeries(const QString& name, int colorIndex, bool dashed = false);
    /// Adds a series drawn as filled steps on a hidden 0..1 axis behind the lines (phase shading).
    int addShadingSeries(const QString& name, int colorIndex);
    /// Appends a point; a NaN `y` breaks the line there (a gap), other non-finite values are
    /// dropped.
    void append(int series, double x, double y);
    /// Replaces a series' points at once (used when loading a finished run).
    void setData(int series, const QVector<double>& x, const QVector<double>& y);
    void clear();

    void setAxisLabels(const QString& x, const QString& y);
    /// Draws a horizontal reference line (the memory budget); value <= 0 hides it.
    void setReferenceLine(double value, const QString& label);
    /// Adds a vertical marker line at key `x` with `label` at its foot (the moment of an OOM).
    /// Labels are laid out so that none crosses a marker line or another label.
    void addMarker(double x, const QString& label, const QColor& color);
    void clearMarkers();
    /// The markers' keys (x), in the order they were added.
    QVector<double> markerKeys() const;
    /// Where the last redraw put the reference line's label (empty when hidden), each marker's
    /// label (empty when hidden: it shares an earlier close marker's label of the same text, or
    /// fits nowhere) and each marker's line (x in pixels): for tests of the layout.
    QRectF referenceLabelRect() const { return m_referenceRect; }
    QVector<QRectF> markerLabelRects() const;
    QVector<double> markerPixels() const;
    /// A logarithmic value axis (learning rate).
    void setLogarithmic(bool on);
    /// What the empty plot says will appear (shown instead of axes while no series has data).
    void setEmptyText(const QString& text);
    /// Off: the plot draws no legend of its own (a page that shows one legend for several
    /// plots); an exported image still carries one, since it stands alone.
    void setOwnLegend(bool on);
    QString emptyText() const;
    /// True while the plot shows its empty text.
    bool showsEmptyText() const;

    int seriesCount() const;
    int pointCount(int series) const;
    /// The legend's name of a series; setSeriesName() renames it (e.g. "rank 0 allocated").
    QString seriesName(int series) const;
    void setSeriesName(int series, const QString& name);
    /// How many redraws have happened; lets tests prove that bursts are coalesced.
    int replotCount() const { return m_replots; }
    /// True while appended points wait for the coalesced redraw.
    bool replotPending() const { return m_replotTimer.isActive(); }

    /// Exports to a file; the format follows the suffix (.png or .pdf). Returns false on failure.
    bool exportTo(const QString& path);
    /// Back to following the data after the user zoomed or panned.
    void resetView();

    QCustomPlot* plot() const { return m_plot; }

public slots:
    /// Schedules one redraw within ~40 ms.
    void scheduleReplot();

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyPalette();
    void replotNow();
    void placeLabels();
    void placeMarkedLabels(const QRect& area);
    void showLegend();
    void fitLegend();
    bool hasData() const;
    void showHover(QMouseEvent* event);
    void showContextMenu(const QPoint& pos);
    void exportInteractive();

    QCustomPlot* m_plot;
    QTimer m_replotTimer;
    QVector<QCPGraph*> m_series;
    QVector<int> m_colorIndex;
    QVector<bool> m_shading;
    QCPItemStraightLine* m_reference = nullptr;
    QCPItemText* m_referenceLabel = nullptr;
    QCPItemText* m_empty = nullptr;
    struct Marker {
        double x = 0;
        QCPItemStraightLine* line = nullptr;
        QCPItemText* label = nullptr;
        QRectF rect; ///< where placeLabels() put the label
    };
    QVector<Marker> m_markers;
    QRectF m_referenceRect;
    QString m_emptyText; ///< unwrapped; placeLabels() wraps it to the plot area
    double m_referenceValue = 0;
    bool m_followData = true;
    bool m_ownLegend = true;
    int m_replots = 0;
};

} // namespace hr::ui
