// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "memory/oom_report.h"

#include <QDialog>

#include <vector>

class QCheckBox;

namespace hr::ui {

class BarChart;
class PlotWidget;

/// The OOM advisor: what ran out and why in words, the memory breakdown at the failure, the
/// memory curve up to it, and one card per fix (what changes, predicted memory, speed and
/// accuracy effect) with "Apply and continue". Emits fixChosen() or stopChosen() once.
class OomAdvisorDialog : public QDialog {
    Q_OBJECT
public:
    OomAdvisorDialog(const OomReport& report, std::vector<FixSuggestion> fixes,
                     QWidget* parent = nullptr);

    const std::vector<FixSuggestion>& fixes() const { return m_fixes; }
    /// "Always apply the best fix for this run" is ticked.
    bool alwaysApplyBest() const;
    /// Clicks "Apply and continue" on card `index` (what the button does).
    void applyFix(int index);

    /// The diagnosis in words, translated (also used by the log).
    static QString describe(const OomReport& report);

signals:
    /// `index` into fixes().
    void fixChosen(int index, bool alwaysApplyBest);
    void stopChosen();

public slots:
    /// Closing without a choice stops the run (emits stopChosen() unless a fix was chosen).
    void reject() override;

private:
    QWidget* makeCard(int index);

    OomReport m_report;
    std::vector<FixSuggestion> m_fixes;
    QCheckBox* m_always;
    bool m_decided = false;
};

} // namespace hr::ui
