// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportservice.h"

#include "deploy/weights_export.h"

#include <QThread>

#include <memory>

namespace hr::ui {

ExportService::ExportService(QObject* parent) : QObject(parent) {}

ExportService::~ExportService() {
    if (m_thread)
        m_thread->wait();
}

bool ExportService::start(const QString& weights, const QString& onnx, int imgsz) {
    if (m_thread)
        return false;
    auto result = std::make_shared<hr::ExportResult>();
    const std::string in = weights.toStdString(), out = onnx.toStdString();
    m_thread = QThread::create([result, in, out, imgsz] {
        *result = hr::exportWeightsFile(in, out, imgsz, /*opset=*/12);
    });
    m_thread->setObjectName(QStringLiteral("export"));
    connect(m_thread, &QThread::finished, this, [this, result] {
        m_thread->deleteLater();
        m_thread = nullptr;
        emit finished(result->ok, QString::fromStdString(result->message));
    });
    m_thread->start();
    return true;
}

} // namespace hr::ui
