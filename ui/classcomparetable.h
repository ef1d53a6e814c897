// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/class_comparison.h"

#include <QTableWidget>

namespace hr::ui {

/// The Compare page's runs class by class: a row per class ("all" first), a column of
/// AP50-95 per run and, for every run after the first, its change from the first, red where
/// the run lost accuracy and green where it gained. Sortable by any column.
class ClassCompareTable : public QTableWidget {
    Q_OBJECT
public:
    explicit ClassCompareTable(QWidget* parent = nullptr);

    void setComparison(const hr::ClassComparison& table);
    /// The column of run `run`'s AP50-95; its change (for run > 0) is the next column.
    static int apColumn(int run) { return run == 0 ? 1 : 2 * run; }
};

} // namespace hr::ui
