// SPDX-License-Identifier: GPL-3.0-or-later
#include "runspage.h"

#include "plotwidget.h"

#include "compare/comparison.h"
#include "runs/run_store.h"
#include "util/bytes.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>
#include <vector>

namespace hr::ui {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kTrainPeakColumn = 5;
constexpr int kValPeakColumn = 6;

QString bytesOrDash(std::int64_t bytes) {
    return bytes > 0 ? QString::fromStdString(hr::formatBytes(bytes)) : QStringLiteral("–");
}
} // namespace

RunsPage::RunsPage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_folderLabel = new QLabel(this);
    auto* choose =
        new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Choose runs folder…"), this);
    auto* refreshButton = new QPushButton(tr("Refresh"), this);
    top->addWidget(m_folderLabel, 1);
    top->addWidget(choose);
    top->addWidget(refreshButton);
    m_compare = new QPushButton(tr("Compare selected"), this);
    m_compare->setToolTip(tr("Select two or more runs (Ctrl/Shift-click) to lay their curves, "
                             "memory and mAP over each other on the Compare page"));
    m_compare->setObjectName(QStringLiteral("compareSelected"));
    m_compare->setEnabled(false);
    top->addWidget(m_compare);
    layout->addLayout(top);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("runs"));
    m_list->setRootIsDecorated(false);
    m_list->setAlternatingRowColors(true);
    m_list->setSortingEnabled(true);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setHeaderLabels({tr("Run"), tr("Modified"), tr("Epochs"), tr("Best mAP50"),
                             tr("Best mAP50-95"), tr("Training peak"), tr("Validation peak"),
                             tr("State"), tr("Folder")});
    m_list->headerItem()->setToolTip(
        kTrainPeakColumn, tr("The highest memory peak of the training steps (exact, from the "
                             "allocator), as in the Compare page's table"));
    m_list->headerItem()->setToolTip(
        kValPeakColumn, tr("The highest memory during validation (sampled, so a short spike "
                           "can be missed); a large val_batch can make it the larger one"));
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);

    m_runLabel = new QLabel(tr("Double-click a run to see its curves."), this);
    m_loss = new PlotWidget(tr("Losses"), this);
    m_loss->setAxisLabels(tr("epoch"), tr("loss"));
    m_loss->addSeries(tr("box"), 0);
    m_loss->addSeries(tr("cls"), 1);
    m_loss->addSeries(tr("dfl"), 2);
    m_loss->addSeries(tr("val box"), 0, true);
    m_loss->addSeries(tr("val cls"), 1, true);
    m_loss->addSeries(tr("val dfl"), 2, true);
    m_map = new PlotWidget(tr("Accuracy"), this);
    m_map->setAxisLabels(tr("epoch"), tr("value"));
    m_map->addSeries(tr("mAP50"), 0);
    m_map->addSeries(tr("mAP50-95"), 1);
    m_map->addSeries(tr("precision"), 2, true);
    m_map->addSeries(tr("recall"), 3, true);
    m_memory = new PlotWidget(tr("Device memory"), this);
    m_memory->setAxisLabels(tr("seconds"), tr("MiB"));
    m_memory->addSeries(tr("allocated"), 0);

    auto* curves = new QWidget(this);
    auto* grid = new QGridLayout(curves);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_runLabel, 0, 0, 1, 3);
    grid->addWidget(m_loss, 1, 0);
    grid->addWidget(m_map, 1, 1);
    grid->addWidget(m_memory, 1, 2);
    grid->setRowStretch(1, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(curves);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(choose, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Runs folder"), m_folder);
        if (!dir.isEmpty())
            setRunsFolder(dir);
    });
    connect(refreshButton, &QPushButton::clicked, this, &RunsPage::refresh);
    connect(m_compare, &QPushButton::clicked, this, &RunsPage::compareSelected);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this,
            [this] { m_compare->setEnabled(m_list->selectedItems().size() >= 2); });
    connect(m_list, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* item) { openRun(item->data(0, Qt::UserRole).toString()); });
    setRunsFolder(QStringLiteral("runs"));
}

void RunsPage::setRunsFolder(const QString& folder) {
    const QString absolute =
        QFileInfo(folder.isEmpty() ? QStringLiteral("runs") : folder).absoluteFilePath();
    if (absolute == m_folder)
        return;
    m_folder = absolute;
    refresh();
}

