// SPDX-License-Identifier: GPL-3.0-or-later
#include "plotwidget.h"

#include "plotpalette.h"

#include <QEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace hr::ui {

namespace {
constexpr int kReplotDelayMs = 40;
}

PlotWidget::PlotWidget(const QString& title, QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(220, 160);

    m_plot->plotLayout()->insertRow(0);
    auto* titleElement = new QCPTextElement(m_plot, title, QFont(font().family(), -1, QFont::Bold));
    titleElement->setObjectName(QStringLiteral("title"));
    m_plot->plotLayout()->addElement(0, 0, titleElement);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
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
    applyPalette();
}

int PlotWidget::addSeries(const QString& name, int colorIndex, bool dashed) {
    QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    graph->setName(name);
    m_series.append(graph);
    m_colorIndex.append(colorIndex);
    m_shading.append(false);
    if (dashed)
        graph->setProperty("dashed", true);
    applyPalette();
    return static_cast<int>(m_series.size()) - 1;
}

int PlotWidget::addShadingSeries(const QString& name, int colorIndex) {
    QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setLayer(QStringLiteral("background"));
    m_series.append(graph);
    m_colorIndex.append(colorIndex);
    m_shading.append(true);
    applyPalette();
    return static_cast<int>(m_series.size()) - 1;
}

void PlotWidget::append(int series, double x, double y) {
    if (series < 0 || series >= m_series.size() || !std::isfinite(x) || !std::isfinite(y))
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
        m_referenceLabel->position->setParentAnchor(m_reference->point1);
        m_referenceLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
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
    return m_series[series]->name();
}

void PlotWidget::setSeriesName(int series, const QString& name) {
    if (series < 0 || series >= m_series.size() || m_series[series]->name() == name)
        return;
    m_series[series]->setName(name);
    scheduleReplot();
}

void PlotWidget::scheduleReplot() {
    if (!m_replotTimer.isActive())
        m_replotTimer.start();
}

void PlotWidget::replotNow() {
    if (m_followData) {
        bool any = false;
        for (int i = 0; i < m_series.size(); ++i) {
            if (m_shading[i] || m_series[i]->dataCount() == 0)
                continue;
            m_series[i]->rescaleAxes(any);
            any = true;
        }
        if (any) {
            QCPRange y = m_plot->yAxis->range();
            // Flat data (an mAP of 0 in the first epochs): QCustomPlot centres a made-up span on
            // it; show it from zero instead.
            QCPRange values;
            bool found = false;
            for (int i = 0; i < m_series.size(); ++i) {
                if (m_shading[i] || m_series[i]->dataCount() == 0)
                    continue;
                bool ok = false;
                const QCPRange r = m_series[i]->getValueRange(ok);
                if (ok) {
                    values = found ? QCPRange(std::min(values.lower, r.lower),
                                              std::max(values.upper, r.upper))
                                   : r;
                    found = true;
                }
            }
            if (found && values.size() < 1e-12 && m_plot->yAxis->scaleType() == QCPAxis::stLinear) {
                const double v = values.lower;
                y = QCPRange(std::min(0.0, v), std::max(0.0, v) + (v == 0 ? 1.0 : std::abs(v)));
            }
            if (m_reference && m_referenceValue > 0 &&
                m_plot->yAxis->scaleType() == QCPAxis::stLinear) {
                y.expand(m_referenceValue * 1.15); // room for the line's label above it
                y.expand(0);
            }
            if (m_plot->yAxis->scaleType() == QCPAxis::stLinear) {
                const double pad = std::max(y.size() * 0.05, 1e-9);
                y = QCPRange(y.lower - (y.lower > 0 ? 0 : pad), y.upper + pad);
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
    replotNow();
    // A plot that was never laid out (hidden page) has no size of its own: use a readable one.
    const int w = m_plot->width() > 100 ? m_plot->width() : 800;
    const int h = m_plot->height() > 100 ? m_plot->height() : 500;
    if (path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return m_plot->savePdf(path, w, h);
    return m_plot->savePng(path, w, h, 2.0);
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
        text += QStringLiteral("\n%1: %2").arg(graph->name()).arg(it->value, 0, 'g', 4);
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
