// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace hr::ui {

/// Series colours that stay distinguishable for colour-blind readers (Okabe-Ito) and readable
/// on both light and dark window palettes: on a dark base they are lightened.
QColor seriesColor(int index, const QPalette& palette);

/// True when the palette's base colour is dark.
bool isDarkPalette(const QPalette& palette);

/// Paints a plot's background, both axes and their grids in the palette's colours; returns the
/// grid colour (the text colour, faint) for legends and other lines.
QColor applyPlotPalette(QCustomPlot* plot, const QPalette& palette);

} // namespace hr::ui
