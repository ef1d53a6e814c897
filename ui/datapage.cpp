// SPDX-License-Identifier: GPL-3.0-or-later
#include "datapage.h"

#include "barchart.h"
#include "imageview.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace hr::ui {

namespace {

QString severityText(Diagnostic::Severity severity) {
    switch (severity) {
    case Diagnostic::Severity::Error:
        return DataPage::tr("error");
    case Diagnostic::Severity::Warning:
        return DataPage::tr("warning");
    case Diagnostic::Severity::Note:
        break;
    }
    return DataPage::tr("note");
}

QStringList namesOf(const DatasetScan& scan) {
    QStringList names;
    const std::vector<std::string>& source =
        !scan.train.names.empty() ? scan.train.names
                                  : (scan.data ? scan.data->names : std::vector<std::string>{});
    for (const std::string& name : source)
        names << QString::fromStdString(name);
    return names;
}

} // namespace

DataPage::DataPage(DatasetService* service, QWidget* parent) : QWidget(parent), m_service(service) {
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);

    auto* buttons = new QHBoxLayout;
    auto* openFile =
        new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Open data.yaml…"), this);
    auto* openFolder =
        new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Open folder…"), this);
    auto* builtin = new QPushButton(QIcon(QStringLiteral(":/icons/data.svg")),
                                    tr("Use the built-in sample"), this);
    builtin->setObjectName(QStringLiteral("useBuiltin"));
    buttons->addWidget(openFile);
    buttons->addWidget(openFolder);
    buttons->addWidget(builtin);
    buttons->addStretch(1);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    buttons->addWidget(m_progress);
    layout->addLayout(buttons);

    m_path = new QLabel(tr("No data set yet: open a data.yaml or a folder, drop one here, or use "
                           "the built-in sample."),
                        this);
    m_path->setWordWrap(true);
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_path);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    m_problems = new QTreeWidget(this);
    m_problems->setObjectName(QStringLiteral("problems"));
    m_problems->setRootIsDecorated(false);
    m_problems->setAlternatingRowColors(true);
    m_problems->setHeaderLabels(
        {tr("Severity"), tr("Split"), tr("File"), tr("Line"), tr("Problem"), tr("How to fix")});
    m_problems->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_problems->setColumnWidth(0, 70);
    m_problems->setColumnWidth(1, 50);
    m_problems->setColumnWidth(2, 220);
    m_problems->setColumnWidth(3, 40);
    m_problems->setColumnWidth(4, 260);

    auto* browser = new QWidget(this);
    auto* browserLayout = new QHBoxLayout(browser);
    browserLayout->setContentsMargins(0, 0, 0, 0);
    auto* listColumn = new QVBoxLayout;
    m_split = new QComboBox(browser);
    m_split->addItem(tr("Training images"));
    m_split->addItem(tr("Validation images"));
    m_images = new QListWidget(browser);
    m_images->setObjectName(QStringLiteral("images"));
    m_images->setMaximumWidth(220);
    listColumn->addWidget(m_split);
    listColumn->addWidget(m_images, 1);
    browserLayout->addLayout(listColumn);
    m_view = new ImageView(browser);
    browserLayout->addWidget(m_view, 1);

    m_classChart = new BarChart(tr("Classes"), this);
    m_classChart->addSeries(tr("objects"), 0);
    m_classChart->addSeries(tr("images"), 2);
    m_sizeChart = new BarChart(tr("Box size (fraction of the image)"), this);
    m_sizeChart->addSeries(tr("width"), 0);
    m_sizeChart->addSeries(tr("height"), 1);
    QStringList bins;
    for (int i = 0; i < 10; ++i)
        bins << QStringLiteral("%1–%2").arg(i / 10.0, 0, 'f', 1).arg((i + 1) / 10.0, 0, 'f', 1);
    m_sizeChart->setCategories(bins);
    m_classChart->setEmptyText(tr("Objects and images per class appear here once a data set is "
                                  "open."));
    m_sizeChart->setEmptyText(tr("How large the boxes are appears here once a data set is open."));

    auto* charts = new QSplitter(Qt::Vertical, this);
    charts->addWidget(m_classChart);
    charts->addWidget(m_sizeChart);
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(browser);
    top->addWidget(charts);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* main = new QSplitter(Qt::Vertical, this);
    main->addWidget(top);
    main->addWidget(m_problems);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 1);
    layout->addWidget(main, 1);

    connect(openFile, &QPushButton::clicked, this, &DataPage::chooseFile);
    connect(openFolder, &QPushButton::clicked, this, &DataPage::chooseFolder);
    connect(builtin, &QPushButton::clicked, this, &DataPage::useBuiltin);
    connect(m_split, &QComboBox::currentIndexChanged, this, &DataPage::showSplitImages);
    connect(m_images, &QListWidget::currentRowChanged, this, &DataPage::showImage);
    connect(m_service, &DatasetService::progress, this, [this](int done, int total) {
        m_progress->setRange(0, std::max(1, total));
        m_progress->setValue(done);
    });
    connect(m_service, &DatasetService::scanned, this, &DataPage::showScan);
    connect(m_service, &DatasetService::failed, this, [this](const QString& message) {
        m_progress->hide();
        m_summary->setText(message);
    });
}

