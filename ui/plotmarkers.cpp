// SPDX-License-Identifier: GPL-3.0-or-later
// PlotWidget's marker lines (the moments of OOMs) and the layout of the labels drawn on the
// plot, so that none crosses a marker line or another label.
#include "plotwidget.h"

#include <QFontMetrics>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace hr::ui {

namespace {
/// The rectangle a text item of QCustomPlot takes: its text's bounding box plus its padding.
QSizeF textItemSize(const QCPItemText* item) {
    const QRect text =
        QFontMetrics(item->font())
            .boundingRect(QRect(), Qt::TextDontClip | item->textAlignment(), item->text());
    const QMargins pad = item->padding();
    return QSizeF(text.width() + pad.left() + pad.right(),
                  text.height() + pad.top() + pad.bottom());
}

/// True when `rect` is clear of every rectangle in `taken`.
bool isFree(const QRectF& rect, const QVector<QRectF>& taken) {
    for (const QRectF& other : taken)
        if (rect.intersects(other))
            return false;
    return true;
}

/// Puts `item` with its top-left corner at `rect`'s, in pixels.
void placeAt(QCPItemText* item, const QRectF& rect) {
    item->position->setParentAnchor(nullptr);
    item->position->setType(QCPItemPosition::ptAbsolute);
    item->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    item->position->setCoords(rect.topLeft());
}
} // namespace

void PlotWidget::placeMarkedLabels(const QRect& area) {
    // What a label must not cross: every marker line (a few pixels wide) and the labels placed
    // before it. The reference line's label goes first, at the left where it can.
    constexpr double kGap = 3;
    QVector<QRectF> taken;
    QVector<double> lines;
    for (const Marker& m : std::as_const(m_markers)) {
        const double x = m_plot->xAxis->coordToPixel(m.x);
        lines << x;
        taken << QRectF(x - 1.5, area.top(), 3, area.height());
    }
    std::sort(lines.begin(), lines.end());
    // Candidates from the left edge, then just right of each line; the first clear one wins
    // (the left edge when none is: better than off the plot).
    const auto leftmostFree = [&](const QSizeF& size, double top) {
        QVector<double> xs{area.left() + kGap};
        for (double x : std::as_const(lines))
            xs << x + kGap;
        for (double x : std::as_const(xs)) {
            const QRectF rect(QPointF(x, top), size);
            if (rect.right() <= area.right() && isFree(rect, taken))
                return rect;
        }
        return QRectF(QPointF(area.left() + kGap, top), size);
    };
    m_referenceRect = QRectF();
    if (m_referenceLabel && m_referenceLabel->visible()) {
        // Above the line, unless that would run out of the top of the plot area: then below it.
        const double y = m_plot->yAxis->coordToPixel(m_referenceValue);
        const QSizeF size = textItemSize(m_referenceLabel);
        const double top = y - area.top() < size.height() ? y + 1 : y - 1 - size.height();
        m_referenceRect = leftmostFree(size, top);
        placeAt(m_referenceLabel, m_referenceRect);
        taken << m_referenceRect;
    }
    // Marker labels at the foot of their line: right of it, else left of it, else beside the
    // nearest line of a cluster of close markers; a label that would touch another moves up a
    // row. One that fits nowhere is hidden rather than drawn across a line.
    // (Within this loop, rect stays null for markers not laid out yet.)
    for (Marker& m : m_markers)
        m.rect = QRectF();
    for (int i = 0; i < m_markers.size(); ++i) {
        Marker& m = m_markers[i];
        const double x = m_plot->xAxis->coordToPixel(m.x);
        const QSizeF size = textItemSize(m.label);
        // Close markers of the same kind (OOMs a few seconds apart) share the first one's label.
        bool shared = false;
        for (int j = 0; j < i && !shared; ++j)
            shared =
                !m_markers[j].rect.isNull() && m_markers[j].label->text() == m.label->text() &&
                std::abs(m_plot->xAxis->coordToPixel(m_markers[j].x) - x) < size.width() + 2 * kGap;
        if (shared) {
            m.rect = QRectF();
            m.label->setVisible(false);
            continue;
        }
        QVector<double> lefts{x + kGap, x - kGap - size.width()};
        QVector<double> byDistance = lines;
        std::sort(byDistance.begin(), byDistance.end(),
                  [x](double a, double b) { return std::abs(a - x) < std::abs(b - x); });
        for (double other : std::as_const(byDistance))
            lefts << (other >= x ? other + kGap : other - kGap - size.width());
        QRectF chosen;
        for (double top = area.bottom() - kGap - size.height();
             top >= area.top() && chosen.isNull(); top -= size.height() + 1)
            for (double left : std::as_const(lefts)) {
                const QRectF rect(QPointF(left, top), size);
                if (rect.left() >= area.left() && rect.right() <= area.right() &&
                    isFree(rect, taken)) {
                    chosen = rect;
                    break;
                }
            }
        m.rect = chosen;
        m.label->setVisible(!chosen.isNull());
        if (chosen.isNull())
            continue;
        placeAt(m.label, chosen);
        taken << chosen;
    }
}

void PlotWidget::addMarker(double x, const QString& label, const QColor& color) {
    Marker m;
    m.x = x;
    m.line = new QCPItemStraightLine(m_plot);
    m.line->point1->setCoords(x, 0);
    m.line->point2->setCoords(x, 1);
    m.line->setPen(QPen(color, 1.5, Qt::DashLine));
    m.label = new QCPItemText(m_plot);
    m.label->setPadding(QMargins(3, 1, 3, 1));
    m.label->setText(label);
    m.label->setColor(color);
    m.label->setClipToAxisRect(true);
    m_markers << m;
    scheduleReplot();
}

void PlotWidget::clearMarkers() {
    for (const Marker& m : std::as_const(m_markers)) {
        m_plot->removeItem(m.line);
        m_plot->removeItem(m.label);
    }
    m_markers.clear();
    scheduleReplot();
}

QVector<double> PlotWidget::markerKeys() const {
    QVector<double> keys;
    for (const Marker& m : m_markers)
        keys << m.x;
    return keys;
}

QVector<QRectF> PlotWidget::markerLabelRects() const {
    QVector<QRectF> rects;
    for (const Marker& m : m_markers)
        rects << m.rect;
    return rects;
}

QVector<double> PlotWidget::markerPixels() const {
    QVector<double> xs;
    for (const Marker& m : m_markers)
        xs << m_plot->xAxis->coordToPixel(m.x);
    return xs;
}

} // namespace hr::ui
