// SPDX-License-Identifier: GPL-3.0-or-later
#include "plotwidget.h"

#include "plotpalette.h"

#include <QEvent>
#include <QFileDialog>
#include <QFontMetrics>
#include <QMenu>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace hr::ui {

namespace {
/// A series' whole name; the legend may show it shortened (fitLegend()).
const char* const kFullName = "fullName";

QString fullName(const QCPGraph* graph) {
    const QVariant full = graph->property(kFullName);
    return full.isValid() ? full.toString() : graph->name();
}

constexpr int kReplotDelayMs = 40;
} // namespace

PlotWidget::PlotWidget(const QString& title, QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(200, 120);

    m_plot->plotLayout()->insertRow(0);
    auto* titleElement = new QCPTextElement(m_plot, title, QFont(font().family(), -1, QFont::Bold));
    titleElement->setObjectName(QStringLiteral("title"));
    m_plot->plotLayout()->addElement(0, 0, titleElement);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    // The legend gets a row of its own between the title and the plot area, so it never covers
    // a curve; entries run left to right and wrap.
    // It joins the layout with the first series: an empty legend's maximum width (its margins)
    // would narrow the whole column, plot area included.
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->legend->setVisible(false);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
    m_plot->legend->setRowSpacing(0);
    m_plot->legend->setColumnSpacing(8);
    m_plot->plotLayout()->setRowSpacing(0);

    m_empty = new QCPItemText(m_plot);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setPositionAlignment(Qt::AlignCenter);
    m_empty->setTextAlignment(Qt::AlignCenter);
    m_emptyText = tr("No data yet: the curves appear as the run reports them.");
    m_empty->setText(m_emptyText);
    m_empty->setClipToAxisRect(false);
    m_plot->yAxis2->setRange(0, 1);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    m_plot->setNoAntialiasingOnDrag(true);

    m_replotTimer.setSingleShot(true);
    m_replotTimer.setInterval(kReplotDelayMs);
    connect(&m_replotTimer, &QTimer::timeout, this, &PlotWidget::replotNow);

    // Once the user zooms or pans, stop following the data until a double-click resets.
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (event->button() == Qt::LeftButton)
            m_followData = false;
    });
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_followData = false; });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotWidget::showHover);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &PlotWidget::showContextMenu);
    connect(m_plot, &QCustomPlot::afterLayout, this, &PlotWidget::placeLabels);
    applyPalette();
    replotNow();
}

void PlotWidget::setOwnLegend(bool on) {
    m_ownLegend = on;
}

void PlotWidget::showLegend() {
    if (!m_ownLegend || m_plot->legend->layout())
        return;
    m_plot->plotLayout()->insertRow(1);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->legend->setVisible(true);
}

int PlotWidget::addSeries(const QString& name, int colorIndex, bool dashed) {
    showLegend();
    QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    graph->setName(name);
    graph->setProperty(kFullName, name);
    m_series.append(graph);
    m_colorIndex.append(colorIndex);
    m_shading.append(false);
    if (dashed)
        graph->setProperty("dashed", true);
    applyPalette();
    return static_cast<int>(m_series.size()) - 1;
}

int PlotWidget::addShadingSeries(const QString& name, int colorIndex) {
    showLegend();
    QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    graph->setName(name);
    graph->setProperty(kFullName, name);
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setLayer(QStringLiteral("background"));
    m_series.append(graph);
    m_colorIndex.append(colorIndex);
    m_shading.append(true);
    applyPalette();
    return static_cast<int>(m_series.size()) - 1;
}

void PlotWidget::append(int series, double x, double y) {
    // A NaN value is a gap: the line breaks there (the memory curve over the probe band).
    if (series < 0 || series >= m_series.size() || !std::isfinite(x) || std::isinf(y))
        return;
    m_series[series]->addData(x, y);
    scheduleReplot();
}

void PlotWidget::setData(int series, const QVector<double>& x, const QVector<double>& y) {
    if (series < 0 || series >= m_series.size())
        return;
    m_series[series]->setData(x, y, true);
    scheduleReplot();
}

void PlotWidget::clear() {
    for (QCPGraph* graph : std::as_const(m_series))
        graph->data()->clear();
    m_followData = true;
    scheduleReplot();
}

void PlotWidget::setAxisLabels(const QString& x, const QString& y) {
    m_plot->xAxis->setLabel(x);
    m_plot->yAxis->setLabel(y);
}

