// SPDX-License-Identifier: GPL-3.0-or-later
#include "classcomparetable.h"

#include "numberitem.h"
#include "plotpalette.h"

#include <QHeaderView>

namespace hr::ui {

namespace {

/// A cell of AP50-95 (or, signed, its change); "–" where the run has none.
NumberItem* apItem(const std::optional<double>& value, bool signedText = false) {
    if (!value)
        return new NumberItem(std::nullopt, QStringLiteral("–"));
    return new NumberItem(value, signedText ? QStringLiteral("%1%2")
                                                  .arg(*value > 0 ? QStringLiteral("+") : QString())
                                                  .arg(*value, 0, 'f', 3)
                                            : QString::number(*value, 'f', 3));
}

} // namespace

ClassCompareTable::ClassCompareTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("byClass"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void ClassCompareTable::setComparison(const hr::ClassComparison& table) {
    setSortingEnabled(false);
    clear();
    const int runs = static_cast<int>(table.runs.size());
    setColumnCount(runs == 0 ? 1 : apColumn(runs - 1) + (runs > 1 ? 2 : 1));
    QStringList headers{tr("Class")};
    for (int r = 0; r < runs; ++r) {
        const QString name = QString::fromStdString(table.runs[static_cast<std::size_t>(r)]);
        headers << tr("%1 AP50-95").arg(name);
        if (r > 0)
            headers << tr("%1 change").arg(name);
    }
    setHorizontalHeaderLabels(headers);
    for (int r = 1; r < runs; ++r)
        horizontalHeaderItem(apColumn(r) + 1)
            ->setToolTip(tr("AP50-95 of %1 minus that of %2, the first run")
                             .arg(QString::fromStdString(table.runs[static_cast<std::size_t>(r)]),
                                  QString::fromStdString(table.runs.front())));
    setRowCount(static_cast<int>(table.classes.size()));
    const QColor loss = seriesColor(1, palette()), gain = seriesColor(2, palette());
    for (int row = 0; row < rowCount(); ++row) {
        const hr::ClassAcrossRuns& c = table.classes[static_cast<std::size_t>(row)];
        const QString name = c.name == "all" ? tr("all classes") : QString::fromStdString(c.name);
        setItem(row, 0, new QTableWidgetItem(name));
        for (int r = 0; r < runs; ++r) {
            const auto run = static_cast<std::size_t>(r);
            auto* ap = apItem(c.ap[run]);
            if (c.instances[run])
                ap->setToolTip(tr("%1 objects; AP50 %2")
                                   .arg(*c.instances[run])
                                   .arg(c.ap50[run].value_or(0), 0, 'f', 3));
            setItem(row, apColumn(r), ap);
            if (r == 0)
                continue;
            const std::optional<double> change = c.apChange(run);
            auto* cell = apItem(change, true);
            if (change && *change != 0)
                cell->setForeground(*change < 0 ? loss : gain);
            setItem(row, apColumn(r) + 1, cell);
        }
    }
    setSortingEnabled(true);
}

} // namespace hr::ui
