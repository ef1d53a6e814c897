// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "config/train_rules.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hr {

/// Where a figure shown to a person comes from. Tooltips name it, so a constant is never
/// presented as a measurement.
enum class FigureSource {
    NotMeasured,  ///< no figure behind it; say so
    Assumption,   ///< a constant of this project; `detail` says what it assumes
    Published,    ///< a published figure; `detail` cites it
    FlopCount,    ///< derived from counting operations; `detail` says which
    MeasuredHere, ///< measured on this machine (probe steps, timings); `detail` says how
};

/// "not_measured", "assumption", "published", "flop_count", "measured_here" (JSON, logs).
inline const char* toString(FigureSource source) {
    switch (source) {
    case FigureSource::NotMeasured:
        return "not_measured";
    case FigureSource::Assumption:
        return "assumption";
    case FigureSource::Published:
        return "published";
    case FigureSource::FlopCount:
        return "flop_count";
    case FigureSource::MeasuredHere:
        return "measured_here";
    }
    return "not_measured";
}

/// One clause of a figure's detail as a kind and its values (numbers, percentages, run names),
/// for a UI that words it in its own language. The kinds and their values are listed where
/// they are made: fix_cost_model.cpp and fix_search.cpp.
struct FigureDetail {
    std::string kind;
    std::vector<std::string> args;
};

/// A figure's source and the words that go with it (a citation, the measurement, the count).
struct FigureBasis {
    FigureSource source = FigureSource::NotMeasured;
    std::string detail;              ///< the CLI's English, clauses joined by "; "
    std::vector<FigureDetail> parts; ///< the same clauses as kinds and values

    FigureBasis() = default;
    /// A basis whose detail (if any) is English only: a UI shows the kind of source alone.
    FigureBasis(FigureSource source, std::string detail = {})
        : source(source), detail(std::move(detail)) {}

    /// Appends a clause: its English to `detail` and its kind and values to `parts`.
    void add(std::string kind, std::vector<std::string> args, const std::string& english) {
        detail += (detail.empty() ? "" : "; ") + english;
        parts.push_back({std::move(kind), std::move(args)});
    }
};

/// A basis with one clause (FigureBasis::add).
inline FigureBasis figureBasis(FigureSource source, std::string kind, std::vector<std::string> args,
                               const std::string& english) {
    FigureBasis b(source);
    b.add(std::move(kind), std::move(args), english);
    return b;
}

/// One lever's setting within a fix, as values: a UI words it in its own language (the English
/// title, reason and accuracyEffect of FixSuggestion are worded from the same values).
struct FixPart {
    /// The lever: "batch", "amp", "checkpointing", "imgsz", "freeze", "scale", "sgd",
    /// "offload", "val_batch", "assign_chunk", "ddp", "release_cache", "host_cache",
    /// "host_workers", "host_mosaic".
    std::string lever;
    /// Named parameters, per lever (fix_advisor.cpp lists them where each lever is built):
    /// numbers in decimal, bytes as plain integers, flags as "1"/"0".
    std::vector<std::pair<std::string, std::string>> values;
    int accuracyCost = 0; ///< this part's own cost (0 none .. 3 large)

    /// The value named `key`, or "" when the lever has none.
    std::string value(const std::string& key) const {
        for (const auto& [name, text] : values)
            if (name == key)
                return text;
        return {};
    }
};

/// One way out of an out-of-memory failure: a config change with what it is predicted to cost.
/// A plain value, produced by suggestFixes() and shown by the CLI and the GUI.
struct FixSuggestion {
    std::string id;    ///< stable name: "batch", "amp", "batch+amp", "host_cache" ...
    std::string title; ///< one line: "batch 8 + accumulate 8 (nominal batch 64 kept)"
    std::vector<std::pair<std::string, std::string>> changes; ///< config key = new value
    TrainConfig config;                                       ///< the config to continue with
    std::int64_t predictedPeak = 0; ///< peak device bytes predicted for `config`; 0 = unknown
    double speedFactor = 1.0;       ///< predicted time per epoch relative to now (1.3 = 30% slower)
    double speedCorrection = 1.0;   ///< the factor in speedFactor from an earlier check here
    int accuracyCost = 0;           ///< 0 none, 1 small, 2 moderate, 3 large (the ranking key)
    std::string accuracyEffect;     ///< expected accuracy effect in words, with its reason
    std::string reason;             ///< why it lowers memory, and where the speed figure comes from
    bool fits = false;              ///< predicted peak within safety x budget (host fixes: true)
    bool hostFix = false;           ///< addresses host RAM, not the device
    bool restarts = false;          ///< cannot continue the learned weights (another model size)
    std::vector<FixPart> parts;     ///< the levers combined, as values for a UI to word
    /// Predictions were scaled by this factor because the estimator predicted less than the
    /// failed step needed (1 = not scaled).
    double predictionScale = 1.0;
    FigureBasis memoryBasis;   ///< where predictedPeak comes from
    FigureBasis speedBasis;    ///< where speedFactor comes from
    FigureBasis accuracyBasis; ///< where accuracyCost / accuracyEffect come from
};

