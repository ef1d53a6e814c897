// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTableWidgetItem>

#include <optional>

namespace hr::ui {

/// A table cell that sorts by its number, not by its text, right-aligned; a cell without a
/// number ("–") sorts before every number.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const std::optional<double>& value, const QString& text) : QTableWidgetItem(text) {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (value)
            setData(Qt::UserRole, *value);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (!a.isValid() || !b.isValid())
            return !a.isValid() && b.isValid();
        return a.toDouble() < b.toDouble();
    }
};

} // namespace hr::ui
