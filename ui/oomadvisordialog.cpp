// SPDX-License-Identifier: GPL-3.0-or-later
#include "oomadvisordialog.h"

#include "barchart.h"
#include "bytestext.h"
#include "fixwording.h"
#include "plotwidget.h"

#include "advisor/oom_diagnosis.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace hr::ui {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

} // namespace

QString phaseName(Phase phase) {
    switch (phase) {
    case Phase::Data:
        return OomAdvisorDialog::tr("moving the batch to the device");
    case Phase::Forward:
        return OomAdvisorDialog::tr("forward pass");
    case Phase::Loss:
        return OomAdvisorDialog::tr("loss and target assignment");
    case Phase::Backward:
        return OomAdvisorDialog::tr("backward pass");
    case Phase::Optimizer:
        return OomAdvisorDialog::tr("optimizer step");
    case Phase::Ema:
        return OomAdvisorDialog::tr("EMA update");
    case Phase::Validation:
        return OomAdvisorDialog::tr("validation");
    case Phase::Loader:
        return OomAdvisorDialog::tr("assembling the batch (data loader)");
    case Phase::Checkpoint:
        return OomAdvisorDialog::tr("writing the checkpoint");
    case Phase::Probe:
        return OomAdvisorDialog::tr("a probe step");
    case Phase::Idle:
        break;
    }
    return OomAdvisorDialog::tr("step");
}

namespace {

QString accuracyWords(int cost) {
    switch (cost) {
    case 0:
        return OomAdvisorDialog::tr("no accuracy cost expected");
    case 1:
        return OomAdvisorDialog::tr("small accuracy cost");
    case 2:
        return OomAdvisorDialog::tr("moderate accuracy cost");
    default:
        return OomAdvisorDialog::tr("large accuracy cost");
    }
}

} // namespace

QString OomAdvisorDialog::describe(const OomReport& r) {
    if (hr::hostFailureInCpuStep(r))
        return tr("Host memory (RAM) ran out during the %1 of epoch %2, batch %3. On the CPU the "
                  "step's tensors live in host memory too, so the device settings below (batch, "
                  "AMP, checkpointing) free it as well as the host fixes.")
            .arg(phaseName(r.phase))
            .arg(r.epoch + 1)
            .arg(r.batchIndex + 1);
    if (r.hostMemory)
        return tr("Host memory (RAM) ran out during the %1 of epoch %2, batch %3; the device was "
                  "not the limit. The fixes below lower host memory use: they do not free device "
                  "memory.")
            .arg(phaseName(r.phase))
            .arg(r.epoch + 1)
            .arg(r.batchIndex + 1);
    QString text =
        tr("The %1 of epoch %2, batch %3 (batch %4 at %5 px) ran out of device memory: it asked "
           "for %6 more with %7 already allocated, against a budget of %8.")
            .arg(phaseName(r.phase))
            .arg(r.epoch + 1)
            .arg(r.batchIndex + 1)
            .arg(r.config.batch)
            .arg(r.config.imgsz)
            .arg(r.requestedBytes > 0 ? bytesText(r.requestedBytes) : tr("an unknown amount"))
            .arg(bytesText(r.allocatedBytes))
            .arg(r.budgetBytes > 0 ? bytesText(r.budgetBytes) : tr("the device's capacity"));
    const MemoryBreakdown& b = r.breakdown;
    if (b.total > 0 || b.resident() > 0)
        text += QLatin1Char(' ') +
                tr("With the request, weights, gradients, optimizer state and EMA hold %1; "
                   "activations %2; the batch itself %3.")
                    .arg(bytesText(b.resident()), bytesText(b.activations), bytesText(b.batchData));
    return text;
}