/// Predicts the peak device memory, in bytes, of a run with the given config: the larger of the
/// training and the validation peak. Returns nothing when it cannot tell. Must be cheap to call
/// many times (the advisor asks for dozens of configs).
using PeakPredictor = std::function<std::optional<std::int64_t>(const TrainConfig&)>;

/// A speed timed on this machine: one config's time per image against another's.
struct TimedSpeed {
    double factor = 1.0;        ///< after's time per image over before's
    double beforeSeconds = 0.0; ///< per image
    double afterSeconds = 0.0;
    int rounds = 0; ///< rounds of steps timed in turns
};

/// The time per image of training steps with `after` against `before`, as timed on this
/// machine by the estimator's probe steps of both in turns; with `probe` false only timings
/// already made answer (no steps run). Nothing when there are none, or when `keepGoing`
/// (asked between steps) says to stop: the person has chosen, or the time for timing is spent.
using TimePredictor =
    std::function<std::optional<TimedSpeed>(const TrainConfig& before, const TrainConfig& after,
                                            bool probe, const std::function<bool()>& keepGoing)>;

/// The mAP a finished run on this machine measured with a config on the same data set (a
/// strategy comparison's run, or any other).
struct MeasuredAccuracy {
    double map50 = 0.0;
    double map = 0.0; ///< mAP50-95
    std::string run;  ///< the run folder
};

/// Finds a finished run with the training settings of a config; nothing when there is none.
using AccuracyLookup = std::function<std::optional<MeasuredAccuracy>(const TrainConfig&)>;

/// How the advisor judges candidates.
/// Boxes per image from which an OOM in the loss phase is offered chunked assignment.
constexpr int kManyObjectsPerImage = 16;

struct AdvisorOptions {
    double safety = kFitSafety; ///< a fix fits when its predicted peak <= safety x budget
    int deviceCount = 1;        ///< devices available to this run (> 1 enables DDP / sharded state)
    /// Most ground-truth boxes per image the loss' assigner sees (the data set's maximum, x4
    /// with mosaic); 0 = unknown. Chunked assignment is offered for an OOM in the loss phase
    /// when this is unknown or at least kManyObjectsPerImage.
    int objectsPerImage = 0;
    int maxSuggestions = 8;
    int maxPredictions = 500; ///< cap on predictor calls for one report
    /// A cheap predictor asked first (e.g. the estimator without probe steps); the predictor
    /// given to suggestFixes is asked only when it has no answer.
    PeakPredictor quickPredictor;
    /// Seconds the full predictor may spend on one report (0: no limit); past them only the
    /// quick one answers. A run waiting to continue should not wait for every calibration.
    double predictionSeconds = 0.0;
    /// Timings of this machine: a fix timed against the failed config shows the measured speed
    /// ratio instead of the cost model's (ranking still uses the model, so the order does not
    /// depend on which timings happen to exist). The last ranking times the shown fixes while
    /// timingSeconds last.
    TimePredictor timePredictor;
    /// Seconds the last ranking may spend timing the shown fixes against the failed config
    /// (0: only timings already made answer). Started before the seconds are spent, a timing
    /// finishes (seconds of probe steps).
    double timingSeconds = 0.0;
    /// Corrects a fix's speed by how the same fix's last prediction on the report's device
    /// compared with the run that applied it (util/speed_checks.h).
    bool useSpeedChecks = false;
    /// Runs that measured mAP: when the failed config and a fix's config both have one, the
    /// fix's accuracy figure is theirs instead of a published one.
    AccuracyLookup measuredAccuracy;
};

} // namespace hr
