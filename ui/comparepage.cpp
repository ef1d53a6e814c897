// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparepage.h"

#include "classcomparetable.h"
#include "compare/class_comparison.h"
#include "compare/compare_report.h"
#include "comparisonsession.h"
#include "oomadvisordialog.h"
#include "plotpalette.h"
#include "plotwidget.h"
#include "runs/run_store.h"
#include "strategyeditor.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace hr::ui {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
const QString kSavedRunsKey = QStringLiteral("compare/runs");

/// "2 h 05 min", "7 min", "40 s".
QString durationText(double seconds) {
    const qlonglong s = std::llround(seconds);
    if (s >= 3600)
        return ComparePage::tr("%1 h %2 min")
            .arg(s / 3600)
            .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return ComparePage::tr("%1 min").arg((s + 30) / 60);
    return ComparePage::tr("%1 s").arg(s);
}

} // namespace

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent), m_session(new ComparisonSession(this)), m_editor(new StrategyEditor(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_status = new QLabel(hint(), this);
    m_status->setWordWrap(true);
    m_add = new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Add runs…"), this);
    m_run = new QPushButton(tr("Run strategy matrix"), this);
    m_run->setToolTip(tr("Trains the current settings once per strategy in the list, one "
                         "after another, as normal runs (B is the settings' batch). An "
                         "out-of-memory failure is recorded, not fixed."));
    m_stop = new QPushButton(tr("Stop"), this);
    m_export = new QPushButton(tr("Export report…"), this);
    m_export->setToolTip(tr("Writes compare.csv, a self-contained compare.html and, when the "
                            "runs have validated, compare_classes.csv (AP50-95 by class)"));
    top->addWidget(m_status, 1);
    for (QPushButton* b : {m_add, m_run, m_stop, m_export})
        top->addWidget(b);
    layout->addLayout(top);

    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("comparison"));
    m_table->setColumnCount(13);
    m_table->setHorizontalHeaderLabels({tr("Strategy"), tr("Status"), tr("Batch"), tr("AMP"),
                                        tr("Checkpointing"), tr("Training peak"), tr("vs first"),
                                        tr("Validation peak"), tr("Epoch (s)"), tr("Images/s"),
                                        tr("mAP50"), tr("mAP50-95"), tr("Pareto")});
    m_table->horizontalHeaderItem(6)->setToolTip(
        tr("Training peak over the first row's; the published claim's ratio beside it"));
    m_table->horizontalHeaderItem(7)->setToolTip(
        tr("Highest memory while validating, apart from training (a large val_batch can "
           "exceed the training peak)"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();

    m_memory = makePlot(Chart::Memory);
    m_mapEpochs = makePlot(Chart::MapEpochs);
    m_mapTime = makePlot(Chart::MapTime);
    m_loss = makePlot(Chart::Loss);
    m_scatter = makePlot(Chart::Scatter);

    auto* plots = new QWidget(this);
    auto* grid = new QGridLayout(plots);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_memory, 0, 0);
    grid->addWidget(m_mapEpochs, 0, 1);
    grid->addWidget(m_scatter, 0, 2);
    grid->addWidget(m_loss, 1, 0);
    grid->addWidget(m_mapTime, 1, 1);
    // One legend for the five charts, in the grid's free cell: five legends of five runs each
    // would leave the small charts no room for their curves.
    m_legend = new QLabel(plots);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    m_legend->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_legend->setMargin(6);
    grid->addWidget(m_legend, 1, 2);
    m_byClass = new ClassCompareTable(this);
    m_views = new QTabWidget(this);
    m_views->addTab(plots, tr("Charts"));
    m_views->addTab(m_byClass, tr("By class"));
    m_views->setTabToolTip(1, tr("Each run's last validation class by class, with the change "
                                 "from the first run: what a memory fix cost per class."));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_views);
    split->setStretchFactor(1, 2);
    auto* matrix = new QGroupBox(tr("Strategy matrix"), this);
    auto* matrixLayout = new QVBoxLayout(matrix);
    matrixLayout->addWidget(m_editor);
    auto* sides = new QSplitter(Qt::Horizontal, this);
    sides->addWidget(matrix);
    sides->addWidget(split);
    sides->setStretchFactor(1, 3);
    sides->setSizes({360, 1000});
    layout->addWidget(sides, 1);

    connect(m_add, &QPushButton::clicked, this, &ComparePage::addRuns);
    connect(m_export, &QPushButton::clicked, this, &ComparePage::exportReport);
    connect(m_stop, &QPushButton::clicked, m_session, &ComparisonSession::stop);
    m_run->setObjectName(QStringLiteral("runMatrix"));
    connect(m_run, &QPushButton::clicked, this, &ComparePage::confirmAndRunMatrix);
    connect(m_session, &ComparisonSession::runningChanged, this, &ComparePage::updateButtons);
    connect(m_session, &ComparisonSession::comparisonReady, this, &ComparePage::showComparison);
    connect(m_session, &ComparisonSession::strategyStarted, this,
            [this](int index, const QString& name, const QString& runDir) {
                m_status->setText(tr("Strategy %1: %2 → %3")
                                      .arg(index + 1)
                                      .arg(name, QDir::toNativeSeparators(runDir)));
            });
    connect(m_session, &ComparisonSession::epochEnded, this,
            [this](int index, const hr::EpochEnd& e) {
                m_status->setText(tr("Strategy %1: epoch %2/%3, mAP50-95 %4")
                                      .arg(index + 1)
                                      .arg(e.epoch + 1)
                                      .arg(e.epochs)
                                      .arg(e.map, 0, 'f', 3));
            });
    connect(m_session, &ComparisonSession::oomOccurred, this,
            [this](int index, const QString& phase) {
                m_status->setText(tr("Strategy %1 ran out of memory in the %2 phase; recorded.")
                                      .arg(index + 1)
                                      .arg(phase));
            });
    connect(m_session, &ComparisonSession::runningChanged, this, [this](bool running) {
        if (!running)
            emit matrixFinished();
    });
    connect(m_editor, &StrategyEditor::message, m_status, &QLabel::setText);
    connect(m_editor, &StrategyEditor::strategiesChanged, this, [this] {
        updateButtons(m_session->isRunning());
        // A refusal names the problems as they were: follow the edits, and go once they are
        // fixed, so that no stale error stays on screen.
        if (m_showsProblems) {
            const QString problems = m_editor->problemsText();
            m_showsProblems = !problems.isEmpty();
            m_status->setText(m_showsProblems ? problemsLine(problems) : hint());
        }
    });
    updateButtons(false);

    // The last comparison's runs come back from their folders after a restart.
    QStringList saved;
    for (const QString& dir : QSettings().value(kSavedRunsKey).toStringList())
        if (QFileInfo::exists(dir))
            saved << dir;
    if (!saved.isEmpty())
        compareRuns(saved);
}

