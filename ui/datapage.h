// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "datasetservice.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QListView;
class QProgressBar;
class QTreeWidget;

namespace hr::ui {

class BarChart;
class ImageView;

/// The Data page: open a data.yaml or a folder (buttons, drag-and-drop, or the built-in
/// sample), the validation report with every problem file, an image browser with boxes and
/// class names, and class and box-size charts. Scans run in a DatasetService.
class DataPage : public QWidget {
    Q_OBJECT
public:
    explicit DataPage(DatasetService* service, QWidget* parent = nullptr);

    /// Opens a data.yaml or a folder. A folder without data.yaml is looked at off the GUI
    /// thread: a COCO, VOC, CVAT or Label Studio export is offered for conversion, images with
    /// YOLO labels for a written data.yaml (names and val share asked). Returns false (and says
    /// why on the page) when the path does not exist or is a file of no known kind.
    bool openPath(const QString& path);
    void useBuiltin();
    /// The data.yaml shown, "" before any scan finished.
    QString dataYaml() const { return m_dataYaml; }

    QTreeWidget* problemList() const { return m_problems; }
    QListView* imageList() const { return m_images; }
    ImageView* imageView() const { return m_view; }
    BarChart* classChart() const { return m_classChart; }
    BarChart* sizeChart() const { return m_sizeChart; }

public slots:
    void chooseFile();
    void chooseFolder();

signals:
    /// A data set was scanned and can be trained on.
    void datasetChosen(const QString& dataYaml);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void showScan(std::shared_ptr<const DatasetScan> scanned);
    /// A scan that stopped at its file limit: asks, and on Yes scans again, confirmed (true:
    /// that scan's result follows; on No this one is shown, its stop in the problem table).
    bool askToScanAll(const DatasetScan& scan);
    void showLayout(const QString& path, const hr::FolderLayout& layout);
    void askToConvert(const hr::FolderLayout& layout);
    void askToWriteDataYaml(const hr::FolderLayout& layout);
    void startConversion(hr::SourceFormat from, const QString& input, const QString& output,
                         const hr::ConvertOptions& options);
    void showConverted(const hr::ConvertReport& report);
    void showSplitImages();
    void showImage(int row);
    void setBusy(const QString& message);

    DatasetService* m_service;
    std::shared_ptr<const DatasetScan> m_scan; ///< null before the first scan
    QString m_dataYaml;
    QString m_pendingPath;         ///< the folder being looked at (a newer open replaces it)
    QString m_found;               ///< what the opened folder was, e.g. "a Roboflow export"
    Diagnostics m_convertProblems; ///< what the conversion left out, listed with the scan's
    QLabel* m_path;
    QLabel* m_summary;
    QProgressBar* m_progress;
    QTreeWidget* m_problems;
    QComboBox* m_split;
    QListView* m_images;
    class ImageListModel* m_imageModel;
    ImageView* m_view;
    BarChart* m_classChart;
    BarChart* m_sizeChart;
};

} // namespace hr::ui
