// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QThread;

namespace hr::ui {

/// Exports a weights file to ONNX on a worker thread (core's exportWeightsFile: export, then
/// read back and run with OpenCV's DNN module), so the GUI thread never waits on the model.
class ExportService : public QObject {
    Q_OBJECT

public:
    explicit ExportService(QObject* parent = nullptr);
    /// Waits for a running export to finish.
    ~ExportService() override;

    /// Starts exporting `weights` to `onnx` at `imgsz` (0 = the trained size). Returns false,
    /// starting nothing, while another export runs.
    bool start(const QString& weights, const QString& onnx, int imgsz = 0);
    bool isRunning() const { return m_thread != nullptr; }

signals:
    /// `detail` is core's English report (what was written and checked, or why not).
    void finished(bool ok, const QString& detail);

private:
    QThread* m_thread = nullptr;
};

} // namespace hr::ui