QString ComparePage::matrixPlan(const TrainConfig& base) const {
    const int strategies = static_cast<int>(m_editor->strategies().size());
    QString plan = tr("%1 strategies × %2 epochs at %3 px, batch %4: %5 epochs of training in "
                      "all, one run after another.")
                       .arg(strategies)
                       .arg(base.epochs)
                       .arg(base.imgsz)
                       .arg(base.batch)
                       .arg(qlonglong(strategies) * base.epochs);
    // The newest finished epochs of the same model and image size say how long one takes here.
    for (const RunSummary& run : RunStore::list(base.project)) {
        if (run.model != base.model || run.imgsz != base.imgsz || run.epochsDone < 1 ||
            run.totalSeconds <= 0)
            continue;
        const double perEpoch = run.totalSeconds / run.epochsDone;
        const double total = perEpoch * double(strategies) * base.epochs;
        return plan + QLatin1Char(' ') +
               tr("Run %1 measured %2 s per epoch with this model and image size, so this takes "
                  "about %3 (batch, AMP and checkpointing change it).")
                   .arg(QString::fromStdString(run.name))
                   .arg(perEpoch, 0, 'f', 1)
                   .arg(durationText(total));
    }
    return plan + QLatin1Char(' ') +
           tr("No finished run of %1 at %2 px has measured the speed yet, so the time is "
              "unknown; a one-epoch run of the current settings measures it.")
               .arg(QString::fromStdString(base.model))
               .arg(base.imgsz);
}

