// SPDX-License-Identifier: GPL-3.0-or-later
#include "runspage.h"

#include "bytestext.h"
#include "failurewording.h"
#include "plotwidget.h"
#include "resultsview.h"

#include "compare/comparison.h"
#include "runs/run_store.h"

#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace hr::ui {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

QString bytesOrDash(std::int64_t bytes) {
    return bytes > 0 ? bytesText(bytes) : QStringLiteral("–");
}

/// "1 h 05 min", "3 min 20 s", "45 s"; "–" when unknown.
QString durationText(double seconds) {
    if (!(seconds > 0))
        return QStringLiteral("–");
    const qint64 s = qRound64(seconds);
    if (s >= 3600)
        return RunsPage::tr("%1 h %2 min")
            .arg(s / 3600)
            .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return RunsPage::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return RunsPage::tr("%1 s").arg(s);
}

/// A number column that sorts by its UserRole value, not by its text.
class RunItem : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(column, Qt::UserRole), b = other.data(column, Qt::UserRole);
        if (a.isValid() && b.isValid() && column != RunsPage::RunColumn &&
            column != RunsPage::FolderColumn)
            return a.toDouble() < b.toDouble();
        return QTreeWidgetItem::operator<(other);
    }
};
} // namespace

QString runStateWords(const QString& state) {
    if (state == QLatin1String("finished"))
        return RunsPage::tr("finished");
    if (state == QLatin1String("stopped"))
        return RunsPage::tr("stopped");
    if (state == QLatin1String("failed"))
        return RunsPage::tr("failed");
    if (state == QLatin1String("stopped_by_oom"))
        return RunsPage::tr("stopped by OOM");
    if (state == QLatin1String("running"))
        return RunsPage::tr("running");
    return RunsPage::tr("unfinished");
}

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
    m_list->setHeaderLabels({tr("Run"), tr("State"), tr("Model"), tr("Image size"), tr("Epochs"),
                             tr("Duration"), tr("Training peak / budget"), tr("Validation peak"),
                             tr("Best mAP50"), tr("Best mAP50-95"), tr("Modified"), tr("Folder")});
    m_list->headerItem()->setToolTip(EpochsColumn, tr("Epochs done of the epochs planned"));
    m_list->headerItem()->setToolTip(
        TrainPeakColumn, tr("The highest memory peak of the training steps (exact, from the "
                            "allocator), as the Train page and the Compare page show it; the "
                            "advisor's probe steps do not count. After the slash: the budget."));
    m_list->headerItem()->setToolTip(
        ValPeakColumn, tr("The highest memory during validation; a large val_batch can make it "
                          "the larger one"));
    m_list->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_list->header()->setStretchLastSection(true);
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_list, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QTreeWidgetItem* item = m_list->itemAt(pos);
        if (!item)
            return;
        if (!item->isSelected()) {
            m_list->clearSelection();
            item->setSelected(true);
        }
        m_list->setCurrentItem(item);
        QMenu* menu = contextMenuFor(item);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_list->viewport()->mapToGlobal(pos));
    });

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
    // Empty until a run is opened: say how to open one.
    for (PlotWidget* plot : {m_loss, m_map, m_memory})
        plot->setEmptyText(tr("Double-click a run in the list above to see its curves here."));

    auto* curves = new QWidget(this);
    auto* grid = new QGridLayout(curves);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_runLabel, 0, 0, 1, 3);
    grid->addWidget(m_loss, 1, 0);
    grid->addWidget(m_map, 1, 1);
    grid->addWidget(m_memory, 1, 2);
    grid->setRowStretch(1, 1);

    m_results = new ResultsView(this);
    m_views = new QTabWidget(this);
    m_views->addTab(curves, tr("Training curves"));
    m_views->addTab(m_results, tr("Results"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(m_views);
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
        fillRow(new RunItem(m_list), *record);
    }
    // Sized with sorting on: the header's sort arrow needs room beside the column's name.
    m_list->setSortingEnabled(true);
    for (int c = 0; c < FolderColumn; ++c)
        m_list->resizeColumnToContents(c);
    emit listRefreshed();
}

std::optional<RunsPage::Resumable> RunsPage::resumableOf(const QTreeWidgetItem* item) const {
    Resumable run;
    run.dir = item->data(RunColumn, Qt::UserRole).toString();
    run.state = item->data(StateColumn, Qt::UserRole + 1).toString();
    if (run.state == QLatin1String("finished") || run.state == QLatin1String("running") ||
        !QFileInfo::exists(run.dir + QStringLiteral("/weights/last.pt")))
        return std::nullopt;
    run.name = item->text(RunColumn);
    run.epochsDone = item->data(EpochsColumn, Qt::UserRole).toInt();
    run.epochsPlanned = item->data(EpochsColumn, Qt::UserRole + 1).toInt();
    return run;
}

