// SPDX-License-Identifier: GPL-3.0-or-later
#include "plotpalette.h"

#include <QFontMetrics>
#include <QStringList>

#include <qcustomplot.h>

#include <array>

namespace hr::ui {

bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Base).lightnessF() < 0.45;
}

QColor seriesColor(int index, const QPalette& palette) {
    // Okabe-Ito, without black (it vanishes on dark backgrounds) and yellow (on light ones).
    static const std::array<QRgb, 7> colors = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7,
                                               0xE69F00, 0x56B4E9, 0x999999};
    QColor color(colors[static_cast<size_t>(index) % colors.size()]);
    if (isDarkPalette(palette))
        color = color.lighter(135);
    return color;
}

QColor applyPlotPalette(QCustomPlot* plot, const QPalette& palette) {
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlphaF(0.15);
    plot->setBackground(palette.brush(QPalette::Base));
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    return grid;
}

void setWrappedText(QCPItemText* item, const QString& text, int width) {
    if (width <= 40)
        return;
    const QFontMetrics metrics(item->font());
    QStringList lines;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!lines.isEmpty() &&
            metrics.horizontalAdvance(lines.last() + QLatin1Char(' ') + word) <= width)
            lines.last() += QLatin1Char(' ') + word;
        else
            lines << word;
    }
    QStringList fitted;
    for (QString line : lines) {
        while (metrics.horizontalAdvance(line) > width && line.size() > 1) {
            int cut = line.size() - 1;
            while (cut > 1 && metrics.horizontalAdvance(line.left(cut)) > width)
                --cut;
            fitted << line.left(cut);
            line = line.mid(cut);
        }
        fitted << line;
    }
    const QString wrapped = fitted.join(QLatin1Char('\n'));
    if (item->text() != wrapped)
        item->setText(wrapped);
}

} // namespace hr::ui
