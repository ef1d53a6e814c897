// SPDX-License-Identifier: GPL-3.0-or-later
#include "barchart.h"

#include "plotpalette.h"

#include <QEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace hr::ui {

BarChart::BarChart(const QString& title, QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_group(new QCPBarsGroup(m_plot)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(200, 150);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, title, QFont(font().family(), -1, QFont::Bold)));
    m_plot->legend->setVisible(false);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    m_plot->xAxis->setTickLabelRotation(35);
    // Rotated labels run right of their tick: room for the last one, which auto margins miss.
    m_plot->axisRect()->setMinimumMargins(QMargins(0, 0, 48, 0));
    m_empty = new QCPItemText(m_plot);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setPositionAlignment(Qt::AlignCenter);
    m_empty->setTextAlignment(Qt::AlignCenter);
    m_empty->setClipToAxisRect(false);
    m_emptyText = tr("No data yet.");
    m_empty->setText(m_emptyText);
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        if (m_empty->visible())
            setWrappedText(m_empty, m_emptyText, m_plot->axisRect()->rect().width() - 8);
    });
    connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        menu.addAction(tr("Export as PNG or PDF…"), this, [this] {
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export chart"), QString(), tr("PNG image (*.png);;PDF document (*.pdf)"));
            if (!path.isEmpty())
                exportTo(path);
        });
        menu.addAction(tr("Reset view (follow the data)"), this, [this] { rescale(); });
        menu.exec(m_plot->mapToGlobal(pos));
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        if (m_categories.isEmpty() || !m_plot->axisRect()->rect().contains(event->pos())) {
            QToolTip::hideText();
            return;
        }
        const int index = qRound(m_plot->xAxis->pixelToCoord(event->pos().x())) - 1;
        if (index < 0 || index >= m_categories.size()) {
            QToolTip::hideText();
            return;
        }
        QString text = m_categories[index];
        for (QCPBars* bars : std::as_const(m_bars))
            text += QStringLiteral("\n%1: %2")
                        .arg(bars->name())
                        .arg(value(m_bars.indexOf(bars), index));
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    });
    applyPalette();
}

int BarChart::addSeries(const QString& name, int colorIndex) {
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(name);
    bars->setWidth(0.8);
    m_bars.append(bars);
    m_colorIndex.append(colorIndex);
    if (m_bars.size() > 1) {
        for (QCPBars* b : std::as_const(m_bars)) {
            b->setWidth(0.8 / m_bars.size());
            b->setBarsGroup(m_group);
        }
        if (m_plot->legend->layout() != m_plot->plotLayout()) {
            // Above the plot area, in one row, never over the bars.
            m_plot->axisRect()->insetLayout()->take(m_plot->legend);
            m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
            m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
            m_plot->plotLayout()->insertRow(1);
            m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
            m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
        }
        m_plot->legend->setVisible(true);
    }
    applyPalette();
    return static_cast<int>(m_bars.size()) - 1;
}

void BarChart::setCategories(const QStringList& categories) {
    m_categories = categories;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < categories.size(); ++i)
        ticker->addTick(i + 1, categories[i]);
    m_plot->xAxis->setTicker(ticker);
    // Many categories (histogram bins) stand steeper so that neighbouring labels do not overlap.
    m_plot->xAxis->setTickLabelRotation(categories.size() > 8 ? 60 : 35);
    clearValues();
}

void BarChart::setValues(int series, const QVector<double>& values) {
    if (series < 0 || series >= m_bars.size())
        return;
    QVector<double> keys;
    for (int i = 0; i < values.size(); ++i)
        keys << i + 1;
    m_bars[series]->setData(keys, values, true);
    rescale();
}

void BarChart::clearValues() {
    for (QCPBars* bars : std::as_const(m_bars))
        bars->data()->clear();
    rescale();
}

double BarChart::value(int series, int category) const {
    if (series < 0 || series >= m_bars.size())
        return 0;
    auto it = m_bars[series]->data()->findBegin(category + 1, false);
    if (it == m_bars[series]->data()->constEnd() || qRound(it->key) != category + 1)
        return 0;
    return it->value;
}

void BarChart::setAxisLabels(const QString& x, const QString& y) {
    m_plot->xAxis->setLabel(x);
    m_plot->yAxis->setLabel(y);
}

bool BarChart::exportTo(const QString& path) {
    // A plot that was never laid out (hidden page) has no size of its own: use a readable one.
    const int w = m_plot->width() > 100 ? m_plot->width() : 800;
    const int h = m_plot->height() > 100 ? m_plot->height() : 500;
    if (path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return m_plot->savePdf(path, w, h);
    return m_plot->savePng(path, w, h, 2.0);
}

void BarChart::setEmptyText(const QString& text) {
    m_emptyText = text;
    m_empty->setText(text);
    rescale();
}

bool BarChart::showsEmptyText() const {
    return m_empty->visible();
}

void BarChart::rescale() {
    bool any = false;
    for (QCPBars* bars : std::as_const(m_bars))
        any = any || !bars->data()->isEmpty();
    // Empty: words instead of made-up 0..5 axes.
    m_empty->setVisible(!any);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setTickLabels(any);
        axis->setTicks(any);
    }
    m_plot->legend->setVisible(any && m_bars.size() > 1);
    m_plot->xAxis->setRange(0.4, std::max<qsizetype>(1, m_categories.size()) + 0.6);
    double top = 1;
    for (QCPBars* bars : std::as_const(m_bars))
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            top = std::max(top, it->value);
    m_plot->yAxis->setRange(0, top * 1.1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void BarChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

void BarChart::applyPalette() {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor grid = applyPlotPalette(m_plot, pal);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->legend->setBrush(QBrush(pal.color(QPalette::Base)));
    m_plot->legend->setTextColor(text);
    m_empty->setColor(pal.color(QPalette::PlaceholderText));
    m_plot->legend->setBorderPen(QPen(grid));
    if (auto* title = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
        title->setTextColor(text);
    for (int i = 0; i < m_bars.size(); ++i) {
        QColor color = seriesColor(m_colorIndex[i], pal);
        m_bars[i]->setPen(QPen(color.darker(120)));
        color.setAlphaF(0.75);
        m_bars[i]->setBrush(color);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace hr::ui
