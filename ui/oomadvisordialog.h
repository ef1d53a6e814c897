// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_advisor.h"
#include "advisor/fix_suggestion.h"
#include "memory/oom_report.h"

#include <QDialog>

#include <vector>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace hr::ui {

class BarChart;
class PlotWidget;

/// The step phase in words ("forward pass", "assembling the batch (data loader)").
QString phaseName(Phase phase);

/// The OOM advisor: what ran out and why in words, the memory breakdown at the failure, the
/// memory curve up to it, and one card per fix (what changes, predicted memory, speed and
/// accuracy effect) with "Apply and continue". It opens with the diagnosis as soon as the OOM
/// is known; the cards fill in as showProgress() brings the advisor's predictions, with a
/// progress bar until the search is done. Emits fixChosen() or stopChosen() once.
class OomAdvisorDialog : public QDialog {
    Q_OBJECT
public:
    /// With `fixes` the search is taken as done; without, the dialog waits for showProgress().
    explicit OomAdvisorDialog(const OomReport& report, std::vector<FixSuggestion> fixes = {},
                              bool searchDone = true, QWidget* parent = nullptr);

    const std::vector<FixSuggestion>& fixes() const { return m_fixes; }
    /// The advisor has judged every candidate (the list is final).
    bool searchDone() const { return m_done; }
    /// The fixes found so far (ranked, best first) and how far the search is.
    void showProgress(const FixSearchProgress& progress);
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
    void rebuildCards();

    OomReport m_report;
    std::vector<FixSuggestion> m_fixes;
    bool m_done = true;
    QCheckBox* m_always;
    QLabel* m_searchText;
    QProgressBar* m_searchBar;
    QScrollArea* m_scroll;
    bool m_decided = false;
};

} // namespace hr::ui