std::optional<RunsPage::Resumable> RunsPage::newestInterrupted() const {
    const QTreeWidgetItem* newest = nullptr;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_list->topLevelItem(i);
        if (!newest || item->data(ModifiedColumn, Qt::UserRole).toLongLong() >
                           newest->data(ModifiedColumn, Qt::UserRole).toLongLong())
            newest = item;
    }
    if (!newest ||
        newest->data(StateColumn, Qt::UserRole + 1).toString() != QLatin1String("unfinished"))
        return std::nullopt;
    return resumableOf(newest);
}

std::optional<RunsPage::Resumable> RunsPage::newestResumable() const {
    std::optional<Resumable> best;
    qlonglong bestTime = 0;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_list->topLevelItem(i);
        const qlonglong time = item->data(ModifiedColumn, Qt::UserRole).toLongLong();
        if (best && time <= bestTime)
            continue;
        if (const auto run = resumableOf(item)) {
            best = run;
            bestTime = time;
        }
    }
    return best;
}

void RunsPage::refreshActiveRun() {
    if (m_activeRun.isEmpty())
        return;
    QTreeWidgetItem* item = itemOf(m_activeRun);
    const std::optional<RunRecord> record = RunStore::load(m_activeRun.toStdString());
    if (!item || !record) {
        refresh();
        return;
    }
    // Filled with sorting off, so the row does not move while its cells change.
    m_list->setSortingEnabled(false);
    fillRow(item, *record);
    m_list->setSortingEnabled(true);
    if (m_results->runDir() == m_activeRun) // a new validation may have written its files
        m_results->showRun(m_activeRun);
}

void RunsPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refreshActiveRun();
}

void RunsPage::fillRow(QTreeWidgetItem* item, const RunRecord& record) {
    const RunSummary& run = record.summary;
    const RunPeaks peaks = runPeaks(record);
    const QString path = QString::fromStdString(run.path);
    item->setData(RunColumn, Qt::UserRole, path);
    item->setText(RunColumn, QString::fromStdString(run.name));
    QString state = QString::fromStdString(run.state);
    // The run this studio trains now has no end event yet: it is running, not unfinished.
    if (state == QLatin1String("unfinished") && !m_activeRun.isEmpty() &&
        QFileInfo(path).absoluteFilePath() == m_activeRun)
        state = QStringLiteral("running");
    item->setText(StateColumn, runStateWords(state));
    item->setData(StateColumn, Qt::UserRole + 1, state);
    QString stateTip = run.reason.empty()
                           ? QString()
                           : FailureWording::reason(run.reasonCode, run.reasonArgs, run.reason);
    if (run.ooms > 0)
        stateTip += (stateTip.isEmpty() ? QString() : QStringLiteral("\n")) +
                    tr("%1 out-of-memory errors, %2 fixes applied").arg(run.ooms).arg(run.fixes);
    item->setToolTip(StateColumn, stateTip);
    item->setText(ModelColumn, QString::fromStdString(run.model));
    item->setText(ImageSizeColumn,
                  run.imgsz > 0 ? QString::number(run.imgsz) : QStringLiteral("–"));
    item->setData(ImageSizeColumn, Qt::UserRole, run.imgsz);
    item->setText(EpochsColumn,
                  run.epochsPlanned > 0
                      ? QStringLiteral("%1/%2").arg(run.epochsDone).arg(run.epochsPlanned)
                      : QString::number(run.epochsDone));
    item->setData(EpochsColumn, Qt::UserRole, run.epochsDone);
    item->setData(EpochsColumn, Qt::UserRole + 1, run.epochsPlanned);
    item->setText(DurationColumn, durationText(run.durationSeconds));
    item->setData(DurationColumn, Qt::UserRole, run.durationSeconds);
    const QString budget = run.budgetBytes > 0 ? bytesOrDash(run.budgetBytes) : tr("no budget");
    item->setText(TrainPeakColumn,
                  QStringLiteral("%1 / %2").arg(bytesOrDash(peaks.trainPeak()), budget));
    item->setData(TrainPeakColumn, Qt::UserRole, static_cast<qlonglong>(peaks.trainPeak()));
    item->setData(TrainPeakColumn, Qt::UserRole + 1, static_cast<qlonglong>(run.budgetBytes));
    item->setText(ValPeakColumn, bytesOrDash(peaks.valPeak()));
    item->setData(ValPeakColumn, Qt::UserRole, static_cast<qlonglong>(peaks.valPeak()));
    const bool any = run.bestEpoch > 0;
    item->setText(Map50Column, any ? QString::number(run.bestMap50, 'f', 4) : QStringLiteral("–"));
    item->setData(Map50Column, Qt::UserRole, any ? run.bestMap50 : -1.0);
    item->setText(MapColumn, any ? QString::number(run.bestMap, 'f', 4) : QStringLiteral("–"));
    item->setData(MapColumn, Qt::UserRole, any ? run.bestMap : -1.0);
    item->setData(ModifiedColumn, Qt::UserRole, static_cast<qlonglong>(run.modifiedUnixSeconds));
    item->setText(ModifiedColumn, QDateTime::fromSecsSinceEpoch(run.modifiedUnixSeconds)
                                      .toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    item->setText(FolderColumn, QDir::toNativeSeparators(path));
    item->setToolTip(FolderColumn, QDir::toNativeSeparators(path));
}

QTreeWidgetItem* RunsPage::itemOf(const QString& runDir) const {
    const QString wanted = QFileInfo(runDir).absoluteFilePath();
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_list->topLevelItem(i);
        if (QFileInfo(item->data(RunColumn, Qt::UserRole).toString()).absoluteFilePath() == wanted)
            return item;
    }
    return nullptr;
}

