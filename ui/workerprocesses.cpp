// SPDX-License-Identifier: GPL-3.0-or-later
#include "workerprocesses.h"

#include "trainingsession.h"

#include "dist/worker_launcher.h"
#include "memory/memory_sampler.h"
#include "train/events.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTimer>

namespace hr::ui {

// The texts keep TrainingSession's translation context: the session shows them as its own.

namespace {

/// The last `count` lines of a worker's output, indented, for the log and the failure.
QString lastLines(const QByteArray& output, int count) {
    QString lines = QString::fromLocal8Bit(hr::lastLines(output.toStdString(), count, "    "));
    lines.chop(1); // the last newline
    return lines;
}

} // namespace

struct WorkerProcesses::Worker {
    int rank = 0;
    QProcess* process = nullptr; ///< a child of the WorkerProcesses
    bool running = false;
    qint64 offset = 0;  ///< bytes of memory.rank<k>.csv read so far
    QByteArray partial; ///< the start of a line not yet complete
};

WorkerProcesses::WorkerProcesses(QObject* parent) : QObject(parent) {
    m_memoryPoll = new QTimer(this);
    m_memoryPoll->setInterval(250);
    connect(m_memoryPoll, &QTimer::timeout, this, &WorkerProcesses::readMemory);
    m_grace = new QTimer(this);
    m_grace->setSingleShot(true);
    connect(m_grace, &QTimer::timeout, this, [this] {
        for (auto& w : m_workers)
            if (w->running) {
                emit logMessage(
                    int(LogMessage::Level::Warning),
                    TrainingSession::tr("rank %1 is still running %2 s after rank 0 ended; "
                                        "terminating it")
                        .arg(w->rank)
                        .arg(kWorkerGrace.count()));
                w->process->terminate();
            }
    });
}

WorkerProcesses::~WorkerProcesses() {
    // Rank 0 has ended, so the workers' next collective fails; end them now without signals.
    for (auto& w : m_workers) {
        QObject::disconnect(w->process, nullptr, this, nullptr);
        if (w->running) {
            w->process->terminate();
            if (!w->process->waitForFinished(5000)) {
                w->process->kill();
                w->process->waitForFinished(5000);
            }
        }
    }
}

QString WorkerProcesses::program() const {
    if (!m_program.isEmpty())
        return m_program;
    const QByteArray fromEnv = qgetenv("HEADROOM_CLI");
    if (!fromEnv.isEmpty())
        return QString::fromLocal8Bit(fromEnv);
    return QCoreApplication::applicationDirPath() + QStringLiteral("/headroom-cli");
}

bool WorkerProcesses::start(const TrainConfig& config, LaunchEnv& rank0, QString* why,
                            bool largeScan) {
    const QString program = this->program();
    const QFileInfo info(program);
    if (!info.isFile() || !info.isExecutable()) {
        *why = TrainingSession::tr("the worker program %1 does not exist or is not executable (set "
                                   "HEADROOM_CLI to the path of headroom-cli)")
                   .arg(program);
        return false;
    }
    const int port = freeLocalPort();
    if (port <= 0) {
        *why = TrainingSession::tr("no free TCP port on the loopback interface for the rendezvous");
        return false;
    }
    auto dir = std::make_unique<QTemporaryDir>();
    const QString file = dir->filePath(QStringLiteral("config.yaml"));
    std::string error;
    if (!dir->isValid() || !saveTrainConfig(config, file.toStdString(), &error)) {
        *why = TrainingSession::tr("cannot write the workers' settings file: %1")
                   .arg(error.empty() ? dir->errorString() : QString::fromStdString(error));
        return false;
    }

    rank0 = LaunchEnv{};
    rank0.rank = 0;
    rank0.worldSize = config.nproc;
    rank0.localRank = 0;
    rank0.localWorldSize = config.nproc;
    rank0.masterAddr = "127.0.0.1";
    rank0.masterPort = port;

    m_configDir = std::move(dir);
    m_runDir.clear();
    for (auto& w : m_workers)
        w->process->deleteLater();
    m_workers.clear();
    m_running = 0;
    for (int rank = 1; rank < config.nproc; ++rank) {
        auto worker = std::make_unique<Worker>();
        worker->rank = rank;
        worker->process = new QProcess(this);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("RANK"), QString::number(rank));
        env.insert(QStringLiteral("WORLD_SIZE"), QString::number(config.nproc));
        env.insert(QStringLiteral("LOCAL_RANK"), QString::number(rank));
        env.insert(QStringLiteral("LOCAL_WORLD_SIZE"), QString::number(config.nproc));
        env.insert(QStringLiteral("MASTER_ADDR"), QString::fromStdString(rank0.masterAddr));
        env.insert(QStringLiteral("MASTER_PORT"), QString::number(port));
        worker->process->setProcessEnvironment(env);
        worker->process->setProcessChannelMode(QProcess::MergedChannels);
        worker->process->setProgram(program);
        QStringList arguments = {QStringLiteral("train"), QStringLiteral("--config"), file};
        if (largeScan)
            arguments << QStringLiteral("--yes");
        worker->process->setArguments(arguments);
        connect(worker->process, &QProcess::finished, this,
                [this, rank](int code, QProcess::ExitStatus status) {
                    ended(rank, code, status == QProcess::CrashExit);
                });
        connect(worker->process, &QProcess::errorOccurred, this,
                [this, rank](QProcess::ProcessError error) {
                    if (error == QProcess::FailedToStart)
                        ended(rank, -1, true);
                });
        worker->running = true;
        ++m_running;
        QProcess* process = worker->process;
        m_workers.push_back(std::move(worker));
        m_starting = true; // a start failure is reported below, not as the run's end
        process->start();
        m_starting = false;
        if (!m_workers.back()->running) {
            const QString error = process->errorString();
            killAll();
            *why =
                TrainingSession::tr("rank %1 (%2) did not start: %3").arg(rank).arg(program, error);
            return false;
        }
    }
    emit logMessage(int(LogMessage::Level::Info),
                    TrainingSession::tr("Started ranks 1-%1 as %2 (rendezvous on 127.0.0.1:%3).")
                        .arg(config.nproc - 1)
                        .arg(program)
                        .arg(port));
    return true;
}