bool ComparePage::confirmAndRunMatrix() {
    if (!m_baseConfig)
        return false;
    const TrainConfig base = m_baseConfig();
    if (base.batch < 1 || !m_editor->problemsText().isEmpty())
        return runMatrix(base); // says why it cannot run
    QMessageBox box(QMessageBox::Question, tr("Run strategy matrix"), matrixPlan(base),
                    QMessageBox::NoButton, this);
    box.setObjectName(QStringLiteral("confirmMatrix"));
    box.setInformativeText(tr("Start Training stays off until the matrix ends or is stopped."));
    QPushButton* run = box.addButton(tr("Run the matrix"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != run)
        return false;
    return runMatrix(base);
}

PlotWidget* ComparePage::makePlot(Chart chart) {
    struct Text {
        QString title, x, y;
    };
    Text t;
    switch (chart) {
    case Chart::Memory:
        t = {tr("Memory over time"), tr("seconds"), tr("MiB")};
        break;
    case Chart::MapEpochs:
        t = {tr("mAP50-95 over epochs"), tr("epoch"), tr("mAP50-95")};
        break;
    case Chart::MapTime:
        t = {tr("mAP50-95 over wall time"), tr("seconds"), tr("mAP50-95")};
        break;
    case Chart::Loss:
        t = {tr("Training loss (box + cls + dfl)"), tr("epoch"), tr("loss")};
        break;
    case Chart::Scatter:
        t = {tr("Training peak vs mAP50-95"), tr("training peak (MiB)"), tr("mAP50-95")};
        break;
    }
    auto* plot = new PlotWidget(t.title, this);
    plot->setOwnLegend(false);
    plot->setAxisLabels(t.x, t.y);
    plot->setEmptyText(tr("One curve per compared run appears here."));
    return plot;
}

void ComparePage::setTrainingActive(bool active) {
    m_trainingActive = active;
    updateButtons(m_session->isRunning());
}

QString ComparePage::hint() {
    return tr("Pick runs on the Runs page and choose \"Compare selected\", add run folders, or "
              "edit the strategies at the left and run them on the current settings.");
}

QString ComparePage::problemsLine(const QString& problems) {
    return tr("The strategies have problems; fix them first:\n%1").arg(problems);
}

void ComparePage::updateButtons(bool running) {
    m_run->setEnabled(!running && !m_trainingActive && !m_editor->strategies().empty());
    m_add->setEnabled(!running);
    m_editor->setEnabled(!running);
    m_stop->setEnabled(running);
    m_export->setEnabled(!running && !m_comparison.rows.empty());
}

void ComparePage::compareRuns(const QStringList& runDirs) {
    m_session->compareFolders(runDirs);
}

bool ComparePage::runMatrix(const TrainConfig& base) {
    if (base.batch < 1) {
        m_status->setText(tr("The strategies are relative to a fixed batch B; set batch to a "
                             "number first (batch -1 lets Auto-fit choose one)."));
        return false;
    }
    if (const QString problems = m_editor->problemsText(); !problems.isEmpty()) {
        m_status->setText(problemsLine(problems));
        m_showsProblems = true;
        return false;
    }
    QString error;
    if (!m_session->start(base, m_editor->strategies(), &error)) {
        m_status->setText(error);
        return false;
    }
    m_status->setText(tr("Running %n strategies on batch %1…", nullptr,
                         static_cast<int>(m_editor->strategies().size()))
                          .arg(base.batch));
    return true;
}

void ComparePage::addRuns() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Run folder to add"));
    if (dir.isEmpty())
        return;
    QStringList dirs;
    for (const ComparisonRow& row : m_comparison.rows)
        if (!row.runDir.empty())
            dirs << QString::fromStdString(row.runDir);
    dirs << dir;
    compareRuns(dirs);
}

void ComparePage::exportReport() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the report"));
    if (dir.isEmpty())
        return;
    std::string error;
    if (writeComparison(m_comparison, dir.toStdString(), &error))
        m_status->setText(
            tr("Wrote %1 and %2")
                .arg(QDir::toNativeSeparators(dir + QStringLiteral("/compare.csv")),
                     QDir::toNativeSeparators(dir + QStringLiteral("/compare.html"))));
    else
        m_status->setText(tr("Cannot write the report: %1").arg(QString::fromStdString(error)));
}

