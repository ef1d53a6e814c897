// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorypanel.h"

#include "bytestext.h"
#include "config/train_rules.h"
#include "fitwording.h"
#include "fixwording.h"
#include "memorywording.h"
#include "plotpalette.h"
#include "settingsform.h"

#include <QEvent>
#include <QFontMetrics>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextDocument>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace hr::ui {

namespace {

constexpr double kTrainKey = 2;
constexpr double kValKey = 1;
constexpr int kParts = 7;

/// The training bar's parts, in MemoryWording::partName() order.
std::array<std::int64_t, kParts> trainParts(const MemoryBreakdown& b) {
    return {b.weights, b.gradients, b.optimizerState, b.ema, b.activations, b.batchData, b.other};
}

/// The validation bar: the same resident parts, and the rest of its peak as working memory
/// (activations of the forward pass, the batch, NMS).
std::array<std::int64_t, kParts> valParts(const MemoryEstimate& e) {
    const MemoryBreakdown& b = e.breakdown;
    const std::int64_t working = std::max<std::int64_t>(0, e.valPeak - b.resident());
    return {b.weights, b.gradients, b.optimizerState, b.ema, working, 0, 0};
}

} // namespace

MemoryPanel::MemoryPanel(EstimatorService* service, SettingsForm* form, QWidget* parent)
    : QWidget(parent), m_service(service), m_form(form), m_plot(new QCustomPlot(this)) {
    setObjectName(QStringLiteral("memoryPanel"));
    auto* layout = new QVBoxLayout(this);
    auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Predicted memory")), this);
    layout->addWidget(title);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    // Two horizontal stacked bars: training on top, validation below.
    m_plot->setMinimumHeight(150);
    m_plot->setMaximumHeight(190);
    m_plot->legend->setVisible(false);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTick(kTrainKey, tr("Training"));
    ticker->addTick(kValKey, tr("Validation"));
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(0.4, 2.95); // a free band above the bars for the budget label
    m_plot->yAxis->setSubTicks(false);
    m_plot->yAxis->grid()->setVisible(false);
    for (int i = 0; i < kParts; ++i) {
        auto* bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
        bars->setName(MemoryWording::partName(i));
        bars->setWidth(0.6);
        if (!m_parts.isEmpty())
            bars->moveAbove(m_parts.last());
        m_parts.append(bars);
    }
    m_budgetLine = new QCPItemStraightLine(m_plot);
    m_targetLine = new QCPItemStraightLine(m_plot);
    m_budgetLabel = new QCPItemText(m_plot);
    m_budgetLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    m_budgetLabel->position->setTypeX(QCPItemPosition::ptPlotCoords);
    m_budgetLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_budgetLabel->setPadding(QMargins(2, 1, 4, 1));
    m_budgetLabel->setClipToAxisRect(false);
    connect(m_plot, &QCustomPlot::afterLayout, this, &MemoryPanel::placeBudgetLabel);
    m_empty = new QCPItemText(m_plot);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setPositionAlignment(Qt::AlignCenter);
    m_empty->setText(tr("The predicted peaks appear here."));
    layout->addWidget(m_plot);

    // The numbers: a colour swatch, the part and its predicted size.
    auto* table = new QGridLayout;
    table->setHorizontalSpacing(8);
    table->setVerticalSpacing(2);
    for (int i = 0; i < kParts; ++i) {
        auto* swatch = new QLabel(this);
        swatch->setFixedSize(12, 12);
        auto* value = new QLabel(QStringLiteral("–"), this);
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* name = new QLabel(MemoryWording::partName(i), this);
        table->addWidget(swatch, i, 0);
        table->addWidget(name, i, 1);
        table->addWidget(value, i, 2);
        m_swatches.append(swatch);
        m_names.append(name);
        m_values.append(value);
    }
    int row = kParts;
    auto addTotal = [this, table, &row](const QString& name) {
        auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(name), this);
        auto* value = new QLabel(QStringLiteral("–"), this);
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table->addWidget(label, row, 1);
        table->addWidget(value, row, 2);
        m_names.append(label);
        m_values.append(value);
        ++row;
        return value;
    };
    m_trainValue = addTotal(tr("Training peak"));
    m_valValue = addTotal(tr("Validation peak"));
    m_budgetValue = addTotal(tr("Budget"));
    table->setColumnStretch(1, 1);
    layout->addLayout(table);

    m_autoFit = new QPushButton(tr("Auto-fit"), this);
    m_autoFit->setObjectName(QStringLiteral("autoFit"));
    m_autoFit->setToolTip(tr("Pick the largest batch whose predicted peaks stay under 90% of the "
                             "budget (or of the device's memory when no budget is set), keeping "
                             "the nominal batch through accumulation; then AMP, checkpointing "
                             "and a smaller image size if even batch 1 does not fit."));
    layout->addWidget(m_autoFit, 0, Qt::AlignLeft);
    m_fitResult = new QLabel(this);
    m_fitResult->setWordWrap(true);
    m_fitResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fitResult->setVisible(false);
    layout->addWidget(m_fitResult);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    layout->addStretch(1);

    connect(m_form, &SettingsForm::configChanged, this, &MemoryPanel::configChanged);
    connect(m_form, &SettingsForm::validityChanged, this, &MemoryPanel::configChanged);
    connect(m_service, &EstimatorService::busyChanged, this, &MemoryPanel::showBusy);
    connect(m_service, &EstimatorService::estimateReady, this, &MemoryPanel::showOutcome);
    connect(m_service, &EstimatorService::estimateFailed, this, &MemoryPanel::showError);
    connect(m_service, &EstimatorService::fitReady, this, &MemoryPanel::applyFit);
    connect(m_service, &EstimatorService::fitFailed, this, [this](const QString& message) {
        m_fitting = false;
        m_autoFit->setEnabled(!m_runActive);
        m_fitResult->setText(tr("Auto-fit failed: %1").arg(message.toHtmlEscaped()));
        m_fitResult->setVisible(true);
        emit fitFinished(FitResult{}, tr("Auto-fit failed: %1").arg(message));
    });
    connect(m_autoFit, &QPushButton::clicked, this, &MemoryPanel::autoFit);

    setStatus(tr("The prediction appears here when the settings are shown."), false);
    applyPalette();
    updateChart();
}

