// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/event_json.h"

#include "util/text.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>

namespace hr {

namespace {

/// Builds one flat JSON object; numbers that are not finite become null.
class JsonObject {
public:
    JsonObject& add(const std::string& key, const std::string& value) {
        field(key) << '"' << jsonEscape(value) << '"';
        return *this;
    }
    JsonObject& add(const std::string& key, const char* value) {
        return add(key, std::string(value));
    }
    JsonObject& add(const std::string& key, double value) { return number(key, value, "%.*g", 9); }
    /// A number with a fixed count of decimals (a unix time to the millisecond: "%.9g" would
    /// round it to ten seconds).
    JsonObject& addFixed(const std::string& key, double value, int decimals) {
        return number(key, value, "%.*f", decimals);
    }
    JsonObject& add(const std::string& key, std::int64_t value) {
        field(key) << value;
        return *this;
    }
    JsonObject& add(const std::string& key, int value) { return add(key, std::int64_t(value)); }
    JsonObject& add(const std::string& key, bool value) {
        field(key) << (value ? "true" : "false");
        return *this;
    }
    JsonObject& add(const std::string& key, const std::vector<std::string>& values) {
        std::ostringstream& out = field(key);
        out << '[';
        for (size_t i = 0; i < values.size(); ++i)
            out << (i ? "," : "") << '"' << jsonEscape(values[i]) << '"';
        out << ']';
        return *this;
    }
    JsonObject& raw(const std::string& key, const std::string& json) {
        field(key) << json;
        return *this;
    }
    std::string str() const { return "{" + m_out.str() + "}"; }

private:
    /// A finite number as printf's `format` (with a precision argument) writes it, else null.
    JsonObject& number(const std::string& key, double value, const char* format, int precision) {
        if (!std::isfinite(value)) {
            field(key) << "null";
        } else {
            char text[48];
            std::snprintf(text, sizeof text, format, precision, value);
            field(key) << text;
        }
        return *this;
    }
    std::ostringstream& field(const std::string& key) {
        if (!m_first)
            m_out << ',';
        m_first = false;
        m_out << '"' << key << "\":";
        return m_out;
    }
    std::ostringstream m_out;
    bool m_first = true;
};

std::string breakdownJson(const MemoryBreakdown& b) {
    return JsonObject()
        .add("weights", b.weights)
        .add("gradients", b.gradients)
        .add("optimizer_state", b.optimizerState)
        .add("ema", b.ema)
        .add("activations", b.activations)
        .add("batch_data", b.batchData)
        .add("other", b.other)
        .add("total", b.total)
        .str();
}

/// A memory sample's fields as both events.jsonl and an OOM report's timeline name them.
JsonObject& addSample(JsonObject& o, const MemorySample& s) {
    return o.add("seconds", s.seconds)
        .add("allocated", s.allocated)
        .add("reserved", s.reserved)
        .add("peak", s.peakSinceLastStep)
        .add("budget", s.budget)
        .add("phase", toString(s.phase));
}

/// The loss parts as `<prefix>box_loss`, `<prefix>cls_loss`, `<prefix>dfl_loss`.
JsonObject& addLosses(JsonObject& o, const std::string& prefix, double box, double cls,
                      double dfl) {
    return o.add(prefix + "box_loss", box)
        .add(prefix + "cls_loss", cls)
        .add(prefix + "dfl_loss", dfl);
}

/// The byte counts of an OOM, as both the oom event and the report file name them.
JsonObject& addOomBytes(JsonObject& o, const OomReport& r) {
    return o.add("requested_bytes", r.requestedBytes)
        .add("allocated_bytes", r.allocatedBytes)
        .add("budget_bytes", r.budgetBytes)
        .add("peak_bytes", r.peakBytes);
}

/// A message code and its arguments (`<prefix>code`, `<prefix>args`), only when there is a code:
/// events written without one keep their old fields.
JsonObject& addCode(JsonObject& o, const std::string& prefix, const std::string& code,
                    const std::vector<std::string>& args) {
    if (!code.empty())
        o.add(prefix + "code", code).add(prefix + "args", args);
    return o;
}

std::string sampleJson(const MemorySample& s) {
    JsonObject o;
    return addSample(o, s).add("rank", s.rank).add("oom", s.oom).str();
}

const char* levelName(LogMessage::Level level) {
    switch (level) {
    case LogMessage::Level::Info:
        return "info";
    case LogMessage::Level::Warning:
        return "warning";
    case LogMessage::Level::Error:
        return "error";
    }
    return "info";
}

} // namespace

const char* eventType(const TrainEvent& event) {
    static const char* const names[] = {
        "run_started", "batch_end",   "epoch_end",    "memory_sample", "oom",
        "fix_applied", "fix_checked", "run_finished", "run_failed",    "log"};
    static_assert(std::variant_size_v<TrainEvent> == 10, "name every event type");
    return names[event.index()];
}

std::string eventToJson(const TrainEvent& event, double unixSeconds) {
    JsonObject o;
    o.add("type", eventType(event)).addFixed("time", unixSeconds, 3);
    std::visit(
        [&o](const auto& e) {
            using T = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<T, RunStarted>) {
                o.add("run_dir", e.runDir)
                    .add("parameters", e.parameters)
                    .add("start_epoch", e.startEpoch)
                    .add("batches_per_epoch", e.batchesPerEpoch)
                    .add("epochs", e.config.epochs)
                    .add("batch", e.config.batch)
                    .add("imgsz", e.config.imgsz)
                    .add("model", e.config.model);
            } else if constexpr (std::is_same_v<T, BatchEnd>) {
                o.add("epoch", e.epoch)
                    .add("batch", e.batchIndex)
                    .add("batches_per_epoch", e.batchesPerEpoch)
                    .add("step", e.step);
                addLosses(o, "", e.boxLoss, e.clsLoss, e.dflLoss)
                    .add("lr", e.lr)
                    .add("images_per_s", e.imagesPerSecond)
                    .add("eta_s", e.etaSeconds)
                    .add("peak_bytes", e.peakBytes);
            } else if constexpr (std::is_same_v<T, EpochEnd>) {
                o.add("epoch", e.epoch).add("epochs", e.epochs);
                addLosses(o, "", e.boxLoss, e.clsLoss, e.dflLoss);
                addLosses(o, "val_", e.valBoxLoss, e.valClsLoss, e.valDflLoss)
                    .add("precision", e.precision)
                    .add("recall", e.recall)
                    .add("map50", e.map50)
                    .add("map", e.map)
                    .add("lr0", e.lr0)
                    .add("lr1", e.lr1)
                    .add("lr2", e.lr2)
                    .add("epoch_seconds", e.epochSeconds)
                    .add("images_per_s", e.imagesPerSecond)
                    .add("peak_bytes", e.peakBytes())
                    .add("train_peak_bytes", e.trainPeakBytes)
                    .add("val_peak_bytes", e.valPeakBytes)
                    .add("best", e.best);
            } else if constexpr (std::is_same_v<T, MemorySample>) {
                addSample(o, e);
                if (e.oom)
                    o.add("oom", true);
            } else if constexpr (std::is_same_v<T, OomOccurred>) {
                o.add("phase", toString(e.report.phase))
                    .add("seconds", e.report.seconds)
                    .add("epoch", e.report.epoch)
                    .add("batch", e.report.batchIndex);
                addOomBytes(o, e.report)
                    .add("host_memory", e.report.hostMemory)
                    .add("batch_size", e.report.config.batch)
                    .add("imgsz", e.report.config.imgsz)
                    .add("message", e.report.rawMessage);
            } else if constexpr (std::is_same_v<T, FixApplied>) {
                o.add("fix_id", e.fixId)
                    .add("description", e.description)
                    .add("predicted_peak", e.predictedPeak)
                    .add("epoch", e.epoch)
                    .add("batch", e.batchIndex)
                    .add("batch_size", e.config.batch)
                    .add("imgsz", e.config.imgsz)
                    .add("amp", e.config.amp)
                    .add("checkpointing", toString(e.config.checkpointing))
                    .add("optimizer", e.config.optimizer);
            } else if constexpr (std::is_same_v<T, FixChecked>) {
                o.add("fix_id", e.fixId)
                    .add("predicted_peak", e.predictedPeak)
                    .add("measured_peak", e.measuredPeak)
                    .add("predicted_seconds_per_image", e.predictedSecondsPerImage)
                    .add("measured_seconds_per_image", e.measuredSecondsPerImage)
                    .add("timed_steps", e.timedSteps);
            } else if constexpr (std::is_same_v<T, RunFinished>) {
                o.add("run_dir", e.runDir)
                    .add("epochs_done", e.epochsDone)
                    .add("map50", e.map50)
                    .add("map", e.map)
                    .add("stopped_early", e.stoppedEarly)
                    .add("stopped_by_user", e.stoppedByUser)
                    .add("state", toString(e.state))
                    .add("reason", e.reason);
                addCode(o, "reason_", e.reasonCode, e.reasonArgs);
            } else if constexpr (std::is_same_v<T, RunFailed>) {
                o.add("message", e.message).add("state", toString(e.state));
                addCode(o, "reason_", e.code, e.args);
            } else if constexpr (std::is_same_v<T, LogMessage>) {
                o.add("level", levelName(e.level)).add("text", e.text);
                addCode(o, "", e.code, e.args);
            }
        },
        event);
    return o.str();
}

std::string oomReportToJson(const OomReport& report) {
    std::string timeline = "[";
    for (size_t i = 0; i < report.timeline.size(); ++i) {
        if (i)
            timeline += ",\n";
        timeline += sampleJson(report.timeline[i]);
    }
    timeline += "]";
    JsonObject o;
    o.add("type", "oom").add("phase", toString(report.phase));
    addOomBytes(o, report)
        .add("seconds", report.seconds)
        .raw("breakdown", breakdownJson(report.breakdown))
        .add("epoch", report.epoch)
        .add("batch", report.batchIndex)
        .add("rank", report.rank)
        .add("device", report.device)
        .add("host_memory", report.hostMemory)
        .add("message", report.rawMessage)
        .add("config_yaml", toYaml(report.config))
        .raw("timeline", timeline);
    return o.str() + "\n";
}

} // namespace hr