OomAdvisorDialog::OomAdvisorDialog(const OomReport& report, std::vector<FixSuggestion> fixes,
                                   bool searchDone, QWidget* parent)
    : QDialog(parent), m_report(report), m_fixes(std::move(fixes)), m_done(searchDone) {
    setWindowTitle(tr("Out of memory: choose how to continue"));
    setObjectName(QStringLiteral("oomAdvisor"));
    // Fits a 1280 x 720 screen with its frame.
    resize(940, 640);
    auto* layout = new QVBoxLayout(this);

    auto* diagnosis = new QLabel(describe(report), this);
    diagnosis->setObjectName(QStringLiteral("diagnosis"));
    diagnosis->setWordWrap(true);
    diagnosis->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont big = diagnosis->font();
    big.setPointSizeF(big.pointSizeF() * 1.1);
    diagnosis->setFont(big);
    layout->addWidget(diagnosis);

    auto* breakdown = new BarChart(tr("Memory at the failure (MiB)"), this);
    breakdown->setObjectName(QStringLiteral("breakdownChart"));
    breakdown->addSeries(tr("MiB"), 0);
    breakdown->setCategories({tr("weights"), tr("gradients"), tr("optimizer state"), tr("EMA"),
                              tr("activations"), tr("batch data"), tr("other")});
    const MemoryBreakdown& b = report.breakdown;
    breakdown->setValues(0,
                         {b.weights / kMiB, b.gradients / kMiB, b.optimizerState / kMiB,
                          b.ema / kMiB, b.activations / kMiB, b.batchData / kMiB, b.other / kMiB});

    auto* curve = new PlotWidget(tr("Memory up to the failure"), this);
    curve->setObjectName(QStringLiteral("failureCurve"));
    curve->setAxisLabels(tr("seconds"), tr("MiB"));
    const int allocated = curve->addSeries(tr("allocated"), 0);
    QVector<double> x, y;
    for (const MemorySample& s : report.timeline) {
        x << s.seconds;
        y << s.allocated / kMiB;
    }
    curve->setData(allocated, x, y);
    if (report.budgetBytes > 0)
        curve->setReferenceLine(report.budgetBytes / kMiB,
                                tr("budget %1").arg(bytesText(report.budgetBytes)));

    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->addWidget(breakdown);
    charts->addWidget(curve);
    charts->setMinimumHeight(220);

    // While the advisor predicts (probe steps, seconds each) the cards arrive one by one.
    auto* search = new QHBoxLayout;
    m_searchText = new QLabel(this);
    m_searchText->setObjectName(QStringLiteral("searchProgress"));
    m_searchText->setWordWrap(true);
    m_searchBar = new QProgressBar(this);
    m_searchBar->setObjectName(QStringLiteral("searchBar"));
    m_searchBar->setTextVisible(false);
    m_searchBar->setMaximumWidth(220);
    m_searchBar->setRange(0, 0);
    search->addWidget(m_searchText, 1);
    search->addWidget(m_searchBar);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    auto* fixesPane = new QWidget(this);
    auto* fixesLayout = new QVBoxLayout(fixesPane);
    fixesLayout->setContentsMargins(0, 0, 0, 0);
    fixesLayout->addLayout(search);
    fixesLayout->addWidget(m_scroll, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(charts);
    split->addWidget(fixesPane);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);

    m_always = new QCheckBox(tr("Always apply the best fix for this run"), this);
    m_always->setObjectName(QStringLiteral("alwaysBest"));
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_always, 1);
    auto* stop = new QPushButton(tr("Stop the run"), this);
    stop->setObjectName(QStringLiteral("stopRun"));
    bottom->addWidget(stop);
    layout->addLayout(bottom);
    connect(stop, &QPushButton::clicked, this, [this] { reject(); });
    rebuildCards();
}

void OomAdvisorDialog::showProgress(const FixSearchProgress& progress) {
    if (m_decided || m_done)
        return;
    m_done = progress.done;
    const bool changed = progress.done || progress.fixes.size() != m_fixes.size() ||
                         !std::equal(m_fixes.begin(), m_fixes.end(), progress.fixes.begin(),
                                     [](const FixSuggestion& a, const FixSuggestion& b) {
                                         return a.id == b.id && a.predictedPeak == b.predictedPeak;
                                     });
    m_fixes = progress.fixes;
    if (!m_done) {
        m_searchBar->setRange(0, std::max(1, progress.planned));
        m_searchBar->setValue(progress.checked);
    }
    if (changed)
        rebuildCards();
    else if (!m_done)
        m_searchText->setText(
            tr("Predicting the memory of each fix: %1 of %2 checked…")
                .arg(progress.checked)
                .arg(progress.planned) +
            (m_fixes.empty() ? QString() : QLatin1Char(' ') + tr("You can choose one now.")));
}

void OomAdvisorDialog::rebuildCards() {
    if (m_done) {
        m_searchBar->hide();
        m_searchText->setText(
            m_fixes.empty() ? QString()
                            : tr("Fixes predicted to fit: %1, best first.").arg(m_fixes.size()));
        m_searchText->setVisible(!m_fixes.empty());
    } else {
        m_searchBar->show();
        const QString counted = m_searchBar->maximum() > 0
                                    ? tr("Predicting the memory of each fix: %1 of %2 checked…")
                                          .arg(m_searchBar->value())
                                          .arg(m_searchBar->maximum())
                                    : tr("Predicting the memory of each fix…");
        m_searchText->setText(counted + (m_fixes.empty()
                                             ? QString()
                                             : QLatin1Char(' ') + tr("You can choose one now.")));
    }
    // Rebuilt whole: the ranking can change as fixes arrive. The scroll position stays.
    const int scrolled = m_scroll->verticalScrollBar()->value();
    auto* cards = new QWidget;
    auto* cardLayout = new QVBoxLayout(cards);
    if (m_fixes.empty() && m_done) {
        auto* none = new QLabel(tr("No change is predicted to fit within the budget. Stop the run "
                                   "and raise the budget, or choose a smaller model."),
                                cards);
        none->setObjectName(QStringLiteral("noFix"));
        none->setWordWrap(true);
        cardLayout->addWidget(none);
    }
    for (int i = 0; i < int(m_fixes.size()); ++i)
        cardLayout->addWidget(makeCard(i));
    cardLayout->addStretch(1);
    m_scroll->setWidget(cards); // deletes the previous cards
    m_scroll->verticalScrollBar()->setValue(scrolled);
    m_always->setEnabled(!m_fixes.empty());
}