bool MemoryPanel::autoFit() {
    if (m_fitting || m_runActive)
        return false;
    if (!m_form->isValid()) {
        m_fitResult->setText(tr("Fix these settings first: %1.")
                                 .arg(m_form->invalidFields().join(QStringLiteral(", "))));
        m_fitResult->setVisible(true);
        return false;
    }
    const TrainConfig config = m_form->config();
    const Diagnostics problems = hr::validate(config);
    if (hasErrors(problems)) {
        m_fitResult->setText(
            tr("Fix the settings first: %1")
                .arg(QString::fromStdString(formatDiagnostics(problems)).toHtmlEscaped()));
        m_fitResult->setVisible(true);
        return false;
    }
    m_fitting = true;
    m_autoFit->setEnabled(false);
    m_fitResult->setText(tr("Auto-fit: predicting the peaks of each candidate…"));
    m_fitResult->setVisible(true);
    m_service->requestFit(config);
    return true;
}

QString MemoryPanel::runWaitText() {
    return tr("Predictions wait while a run trains: the estimator's probe steps would share the "
              "device with it.");
}

void MemoryPanel::setRunActive(bool active) {
    m_runActive = active;
    m_service->setHeld(active);
    m_autoFit->setEnabled(!active && !m_fitting);
    if (active)
        setStatus(runWaitText(), false);
    else
        configChanged(); // now if visible, else when shown
}

void MemoryPanel::refresh() {
    m_stale = false;
    if (!m_form->isValid()) {
        setStatus(tr("No prediction until these settings are fixed: %1.")
                      .arg(m_form->invalidFields().join(QStringLiteral(", "))),
                  true);
        return;
    }
    const TrainConfig config = m_form->config();
    if (hasErrors(hr::validate(config))) {
        setStatus(tr("No prediction until the settings are valid; the Settings page says "
                     "which and why."),
                  true);
        return;
    }
    m_service->requestEstimate(config);
    if (!m_hasEstimate)
        updateChart(); // the typed budget, while the first estimate is made
    if (m_runActive) {
        // What is shown was predicted for other settings (the advisor's fix changed them): it
        // would contradict the form until the held prediction runs after the run.
        m_hasEstimate = false;
        m_note->clear();
        updateChart();
        setStatus(runWaitText(), false);
        return;
    }
    // Replace any earlier problem at once: the estimator may still be busy with older settings.
    if (m_service->isBusy())
        showBusy(true);
    else
        setStatus(tr("Waiting for the settings to settle…"), false);
}

