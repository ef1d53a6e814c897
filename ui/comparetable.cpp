// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare page's table: a row's cells, its status and failure in words, and where each
// number comes from (the cells' tooltips).
#include "comparepage.h"

#include "bytestext.h"
#include "compare/compare_report.h"
#include "failurewording.h"
#include "fixwording.h"
#include "oomadvisordialog.h"
#include "strategyeditor.h"

#include <QTableWidget>

namespace hr::ui {

namespace {

QString ratio(const std::optional<double>& value) {
    return value ? QStringLiteral("×%1").arg(*value, 0, 'f', 2) : QString();
}

/// "measured (claim ×c)" when there is a claim.
QString withClaim(const QString& measured, const std::optional<double>& claim) {
    if (!claim)
        return measured;
    return ComparePage::tr("%1 (claim ×%2)").arg(measured).arg(*claim, 0, 'f', 2);
}

/// Why a row failed or was not run, in the UI's words (core's English when uncoded).
QString rowMessage(const ComparisonRow& r) {
    if (r.messageCode == "comparison_stopped")
        return ComparePage::tr("Not run: the comparison was stopped before this strategy.");
    if (r.messageCode == "strategy_invalid") {
        QStringList lines;
        for (const Diagnostic& d : r.problems)
            lines << StrategyEditor::problemLine(r.strategy, d);
        return ComparePage::tr("Not run: the strategy's settings were rejected:") +
               QLatin1Char('\n') + lines.join(QLatin1Char('\n'));
    }
    if (r.messageCode == "run_unreadable")
        return ComparePage::tr("The run folder cannot be read: %1")
            .arg(r.messageArgs.empty() ? QString() : QString::fromStdString(r.messageArgs[0]));
    const RunSummary& end = r.run.summary;
    if (r.messageCode.empty() && end.failed && r.message == end.reason)
        return FailureWording::reason(end.reasonCode, end.reasonArgs, end.reason);
    return FailureWording::reason(r.messageCode, r.messageArgs, r.message);
}

/// A checkpointing mode ("none", "backbone", "all") in the strategy editor's words.
QString checkpointingWords(const std::string& mode) {
    if (mode == "none")
        return StrategyEditor::tr("off");
    if (mode == "backbone")
        return StrategyEditor::tr("backbone");
    if (mode == "all")
        return StrategyEditor::tr("all blocks");
    return QString::fromStdString(mode);
}

/// A row's status in words: "done", "stopped", "OOM (phase)", "failed", "incomplete",
/// "invalid", "not run" (ComparisonRow::status).
QString statusWords(const ComparisonRow& r) {
    if (r.status == "done")
        return ComparePage::tr("done");
    if (r.status == "stopped")
        return ComparePage::tr("stopped");
    if (r.status == "OOM") {
        Phase phase = Phase::Idle;
        if (!r.oomPhase.empty() && parsePhase(r.oomPhase, phase))
            return ComparePage::tr("OOM (%1)").arg(phaseName(phase));
        return ComparePage::tr("OOM");
    }
    if (r.status == "failed")
        return ComparePage::tr("failed");
    if (r.status == "incomplete")
        return ComparePage::tr("incomplete");
    if (r.status == "invalid")
        return ComparePage::tr("invalid");
    if (r.status == "not run")
        return ComparePage::tr("not run");
    return QString::fromStdString(r.status);
}

/// A row's tooltip: what its strategy changes and why it failed, in the UI's words (core's
/// English when a file's own description or an uncoded failure has no wording), and its folder.
QString rowTooltip(const ComparisonRow& r) {
    QStringList lines;
    if (!r.description.empty()) {
        Strategy s;
        s.name = r.strategy;
        s.description = r.description;
        lines << strategyDescription(s);
    }
    if (!r.runDir.empty())
        lines << QString::fromStdString(r.runDir);
    if (!r.message.empty())
        lines << rowMessage(r);
    return lines.join(QLatin1Char('\n'));
}

/// "Source: measured here (run r). …", the kind of source in the fix cards' words.
QString measuredIn(const ComparisonRow& row, const QString& what) {
    return ComparePage::tr("Source: %1 (run %2). %3")
        .arg(FixWording::basis(FigureBasis{FigureSource::MeasuredHere, {}}),
             QString::fromStdString(row.runDir), what);
}

/// " Claim: published figure (citation)." for a cell that shows a claim beside the measurement.
QString claimSource(const ComparisonRow& row) {
    if (!row.claim)
        return {};
    return QLatin1Char('\n') +
           ComparePage::tr("The claim beside it: %1, for the published strategy, not this run.")
               .arg(FixWording::cited(FigureSource::Published, row.claim->source));
}

/// The tooltip of a table cell: where its number comes from (empty for cells without one);
/// `showsClaim`: the cell shows a published claim beside the measurement.
QString cellSource(int column, const ComparisonRow& row, bool showsClaim) {
    const QString claim = showsClaim ? claimSource(row) : QString();
    switch (column) {
    case 2:
    case 3:
    case 4:
        return ComparePage::tr("Source: the run's settings (config.yaml), not a measurement.");
    case 5:
        return measuredIn(row, ComparePage::tr("The allocator's peak over the training steps "
                                               "(batch_end events and memory samples)."));
    case 6:
        return measuredIn(row, ComparePage::tr("This run's training peak over the first row's.")) +
               claim;
    case 7:
        return measuredIn(row, ComparePage::tr("The allocator's peak while validating, apart "
                                               "from training."));
    case 8:
        return measuredIn(row, ComparePage::tr("The mean wall time of its epochs (results.csv) "
                                               "on the machine that trained it."));
    case 9:
        return measuredIn(row, ComparePage::tr("The mean images per second of its epochs "
                                               "(results.csv)."));
    case 10:
        return measuredIn(row, ComparePage::tr("On the validation images after the last epoch.")) +
               claim;
    case 11:
        return measuredIn(row, ComparePage::tr("On the validation images after the last epoch."));
    case 12:
        return measuredIn(row, ComparePage::tr("No other row has both a lower training peak and "
                                               "a higher mAP50-95."));
    default:
        return {};
    }
}

} // namespace

void ComparePage::fillTable() {
    const auto& rows = m_comparison.rows;
    m_table->setRowCount(static_cast<int>(rows.size()));
    for (size_t i = 0; i < rows.size(); ++i) {
        const ComparisonRow& r = rows[i];
        const QString status = statusWords(r);
        QString batch = r.batch > 0 ? QString::number(r.batch) : QString();
        if (r.accumulate > 1)
            batch += QStringLiteral("×%1").arg(r.accumulate);
        const std::optional<double> memoryClaim =
            claimedRatio(m_comparison, i, &PublishedClaim::memoryGb);
        const bool mapClaim = r.hasMetrics && r.claim && r.claim->map50 > 0;
        const auto cells = {
            QString::fromStdString(r.strategy),
            status,
            batch,
            r.batch > 0 ? (r.amp ? tr("yes") : tr("no")) : QString(),
            checkpointingWords(r.checkpointing),
            r.trainPeakBytes > 0 ? bytesText(r.trainPeakBytes) : QString(),
            withClaim(ratio(measuredMemoryRatio(m_comparison, i)), memoryClaim),
            r.valPeakBytes > 0 ? bytesText(r.valPeakBytes) : QString(),
            r.hasMetrics ? QString::number(r.meanEpochSeconds, 'f', 1) : QString(),
            r.hasMetrics ? QString::number(r.imagesPerSecond, 'f', 1) : QString(),
            r.hasMetrics
                ? (r.claim && r.claim->map50 > 0
                       ? tr("%1 (claim %2)").arg(r.map50, 0, 'f', 3).arg(r.claim->map50, 0, 'f', 3)
                       : QString::number(r.map50, 'f', 3))
                : QString(),
            r.hasMetrics ? QString::number(r.map, 'f', 3) : QString(),
            r.pareto ? QStringLiteral("★") : QString()};
        int column = 0;
        for (const QString& text : cells) {
            auto* item = new QTableWidgetItem(text);
            if (!text.isEmpty())
                item->setToolTip(cellSource(
                    column, r, column == 6 ? memoryClaim.has_value() : column == 10 && mapClaim));
            if (column == 0) {
                item->setToolTip(rowTooltip(r));
                item->setData(Qt::UserRole, QString::fromStdString(r.runDir));
            }
            m_table->setItem(static_cast<int>(i), column++, item);
        }
    }
}

} // namespace hr::ui
