// SPDX-License-Identifier: GPL-3.0-or-later
#include "runs/run_store.h"

#include "memory/memory_sampler.h"
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace hr {

namespace fs = std::filesystem;

namespace {

/// A small reader for the flat JSON objects the trainer writes (one per events.jsonl line).
class FlatJsonReader {
public:
    explicit FlatJsonReader(const std::string& text) : m_text(text) {}

    bool read(std::map<std::string, std::string>& out) {
        skipSpace();
        if (!eat('{'))
            return false;
        skipSpace();
        if (eat('}'))
            return true;
        for (;;) {
            skipSpace();
            std::string key;
            if (!readString(key))
                return false;
            skipSpace();
            if (!eat(':'))
                return false;
            skipSpace();
            std::string value;
            if (!readValue(value))
                return false;
            out[key] = value;
            skipSpace();
            if (eat(','))
                continue;
            return eat('}');
        }
    }

    /// A JSON array of strings, as the trainer writes reason_args.
    bool readStrings(std::vector<std::string>& out) {
        skipSpace();
        if (!eat('['))
            return false;
        skipSpace();
        if (eat(']'))
            return true;
        for (;;) {
            skipSpace();
            std::string value;
            if (!readString(value))
                return false;
            out.push_back(std::move(value));
            skipSpace();
            if (eat(','))
                continue;
            return eat(']');
        }
    }

private:
    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    bool eat(char c) {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool readString(std::string& out) {
        if (!eat('"'))
            return false;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos++];
            if (c == '"')
                return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                return false;
            const char e = m_text[m_pos++];
            switch (e) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                if (m_pos + 4 > m_text.size())
                    return false;
                const long code = std::strtol(m_text.substr(m_pos, 4).c_str(), nullptr, 16);
                m_pos += 4;
                if (code < 0x80) {
                    out += static_cast<char>(code);
                } else if (code < 0x800) {
                    out += static_cast<char>(0xC0 | (code >> 6));
                    out += static_cast<char>(0x80 | (code & 0x3F));
                } else {
                    out += static_cast<char>(0xE0 | (code >> 12));
                    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (code & 0x3F));
                }
                break;
            }
            default:
                out += e;
            }
        }
        return false;
    }
    /// Scalars as text; objects and arrays as their raw JSON.
    bool readValue(std::string& out) {
        if (m_pos >= m_text.size())
            return false;
        const char c = m_text[m_pos];
        if (c == '"')
            return readString(out);
        if (c == '{' || c == '[') {
            const size_t start = m_pos;
            int depth = 0;
            bool inString = false;
            for (; m_pos < m_text.size(); ++m_pos) {
                const char k = m_text[m_pos];
                if (inString) {
                    if (k == '\\')
                        ++m_pos;
                    else if (k == '"')
                        inString = false;
                    continue;
                }
                if (k == '"')
                    inString = true;
                else if (k == '{' || k == '[')
                    ++depth;
                else if ((k == '}' || k == ']') && --depth == 0) {
                    ++m_pos;
                    out = m_text.substr(start, m_pos - start);
                    return true;
                }
            }
            return false;
        }
        const size_t start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] != ',' && m_text[m_pos] != '}' &&
               !std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
        out = m_text.substr(start, m_pos - start);
        return !out.empty();
    }

    const std::string& m_text;
    size_t m_pos = 0;
};

double toNumber(const std::string& text, double fallback) {
    if (text.empty())
        return fallback;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    return end == text.c_str() ? fallback : value;
}

/// A scalar of config.yaml (`key: value` at the start of a line).
std::string yamlValue(const std::string& yaml, const std::string& key) {
    for (const std::string& line : split(yaml, '\n')) {
        if (line.rfind(key + ":", 0) != 0)
            continue;
        std::string value = trim(line.substr(key.size() + 1));
        const size_t comment = value.find(" #");
        if (comment != std::string::npos)
            value = trim(value.substr(0, comment));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
            value = value.substr(1, value.size() - 2);
        return value;
    }
    return {};
}

bool isRunFolder(const fs::path& dir) {
    return fs::exists(dir / "results.csv") || fs::exists(dir / "events.jsonl") ||
           fs::exists(dir / "config.yaml");
}