void MemoryPanel::configChanged() {
    if (isVisible())
        refresh();
    else
        m_stale = true;
}

void MemoryPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale || !m_hasEstimate)
        refresh();
}

void MemoryPanel::showBusy(bool busy) {
    if (busy && !m_fitting)
        setStatus(tr("Calibrating… (short probe steps of the real training step; a new model or "
                     "image size takes a few seconds)"),
                  false);
}

void MemoryPanel::showOutcome(const EstimateOutcome& outcome) {
    m_outcome = outcome;
    m_hasEstimate = true;
    const MemoryEstimate& e = outcome.estimate;
    const std::int64_t peak = std::max(e.trainPeak, e.valPeak);
    const QString train = bytesText(e.trainPeak);
    const QString val = bytesText(e.valPeak);
    const QString device = QString::fromStdString(e.device);
    QString text;
    bool problem = false;
    if (outcome.budget > 0) {
        const int percent = int(std::lround(100.0 * double(peak) / double(outcome.budget)));
        const QString budget = bytesText(outcome.budget);
        if (peak > outcome.budget) {
            text = tr("Training peak %1, validation peak %2: %3% of the %4 budget. This run "
                      "would go out of memory; Auto-fit finds settings that fit.")
                       .arg(train, val)
                       .arg(percent)
                       .arg(budget);
            problem = true;
        } else if (double(peak) > kFitSafety * double(outcome.budget)) {
            text = tr("Training peak %1, validation peak %2: %3% of the %4 budget, above the 10% "
                      "margin Auto-fit leaves for fragmentation and growth.")
                       .arg(train, val)
                       .arg(percent)
                       .arg(budget);
        } else {
            text = tr("Training peak %1, validation peak %2: %3% of the %4 budget.")
                       .arg(train, val)
                       .arg(percent)
                       .arg(budget);
        }
    } else if (outcome.capacity > 0) {
        text = tr("Training peak %1, validation peak %2 on %3, which has %4. No budget is set.")
                   .arg(train, val, device, bytesText(outcome.capacity));
    } else {
        text = tr("Training peak %1, validation peak %2 on %3. No budget is set.")
                   .arg(train, val, device);
    }
    if (outcome.autoBatch > 0)
        text = tr("Batch -1: auto-fit picks batch %1.").arg(outcome.autoBatch) + QLatin1Char(' ') +
               text;
    setStatus(text, problem);
    m_note->setText(tr("Batch %1, validation batch %2; each more image adds %3 to a training "
                       "step. How: %4")
                        .arg(e.batch)
                        .arg(e.valBatch)
                        .arg(bytesText(e.perImageTrain))
                        .arg(MemoryWording::howText(e)));
    updateChart();
}

void MemoryPanel::showError(const QString& message) {
    m_hasEstimate = false;
    setStatus(tr("No prediction: %1").arg(message), true);
    m_note->clear();
    updateChart();
}

void MemoryPanel::applyFit(const FitResult& result) {
    m_fitting = false;
    m_autoFit->setEnabled(!m_runActive);
    QStringList reasons;
    for (const FitDecision& decision : result.decisions)
        reasons << QStringLiteral("<li>%1</li>")
                       .arg(FitWording::decision(decision, result).toHtmlEscaped());
    const QString summary = FitWording::summary(result);
    auto html = [&](const QString& title) {
        return QStringLiteral("<b>%1</b> %2").arg(title, summary.toHtmlEscaped()) +
               QStringLiteral("<ul style='margin-left:-20px'>") + reasons.join(QString()) +
               QStringLiteral("</ul>");
    };
    if (result.fits) {
        // Only what auto-fit decides: edits made while it ran stay.
        TrainConfig config = m_form->config();
        config.batch = result.config.batch;
        config.amp = result.config.amp;
        config.checkpointing = result.config.checkpointing;
        config.imgsz = result.config.imgsz;
        m_form->setConfig(config);
        m_fitResult->setText(html(tr("Auto-fit applied:")));
        emit m_form->configChanged();
    } else {
        m_fitResult->setText(html(tr("Nothing fits:")));
    }
    m_fitResult->setVisible(true);
    emit fitFinished(result, summary);
}