void DataPage::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open data set"), QString(),
                                                      tr("Data set description (*.yaml *.yml)"));
    if (!path.isEmpty())
        openPath(path);
}

void DataPage::chooseFolder() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open data set folder"));
    if (!path.isEmpty())
        openPath(path);
}

bool DataPage::openPath(const QString& path) {
    const QString yaml = DatasetService::resolveDataYaml(path);
    if (yaml.isEmpty()) {
        m_summary->setText(tr("%1 holds no data.yaml. A data set folder needs a data.yaml that "
                              "names its train and val images and its classes.")
                               .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    setBusy(tr("Reading %1…").arg(QDir::toNativeSeparators(yaml)));
    m_service->scan(yaml);
    return true;
}

void DataPage::useBuiltin() {
    setBusy(tr("Preparing the built-in sample…"));
    m_service->scanBuiltin();
}

void DataPage::setBusy(const QString& message) {
    m_summary->setText(message);
    m_progress->setRange(0, 0);
    m_progress->show();
}

void DataPage::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void DataPage::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openPath(urls.first().toLocalFile());
        event->acceptProposedAction();
    }
}

void DataPage::showScan(const DatasetScan& scan) {
    m_progress->hide();
    m_scan = scan;
    m_path->setText(tr("Data set: %1").arg(QDir::toNativeSeparators(scan.yamlPath)));
    m_problems->clear();
    auto addProblems = [this](const Diagnostics& problems, const QString& split) {
        for (const Diagnostic& d : problems) {
            auto* item = new QTreeWidgetItem(m_problems);
            item->setText(0, severityText(d.severity));
            item->setText(1, split);
            item->setText(2, QString::fromStdString(d.file));
            item->setToolTip(2, QString::fromStdString(d.file));
            item->setText(3, d.line > 0 ? QString::number(d.line) : QString());
            item->setText(
                4, QString::fromStdString(d.key.empty() ? d.message : d.key + ": " + d.message));
            item->setToolTip(4, item->text(4));
            item->setText(5, QString::fromStdString(d.fix));
            item->setToolTip(5, item->text(5));
        }
    };
    addProblems(scan.configProblems, QStringLiteral("yaml"));
    addProblems(scan.train.problems, tr("train"));
    addProblems(scan.val.problems, tr("val"));

    if (!scan.data) {
        m_summary->setText(tr("This data.yaml cannot be used; the list below says why."));
        m_images->clear();
        m_view->clear();
        return;
    }
    const DatasetStats& t = scan.train.stats;
    const DatasetStats& v = scan.val.stats;
    m_summary->setText(
        tr("%1 classes. Training: %2 images (%3 without objects, %4 skipped), %5 objects, at most "
           "%6 in one image. Validation: %7 images, %8 objects. %9 problems listed below.")
            .arg(namesOf(scan).size())
            .arg(t.images)
            .arg(t.backgrounds)
            .arg(t.skipped)
            .arg(t.instances)
            .arg(t.maxObjectsPerImage)
            .arg(v.images)
            .arg(v.instances)
            .arg(m_problems->topLevelItemCount()));

    const QStringList names = namesOf(scan);
    m_classChart->setCategories(names);
    QVector<double> objects, images;
    for (int i = 0; i < names.size(); ++i) {
        objects << (i < int(t.instancesPerClass.size()) ? t.instancesPerClass[i] : 0);
        images << (i < int(t.imagesPerClass.size()) ? t.imagesPerClass[i] : 0);
    }
    m_classChart->setValues(0, objects);
    m_classChart->setValues(1, images);
    QVector<double> widths, heights;
    for (int i = 0; i < 10; ++i) {
        widths << t.boxWidthHistogram[i];
        heights << t.boxHeightHistogram[i];
    }
    m_sizeChart->setValues(0, widths);
    m_sizeChart->setValues(1, heights);

    showSplitImages();
    const bool usable = scan.train.usable();
    m_dataYaml = usable ? scan.yamlPath : QString();
    if (usable)
        emit datasetChosen(scan.yamlPath);
}

void DataPage::showSplitImages() {
    const DatasetReport& report = m_split->currentIndex() == 0 ? m_scan.train : m_scan.val;
    m_images->clear();
    for (const ImageRecord& record : report.images) {
        auto* item = new QListWidgetItem(
            QFileInfo(QString::fromStdString(record.imagePath)).fileName(), m_images);
        item->setToolTip(tr("%1\n%2 objects")
                             .arg(QString::fromStdString(record.imagePath))
                             .arg(record.labels.size()));
    }
    if (m_images->count() > 0)
        m_images->setCurrentRow(0);
    else
        m_view->clear();
}

void DataPage::showImage(int row) {
    const DatasetReport& report = m_split->currentIndex() == 0 ? m_scan.train : m_scan.val;
    if (row < 0 || row >= int(report.images.size())) {
        m_view->clear();
        return;
    }
    const ImageRecord& record = report.images[static_cast<size_t>(row)];
    m_view->setImage(QString::fromStdString(record.imagePath), record.labels, namesOf(m_scan));
}

} // namespace hr::ui
