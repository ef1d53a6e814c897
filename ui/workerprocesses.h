// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "dist/launch_env.h"
#include "memory/memory_sample.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <memory>
#include <vector>

class QTemporaryDir;
class QTimer;

namespace hr::ui {

/// Ranks 1..N-1 of a data-parallel run started from the studio: `headroom-cli train --config
/// FILE` processes with torchrun's variables, the studio's process being rank 0. Follows the
/// memory.rank<k>.csv each worker writes in the run folder and emits its samples with the
/// worker's rank; reports each worker's end with how it ended and the end of its output. What
/// an end means for the run is the TrainingSession's decision. GUI thread only. The
/// destructor ends workers still running, without signals.
class WorkerProcesses : public QObject {
    Q_OBJECT
public:
    explicit WorkerProcesses(QObject* parent = nullptr);
    ~WorkerProcesses() override;

    /// The program that runs the workers (headroom-cli). Default: $HEADROOM_CLI, else
    /// headroom-cli next to this program.
    void setProgram(const QString& path) { m_program = path; }
    QString program() const;

    /// Starts ranks 1..config.nproc-1 and fills `rank0` with rank 0's variables (rendezvous on
    /// a free loopback port). False when any cannot start: those started are ended again and
    /// `why` says what went wrong (translated). With `largeScan` they scan a data set past the
    /// file limit too (`--yes`: the person agreed).
    bool start(const TrainConfig& config, LaunchEnv& rank0, QString* why, bool largeScan = false);
    /// Workers still running.
    int running() const { return m_running; }
    /// True while start() launches them (an end then is start()'s failure, not the run's).
    bool isStarting() const { return m_starting; }

    /// From now on, reads each worker's memory file in `runDir` every 250 ms.
    void followMemory(const QString& runDir);
    /// Reads what the workers' memory files gained since the last read.
    void readMemory();
    /// SIGTERM to every running worker: it leaves its rendezvous wait or its run.
    void terminateAll();
    /// Ends the workers still running after `grace` (at once for 0), saying so in the log.
    void endAfter(std::chrono::milliseconds grace);
    /// Every worker has ended: stop following them and drop their settings file.
    void finish();

signals:
    void memorySampled(const hr::MemorySample& sample);
    /// A worker ended: its exit code (-1: it could not start), whether it crashed, how it
    /// ended in words and the last lines of its output (both translated, may be empty).
    void workerEnded(int rank, int exitCode, bool crashed, const QString& how,
                     const QString& output);
    void logMessage(int level, const QString& text); ///< level: LogMessage::Level as int

private:
    struct Worker;
    void ended(int rank, int exitCode, bool crashed);
    void killAll();

    std::vector<std::unique_ptr<Worker>> m_workers;
    int m_running = 0;
    bool m_starting = false;
    QString m_program;
    QString m_runDir;
    QTimer* m_memoryPoll = nullptr;
    QTimer* m_grace = nullptr;
    std::unique_ptr<QTemporaryDir> m_configDir;
};

} // namespace hr::ui
