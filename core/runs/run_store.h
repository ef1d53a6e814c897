// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "eval/metrics.h"
#include "memory/memory_sample.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hr {

/// One row of a run's results.csv (epoch is 1-based, as in the file).
struct EpochRecord {
    int epoch = 0;
    double boxLoss = 0, clsLoss = 0, dflLoss = 0;
    double precision = 0, recall = 0, map50 = 0, map = 0;
    double valBoxLoss = 0, valClsLoss = 0, valDflLoss = 0;
    double lr0 = 0, lr1 = 0, lr2 = 0;
    double epochSeconds = 0, imagesPerSecond = 0;
    std::int64_t peakMemoryBytes = 0;

    double fitness() const { return hr::fitness(map50, map); }
};

/// One line of events.jsonl: its type and its scalar fields as text (numbers unparsed, strings
/// unescaped); nested objects are kept as raw JSON text.
struct EventRecord {
    std::string type;
    double time = 0;
    std::map<std::string, std::string> fields;

    /// The field as a number, `fallback` when absent or not numeric.
    double number(const std::string& key, double fallback = 0) const;
    std::string text(const std::string& key) const;
    /// The field as a list of strings (a JSON array of strings); empty when absent.
    std::vector<std::string> texts(const std::string& key) const;
};

/// The key numbers of a run, for a list of runs.
struct RunSummary {
    std::string path; ///< the run folder
    std::string name; ///< its folder name
    std::string model;
    int epochsDone = 0;    ///< rows in results.csv
    int epochsPlanned = 0; ///< from config.yaml, 0 when unknown
    int batch = 0;
    int imgsz = 0;
    bool amp = false;
    std::string checkpointing;
    double bestMap50 = 0, bestMap = 0; ///< of the best-fitness epoch
    int bestEpoch = 0;                 ///< 1-based, 0 = none
    double totalSeconds = 0;
    double meanImagesPerSecond = 0;
    std::int64_t peakMemoryBytes = 0;
    int ooms = 0;          ///< oom events
    int fixes = 0;         ///< fix_applied events
    bool finished = false; ///< a run_finished event (whatever the state)
    bool failed = false;   ///< state "failed" or "stopped_by_oom"
    /// How the run ended, as events.jsonl's run_finished says (RunState's names): "finished",
    /// "stopped", "failed", "stopped_by_oom"; "unfinished" when it has no end event (it is
    /// running, or its process was killed). Runs from before the state was written read
    /// "stopped" from stopped_by_user and "failed" from a run_failed event.
    std::string state = "unfinished";
    std::string reason;                  ///< failed / stopped_by_oom: why, in the run's own words
    std::string reasonCode;              ///< the reason as RunFailed's code, "" when not coded
    std::vector<std::string> reasonArgs; ///< and its values
    std::int64_t budgetBytes = 0;        ///< the memory budget in force at the end (0 = none)
    double durationSeconds = 0; ///< wall time from the first to the last event (or last write)
    std::int64_t modifiedUnixSeconds = 0; ///< newest file of the run
};

/// Everything a run folder holds, as plain values.
struct RunRecord {
    RunSummary summary;
    std::vector<EpochRecord> epochs;
    std::vector<MemorySample> memory;
    std::vector<EventRecord> events;
    std::string configYaml;
};

/// Reads run folders written by the trainer. LibTorch-free: the GUI's Runs page and the strategy
/// comparison use it directly. Unreadable or malformed lines are skipped, never fatal.
class RunStore {
public:
    /// Every run folder (a folder holding results.csv, events.jsonl or config.yaml) directly
    /// under `project`, newest first.
    static std::vector<RunSummary> list(const std::string& project);

    /// Loads one run. Returns nothing and fills `error` when `dir` is not a run folder.
    static std::optional<RunRecord> load(const std::string& dir, std::string* error = nullptr);

    /// Parses results.csv text (header names decide the columns; unknown columns ignored).
    static std::vector<EpochRecord> parseResults(const std::string& csv);
    /// Parses one events.jsonl line; nothing when it is not a JSON object with a "type".
    static std::optional<EventRecord> parseEvent(const std::string& line);
};

} // namespace hr
