// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimatorservice.h"

#include <QString>
#include <QVector>
#include <QWidget>

class QCPBars;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace hr::ui {

class SettingsForm;

/// The memory panel beside the settings: the predicted training and validation peaks of the
/// form's settings as stacked bars (weights, gradients, optimizer state, EMA, activations, batch
/// data, other) against the budget line, with the numbers in a table. It asks EstimatorService
/// again whenever a setting changes while it is visible (debounced, in the background), shows
/// "calibrating…" while the estimator works and failures in words. "Auto-fit" fits the settings
/// to the budget (or to the device when there is none), writes the chosen batch, AMP,
/// checkpointing and image size into the form and says what it chose and why.
class MemoryPanel : public QWidget {
    Q_OBJECT
public:
    /// Neither `service` nor `form` is owned; both must outlive the panel.
    MemoryPanel(EstimatorService* service, SettingsForm* form, QWidget* parent = nullptr);

    /// While a run trains the estimator waits (it would share the device) and Auto-fit is off.
    void setRunActive(bool active);
    /// Asks for an estimate of the form's settings (debounced).
    void refresh();
    /// Runs auto-fit for the form's settings in the background (the Auto-fit button); the
    /// result comes with fitFinished(). False, with the reason shown, when the settings have
    /// errors, a fit is already running or a run trains.
    bool autoFit();
    bool isFitting() const { return m_fitting; }

    bool hasEstimate() const { return m_hasEstimate; }
    /// The last estimate shown (valid when hasEstimate()).
    const EstimateOutcome& outcome() const { return m_outcome; }
    QPushButton* autoFitButton() const { return m_autoFit; }
    EstimatorService* service() const { return m_service; }
    /// The status line: "calibrating…", the peaks against the budget, or what went wrong.
    QString statusText() const;
    /// What the last auto-fit chose and why (plain text).
    QString fitText() const;
    /// The budget label on the bars ("" when hidden), where it is drawn and the plot's own
    /// rectangle (to prove the label is not cut off).
    QString budgetLabelText() const;
    QRect budgetLabelRect() const;
    QRect plotRect() const;
    /// How the estimate was made, as the panel words it.
    QString noteText() const;

signals:
    /// Auto-fit finished; when result.fits its settings are now in the form. `summary` says
    /// what was chosen, why nothing fits, or (the estimator failed: outcome Failed) why, in
    /// the UI's language.
    void fitFinished(const hr::FitResult& result, const QString& summary);

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void configChanged();
    void showBusy(bool busy);
    void showOutcome(const EstimateOutcome& outcome);
    void showError(const QString& message);
    void applyFit(const FitResult& result);
    void updateChart();
    void placeBudgetLabel();
    /// Tooltips naming each figure's source (measured here, byte count, your setting, or the
    /// assumption behind it).
    void showSources(std::int64_t budget);
    void applyPalette();
    void setStatus(const QString& text, bool problem);

    EstimatorService* m_service;
    SettingsForm* m_form;
    QLabel* m_status;
    QCustomPlot* m_plot;
    QVector<QCPBars*> m_parts;
    QCPItemStraightLine* m_budgetLine;
    QCPItemStraightLine* m_targetLine;
    QCPItemText* m_budgetLabel;
    QCPItemText* m_empty = nullptr;
    QVector<QLabel*> m_swatches;
    QVector<QLabel*> m_names;  ///< the parts, then training peak, validation peak, budget
    QVector<QLabel*> m_values; ///< in m_names' order
    QLabel* m_trainValue;
    QLabel* m_valValue;
    QLabel* m_budgetValue;
    QPushButton* m_autoFit;
    QLabel* m_fitResult;
    QLabel* m_note;

    EstimateOutcome m_outcome;
    static QString runWaitText();
    bool m_hasEstimate = false;
    bool m_stale = true;
    bool m_fitting = false;
    bool m_runActive = false;
};

} // namespace hr::ui
