// SPDX-License-Identifier: GPL-3.0-or-later
#include "plotpalette.h"

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

} // namespace hr::ui
