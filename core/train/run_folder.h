// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/memory_sample.h"
#include "train/events.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hr {

/// The folder of one training run, `<project>/<name>/`, and the files the trainer writes there:
/// config.yaml, results.csv (Ultralytics' columns plus epoch_seconds, images_per_s,
/// peak_memory_bytes), events.jsonl, memory.csv, oom-<n>.json and weights/. Every file is
/// written whole through a temporary file and a rename, so a kill at any moment leaves the
/// previous complete version, except events.jsonl, memory.csv and the TensorBoard event file
/// (train/tensorboard_log), whose new lines and records are appended
/// (a kill can tear their last line, which readers skip; a failed append is cut back). Methods
/// return false and fill `error()` on I/O failure. A RunFolder holds the folder's FolderLock:
/// one writer per run folder; create() and open() refuse a folder another process writes, and
/// remove the temporary files an earlier writer left.
class FolderLock;
class TensorBoardLog;

class RunFolder {
public:
    /// Creates a new run folder: `project/name`, or `name2`, `name3` ... when it exists (unless
    /// `existOk`). Returns nothing and fills `error` when the folder cannot be created.
    /// `writer`, when given, gets the PID of another process that writes the folder (-1:
    /// unknown; 0: the failure is another).
    static std::optional<RunFolder> create(const std::string& project, const std::string& name,
                                           bool existOk, std::string* error,
                                           long* writer = nullptr);
    /// Opens an existing run (resume): loads its results rows, events and memory lines so that
    /// new ones are appended. Returns nothing when `dir` is not a folder.
    static std::optional<RunFolder> open(const std::string& dir, std::string* error,
                                         long* writer = nullptr);

    /// The next free name for `project/name` as Ultralytics numbers them (train, train2, ...).
    static std::string nextFreePath(const std::string& project, const std::string& name);

    const std::string& path() const { return m_path; }
    std::string weightsDir() const { return m_path + "/weights"; }
    std::string lastWeights() const { return weightsDir() + "/last.pt"; }
    std::string bestWeights() const { return weightsDir() + "/best.pt"; }

    bool writeConfig(const TrainConfig& config);

    /// Adds (or replaces: an epoch appears once) the row of `epoch.epoch` and rewrites results.csv.
    bool writeEpoch(const EpochEnd& epoch);
    /// Drops rows of epochs >= `epoch` (a resumed run redoes them) and rewrites results.csv.
    bool truncateResults(int epoch);
    int resultRows() const { return static_cast<int>(m_rows.size()); }

    /// Queues one event line; OOM, fix, epoch, finish and failure events are flushed at once,
    /// others at flush() or when kFlushSeconds have passed since the last write, so that a
    /// reader of a live run (the Runs page) sees its progress. MemorySample events go to
    /// memory.csv instead.
    bool addEvent(const TrainEvent& event);
    static constexpr double kFlushSeconds = 5.0;
    bool addMemorySample(const MemorySample& sample);
    /// Writes the queued lines of events.jsonl and memory.csv.
    bool flush();

    /// Writes oom-<n>.json (n = 1, 2, ...); returns its path, "" on failure.
    std::string writeOomReport(const OomReport& report);

    const std::string& error() const { return m_error; }

    /// results.csv's header line (without newline).
    static std::string resultsHeader();

private:
    explicit RunFolder(std::string path) : m_path(std::move(path)) {}
    /// Takes the folder's lock and removes stale temporary files; false with `error` set.
    bool lock(std::string* error, long* writer);
    bool write(const std::string& file, const std::string& text);
    /// Flushes when the last flush is kFlushSeconds old.
    bool flushWhenDue();
    /// Writes `pending` to `file` (whole when it is not on disk yet, else appended), then empties
    /// it.
    bool store(const std::string& file, std::string& pending, bool& onDisk);

    std::string m_path;
    std::vector<std::pair<int, std::string>> m_rows; ///< (epoch, csv line), sorted by epoch
    std::string m_events;                            ///< lines not written yet
    std::string m_memory;
    bool m_eventsOnDisk = false; ///< the file holds this run's earlier lines
    bool m_memoryOnDisk = false;
    double m_lastFlush = 0; ///< steady-clock seconds of the last flush(), 0 = never
    int m_ooms = 0;
    std::string m_error;
    std::shared_ptr<FolderLock> m_lock;
    std::shared_ptr<TensorBoardLog> m_board; ///< events.out.tfevents.*, made at the first event
};

} // namespace hr