QString MemoryPanel::statusText() const {
    return m_status->text();
}

QString MemoryPanel::noteText() const {
    return m_note->text();
}

QString MemoryPanel::fitText() const {
    QTextDocument doc;
    doc.setHtml(m_fitResult->text());
    return doc.toPlainText();
}

void MemoryPanel::setStatus(const QString& text, bool problem) {
    m_status->setText(text);
    QPalette pal = palette();
    if (problem)
        pal.setColor(QPalette::WindowText,
                     isDarkPalette(pal) ? QColor(0xff8a80) : QColor(0xc0392b));
    m_status->setPalette(pal);
}

void MemoryPanel::updateChart() {
    std::array<std::int64_t, kParts> train{};
    std::array<std::int64_t, kParts> val{};
    if (m_hasEstimate) {
        train = trainParts(m_outcome.estimate.breakdown);
        val = valParts(m_outcome.estimate);
    }
    // Without an estimate (calibrating, waiting for a run) the budget is still the one typed.
    const std::int64_t budget =
        m_hasEstimate ? m_outcome.budget : (m_form->isValid() ? m_form->config().memory_budget : 0);
    const std::int64_t top = std::max({m_hasEstimate ? m_outcome.estimate.trainPeak : 0,
                                       m_hasEstimate ? m_outcome.estimate.valPeak : 0, budget});
    // MiB for most runs; GiB for big GPUs, where MiB tick labels get long.
    const bool gib = top >= 8LL * 1024 * 1024 * 1024;
    const double unit = gib ? 1024.0 * 1024.0 * 1024.0 : 1024.0 * 1024.0;
    m_plot->xAxis->setLabel(gib ? tr("GiB") : tr("MiB"));
    for (int i = 0; i < kParts; ++i) {
        m_parts[i]->setData({kValKey, kTrainKey},
                            {double(val[size_t(i)]) / unit, double(train[size_t(i)]) / unit});
        m_values[i]->setText(m_hasEstimate ? bytesText(train[size_t(i)]) : QStringLiteral("–"));
    }
    m_trainValue->setText(m_hasEstimate ? bytesText(m_outcome.estimate.trainPeak)
                                        : QStringLiteral("–"));
    m_valValue->setText(m_hasEstimate ? bytesText(m_outcome.estimate.valPeak)
                                      : QStringLiteral("–"));
    m_budgetValue->setText(budget > 0 ? bytesText(budget) : tr("none"));
    showSources(budget);

    const bool showBudget = budget > 0;
    m_budgetLine->setVisible(showBudget);
    m_targetLine->setVisible(showBudget);
    m_budgetLabel->setVisible(showBudget);
    if (showBudget) {
        const double x = double(budget) / unit;
        m_budgetLine->point1->setCoords(x, 0);
        m_budgetLine->point2->setCoords(x, 1);
        const double target = kFitSafety * x;
        m_targetLine->point1->setCoords(target, 0);
        m_targetLine->point2->setCoords(target, 1);
        m_budgetLabel->setText(tr("budget %1").arg(bytesText(budget)));
    }
    m_plot->xAxis->setRange(0, top > 0 ? double(top) / unit * 1.08 : 1.0);
    // No estimate yet: words instead of a made-up 0..1 axis.
    m_plot->xAxis->setTickLabels(m_hasEstimate);
    m_plot->xAxis->setTicks(m_hasEstimate);
    if (!m_hasEstimate)
        m_plot->xAxis->setLabel(QString());
    m_empty->setVisible(!m_hasEstimate);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryPanel::showSources(std::int64_t budget) {
    const MemoryEstimate& e = m_outcome.estimate;
    // Rows: the parts, then training peak, validation peak, budget (the constructor's order).
    QStringList tips;
    for (int i = 0; i < kParts; ++i)
        tips << (m_hasEstimate ? MemoryWording::partSource(i, e) : QString());
    tips << (m_hasEstimate ? MemoryWording::peakSource(e, false) : QString())
         << (m_hasEstimate ? MemoryWording::peakSource(e, true) : QString());
    const QString budgetTip =
        budget > 0 ? tr("Source: your setting (memory_budget). The dashed line at 90% of it is "
                        "the margin Auto-fit leaves for fragmentation and growth: %1.")
                         .arg(FixWording::basis(FigureBasis{FigureSource::Assumption, {}}))
                   : tr("Source: your setting (memory_budget): none is set.");
    tips << budgetTip;
    for (int i = 0; i < int(m_values.size()); ++i) {
        m_values[i]->setToolTip(tips.value(i));
        m_names[i]->setToolTip(tips.value(i));
    }
    QStringList summary;
    if (m_hasEstimate)
        summary << tr("Training peak: %1").arg(tips.value(kParts))
                << tr("Validation peak: %1").arg(tips.value(kParts + 1));
    if (budget > 0)
        summary << tr("Budget: %1").arg(budgetTip);
    const QString all = summary.join(QLatin1Char('\n'));
    m_plot->setToolTip(all);
    m_status->setToolTip(m_hasEstimate ? all : QString());
    m_note->setToolTip(m_hasEstimate ? tr("Each more image: %1").arg(tips.value(kParts))
                                     : QString());
    m_fitResult->setToolTip(MemoryWording::sourced(
        FigureSource::MeasuredHere,
        tr("Auto-fit compares the peaks the estimator's probe steps measured for each "
           "candidate with 90% of the budget; that margin is an assumption.")));
}

void MemoryPanel::placeBudgetLabel() {
    if (!m_budgetLabel->visible())
        return;
    // Left of the dashed 90% line when the text fits there, else right of the budget line,
    // else at the plot area's left edge: never cut off.
    const QRect area = m_plot->axisRect()->rect();
    const double target = m_targetLine->point1->coords().x();
    const double budget = m_budgetLine->point1->coords().x();
    const int width = QFontMetrics(m_budgetLabel->font()).horizontalAdvance(m_budgetLabel->text()) +
                      m_budgetLabel->padding().left() + m_budgetLabel->padding().right() + 2;
    const double targetX = m_plot->xAxis->coordToPixel(target);
    const double budgetX = m_plot->xAxis->coordToPixel(budget);
    m_budgetLabel->position->setTypeX(QCPItemPosition::ptAbsolute);
    if (targetX - width >= area.left()) {
        m_budgetLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
        m_budgetLabel->position->setCoords(targetX, 0.0);
    } else if (budgetX + width <= area.right()) {
        m_budgetLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        m_budgetLabel->position->setCoords(budgetX, 0.0);
    } else {
        m_budgetLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        m_budgetLabel->position->setCoords(area.left(), 0.0);
    }
}

QString MemoryPanel::budgetLabelText() const {
    return m_budgetLabel->visible() ? m_budgetLabel->text() : QString();
}

QRect MemoryPanel::budgetLabelRect() const {
    const QPointF topLeft = m_budgetLabel->topLeft->pixelPosition();
    const QPointF bottomRight = m_budgetLabel->bottomRight->pixelPosition();
    return QRectF(topLeft, bottomRight).toRect();
}

QRect MemoryPanel::plotRect() const {
    return m_plot->rect();
}

void MemoryPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

void MemoryPanel::applyPalette() {
    const QPalette pal = palette();
    applyPlotPalette(m_plot, pal);
    for (int i = 0; i < kParts; ++i) {
        QColor color = seriesColor(i, pal);
        m_parts[i]->setPen(QPen(color.darker(120)));
        m_parts[i]->setBrush(color);
        QPixmap swatch(12, 12);
        swatch.fill(color);
        m_swatches[i]->setPixmap(swatch);
    }
    const QColor budget = isDarkPalette(pal) ? QColor(0xff8a80) : QColor(0xc0392b);
    m_budgetLine->setPen(QPen(budget, 2));
    m_targetLine->setPen(QPen(budget, 1, Qt::DashLine));
    m_budgetLabel->setColor(budget);
    m_empty->setColor(pal.color(QPalette::PlaceholderText));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace hr::ui
