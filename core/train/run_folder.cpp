// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/run_folder.h"

#include "memory/memory_sampler.h"
#include "train/event_json.h"
#include "train/tensorboard_log.h"
#include "util/atomic_file.h"
#include "util/folder_lock.h"
#include "util/text.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace hr {

namespace fs = std::filesystem;

namespace {
double unixNow() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

double steadyNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

std::string memoryHeader() {
    return MemorySampler::csvHeader() + "\n";
}
} // namespace

std::string RunFolder::resultsHeader() {
    return "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),"
           "metrics/recall(B),metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,"
           "val/dfl_loss,lr/pg0,lr/pg1,lr/pg2,epoch_seconds,images_per_s,peak_memory_bytes";
}

std::string RunFolder::nextFreePath(const std::string& project, const std::string& name) {
    const fs::path base = fs::path(project) / name;
    if (!fs::exists(base))
        return base.string();
    for (int n = 2;; ++n) {
        const fs::path candidate = fs::path(project) / (name + std::to_string(n));
        if (!fs::exists(candidate))
            return candidate.string();
    }
}

std::optional<RunFolder> RunFolder::create(const std::string& project, const std::string& name,
                                           bool existOk, std::string* error, long* writer) {
    const std::string path =
        existOk ? (fs::path(project) / name).string() : nextFreePath(project, name);
    std::error_code ec;
    fs::create_directories(fs::path(path) / "weights", ec);
    if (ec) {
        if (error)
            *error = "cannot create run folder " + path + ": " + ec.message();
        return std::nullopt;
    }
    RunFolder folder(path);
    if (!folder.lock(error, writer))
        return std::nullopt;
    folder.m_memory = memoryHeader();
    return folder;
}

std::optional<RunFolder> RunFolder::open(const std::string& dir, std::string* error, long* writer) {
    if (!fs::is_directory(dir)) {
        if (error)
            *error = "run folder " + dir + " does not exist";
        return std::nullopt;
    }
    std::error_code ec;
    fs::create_directories(fs::path(dir) / "weights", ec);
    RunFolder folder(dir);
    if (!folder.lock(error, writer))
        return std::nullopt;
    std::string text;
    if (readFile(dir + "/results.csv", text)) {
        std::vector<std::string> lines = split(text, '\n');
        for (size_t i = 1; i < lines.size(); ++i) {
            const std::string line = trim(lines[i]);
            if (line.empty())
                continue;
            const int epoch = std::atoi(line.c_str()); // 1-based in the file
            folder.m_rows.emplace_back(epoch - 1, line);
        }
    }
    // New lines go after the earlier ones; a line a kill left torn is ended first, so that
    // only it is lost (readers skip it).
    if (readFile(dir + "/events.jsonl", text) && !text.empty()) {
        folder.m_eventsOnDisk = true;
        if (text.back() != '\n')
            folder.m_events = "\n";
    }
    if (readFile(dir + "/memory.csv", text) && !text.empty()) {
        folder.m_memoryOnDisk = true;
        if (text.back() != '\n')
            folder.m_memory = "\n";
    } else {
        folder.m_memory = memoryHeader();
    }
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename().string().rfind("oom-", 0) == 0)
            ++folder.m_ooms;
    return folder;
}

bool RunFolder::lock(std::string* error, long* writer) {
    std::string message;
    m_lock = FolderLock::acquire(m_path, &message, writer);
    if (!m_lock) {
        if (error)
            *error = message;
        return false;
    }
    // Only now: before the lock they could be another writer's files in progress.
    removeTemporaryFiles(m_path);
    removeTemporaryFiles(weightsDir());
    return true;
}

bool RunFolder::write(const std::string& file, const std::string& text) {
    std::string message;
    if (!writeFileAtomically(m_path + "/" + file, text, &message)) {
        m_error = message;
        return false;
    }
    return true;
}

bool RunFolder::writeConfig(const TrainConfig& config) {
    return write("config.yaml", toYaml(config));
}

bool RunFolder::writeEpoch(const EpochEnd& e) {
    std::string line = std::to_string(e.epoch + 1);
    for (double v :
         {e.boxLoss, e.clsLoss, e.dflLoss, e.precision, e.recall, e.map50, e.map, e.valBoxLoss,
          e.valClsLoss, e.valDflLoss, e.lr0, e.lr1, e.lr2, e.epochSeconds, e.imagesPerSecond})
        line += "," + number(v);
    line += "," + std::to_string(e.peakBytes());
    auto it = std::find_if(m_rows.begin(), m_rows.end(),
                           [&](const auto& row) { return row.first >= e.epoch; });
    if (it != m_rows.end() && it->first == e.epoch)
        it->second = line;
    else
        m_rows.insert(it, {e.epoch, line});
    std::string text = resultsHeader() + "\n";
    for (const auto& row : m_rows)
        text += row.second + "\n";
    return write("results.csv", text);
}

bool RunFolder::truncateResults(int epoch) {
    const size_t before = m_rows.size();
    m_rows.erase(std::remove_if(m_rows.begin(), m_rows.end(),
                                [&](const auto& row) { return row.first >= epoch; }),
                 m_rows.end());
    if (m_rows.size() == before)
        return true;
    // A row of an epoch that last.pt does not hold (its checkpoint was not written) goes now,
    // not at the next epoch's end.
    std::string text = resultsHeader() + "\n";
    for (const auto& row : m_rows)
        text += row.second + "\n";
    return write("results.csv", text);
}

bool RunFolder::addEvent(const TrainEvent& event) {
    if (!m_board)
        m_board = std::make_shared<TensorBoardLog>(m_path);
    m_board->add(event);
    if (const auto* sample = std::get_if<MemorySample>(&event))
        return addMemorySample(*sample);
    m_events += eventToJson(event, unixNow()) + "\n";
    const bool urgent =
        std::holds_alternative<OomOccurred>(event) || std::holds_alternative<FixApplied>(event) ||
        std::holds_alternative<FixChecked>(event) || std::holds_alternative<RunFinished>(event) ||
        std::holds_alternative<RunFailed>(event) || std::holds_alternative<EpochEnd>(event);
    return urgent ? flush() : flushWhenDue();
}

bool RunFolder::addMemorySample(const MemorySample& s) {
    m_memory += MemorySampler::csvLine(s) + "\n";
    return flushWhenDue();
}

bool RunFolder::flushWhenDue() {
    // The first line is written at once: a run folder shows that it started.
    return m_lastFlush == 0 || steadyNow() - m_lastFlush >= kFlushSeconds ? flush() : true;
}

bool RunFolder::flush() {
    m_lastFlush = steadyNow();
    const bool events = store("events.jsonl", m_events, m_eventsOnDisk);
    const bool memory = store("memory.csv", m_memory, m_memoryOnDisk);
    // The event file last, so that a failure names the file the run's readers need most.
    return events && memory && (!m_board || m_board->flush(&m_error));
}

bool RunFolder::store(const std::string& file, std::string& pending, bool& onDisk) {
    if (pending.empty())
        return true;
    if (!onDisk) {
        if (!write(file, pending))
            return false;
    } else {
        // Appended, not rewritten: a long run's memory.csv grows to megabytes.
        std::string message;
        if (!appendToFile(m_path + "/" + file, pending, true, &message)) {
            m_error = message;
            return false;
        }
    }
    pending.clear();
    onDisk = true;
    return true;
}

std::string RunFolder::writeOomReport(const OomReport& report) {
    const std::string file = "oom-" + std::to_string(++m_ooms) + ".json";
    return write(file, oomReportToJson(report)) ? m_path + "/" + file : std::string();
}

} // namespace hr
