// SPDX-License-Identifier: GPL-3.0-or-later
#include "datapage.h"

#include "barchart.h"
#include "diagnosticwording.h"
#include "imageview.h"
#include "startquestion.h"

#include <QAbstractListModel>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

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

QString formatName(SourceFormat format) {
    switch (format) {
    case SourceFormat::Coco:
        return DataPage::tr("COCO JSON");
    case SourceFormat::Voc:
        return DataPage::tr("Pascal VOC XML");
    case SourceFormat::CvatYolo:
        return DataPage::tr("a CVAT YOLO export");
    case SourceFormat::LabelStudioYolo:
        return DataPage::tr("a Label Studio YOLO export");
    case SourceFormat::Folder:
        break;
    }
    return DataPage::tr("images with YOLO labels");
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

/// The images of one split for the list beside the viewer. Rows are made when they are shown,
/// so opening a data set of any size costs the GUI thread no work per image.
class ImageListModel : public QAbstractListModel {
public:
    using QAbstractListModel::QAbstractListModel;
    void setImages(const std::vector<ImageRecord>* images) {
        beginResetModel();
        m_images = images;
        endResetModel();
    }
    int rowCount(const QModelIndex& parent = QModelIndex()) const override {
        return parent.isValid() || !m_images ? 0 : static_cast<int>(m_images->size());
    }
    QVariant data(const QModelIndex& index, int role) const override {
        if (!index.isValid() || index.row() >= rowCount())
            return {};
        const ImageRecord& record = (*m_images)[static_cast<size_t>(index.row())];
        const QString path = QString::fromStdString(record.imagePath);
        if (role == Qt::DisplayRole)
            return QFileInfo(path).fileName();
        if (role == Qt::ToolTipRole)
            return DataPage::tr("%1\n%2 objects").arg(path).arg(record.labels.size());
        return {};
    }

private:
    const std::vector<ImageRecord>* m_images = nullptr;
};

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
    m_images = new QListView(browser);
    m_images->setObjectName(QStringLiteral("images"));
    m_images->setUniformItemSizes(true); // no per-row size pass over a large data set
    m_imageModel = new ImageListModel(m_images);
    m_images->setModel(m_imageModel);
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
    connect(m_images->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showImage(current.row()); });
    connect(m_service, &DatasetService::progress, this, [this](int done, int total) {
        m_progress->setRange(0, std::max(1, total));
        m_progress->setValue(done);
    });
    connect(m_service, &DatasetService::scanned, this, &DataPage::showScan);
    connect(m_service, &DatasetService::inspected, this, &DataPage::showLayout);
    connect(m_service, &DatasetService::converted, this, &DataPage::showConverted);
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
    m_found.clear();
    m_convertProblems.clear();
    const QFileInfo info(path);
    const QString yaml = DatasetService::resolveDataYaml(path);
    if (!yaml.isEmpty() && !(info.isFile() && info.suffix().toLower() == QLatin1String("json"))) {
        if (info.isDir()) {
            // Roboflow's export opens as it is; saying so explains its "../" paths.
            QFile file(yaml);
            if (file.open(QIODevice::ReadOnly) && file.read(1 << 16).contains("\nroboflow:"))
                m_found = tr("a Roboflow export");
        }
        m_pendingPath.clear();
        setBusy(tr("Reading %1…").arg(QDir::toNativeSeparators(yaml)));
        m_service->scan(yaml);
        return true;
    }
    if (!info.exists() || !(info.isDir() || info.suffix().toLower() == QLatin1String("json"))) {
        m_summary->setText(tr("%1 is neither a data.yaml nor a folder. Open a data.yaml, a "
                              "data set folder, or an annotation tool's export folder.")
                               .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    m_pendingPath = info.absoluteFilePath();
    setBusy(tr("Looking at %1…").arg(QDir::toNativeSeparators(m_pendingPath)));
    m_service->inspect(m_pendingPath);
    return true;
}

void DataPage::showLayout(const QString& path, const hr::FolderLayout& layout) {
    if (path != m_pendingPath)
        return; // an older folder's answer
    m_progress->hide();
    switch (layout.kind) {
    case FolderLayout::Kind::DataYaml:
        setBusy(tr("Reading %1…").arg(QString::fromStdString(layout.dataYaml)));
        m_service->scan(QString::fromStdString(layout.dataYaml));
        break;
    case FolderLayout::Kind::Convertible:
        askToConvert(layout);
        break;
    case FolderLayout::Kind::ImagesAndLabels:
        askToWriteDataYaml(layout);
        break;
    case FolderLayout::Kind::Nothing:
        m_summary->setText(
            tr("%1 holds no data.yaml and no data set Headroom recognises: a COCO JSON, Pascal "
               "VOC XML, a CVAT or Label Studio YOLO export, or images with YOLO .txt labels.")
                .arg(QDir::toNativeSeparators(path)));
        break;
    }
}

void DataPage::askToConvert(const hr::FolderLayout& layout) {
    const QString input = QString::fromStdString(layout.input);
    const QString output = QString::fromStdString(hr::defaultConvertOutput(layout.input));
    const QString format = formatName(*layout.format);
    QStringList files;
    for (const auto& f : layout.files)
        files << QDir::toNativeSeparators(QString::fromStdString(f));
    QString found;
    switch (*layout.format) {
    case SourceFormat::Coco:
        found = tr("COCO JSON (%1)").arg(files.join(QStringLiteral(", ")));
        break;
    case SourceFormat::Voc:
        found =
            tr("Pascal VOC XML (%1 annotation files in %2)").arg(layout.images).arg(files.value(0));
        break;
    default:
        found = format;
        break;
    }
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Convert the data set?"),
        tr("%1 holds %2.\n\nConvert it to a YOLO data set in %3? "
           "The original files stay as they are; images are linked or "
           "copied.")
            .arg(QDir::toNativeSeparators(input), found, QDir::toNativeSeparators(output)),
        QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("convertPrompt"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* convert = box->addButton(tr("Convert"), QMessageBox::AcceptRole);
    convert->setObjectName(QStringLiteral("convertButton"));
    box->setDefaultButton(convert);
    if (*layout.format == SourceFormat::Voc)
        box->setCheckBox(new QCheckBox(tr("Leave out objects marked difficult"), box));
    const SourceFormat from = *layout.format;
    connect(box, &QMessageBox::buttonClicked, this,
            [this, box, convert, from, input, output, format](QAbstractButton* clicked) {
                if (clicked != convert) {
                    m_summary->setText(tr("Not converted."));
                    return;
                }
                hr::ConvertOptions options;
                options.skipDifficult = box->checkBox() && box->checkBox()->isChecked();
                m_found = tr("converted from %1").arg(format);
                startConversion(from, input, output, options);
            });
    box->open();
}

void DataPage::askToWriteDataYaml(const hr::FolderLayout& layout) {
    const QString folder = QString::fromStdString(layout.input);
    auto* dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("writeDataYamlDialog"));
    dialog->setWindowTitle(tr("Write a data.yaml"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layoutBox = new QVBoxLayout(dialog);
    const QString native = QDir::toNativeSeparators(folder);
    const QString what =
        layout.labelStudio
            ? tr("%1 is a Label Studio YOLO export (classes.txt, images/, labels/) without a "
                 "data.yaml.")
                  .arg(native)
        : layout.labelsBeside
            ? tr("%1 holds images with YOLO .txt labels beside them but no data.yaml.").arg(native)
            : tr("%1 holds images/ and labels/ but no data.yaml.").arg(native);
    auto* intro = new QLabel(
        what + QLatin1Char(' ') +
            tr("Images found: %1. Headroom can write a data.yaml here, splitting the images into "
               "training and validation as Ultralytics' autosplit does (autosplit_train.txt, "
               "autosplit_val.txt).")
                .arg(layout.images),
        dialog);
    intro->setWordWrap(true);
    layoutBox->addWidget(intro);
    auto* form = new QFormLayout;
    QStringList names;
    for (const auto& n : layout.names)
        names << QString::fromStdString(n);
    auto* namesEdit = new QLineEdit(names.join(QStringLiteral(", ")), dialog);
    namesEdit->setObjectName(QStringLiteral("classNames"));
    namesEdit->setToolTip(tr("One name per class id, in id order, separated by commas."));
    form->addRow(tr("Class names (id 0, 1, …):"), namesEdit);
    auto* valShare = new QSpinBox(dialog);
    valShare->setObjectName(QStringLiteral("valPercent"));
    valShare->setRange(1, 50);
    valShare->setValue(10);
    valShare->setSuffix(QStringLiteral(" %"));
    form->addRow(tr("Validation share:"), valShare);
    layoutBox->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, dialog);
    QPushButton* write = buttons->addButton(tr("Write data.yaml"), QDialogButtonBox::AcceptRole);
    write->setObjectName(QStringLiteral("writeButton"));
    layoutBox->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(dialog, &QDialog::rejected, this,
            [this] { m_summary->setText(tr("No data.yaml written.")); });
    connect(dialog, &QDialog::accepted, this, [this, dialog, namesEdit, valShare, folder] {
        hr::ConvertOptions options;
        for (const QString& name : namesEdit->text().split(QLatin1Char(',')))
            if (!name.trimmed().isEmpty())
                options.names.push_back(name.trimmed().toStdString());
        options.valFraction = valShare->value() / 100.0;
        (void)dialog;
        m_found = tr("data.yaml written by Headroom");
        startConversion(SourceFormat::Folder, folder, QString(), options);
    });
    dialog->open();
}

void DataPage::startConversion(hr::SourceFormat from, const QString& input, const QString& output,
                               const hr::ConvertOptions& options) {
    setBusy(from == SourceFormat::Folder
                ? tr("Writing data.yaml in %1…").arg(QDir::toNativeSeparators(input))
                : tr("Converting %1 to %2…")
                      .arg(QDir::toNativeSeparators(input), QDir::toNativeSeparators(output)));
    m_service->convert(from, input, output, options);
}

void DataPage::showConverted(const hr::ConvertReport& report) {
    m_convertProblems = report.problems;
    QStringList written;
    for (const auto& split : report.splits) {
        const QString name = split.split == "train" ? tr("training")
                             : split.split == "val" ? tr("validation")
                                                    : tr("test");
        written << (split.objects >= 0 ? tr("%1: %2 images, %3 objects, %4 backgrounds")
                                             .arg(name)
                                             .arg(split.images)
                                             .arg(split.objects)
                                             .arg(split.backgrounds)
                                       : tr("%1: %2 images").arg(name).arg(split.images));
    }
    if (report.autosplit)
        written << tr("split %1/%2 by Ultralytics' autosplit")
                       .arg(std::lround(100 * (1 - report.valFraction)))
                       .arg(std::lround(100 * report.valFraction));
    int left = 0;
    for (const auto& entry : report.skipped)
        left += entry.second;
    if (left > 0)
        written << tr("entries left out or changed: %1, listed below").arg(left);
    m_found += QStringLiteral(": ") + written.join(QStringLiteral("; "));
    setBusy(tr("Reading %1…").arg(QString::fromStdString(report.dataYaml)));
    m_service->scan(QString::fromStdString(report.dataYaml));
}

void DataPage::useBuiltin() {
    m_found.clear();
    m_convertProblems.clear();
    m_pendingPath.clear();
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

bool DataPage::askToScanAll(const DatasetScan& scan) {
    const Diagnostic* large = largeScanProblem(scan.train);
    if (!large)
        large = largeScanProblem(scan.val);
    if (!large || large->args.size() < 2 ||
        !StartQuestion::ask(this, large->code, {large->file, large->args[0], large->args[1]}))
        return false;
    setBusy(tr("Reading %1…").arg(QDir::toNativeSeparators(scan.yamlPath)));
    m_service->scan(scan.yamlPath, true);
    return true;
}

void DataPage::showScan(std::shared_ptr<const DatasetScan> scanned) {
    if (askToScanAll(*scanned))
        return;
    m_progress->hide();
    m_imageModel->setImages(nullptr); // its rows belong to the scan replaced here
    m_scan = std::move(scanned);
    const DatasetScan& scan = *m_scan;
    m_path->setText(
        m_found.isEmpty()
            ? tr("Data set: %1").arg(QDir::toNativeSeparators(scan.yamlPath))
            : tr("Data set: %1 (%2)").arg(QDir::toNativeSeparators(scan.yamlPath), m_found));
    m_problems->clear();
    // Rows are widget items made here, on the GUI thread: a data set with a problem in every
    // label file gets the first kShownProblems and a row that says where the rest are.
    constexpr int kShownProblems = 1000;
    int problemCount = 0;
    auto addProblems = [this, &problemCount](const Diagnostics& problems, const QString& split) {
        for (const Diagnostic& d : problems) {
            if (++problemCount > kShownProblems)
                continue;
            auto* item = new QTreeWidgetItem(m_problems);
            item->setText(0, severityText(d.severity));
            item->setText(1, split);
            item->setText(2, QString::fromStdString(d.file));
            item->setToolTip(2, QString::fromStdString(d.file));
            item->setText(3, d.line > 0 ? QString::number(d.line) : QString());
            item->setText(4, DiagnosticWording::problem(d));
            item->setToolTip(4, item->text(4));
            item->setText(5, DiagnosticWording::fix(d));
            item->setToolTip(5, item->text(5));
        }
    };
    addProblems(m_convertProblems, tr("convert"));
    addProblems(scan.configProblems, tr("yaml"));
    addProblems(scan.train.problems, tr("train"));
    addProblems(scan.val.problems, tr("val"));
    if (problemCount > kShownProblems) {
        auto* item = new QTreeWidgetItem(m_problems);
        item->setText(4, tr("Problems not listed here: %1").arg(problemCount - kShownProblems));
        item->setText(5, tr("headroom-cli data-check --data %1 lists them all")
                             .arg(QDir::toNativeSeparators(scan.yamlPath)));
        item->setToolTip(5, item->text(5));
    }

    if (!scan.data) {
        m_summary->setText(tr("This data.yaml cannot be used; the list below says why."));
        // The charts must not go on showing the data set opened before this one.
        m_classChart->clearValues();
        m_sizeChart->clearValues();
        m_imageModel->setImages(nullptr);
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
            .arg(problemCount));

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
    if (!m_scan)
        return;
    const DatasetReport& report = m_split->currentIndex() == 0 ? m_scan->train : m_scan->val;
    m_imageModel->setImages(&report.images);
    if (m_imageModel->rowCount() > 0)
        m_images->setCurrentIndex(m_imageModel->index(0));
    else
        m_view->clear();
}

void DataPage::showImage(int row) {
    if (!m_scan) {
        m_view->clear();
        return;
    }
    const DatasetReport& report = m_split->currentIndex() == 0 ? m_scan->train : m_scan->val;
    if (row < 0 || row >= int(report.images.size())) {
        m_view->clear();
        return;
    }
    const ImageRecord& record = report.images[static_cast<size_t>(row)];
    m_view->setImage(QString::fromStdString(record.imagePath), record.labels, namesOf(*m_scan));
}

} // namespace hr::ui
