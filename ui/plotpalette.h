// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>

class QCPItemText;
class QCustomPlot;
class QString;

namespace hr::ui {

/// Series colours that stay distinguishable for colour-blind readers (Okabe-Ito) and readable
/// on both light and dark window palettes: on a dark base they are lightened.
QColor seriesColor(int index, const QPalette& palette);

/// True when the palette's base colour is dark.
bool isDarkPalette(const QPalette& palette);

/// Paints a plot's background, both axes and their grids in the palette's colours; returns the
/// grid colour (the text colour, faint) for legends and other lines.
QColor applyPlotPalette(QCustomPlot* plot, const QPalette& palette);

/// Sets `item`'s text to `text` wrapped to `width` pixels (at spaces, or anywhere for text
/// without spaces such as Chinese): a plot's "what will appear here" note in a narrow chart.
void setWrappedText(QCPItemText* item, const QString& text, int width);

} // namespace hr::ui
