// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "datasetservice.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
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

    /// Opens a data.yaml or a folder holding one. Returns false (and says why on the page)
    /// when there is no data.yaml to open.
    bool openPath(const QString& path);
    void useBuiltin();
    /// The data.yaml shown, "" before any scan finished.
    QString dataYaml() const { return m_dataYaml; }

    QTreeWidget* problemList() const { return m_problems; }
    QListWidget* imageList() const { return m_images; }
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
    void showScan(const DatasetScan& scan);
    void showSplitImages();
    void showImage(int row);
    void setBusy(const QString& message);

    DatasetService* m_service;
    DatasetScan m_scan;
    QString m_dataYaml;
    QLabel* m_path;
    QLabel* m_summary;
    QProgressBar* m_progress;
    QTreeWidget* m_problems;
    QComboBox* m_split;
    QListWidget* m_images;
    ImageView* m_view;
    BarChart* m_classChart;
    BarChart* m_sizeChart;
};

} // namespace hr::ui