void WorkerProcesses::killAll() {
    for (auto& w : m_workers) {
        QObject::disconnect(w->process, nullptr, this, nullptr);
        if (w->running) {
            w->process->kill();
            w->process->waitForFinished(5000);
        }
        w->process->deleteLater();
    }
    m_workers.clear();
    m_running = 0;
    m_configDir.reset();
}

void WorkerProcesses::followMemory(const QString& runDir) {
    m_runDir = runDir;
    m_memoryPoll->start();
}

void WorkerProcesses::readMemory() {
    if (m_runDir.isEmpty())
        return;
    for (auto& w : m_workers) {
        QFile file(QStringLiteral("%1/memory.rank%2.csv").arg(m_runDir).arg(w->rank));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        if (file.size() < w->offset) { // rewritten: read it again
            w->offset = 0;
            w->partial.clear();
        }
        if (file.size() == w->offset || !file.seek(w->offset))
            continue;
        const QByteArray bytes = file.readAll();
        w->offset += bytes.size();
        w->partial += bytes;
        const qsizetype end = w->partial.lastIndexOf('\n');
        if (end < 0)
            continue;
        const std::string complete = w->partial.left(end + 1).toStdString();
        w->partial.remove(0, end + 1);
        for (MemorySample sample : MemorySampler::parseCsv(complete)) {
            sample.rank = w->rank;
            emit memorySampled(sample);
        }
    }
}

void WorkerProcesses::ended(int rank, int exitCode, bool crashed) {
    for (auto& w : m_workers) {
        if (w->rank != rank || !w->running)
            continue;
        w->running = false;
        --m_running;
        const QString output = lastLines(w->process->readAll(), 8);
        const QString how =
            exitCode < 0
                ? TrainingSession::tr("could not start (%1)").arg(w->process->errorString())
            : crashed ? TrainingSession::tr("crashed (ended by a signal)")
                      : TrainingSession::tr("exited with status %1").arg(exitCode);
        readMemory();
        emit workerEnded(rank, exitCode, crashed, how, output);
        return;
    }
}

void WorkerProcesses::terminateAll() {
    for (auto& w : m_workers)
        if (w->running)
            w->process->terminate();
}

void WorkerProcesses::endAfter(std::chrono::milliseconds grace) {
    m_grace->start(grace);
}

void WorkerProcesses::finish() {
    m_memoryPoll->stop();
    m_grace->stop();
    m_configDir.reset();
}

} // namespace hr::ui
