// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>

namespace hr::ui {

/// Series colours that stay distinguishable for colour-blind readers (Okabe-Ito) and readable
/// on both light and dark window palettes: on a dark base they are lightened.
QColor seriesColor(int index, const QPalette& palette);

/// True when the palette's base colour is dark.
bool isDarkPalette(const QPalette& palette);

} // namespace hr::ui
