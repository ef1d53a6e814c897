// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparisonsession.h"

#include "compare/strategy_runner.h"
#include "devicelock.h"
#include "strategyeditor.h"

#include <QThread>

namespace hr::ui {

ComparisonSession::ComparisonSession(QObject* parent) : QObject(parent) {}

ComparisonSession::~ComparisonSession() {
    if (m_thread) {
        stop();
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
}

bool ComparisonSession::start(const TrainConfig& base, const std::vector<Strategy>& strategies,
                              QString* error) {
    if (m_thread) {
        if (error)
            *error = tr("A comparison is already running.");
        return false;
    }
    for (const Strategy& strategy : strategies) {
        Diagnostics problems;
        if (!applyStrategy(base, strategy, problems)) {
            if (error) {
                QStringList lines;
                for (const Diagnostic& d : problems)
                    if (d.severity == Diagnostic::Severity::Error)
                        lines << StrategyEditor::problemLine(strategy.name, d);
                *error = lines.join(QLatin1Char('\n'));
            }
            return false;
        }
    }
    m_strategies = strategies;
    m_result = std::make_shared<Comparison>();
    auto runner = std::make_shared<StrategyRunner>(base, strategies);
    // The sink runs on the worker thread: queue a copy of each event to the GUI thread.
    runner->setEventSink([this](size_t index, const TrainEvent& event) {
        if (std::holds_alternative<BatchEnd>(event) || std::holds_alternative<MemorySample>(event))
            return;
        QMetaObject::invokeMethod(
            this, [this, index, event] { dispatch(index, event); }, Qt::QueuedConnection);
    });
    {
        std::lock_guard<std::mutex> lock(m_runnerMutex);
        m_runner = runner.get();
    }
    std::shared_ptr<Comparison> result = m_result;
    m_thread = QThread::create([this, runner, result]() mutable {
        {
            // One device user at a time: a training run or an estimate waits for the matrix.
            const std::lock_guard<std::timed_mutex> device(deviceLock());
            *result = runner->run();
        }
        {
            std::lock_guard<std::mutex> lock(m_runnerMutex);
            m_runner = nullptr;
        }
        runner.reset();
    });
    m_thread->setObjectName(QStringLiteral("comparison"));
    connect(m_thread, &QThread::finished, this, &ComparisonSession::threadDone);
    m_thread->start();
    emit runningChanged(true);
    return true;
}

void ComparisonSession::stop() {
    std::lock_guard<std::mutex> lock(m_runnerMutex);
    if (m_runner)
        m_runner->requestStop();
}

void ComparisonSession::compareFolders(const QStringList& runDirs) {
    std::vector<std::string> dirs;
    for (const QString& dir : runDirs)
        dirs.push_back(dir.toStdString());
    m_comparison = hr::compareRunFolders(dirs);
    emit comparisonReady(m_comparison);
}

void ComparisonSession::dispatch(size_t index, const TrainEvent& event) {
    const int i = static_cast<int>(index);
    if (const auto* e = std::get_if<RunStarted>(&event)) {
        const QString name = index < m_strategies.size()
                                 ? QString::fromStdString(m_strategies[index].name)
                                 : QString();
        emit strategyStarted(i, name, QString::fromStdString(e->runDir));
    } else if (const auto* e = std::get_if<EpochEnd>(&event)) {
        emit epochEnded(i, *e);
    } else if (const auto* e = std::get_if<OomOccurred>(&event)) {
        emit oomOccurred(i, QString::fromLatin1(toString(e->report.phase)));
    }
}

void ComparisonSession::threadDone() {
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_comparison = m_result ? *m_result : Comparison{};
    m_result.reset();
    emit runningChanged(false);
    emit comparisonReady(m_comparison);
}

} // namespace hr::ui