void RunsPage::setActiveRun(const QString& runDir) {
    m_activeRun = runDir.isEmpty() ? QString() : QFileInfo(runDir).absoluteFilePath();
}

QMenu* RunsPage::contextMenuFor(QTreeWidgetItem* item) {
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("runMenu"));
    const QString dir = item->data(RunColumn, Qt::UserRole).toString();
    const bool active = !m_activeRun.isEmpty() && QFileInfo(dir).absoluteFilePath() == m_activeRun;
    QAction* open = menu->addAction(tr("Open folder"), this,
                                    [dir] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir)); });
    open->setObjectName(QStringLiteral("openFolder"));
    QAction* resume =
        menu->addAction(tr("Resume"), this, [this, dir] { emit resumeRequested(dir); });
    resume->setObjectName(QStringLiteral("resumeRun"));
    const bool checkpoint = QFileInfo::exists(dir + QStringLiteral("/weights/last.pt"));
    // A finished run has nothing left to continue; stopped, failed, stopped by an OOM and
    // unfinished (the studio ended mid-run) ones do.
    const bool finished =
        item->data(StateColumn, Qt::UserRole + 1).toString() == QLatin1String("finished");
    resume->setEnabled(checkpoint && !active && !finished);
    if (finished)
        resume->setToolTip(tr("This run finished all its epochs: there is nothing to resume."));
    else if (!checkpoint)
        resume->setToolTip(tr("This run has no weights/last.pt to continue from."));
    QAction* compare = menu->addAction(tr("Compare selected"), this, &RunsPage::compareSelected);
    compare->setObjectName(QStringLiteral("compareRuns"));
    compare->setEnabled(m_list->selectedItems().size() >= 2);
    menu->addSeparator();
    QAction* remove = menu->addAction(tr("Delete…"), this, [this, dir] { deleteRun(dir); });
    remove->setObjectName(QStringLiteral("deleteRun"));
    remove->setEnabled(!active);
    menu->setToolTipsVisible(true);
    return menu;
}

bool RunsPage::deleteRun(const QString& runDir) {
    if (!m_activeRun.isEmpty() && QFileInfo(runDir).absoluteFilePath() == m_activeRun)
        return false;
    QMessageBox ask(QMessageBox::Question, tr("Delete run"),
                    tr("Delete the run folder %1 with its weights, curves and logs? This cannot "
                       "be undone.")
                        .arg(QDir::toNativeSeparators(runDir)),
                    QMessageBox::Yes | QMessageBox::Cancel, this);
    ask.setObjectName(QStringLiteral("confirmDelete"));
    ask.setDefaultButton(QMessageBox::Cancel);
    if (ask.exec() != QMessageBox::Yes)
        return false;
    if (!QDir(runDir).removeRecursively()) {
        QMessageBox::warning(this, tr("Delete run"),
                             tr("Could not delete all of %1; check its permissions.")
                                 .arg(QDir::toNativeSeparators(runDir)));
        refresh();
        return false;
    }
    refresh();
    return true;
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
        return static_cast<double>(item->data(ModifiedColumn, Qt::UserRole).toLongLong());
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
        // The advisor's probe steps are not the run's memory: the line breaks over them.
        const bool probe = sample.phase == Phase::Probe;
        if (probe && !my.isEmpty() && std::isnan(my.back()))
            continue;
        mx << sample.seconds;
        my << (probe ? std::numeric_limits<double>::quiet_NaN() : sample.allocated / kMiB);
    }
    m_memory->setData(0, mx, my);
    m_loss->setEmptyText(tr("This run has not finished an epoch."));
    m_map->setEmptyText(tr("This run has not finished an epoch."));
    m_memory->setEmptyText(tr("This run recorded no memory samples."));
    for (PlotWidget* plot : {m_loss, m_map, m_memory})
        plot->resetView();
    m_results->showRun(runDir);
    emit runOpened(runDir);
    return true;
}

} // namespace hr::ui
