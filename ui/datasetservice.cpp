// SPDX-License-Identifier: GPL-3.0-or-later
#include "datasetservice.h"

#include "data/synthetic_dataset.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QThread>

namespace hr::ui {

DatasetService::DatasetService(QObject* parent) : QObject(parent) {}

DatasetService::~DatasetService() {
    if (m_cancel)
        m_cancel->store(true);
    m_stopJobs->store(true); // a conversion stops at its next progress call, writing nothing
    if (m_thread)
        m_thread->wait(); // it waits for the threads before it; children are deleted after
    for (QThread* job : m_jobs)
        job->wait();
}

void DatasetService::runJob(std::function<void()> work) {
    QThread* thread = QThread::create(std::move(work));
    thread->setParent(this);
    m_jobs.append(thread);
    connect(thread, &QThread::finished, this, [this, thread] {
        m_jobs.removeOne(thread);
        thread->deleteLater();
    });
    thread->start(QThread::LowPriority);
}

void DatasetService::inspect(const QString& path) {
    runJob([this, path] {
        const FolderLayout layout = hr::detectLayout(path.toStdString());
        QMetaObject::invokeMethod(
            this, [this, path, layout] { emit inspected(path, layout); }, Qt::QueuedConnection);
    });
}

void DatasetService::convert(hr::SourceFormat from, const QString& input, const QString& output,
                             const hr::ConvertOptions& given) {
    hr::ConvertOptions options = given;
    const auto stop = m_stopJobs;
    options.progress = [this, stop](int done, int total) {
        if (stop->load())
            return false;
        QMetaObject::invokeMethod(
            this, [this, done, total] { emit progress(done, total); }, Qt::QueuedConnection);
        return true;
    };
    runJob([this, from, input, output, options, stop] {
        const ConvertReport report =
            hr::convertDataset(from, input.toStdString(), output.toStdString(), options);
        if (stop->load())
            return;
        QMetaObject::invokeMethod(
            this,
            [this, report] {
                if (report.ok())
                    emit converted(report);
                else
                    emit failed(QString::fromStdString(report.error));
            },
            Qt::QueuedConnection);
    });
}

QString DatasetService::resolveDataYaml(const QString& path) {
    const QFileInfo info(path);
    if (info.isFile())
        return info.absoluteFilePath();
    if (!info.isDir())
        return {};
    const QDir dir(info.absoluteFilePath());
    if (dir.exists(QStringLiteral("data.yaml")))
        return dir.absoluteFilePath(QStringLiteral("data.yaml"));
    const QStringList yamls =
        dir.entryList({QStringLiteral("*.yaml"), QStringLiteral("*.yml")}, QDir::Files);
    if (yamls.size() == 1)
        return dir.absoluteFilePath(yamls.first());
    return {};
}

void DatasetService::scan(const QString& dataYaml, bool largeScanConfirmed) {
    launch(dataYaml, false, largeScanConfirmed);
}

void DatasetService::scanBuiltin() {
    launch(QString(), true);
}

void DatasetService::launch(const QString& dataYaml, bool builtin, bool largeScanConfirmed) {
    if (m_cancel)
        m_cancel->store(true);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    const int generation = ++m_generation;
    QThread* previous = m_thread;

    QThread* thread = QThread::create([this, dataYaml, builtin, largeScanConfirmed, cancel,
                                       generation, previous] {
        // One scan at a time: the cancelled one stops at its next progress call.
        if (previous)
            previous->wait();
        auto deliverError = [&](const QString& message) {
            QMetaObject::invokeMethod(
                this,
                [this, message, generation] {
                    if (generation == m_generation)
                        emit failed(message);
                },
                Qt::QueuedConnection);
        };
        auto scan = std::make_shared<DatasetScan>();
        DatasetScan& result = *scan;
        result.yamlPath = dataYaml;
        if (builtin) {
            std::string error;
            const std::string path = hr::ensureBuiltinDataset(&error);
            if (path.empty()) {
                deliverError(tr("Could not create the built-in sample: %1")
                                 .arg(QString::fromStdString(error)));
                return;
            }
            result.yamlPath = QString::fromStdString(path);
        }
        DataConfigResult loaded = hr::loadDataConfig(result.yamlPath.toStdString());
        result.configProblems = loaded.diagnostics;
        result.data = loaded.config;
        if (result.data) {
            ScanOptions options;
            options.largeScanConfirmed = largeScanConfirmed;
            options.progress = [this, cancel, generation](int done, int total) {
                if (cancel->load())
                    return false;
                QMetaObject::invokeMethod(
                    this,
                    [this, done, total, generation] {
                        if (generation == m_generation)
                            emit progress(done, total);
                    },
                    Qt::QueuedConnection);
                return true;
            };
            result.train = hr::scanDataset(*result.data, Split::Train, options);
            if (!cancel->load())
                result.val = hr::scanDataset(*result.data, Split::Val, options);
        }
        if (cancel->load())
            return;
        QMetaObject::invokeMethod(
            this,
            [this, done = std::shared_ptr<const DatasetScan>(std::move(scan)), generation] {
                if (generation == m_generation)
                    emit scanned(done);
            },
            Qt::QueuedConnection);
    });
    thread->setParent(this); // deleted with the service at the latest
    m_thread = thread;
    connect(thread, &QThread::finished, this, [this, thread, previous] {
        if (previous)
            previous->deleteLater(); // `thread` waited for it
        threadFinished(thread);
    });
    thread->start(QThread::LowPriority);
}

void DatasetService::threadFinished(QThread* thread) {
    // An older thread is deleted when its successor (which waits for it) finishes.
    if (thread == m_thread) {
        m_thread = nullptr;
        thread->deleteLater();
    }
}

} // namespace hr::ui