QWidget* OomAdvisorDialog::makeCard(int index) {
    const FixSuggestion& fix = m_fixes[static_cast<size_t>(index)];
    auto* card = new QFrame;
    card->setFrameShape(QFrame::StyledPanel);
    card->setObjectName(QStringLiteral("fixCard%1").arg(index));
    auto* layout = new QHBoxLayout(card);
    auto* text = new QVBoxLayout;
    auto* title = new QLabel(
        QStringLiteral("<b>%1%2</b>")
            .arg(index == 0 ? tr("Best: ") : QString(), FixWording::title(fix).toHtmlEscaped()),
        card);
    title->setWordWrap(true);
    text->addWidget(title);
    QStringList changes;
    for (const auto& [key, value] : fix.changes)
        changes << QStringLiteral("%1 = %2").arg(QString::fromStdString(key),
                                                 QString::fromStdString(value));
    if (!changes.isEmpty()) {
        auto* changed = new QLabel(tr("Changes: %1").arg(changes.join(QStringLiteral(", "))), card);
        changed->setWordWrap(true);
        text->addWidget(changed);
    }
    QString memory;
    if (fix.hostFix)
        memory = tr("Host memory fix: device memory unchanged");
    else if (fix.predictedPeak > 0 && m_report.budgetBytes > 0)
        memory =
            tr("Predicted peak %1 (%2% of the budget)")
                .arg(bytesText(fix.predictedPeak))
                .arg(100.0 * double(fix.predictedPeak) / double(m_report.budgetBytes), 0, 'f', 0);
    else if (fix.predictedPeak > 0)
        memory = tr("Predicted peak %1").arg(bytesText(fix.predictedPeak));
    else
        memory = tr("No memory prediction for this change");
    const QString speed =
        (fix.speedFactor >= 1.0
             ? tr("time per epoch ×%1").arg(fix.speedFactor, 0, 'f', 2)
             : tr("time per epoch ×%1 (faster)").arg(fix.speedFactor, 0, 'f', 2)) +
        QLatin1Char(' ') + FixWording::speedNote(fix);
    auto* numbers = new QLabel(
        QStringLiteral("%1 · %2 · %3").arg(memory, speed, accuracyWords(fix.accuracyCost)), card);
    numbers->setWordWrap(true);
    numbers->setObjectName(QStringLiteral("fixFigures%1").arg(index));
    numbers->setToolTip(FixWording::figuresTooltip(fix));
    text->addWidget(numbers);
    QString detail = tr("Accuracy: %1.").arg(FixWording::accuracyEffect(fix)) + QLatin1Char(' ') +
                     tr("Why: %1").arg(FixWording::reason(fix));
    if (fix.restarts)
        detail += QLatin1Char(' ') + tr("This change restarts training from new weights.");
    auto* details = new QLabel(detail, card);
    details->setWordWrap(true);
    QFont small = details->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    details->setFont(small);
    text->addWidget(details);
    layout->addLayout(text, 1);
    auto* apply = new QPushButton(tr("Apply and continue"), card);
    apply->setObjectName(QStringLiteral("apply%1").arg(index));
    if (index == 0)
        apply->setDefault(true);
    connect(apply, &QPushButton::clicked, this, [this, index] { applyFix(index); });
    layout->addWidget(apply, 0, Qt::AlignVCenter);
    return card;
}

bool OomAdvisorDialog::alwaysApplyBest() const {
    return m_always->isChecked();
}

void OomAdvisorDialog::applyFix(int index) {
    if (m_decided || index < 0 || index >= int(m_fixes.size()))
        return;
    m_decided = true;
    emit fixChosen(index, alwaysApplyBest());
    accept();
}

void OomAdvisorDialog::reject() {
    if (!m_decided) {
        m_decided = true;
        emit stopChosen();
    }
    QDialog::reject();
}

} // namespace hr::ui