void PlotWidget::setReferenceLine(double value, const QString& label) {
    m_referenceValue = value;
    if (!m_reference) {
        m_reference = new QCPItemStraightLine(m_plot);
        m_referenceLabel = new QCPItemText(m_plot);
        m_referenceLabel->setPadding(QMargins(4, 1, 4, 1));
        m_referenceLabel->setClipToAxisRect(true);
        applyPalette();
    }
    m_reference->setVisible(value > 0);
    m_referenceLabel->setVisible(value > 0);
    m_reference->point1->setCoords(m_plot->xAxis->range().lower, value);
    m_reference->point2->setCoords(m_plot->xAxis->range().lower + 1, value);
    m_referenceLabel->setText(label);
    scheduleReplot();
}

void PlotWidget::setLogarithmic(bool on) {
    m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on)
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    scheduleReplot();
}

void PlotWidget::setEmptyText(const QString& text) {
    m_emptyText = text;
    m_empty->setText(text);
    scheduleReplot();
}

QString PlotWidget::emptyText() const {
    return m_emptyText;
}

bool PlotWidget::showsEmptyText() const {
    return m_empty->visible();
}

bool PlotWidget::hasData() const {
    for (int i = 0; i < m_series.size(); ++i)
        if (!m_shading[i] && m_series[i]->dataCount() > 0)
            return true;
    return false;
}

void PlotWidget::placeLabels() {
    // The empty text wraps to the plot area's width (small plots on the Compare page).
    const QRect area = m_plot->axisRect()->rect();
    if (m_empty->visible())
        setWrappedText(m_empty, m_emptyText, area.width() - 8);
    // As many value ticks as the plot's height gives room for: a short plot (the learning
    // rate's, any plot in a 720 px window) gets two or three whose labels do not touch.
    if (m_plot->yAxis->scaleType() == QCPAxis::stLinear) {
        const int line = QFontMetrics(m_plot->yAxis->tickLabelFont()).height();
        const int ticks = std::clamp(area.height() / std::max(1, line * 5 / 2), 2, 5);
        if (m_plot->yAxis->ticker()->tickCount() != ticks) {
            m_plot->yAxis->ticker()->setTickCount(ticks);
            scheduleReplot(); // the ticks of this replot are laid out already
        }
    }
    placeMarkedLabels(area);
}

int PlotWidget::seriesCount() const {
    return static_cast<int>(m_series.size());
}

int PlotWidget::pointCount(int series) const {
    if (series < 0 || series >= m_series.size())
        return 0;
    return m_series[series]->dataCount();
}

QString PlotWidget::seriesName(int series) const {
    if (series < 0 || series >= m_series.size())
        return {};
    return fullName(m_series[series]);
}

void PlotWidget::setSeriesName(int series, const QString& name) {
    if (series < 0 || series >= m_series.size() || fullName(m_series[series]) == name)
        return;
    m_series[series]->setName(name);
    m_series[series]->setProperty(kFullName, name);
    scheduleReplot();
}

void PlotWidget::scheduleReplot() {
    if (!m_replotTimer.isActive())
        m_replotTimer.start();
}

void PlotWidget::fitLegend() {
    // As many columns as the widest entry allows at this width: long strategy names wrap to
    // rows of their own; a name wider than the plot is shortened in the middle (the hover over
    // the curves names it in full).
    QCPLegend* legend = m_plot->legend;
    if (!legend->layout())
        return;
    const QMargins margins = legend->margins();
    const int room = width() - margins.left() - margins.right() - 8;
    const QFontMetrics metrics(legend->font());
    for (QCPGraph* graph : std::as_const(m_series)) {
        const QCPAbstractLegendItem* item = legend->itemWithPlottable(graph);
        if (!item)
            continue;
        const QMargins pad = item->margins();
        const int text = room - legend->iconSize().width() - legend->iconTextPadding() -
                         pad.left() - pad.right();
        const QString shown = metrics.elidedText(fullName(graph), Qt::ElideMiddle, text);
        if (shown != graph->name())
            graph->setName(shown);
    }
    int widest = 0, items = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPLayoutElement* item = legend->item(i)) {
            widest = std::max(widest, item->minimumOuterSizeHint().width());
            ++items;
        }
    if (items == 0)
        return;
    const int spacing = legend->columnSpacing();
    const int columns = std::clamp((room + spacing) / std::max(1, widest + spacing), 1, items);
    if (columns != legend->wrap()) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

