// SPDX-License-Identifier: GPL-3.0-or-later
#include "resultsview.h"

#include "confusionmatrixview.h"
#include "numberitem.h"
#include "plotwidget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPointer>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

namespace hr::ui {

namespace {

const char* curveKind(int curve) {
    switch (curve) {
    case ResultsView::F1Curve:
        return "f1";
    case ResultsView::PrecisionCurve:
        return "precision";
    case ResultsView::RecallCurve:
        return "recall";
    default:
        return "pr";
    }
}

QVector<double> toVector(const std::vector<double>& values) {
    return QVector<double>(values.begin(), values.end());
}

} // namespace

struct ResultsView::Loaded {
    int generation = 0;
    QString runDir;
    std::shared_ptr<hr::ValidationTables> tables; ///< null when they could not be read
    QString failedFile;                           ///< then the file that could not be read
    bool missing = false; ///< and whether it is absent (no validation yet) or damaged
};

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(tr("Open a run to see what its last validation found."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);

    m_classes = new QTableWidget(0, 7, this);
    m_classes->setHorizontalHeaderLabels({tr("Class"), tr("Images"), tr("Instances"),
                                          tr("Precision"), tr("Recall"), tr("mAP50"),
                                          tr("mAP50-95")});
    m_classes->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_classes->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_classes->verticalHeader()->hide();
    m_classes->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_classes->setToolTip(tr("Click a column's title to sort by it."));
    m_tabs->addTab(m_classes, tr("Per class"));

    auto* matrixPage = new QWidget(this);
    auto* matrixLayout = new QVBoxLayout(matrixPage);
    m_normalised = new QCheckBox(tr("Normalised (each true class's column adds up to 1)"), this);
    m_normalised->setChecked(true);
    m_confusion = new ConfusionMatrixView(this);
    m_cell = new QLabel(tr("Click a cell to see what it holds."), this);
    m_cell->setWordWrap(true);
    matrixLayout->addWidget(m_normalised);
    matrixLayout->addWidget(m_confusion, 1);
    matrixLayout->addWidget(m_cell);
    m_cellImages = new QListWidget(this);
    m_cellImages->setMaximumHeight(120);
    m_cellImages->setToolTip(tr("The validation images behind the clicked cell, the image with "
                                "the most objects in it first."));
    matrixLayout->addWidget(m_cellImages);
    m_tabs->addTab(matrixPage, tr("Confusion matrix"));

    auto* curvePage = new QWidget(this);
    auto* curveLayout = new QVBoxLayout(curvePage);
    auto* pickers = new QHBoxLayout;
    m_curve = new QComboBox(this);
    m_curve->addItems({tr("Precision against recall"), tr("F1 against confidence"),
                       tr("Precision against confidence"), tr("Recall against confidence")});
    m_class = new QComboBox(this);
    pickers->addWidget(new QLabel(tr("Curve:"), this));
    pickers->addWidget(m_curve);
    pickers->addWidget(new QLabel(tr("Class:"), this));
    pickers->addWidget(m_class, 1);
    curveLayout->addLayout(pickers);
    m_plot = new PlotWidget(tr("Curves"), this);
    m_plot->setEmptyText(tr("This run has no validation curves yet."));
    m_plot->addSeries(tr("all classes"), 0);
    m_plot->addSeries(tr("class"), 1);
    curveLayout->addWidget(m_plot, 1);
    m_tabs->addTab(curvePage, tr("Curves"));

    connect(m_normalised, &QCheckBox::toggled, m_confusion, &ConfusionMatrixView::setNormalised);
    connect(m_confusion, &ConfusionMatrixView::cellClicked, this,
            &ResultsView::showCell);
    connect(m_curve, &QComboBox::currentIndexChanged, this, &ResultsView::showCurve);
    connect(m_class, &QComboBox::currentIndexChanged, this, &ResultsView::showCurve);
}

ResultsView::~ResultsView() {
    for (QThread* thread : m_threads)
        thread->wait();
}

QString ResultsView::summaryText() const {
    return m_summary->text();
}

void ResultsView::showRun(const QString& runDir) {
    m_runDir = runDir;
    m_loading = true;
    const int generation = ++m_generation;
    m_summary->setText(
        tr("Reading the validation results of %1...").arg(QDir::toNativeSeparators(runDir)));
    QPointer<ResultsView> self(this);
    QThread* thread = QThread::create([self, runDir, generation] {
        auto result = std::make_shared<Loaded>();
        result->generation = generation;
        result->runDir = runDir;
        auto tables = std::make_shared<hr::ValidationTables>();
        std::string error, file;
        if (hr::loadValidationTables(runDir.toStdString(), *tables, &error, &file,
                                     &result->missing))
            result->tables = tables;
        else
            result->failedFile = QString::fromStdString(file);
        // Queued: runs on the GUI thread, and not at all once the view is gone.
        QMetaObject::invokeMethod(
            self, [self, result] { self->apply(result); }, Qt::QueuedConnection);
    });
    m_threads << thread;
    connect(thread, &QThread::finished, this, [this, thread] {
        m_threads.removeOne(thread);
        thread->deleteLater();
    });
    thread->start(QThread::LowPriority);
}

void ResultsView::apply(const std::shared_ptr<const Loaded>& result) {
    if (result->generation != m_generation)
        return; // an older request
    m_loading = false;
    const QString where = QDir::toNativeSeparators(result->runDir);
    m_tables = result->tables;
    if (!m_tables) {
        m_summary->setText(
            result->missing
                ? tr("%1 has no validation results yet (%2): they are written after each "
                     "validation.")
                      .arg(where, result->failedFile)
                : tr("%1 of %2 is damaged and cannot be read; the next validation writes it "
                     "again.")
                      .arg(result->failedFile, where));
        m_classes->setRowCount(0);
        m_confusion->setTable({});
        m_cellImages->clear();
        m_class->clear();
        m_plot->clear();
        emit loaded(result->runDir, false);
        return;
    }
    const std::vector<hr::PerClassRow>& rows = m_tables->perClass;
    if (!rows.empty()) {
        const hr::PerClassRow& all = rows.front();
        m_summary->setText(tr("%1: %2 images, %3 objects. All classes: precision %4, recall %5, "
                              "mAP50 %6, mAP50-95 %7. Best F1 at confidence %8.")
                               .arg(where)
                               .arg(all.images)
                               .arg(all.instances)
                               .arg(all.precision, 0, 'f', 3)
                               .arg(all.recall, 0, 'f', 3)
                               .arg(all.ap50, 0, 'f', 3)
                               .arg(all.ap, 0, 'f', 3)
                               .arg(m_tables->curves.bestF1Confidence, 0, 'f', 3));
    }
    fillClasses();
    m_confusion->setTable(m_tables->confusion);
    m_cell->setText(tr("Click a cell to see what it holds."));
    m_cellImages->clear();
    {
        const QSignalBlocker block(m_class);
        m_class->clear();
        m_class->addItem(tr("All classes"), QStringLiteral("all"));
        for (std::size_t i = 1; i < rows.size(); ++i)
            m_class->addItem(QString::fromStdString(rows[i].name),
                             QString::fromStdString(rows[i].name));
    }
    showCurve();
    emit loaded(result->runDir, true);
}

void ResultsView::fillClasses() {
    m_classes->setSortingEnabled(false);
    const std::vector<hr::PerClassRow>& rows = m_tables->perClass;
    // The first row is "all": the summary says it, the table holds the classes.
    const int count = rows.empty() ? 0 : static_cast<int>(rows.size()) - 1;
    m_classes->setRowCount(count);
    for (int r = 0; r < count; ++r) {
        const hr::PerClassRow& row = rows[static_cast<std::size_t>(r) + 1];
        m_classes->setItem(r, ClassColumn, new QTableWidgetItem(QString::fromStdString(row.name)));
        m_classes->setItem(r, ImagesColumn,
                           new NumberItem(row.images, QString::number(row.images)));
        m_classes->setItem(r, InstancesColumn,
                           new NumberItem(row.instances, QString::number(row.instances)));
        const double values[4] = {row.precision, row.recall, row.ap50, row.ap};
        for (int i = 0; i < 4; ++i)
            m_classes->setItem(r, PrecisionColumn + i,
                               new NumberItem(values[i], QString::number(values[i], 'f', 3)));
    }
    m_classes->setSortingEnabled(true);
    // The classes in their own order until the user sorts by a column.
    m_classes->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
}

void ResultsView::showCell(int predicted, int actual) {
    m_cell->setText(m_confusion->cellText(predicted, actual));
    m_cellImages->clear();
    if (!m_tables)
        return;
    const std::vector<std::string>& names = m_tables->confusion.names;
    if (predicted >= int(names.size()) || actual >= int(names.size()))
        return;
    std::vector<const hr::ConfusionImageRow*> rows;
    for (const hr::ConfusionImageRow& row : m_tables->confusionImages)
        if (row.predicted == names[size_t(predicted)] && row.actual == names[size_t(actual)])
            rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto* a, const auto* b) { return a->count > b->count; });
    for (const hr::ConfusionImageRow* row : rows) {
        const QString path = QDir::toNativeSeparators(QString::fromStdString(row->image));
        auto* item = new QListWidgetItem(tr("%1 (%n object(s))", "", row->count).arg(path));
        item->setToolTip(path);
        m_cellImages->addItem(item);
    }
    if (rows.empty() && m_tables->confusionImages.empty() && m_confusion->cellValue(predicted, actual) > 0)
        m_cellImages->addItem(tr("This run's files do not say which images these are: they "
                                 "are written from this version on, at each validation."));
}