std::int64_t newestFile(const fs::path& dir) {
    std::int64_t newest = 0;
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
        const auto time = fs::last_write_time(entry.path(), ec);
        if (ec)
            continue;
        const auto system = std::chrono::time_point_cast<std::chrono::seconds>(
            time - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
        newest = std::max<std::int64_t>(newest, system.time_since_epoch().count());
    }
    return newest;
}

void summarise(RunRecord& run) {
    RunSummary& s = run.summary;
    s.model = yamlValue(run.configYaml, "model");
    s.epochsPlanned = std::atoi(yamlValue(run.configYaml, "epochs").c_str());
    s.batch = std::atoi(yamlValue(run.configYaml, "batch").c_str());
    s.imgsz = std::atoi(yamlValue(run.configYaml, "imgsz").c_str());
    s.amp = yamlValue(run.configYaml, "amp") == "true";
    s.checkpointing = yamlValue(run.configYaml, "checkpointing");
    s.epochsDone = static_cast<int>(run.epochs.size());
    double bestFitness = -1;
    double speedSum = 0;
    for (const EpochRecord& e : run.epochs) {
        if (e.fitness() > bestFitness) {
            bestFitness = e.fitness();
            s.bestMap50 = e.map50;
            s.bestMap = e.map;
            s.bestEpoch = e.epoch;
        }
        s.totalSeconds += e.epochSeconds;
        speedSum += e.imagesPerSecond;
        s.peakMemoryBytes = std::max(s.peakMemoryBytes, e.peakMemoryBytes);
    }
    if (!run.epochs.empty())
        s.meanImagesPerSecond = speedSum / static_cast<double>(run.epochs.size());
    for (const MemorySample& m : run.memory)
        if (m.phase != Phase::Probe) // the advisor's probe steps are not the run's memory
            s.peakMemoryBytes =
                std::max(s.peakMemoryBytes, std::max(m.peakSinceLastStep, m.allocated));
    s.budgetBytes = parseByteSize(yamlValue(run.configYaml, "memory_budget")).value_or(0);
    double first = 0, last = 0;
    std::string failure; // the last run_failed message
    for (const EventRecord& e : run.events) {
        if (e.time > 0) {
            first = first > 0 ? std::min(first, e.time) : e.time;
            last = std::max(last, e.time);
        }
        if (e.type == "run_started") {
            // A resumed run starts a new attempt: only its own end counts.
            s.finished = s.failed = false;
            s.state = "unfinished";
            s.reason.clear();
            s.reasonCode.clear();
            s.reasonArgs.clear();
            failure.clear();
        } else if (e.type.find("oom") != std::string::npos) {
            ++s.ooms;
        } else if (e.type == "fix_applied") {
            ++s.fixes;
        } else if (e.type == "run_failed") {
            failure = e.text("message");
            s.state = "failed";
            s.reason = failure;
            s.reasonCode = e.text("reason_code");
            s.reasonArgs = e.texts("reason_args");
            s.failed = true;
        } else if (e.type == "run_finished") {
            s.finished = true;
            std::string state = e.text("state");
            if (state.empty()) // written before run states
                state = !failure.empty()                      ? "failed"
                        : e.text("stopped_by_user") == "true" ? "stopped"
                                                              : "finished";
            s.state = state;
            if (!e.text("reason").empty()) {
                s.reason = e.text("reason");
                s.reasonCode = e.text("reason_code");
                s.reasonArgs = e.texts("reason_args");
            } else {
                s.reason = failure;
            }
            s.failed = state == "failed" || state == "stopped_by_oom";
        }
    }
    // A run without an end event (live, or its process was killed) lasted until its last write.
    if (s.state == "unfinished" && first > 0)
        last = std::max(last, static_cast<double>(s.modifiedUnixSeconds));
    if (last > first)
        s.durationSeconds = last - first;
    else
        s.durationSeconds = s.totalSeconds;
}

} // namespace

double EventRecord::number(const std::string& key, double fallback) const {
    const auto it = fields.find(key);
    return it == fields.end() ? fallback : toNumber(it->second, fallback);
}

std::string EventRecord::text(const std::string& key) const {
    const auto it = fields.find(key);
    return it == fields.end() ? std::string() : it->second;
}

std::vector<std::string> EventRecord::texts(const std::string& key) const {
    std::vector<std::string> out;
    const auto it = fields.find(key);
    if (it == fields.end() || !FlatJsonReader(it->second).readStrings(out))
        return {};
    return out;
}