void PlotWidget::resizeEvent(QResizeEvent* event) {
    fitLegend();
    QWidget::resizeEvent(event);
}

void PlotWidget::replotNow() {
    fitLegend();
    const bool any = hasData();
    // An empty plot says what will appear instead of drawing made-up 0..5 axes.
    m_empty->setVisible(!any);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setTickLabels(any);
        axis->setTicks(any);
    }
    for (int i = 0; i < m_series.size(); ++i) {
        if (m_shading[i])
            continue;
        // One point draws no line: mark it (a one-epoch run, the first validation).
        QCPGraph* graph = m_series[i];
        const bool single = graph->dataCount() == 1;
        if (single && graph->scatterStyle().isNone()) {
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
            graph->setProperty("autoMarker", true);
        } else if (!single && graph->property("autoMarker").toBool()) {
            graph->setScatterStyle(QCPScatterStyle());
            graph->setProperty("autoMarker", false);
        }
    }
    if (m_followData && any) {
        QCPRange keys, values;
        bool foundKeys = false, foundValues = false;
        for (int i = 0; i < m_series.size(); ++i) {
            if (m_shading[i] || m_series[i]->dataCount() == 0)
                continue;
            bool ok = false;
            const QCPRange k = m_series[i]->getKeyRange(ok);
            if (ok) {
                keys = foundKeys
                           ? QCPRange(std::min(keys.lower, k.lower), std::max(keys.upper, k.upper))
                           : k;
                foundKeys = true;
            }
            const QCPRange r = m_series[i]->getValueRange(ok);
            if (ok) {
                values = foundValues ? QCPRange(std::min(values.lower, r.lower),
                                                std::max(values.upper, r.upper))
                                     : r;
                foundValues = true;
            }
        }
        if (foundKeys) {
            // Epochs and seconds: never below zero; a single key gets a span around it.
            QCPRange x = keys;
            if (x.size() < 1e-12)
                x = QCPRange(x.lower - std::max(1.0, std::abs(x.lower) * 0.1),
                             x.upper + std::max(1.0, std::abs(x.upper) * 0.1));
            if (keys.lower >= 0)
                x.lower = std::max(0.0, x.lower);
            m_plot->xAxis->setRange(x);
        }
        if (foundValues) {
            const bool linear = m_plot->yAxis->scaleType() == QCPAxis::stLinear;
            QCPRange y = values;
            if (linear && y.size() < 1e-12) {
                // Flat data (an mAP of 0 in the first epochs): show it from zero.
                const double v = values.lower;
                y = QCPRange(std::min(0.0, v), std::max(0.0, v) + (v == 0 ? 1.0 : std::abs(v)));
            } else if (!linear && y.size() < 1e-12 * std::max(1e-300, std::abs(y.lower))) {
                y = QCPRange(y.lower / 2, y.upper * 2);
            }
            if (m_reference && m_referenceValue > 0 && linear) {
                y.expand(m_referenceValue * 1.15); // room for the line's label above it
                y.expand(0);
            }
            if (linear) {
                const double pad = std::max(y.size() * 0.05, 1e-9);
                const double lower = y.lower - pad;
                // Losses, memory and mAP are never negative: neither is their axis, except for
                // the pad below a curve at zero (an mAP of 0 in the first epochs), which the
                // axis line would otherwise hide. The pad is under a tick step, so no tick
                // label goes below zero.
                y = QCPRange(values.lower > 0 ? std::max(0.0, lower) : lower, y.upper + pad);
            }
            m_plot->yAxis->setRange(y);
        }
        m_plot->yAxis2->setRange(0, 1);
    }
    if (m_reference) {
        const QCPRange x = m_plot->xAxis->range();
        m_reference->point1->setCoords(x.lower, m_referenceValue);
        m_reference->point2->setCoords(x.upper, m_referenceValue);
    }
    ++m_replots;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotWidget::resetView() {
    m_followData = true;
    replotNow();
}

