// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/data_config.h"
#include "data/convert.h"
#include "data/dataset.h"
#include "util/diagnostic.h"

#include <QList>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QThread;

namespace hr::ui {

/// Everything the Data page shows about one data set.
struct DatasetScan {
    QString yamlPath;
    Diagnostics configProblems;     ///< from reading data.yaml
    std::optional<DataConfig> data; ///< empty when data.yaml could not be used
    DatasetReport train;
    DatasetReport val;
};

/// Reads a data.yaml and scans its train and val splits off the GUI thread (the adapter between
/// the Data page and core's scanDataset). A new request cancels the one in flight; only the
/// newest request's result is delivered. The destructor cancels and waits.
class DatasetService : public QObject {
    Q_OBJECT
public:
    explicit DatasetService(QObject* parent = nullptr);
    ~DatasetService() override;

    /// Scans the data set described by `dataYaml`. A scan whose folders hold more files than
    /// the limit stops there (`scan_too_large`) unless `largeScanConfirmed`.
    void scan(const QString& dataYaml, bool largeScanConfirmed = false);
    /// Generates the built-in sample once (see hr::ensureBuiltinDataset) and scans it.
    void scanBuiltin();
    bool isBusy() const { return m_thread != nullptr; }

    /// The data.yaml to use for a dropped or chosen path: the file itself, or `data.yaml`
    /// (else the only *.yaml) in a folder. Returns "" when there is none.
    static QString resolveDataYaml(const QString& path);

    /// Says what a folder without data.yaml holds (hr::detectLayout, off the GUI thread:
    /// it counts images). Answers with `inspected`.
    void inspect(const QString& path);
    /// Converts `input` to a YOLO data set in `output`, or for SourceFormat::Folder writes the
    /// missing data.yaml into `input`, off the GUI thread with `progress`. Answers with
    /// `converted` or `failed`.
    void convert(hr::SourceFormat from, const QString& input, const QString& output,
                 const hr::ConvertOptions& options);

signals:
    void progress(int done, int total);
    /// Shared, not copied: the GUI thread gets the scan of a large data set without a copy.
    void scanned(std::shared_ptr<const hr::ui::DatasetScan> result);
    void failed(const QString& message);
    void inspected(const QString& path, const hr::FolderLayout& layout);
    void converted(const hr::ConvertReport& report);

private:
    void launch(const QString& dataYaml, bool builtin, bool largeScanConfirmed = false);
    void threadFinished(QThread* thread);

    /// Runs `work` on its own thread; the destructor waits for it.
    void runJob(std::function<void()> work);

    QThread* m_thread = nullptr;
    QList<QThread*> m_jobs; ///< inspect and convert threads still running
    std::shared_ptr<std::atomic<bool>> m_stopJobs = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> m_cancel;
    int m_generation = 0;
};

} // namespace hr::ui