std::optional<EventRecord> RunStore::parseEvent(const std::string& line) {
    std::map<std::string, std::string> fields;
    FlatJsonReader reader(line);
    if (!reader.read(fields))
        return std::nullopt;
    const auto type = fields.find("type");
    if (type == fields.end() || type->second.empty())
        return std::nullopt;
    EventRecord record;
    record.type = type->second;
    record.time = toNumber(fields["time"], 0);
    fields.erase("type");
    fields.erase("time");
    record.fields = std::move(fields);
    return record;
}

std::vector<EpochRecord> RunStore::parseResults(const std::string& csv) {
    std::vector<EpochRecord> rows;
    const std::vector<std::string> lines = split(csv, '\n');
    if (lines.empty())
        return rows;
    std::vector<std::string> header = split(trim(lines[0]), ',');
    for (auto& h : header)
        h = trim(h);
    for (size_t i = 1; i < lines.size(); ++i) {
        const std::string line = trim(lines[i]);
        if (line.empty())
            continue;
        const std::vector<std::string> cells = split(line, ',');
        if (cells.size() != header.size())
            continue; // torn or foreign line
        EpochRecord r;
        for (size_t c = 0; c < cells.size(); ++c) {
            const std::string& name = header[c];
            const double v = toNumber(trim(cells[c]), 0);
            if (name == "epoch")
                r.epoch = static_cast<int>(v);
            else if (name == "train/box_loss")
                r.boxLoss = v;
            else if (name == "train/cls_loss")
                r.clsLoss = v;
            else if (name == "train/dfl_loss")
                r.dflLoss = v;
            else if (name == "metrics/precision(B)")
                r.precision = v;
            else if (name == "metrics/recall(B)")
                r.recall = v;
            else if (name == "metrics/mAP50(B)")
                r.map50 = v;
            else if (name == "metrics/mAP50-95(B)")
                r.map = v;
            else if (name == "val/box_loss")
                r.valBoxLoss = v;
            else if (name == "val/cls_loss")
                r.valClsLoss = v;
            else if (name == "val/dfl_loss")
                r.valDflLoss = v;
            else if (name == "lr/pg0")
                r.lr0 = v;
            else if (name == "lr/pg1")
                r.lr1 = v;
            else if (name == "lr/pg2")
                r.lr2 = v;
            else if (name == "epoch_seconds")
                r.epochSeconds = v;
            else if (name == "images_per_s")
                r.imagesPerSecond = v;
            else if (name == "peak_memory_bytes")
                r.peakMemoryBytes = static_cast<std::int64_t>(v);
        }
        rows.push_back(r);
    }
    return rows;
}

std::optional<RunRecord> RunStore::load(const std::string& dir, std::string* error) {
    if (!fs::is_directory(dir) || !isRunFolder(dir)) {
        if (error)
            *error = dir + " is not a run folder (no results.csv, events.jsonl or config.yaml)";
        return std::nullopt;
    }
    RunRecord run;
    run.summary.path = dir;
    run.summary.name = fs::path(dir).filename().string();
    if (run.summary.name.empty())
        run.summary.name = fs::path(dir).parent_path().filename().string();
    std::string text;
    if (readFile(dir + "/results.csv", text))
        run.epochs = parseResults(text);
    if (readFile(dir + "/memory.csv", text))
        run.memory = MemorySampler::parseCsv(text);
    if (readFile(dir + "/events.jsonl", text))
        for (const std::string& line : split(text, '\n'))
            if (auto event = parseEvent(line))
                run.events.push_back(std::move(*event));
    readFile(dir + "/config.yaml", run.configYaml);
    run.summary.modifiedUnixSeconds = newestFile(dir);
    summarise(run);
    return run;
}

std::vector<RunSummary> RunStore::list(const std::string& project) {
    std::vector<RunSummary> runs;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(project, ec)) {
        if (!entry.is_directory() || !isRunFolder(entry.path()))
            continue;
        if (auto run = load(entry.path().string()))
            runs.push_back(run->summary);
    }
    std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) {
        return a.modifiedUnixSeconds != b.modifiedUnixSeconds
                   ? a.modifiedUnixSeconds > b.modifiedUnixSeconds
                   : a.name < b.name;
    });
    return runs;
}

} // namespace hr