bool PlotWidget::exportTo(const QString& path) {
    // The image stands alone: it carries a legend even where the page shows a shared one.
    const bool borrowLegend = !m_ownLegend && !m_series.isEmpty();
    if (borrowLegend) {
        m_ownLegend = true;
        showLegend();
    }
    replotNow();
    // A plot that was never laid out (hidden page) has no size of its own: use a readable one.
    const int w = m_plot->width() > 100 ? m_plot->width() : 800;
    const int h = m_plot->height() > 100 ? m_plot->height() : 500;
    const bool saved = path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)
                           ? m_plot->savePdf(path, w, h)
                           : m_plot->savePng(path, w, h, 2.0);
    if (borrowLegend) {
        m_plot->plotLayout()->take(m_plot->legend);
        m_plot->plotLayout()->simplify();
        m_plot->legend->setVisible(false);
        m_ownLegend = false;
        replotNow();
    }
    return saved;
}

void PlotWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        applyPalette();
    QWidget::changeEvent(event);
}

void PlotWidget::applyPalette() {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor grid = applyPlotPalette(m_plot, pal);
    m_plot->axisRect()->setBackground(pal.brush(QPalette::Base));
    m_plot->legend->setBrush(QBrush(pal.color(QPalette::Base)));
    m_plot->legend->setBorderPen(QPen(grid));
    m_plot->legend->setTextColor(text);
    m_empty->setColor(pal.color(QPalette::PlaceholderText));
    if (auto* title = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
        title->setTextColor(text);
    for (int i = 0; i < m_series.size(); ++i) {
        const QColor color = seriesColor(m_colorIndex[i], pal);
        if (m_shading[i]) {
            QColor fill = color;
            fill.setAlphaF(isDarkPalette(pal) ? 0.22 : 0.16);
            m_series[i]->setPen(Qt::NoPen);
            m_series[i]->setBrush(fill);
        } else {
            QPen pen(color, 1.6);
            if (m_series[i]->property("dashed").toBool())
                pen.setStyle(Qt::DashLine);
            m_series[i]->setPen(pen);
        }
    }
    if (m_reference) {
        const QColor budget = isDarkPalette(pal) ? QColor(0xff6b6b) : QColor(0xc0392b);
        m_reference->setPen(QPen(budget, 1.5, Qt::DashLine));
        m_referenceLabel->setColor(budget);
    }
    scheduleReplot();
}

void PlotWidget::showHover(QMouseEvent* event) {
    if (!m_plot->axisRect()->rect().contains(event->pos())) {
        QToolTip::hideText();
        return;
    }
    const double x = m_plot->xAxis->pixelToCoord(event->pos().x());
    QString text;
    double shownX = x;
    bool haveX = false;
    for (int i = 0; i < m_series.size(); ++i) {
        QCPGraph* graph = m_series[i];
        if (m_shading[i] || graph->dataCount() == 0 || !graph->visible())
            continue;
        auto it = graph->data()->findBegin(x, true);
        if (it == graph->data()->constEnd())
            continue;
        auto next = it + 1;
        if (next != graph->data()->constEnd() && std::abs(next->key - x) < std::abs(it->key - x))
            it = next;
        if (!haveX) {
            shownX = it->key;
            haveX = true;
        }
        text += QStringLiteral("\n%1: %2").arg(fullName(graph)).arg(it->value, 0, 'g', 4);
    }
    if (!haveX) {
        QToolTip::hideText();
        return;
    }
    const QString xLabel =
        m_plot->xAxis->label().isEmpty() ? QStringLiteral("x") : m_plot->xAxis->label();
    QToolTip::showText(event->globalPosition().toPoint(),
                       QStringLiteral("%1: %2").arg(xLabel).arg(shownX, 0, 'g', 5) + text, m_plot);
}

void PlotWidget::showContextMenu(const QPoint& pos) {
    QMenu menu(this);
    menu.addAction(tr("Export as PNG or PDF…"), this, &PlotWidget::exportInteractive);
    menu.addAction(tr("Reset view (follow the data)"), this, &PlotWidget::resetView);
    menu.exec(m_plot->mapToGlobal(pos));
}

void PlotWidget::exportInteractive() {
    QString selected;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export plot"), QString(),
                                     tr("PNG image (*.png);;PDF document (*.pdf)"), &selected);
    if (path.isEmpty())
        return;
    QString target = path;
    if (!target.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) &&
        !target.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        target += selected.contains(QLatin1String("pdf")) ? QStringLiteral(".pdf")
                                                          : QStringLiteral(".png");
    exportTo(target);
}

} // namespace hr::ui