void RunsPage::refresh() {
    m_folderLabel->setText(tr("Runs in %1").arg(QDir::toNativeSeparators(m_folder)));
    m_list->setSortingEnabled(false);
    m_list->clear();
    // Each run folder is loaded once for its summary and its training/validation peak split
    // (the list sorts itself by the chosen column).
    const QFileInfoList folders =
        QDir(m_folder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& folder : folders) {
        const std::optional<RunRecord> record =
            RunStore::load(folder.absoluteFilePath().toStdString());
        if (!record)
            continue;
        const RunSummary& run = record->summary;
        const PeakSplit peaks = splitPeaks(*record);
        auto* item = new QTreeWidgetItem(m_list);
        const QString path = QString::fromStdString(run.path);
        item->setData(0, Qt::UserRole, path);
        item->setText(0, QString::fromStdString(run.name));
        item->setToolTip(0, QString::fromStdString(run.model));
        item->setData(1, Qt::UserRole, static_cast<qlonglong>(run.modifiedUnixSeconds));
        item->setText(1, QDateTime::fromSecsSinceEpoch(run.modifiedUnixSeconds)
                             .toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        item->setData(2, Qt::DisplayRole, run.epochsDone);
        const bool any = run.bestEpoch > 0;
        item->setText(3, any ? QString::number(run.bestMap50, 'f', 4) : QStringLiteral("–"));
        item->setText(4, any ? QString::number(run.bestMap, 'f', 4) : QStringLiteral("–"));
        item->setText(kTrainPeakColumn, bytesOrDash(peaks.trainPeak()));
        item->setData(kTrainPeakColumn, Qt::UserRole, static_cast<qlonglong>(peaks.trainPeak()));
        item->setText(kValPeakColumn, bytesOrDash(peaks.valPeak()));
        item->setData(kValPeakColumn, Qt::UserRole, static_cast<qlonglong>(peaks.valPeak()));
        QString state = run.failed     ? tr("failed")
                        : run.finished ? tr("finished")
                                       : tr("unfinished");
        if (run.ooms > 0)
            state += QLatin1Char(' ') + tr("(%1 OOM, %2 fixes)").arg(run.ooms).arg(run.fixes);
        item->setText(7, state);
        item->setText(8, QDir::toNativeSeparators(path));
    }
    m_list->setSortingEnabled(true);
}

QStringList RunsPage::selectedRuns() const {
    QStringList dirs;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (QTreeWidgetItem* item = m_list->topLevelItem(i); item->isSelected())
            dirs << item->data(0, Qt::UserRole).toString();
    return dirs;
}

void RunsPage::compareSelected() {
    // Oldest first, whatever the list's sorting: the first run is the one the comparison's
    // ratios refer to, and a strategy matrix runs its baseline first.
    // When a run started: its first event (to the millisecond), else its newest file's time.
    const auto started = [](const QTreeWidgetItem* item) {
        QFile events(item->data(0, Qt::UserRole).toString() + QStringLiteral("/events.jsonl"));
        if (events.open(QIODevice::ReadOnly | QIODevice::Text))
            if (const auto first = RunStore::parseEvent(events.readLine().toStdString());
                first && first->time > 0)
                return first->time;
        return static_cast<double>(item->data(1, Qt::UserRole).toLongLong());
    };
    std::vector<std::pair<double, QString>> runs;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (QTreeWidgetItem* item = m_list->topLevelItem(i); item->isSelected())
            runs.emplace_back(started(item), item->data(0, Qt::UserRole).toString());
    std::stable_sort(runs.begin(), runs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    QStringList dirs;
    for (const auto& run : runs)
        dirs << run.second;
    if (dirs.size() >= 2)
        emit compareRequested(dirs);
}

bool RunsPage::openRun(const QString& runDir) {
    std::string error;
    const std::optional<RunRecord> run = RunStore::load(runDir.toStdString(), &error);
    if (!run) {
        m_runLabel->setText(
            tr("Cannot open %1: %2")
                .arg(QDir::toNativeSeparators(runDir), QString::fromStdString(error)));
        return false;
    }
    m_runLabel->setText(
        tr("Run %1: %2 epochs").arg(QDir::toNativeSeparators(runDir)).arg(run->epochs.size()));
    QVector<double> x, loss[6], metric[4];
    for (const EpochRecord& e : run->epochs) {
        x << e.epoch;
        const double losses[6] = {e.boxLoss,    e.clsLoss,    e.dflLoss,
                                  e.valBoxLoss, e.valClsLoss, e.valDflLoss};
        for (int i = 0; i < 6; ++i)
            loss[i] << losses[i];
        const double metrics[4] = {e.map50, e.map, e.precision, e.recall};
        for (int i = 0; i < 4; ++i)
            metric[i] << metrics[i];
    }
    for (int i = 0; i < 6; ++i)
        m_loss->setData(i, x, loss[i]);
    for (int i = 0; i < 4; ++i)
        m_map->setData(i, x, metric[i]);
    QVector<double> mx, my;
    for (const MemorySample& sample : run->memory) {
        mx << sample.seconds;
        my << sample.allocated / kMiB;
    }
    m_memory->setData(0, mx, my);
    for (PlotWidget* plot : {m_loss, m_map, m_memory})
        plot->resetView();
    emit runOpened(runDir);
    return true;
}

} // namespace hr::ui