void ComparePage::showComparison(const hr::Comparison& comparison) {
    m_comparison = comparison;
    QStringList dirs;
    for (const ComparisonRow& row : m_comparison.rows)
        if (!row.runDir.empty())
            dirs << QString::fromStdString(row.runDir);
    QSettings().setValue(kSavedRunsKey, dirs);
    fillTable();
    m_byClass->setComparison(compareByClass(m_comparison));
    const auto& rows = m_comparison.rows;

    // One series per row in every chart; the plots are rebuilt because series cannot be removed.
    const auto rebuild = [this](PlotWidget*& plot, Chart chart) {
        PlotWidget* fresh = makePlot(chart);
        if (QWidget* parent = plot->parentWidget(); parent && parent->layout())
            parent->layout()->replaceWidget(plot, fresh);
        plot->deleteLater();
        plot = fresh;
    };
    rebuild(m_memory, Chart::Memory);
    rebuild(m_mapEpochs, Chart::MapEpochs);
    rebuild(m_mapTime, Chart::MapTime);
    rebuild(m_loss, Chart::Loss);
    rebuild(m_scatter, Chart::Scatter);
    QVector<double> frontX, frontY;
    std::vector<std::pair<double, double>> front;
    const QPalette pal = palette();
    const auto swatch = [&pal](int colour, const QString& mark, const QString& name) {
        return QStringLiteral("<span style=\"color:%1\">%2</span>&nbsp;%3")
            .arg(seriesColor(colour, pal).name(), mark, name.toHtmlEscaped());
    };
    QStringList legend;
    for (size_t i = 0; i < rows.size(); ++i) {
        const ComparisonRow& r = rows[i];
        const QString name = QString::fromStdString(r.strategy);
        const int colour = static_cast<int>(i);
        legend << swatch(colour, QStringLiteral("■"), name);
        QVector<double> mx, my, ex, ey, ly, tx, ty;
        for (const MemorySample& s : r.run.memory) {
            mx << s.seconds;
            my << s.allocated / kMiB;
        }
        for (const EpochRecord& e : r.run.epochs) {
            ex << e.epoch;
            ey << e.map;
            ly << e.boxLoss + e.clsLoss + e.dflLoss;
        }
        for (const auto& [seconds, map] : r.mapOverWallTime()) {
            tx << seconds;
            ty << map;
        }
        m_memory->setData(m_memory->addSeries(name, colour), mx, my);
        // One point per epoch, marked: a one-epoch run has no line to draw.
        const auto perEpoch = [&](PlotWidget* plot, const QVector<double>& x,
                                  const QVector<double>& y) {
            const int series = plot->addSeries(name, colour);
            plot->plot()->graph(series)->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
            plot->setData(series, x, y);
        };
        perEpoch(m_mapEpochs, ex, ey);
        perEpoch(m_loss, ex, ly);
        perEpoch(m_mapTime, tx, ty);
        const int point = m_scatter->addSeries(name, colour);
        QCPGraph* graph = m_scatter->plot()->graph(point);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 9));
        if (r.hasMetrics && r.trainPeakBytes > 0 && r.status != "OOM") {
            m_scatter->setData(point, {r.trainPeakBytes / kMiB}, {r.map});
            if (r.pareto)
                front.emplace_back(r.trainPeakBytes / kMiB, r.map);
        }
    }
    std::sort(front.begin(), front.end());
    for (const auto& [x, y] : front) {
        frontX << x;
        frontY << y;
    }
    const int frontSeries =
        m_scatter->addSeries(tr("Pareto front"), static_cast<int>(rows.size()), true);
    m_scatter->setData(frontSeries, frontX, frontY);
    if (!rows.empty())
        legend << swatch(static_cast<int>(rows.size()), QStringLiteral("– –"), tr("Pareto front"));
    m_legend->setText(legend.isEmpty() ? QString()
                                       : QStringLiteral("<b>%1</b><br>").arg(tr("Runs")) +
                                             legend.join(QStringLiteral("<br>")));
    for (PlotWidget* plot : {m_memory, m_mapEpochs, m_mapTime, m_loss, m_scatter})
        plot->resetView();

    int done = 0, ooms = 0;
    for (const ComparisonRow& r : rows) {
        done += r.hasMetrics ? 1 : 0;
        ooms += r.status == "OOM" ? 1 : 0;
    }
    m_status->setText(tr("%1 runs compared: %2 with results, %3 out of memory; ★ = Pareto "
                         "front of training peak and mAP50-95.")
                          .arg(rows.size())
                          .arg(done)
                          .arg(ooms));
    updateButtons(m_session->isRunning());
}

} // namespace hr::ui