void ResultsView::showCurve() {
    m_plot->clear();
    m_plot->clearMarkers();
    if (!m_tables)
        return;
    const int curve = m_curve->currentIndex();
    const bool pr = curve == PrCurve;
    const QString names[4] = {tr("precision"), tr("F1"), tr("precision"), tr("recall")};
    m_plot->setAxisLabels(pr ? tr("recall") : tr("confidence"), names[curve]);
    const hr::CurveTable& curves = m_tables->curves;
    const QVector<double> x = toVector(curves.grid);
    const auto show = [&](int series, const std::string& name) {
        if (const hr::CurveRow* row = curves.find(curveKind(curve), name))
            m_plot->setData(series, x, toVector(row->values));
    };
    show(0, "all");
    const QString chosen = m_class->currentData().toString();
    const bool oneClass = !chosen.isEmpty() && chosen != QLatin1String("all");
    QCPGraph* classGraph = m_plot->plot()->graph(1);
    if (oneClass) {
        m_plot->setSeriesName(1, chosen);
        show(1, chosen.toStdString());
        classGraph->addToLegend();
    } else {
        classGraph->removeFromLegend(); // no class picked: no entry for an empty line
    }
    if (!pr && curves.bestF1Confidence > 0)
        m_plot->addMarker(curves.bestF1Confidence,
                          tr("best F1 at %1").arg(curves.bestF1Confidence, 0, 'f', 3),
                          palette().color(QPalette::Highlight));
    m_plot->resetView();
}

} // namespace hr::ui
