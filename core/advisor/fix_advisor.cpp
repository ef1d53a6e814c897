// SPDX-License-Identifier: GPL-3.0-or-later
#include "advisor/fix_advisor.h"

#include "advisor/fix_cost_model.h"
#include "config/model_name.h"
#include "config/settings_table.h"
#include "config/train_rules.h"
#include "model/model_builder.h"
#include "util/bytes.h"
#include "util/resources.h"
#include "util/speed_checks.h"
#include "util/text.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace hr {
namespace {

using Changes = std::vector<std::pair<std::string, std::string>>;

/// One setting of one lever: a change to the config and what it costs.
struct Step {
    std::string title;
    Changes changes;
    std::function<void(TrainConfig&)> apply;
    FixEffect effect;
    std::string reason;
    Changes values;        ///< FixPart::values: what a UI words title and reason from
    double severity = 0.0; ///< ranks steps of a lever whose accuracy cost grows within its level
    bool restarts = false;
};

/// A kind of change with its settings, mildest first.
struct Lever {
    std::string id;
    std::vector<Step> steps;
};

bool isCuda(const std::string& device) {
    return device.rfind("cuda", 0) == 0;
}

bool isAdamFamily(const std::string& optimizer) {
    const std::string name = toLower(optimizer);
    return name == "adam" || name == "adamw";
}

std::string optimizerName(const TrainConfig& c) {
    return toLower(c.optimizer) == "auto" ? "auto (AdamW for short runs)" : c.optimizer;
}

/// The peak the failed step needed at least.
std::int64_t observedNeed(const OomReport& r) {
    return std::max(r.peakBytes, r.allocatedBytes + r.requestedBytes);
}

/// The settings a step's memory depends on (every lever is one): tells candidate configs apart.
std::string cacheKey(const TrainConfig& c) {
    return settingsKey(c, kAffectsMemory);
}

/// Model family (8 or 9), scale letter and where the letter sits in `model` (npos when the
/// scale comes from TrainConfig::scale or is unknown).
struct ModelScale {
    int family = 0;
    char scale = 0;
    std::size_t letterPos = std::string::npos;
};

ModelScale parseModelScale(const TrainConfig& c) {
    const ModelName name = parseModelName(c.model);
    ModelScale m;
    if (scaleLettersOf(name.family).empty())
        return m;
    m.family = name.family;
    if (!c.model_scale.empty())
        m.scale = static_cast<char>(std::tolower(static_cast<unsigned char>(c.model_scale[0])));
    else {
        m.scale = name.scale;
        m.letterPos = name.scalePos;
    }
    return m;
}

// --- levers --------------------------------------------------------------------------------

Lever batchLever(const TrainConfig& c, bool cuda) {
    Lever lever{"batch", {}};
    const int nominal = c.batch * accumulateSteps(c);
    // Keep the effective batch when batch > nbs (accumulate was 1): nbs becomes the old batch.
    const int nbs = c.nbs < c.batch ? nominal : c.nbs;
    for (int b = c.batch / 2; b >= 1; b /= 2) {
        TrainConfig probe = c;
        probe.batch = b;
        probe.nbs = nbs;
        const int accumulate = accumulateSteps(probe);
        Step s;
        s.title = "batch " + std::to_string(b) + " + accumulate " + std::to_string(accumulate) +
                  " (nominal batch " + std::to_string(b * accumulate) + ")";
        s.changes = {{"batch", std::to_string(b)}};
        if (nbs != c.nbs)
            s.changes.emplace_back("nbs", std::to_string(nbs));
        s.apply = [b, nbs](TrainConfig& t) {
            t.batch = b;
            t.nbs = nbs;
        };
        s.effect = fixcost::smallerBatch(c.batch, b, cuda);
        s.values = {{"batch", std::to_string(b)},
                    {"accumulate", std::to_string(accumulate)},
                    {"nominal", std::to_string(b * accumulate)},
                    {"val_follows", c.val_batch == 0 ? "1" : "0"}};
        s.reason = "activations scale with the batch; accumulating " + std::to_string(accumulate) +
                   " steps keeps the nominal batch";
        if (c.val_batch == 0)
            s.reason += " (the validation batch, 2 x batch, shrinks too)";
        lever.steps.push_back(std::move(s));
        if (b == 1)
            break;
    }
    return lever;
}

Lever ampLever(const TrainConfig& c, bool cuda) {
    Lever lever{"amp", {}};
    if (c.amp)
        return lever;
    Step s;
    s.title = cuda ? "AMP (fp16 with loss scaling)" : "AMP (bf16 autocast)";
    s.changes = {{"amp", "true"}};
    s.apply = [](TrainConfig& t) { t.amp = true; };
    s.effect = fixcost::amp(cuda);
    s.values = {{"cuda", cuda ? "1" : "0"}};
    s.reason = "activations are kept in 16 bits instead of 32";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever checkpointingLever(const TrainConfig& c) {
    Lever lever{"checkpointing", {}};
    for (Checkpointing mode : {Checkpointing::Backbone, Checkpointing::All}) {
        if (static_cast<int>(mode) <= static_cast<int>(c.checkpointing))
            continue;
        Step s;
        s.title = mode == Checkpointing::All ? "gradient checkpointing of all blocks"
                                             : "gradient checkpointing of the backbone";
        s.changes = {{"checkpointing", toString(mode)}};
        s.apply = [mode](TrainConfig& t) { t.checkpointing = mode; };
        s.effect = fixcost::checkpointing(c.checkpointing, mode);
        s.values = {{"mode", toString(mode)}};
        s.reason = "wrapped blocks keep only their inputs and recompute the rest in backward";
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

Lever imageSizeLever(const TrainConfig& c) {
    Lever lever{"imgsz", {}};
    const int smallest = std::max(64, (c.imgsz / 2 + 31) / 32 * 32);
    for (int size = (c.imgsz - 1) / 32 * 32; size >= smallest; size -= 32) {
        Step s;
        s.title = "imgsz " + std::to_string(size);
        s.changes = {{"imgsz", std::to_string(size)}};
        s.apply = [size](TrainConfig& t) { t.imgsz = size; };
        s.effect = fixcost::smallerImage(c.imgsz, size);
        const int percent =
            static_cast<int>(std::lround(100.0 * size * size / (double(c.imgsz) * c.imgsz)));
        s.values = {{"imgsz", std::to_string(size)},
                    {"from", std::to_string(c.imgsz)},
                    {"pixels_percent", std::to_string(percent)},
                    {"side_percent", std::to_string(std::lround(100.0 * size / c.imgsz))}};
        s.reason =
            "activations scale with the pixel count (" + std::to_string(percent) + "% of now)";
        s.severity = 1.0 - static_cast<double>(size) / c.imgsz;
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

Lever freezeLever(const TrainConfig& c) {
    Lever lever{"freeze", {}};
    if (!c.freeze.empty())
        return lever;
    const int rows = backboneRows(c.model);
    if (rows <= 0)
        return lever;
    std::vector<int> layers(rows);
    for (int i = 0; i < rows; ++i)
        layers[i] = i;
    Step s;
    s.title = "freeze the backbone (layers 0-" + std::to_string(rows - 1) + ")";
    s.changes = {{"freeze", std::to_string(rows)}};
    s.apply = [layers](TrainConfig& t) { t.freeze = layers; };
    s.effect = fixcost::freezeBackbone(!c.weights.empty());
    s.values = {{"last_layer", std::to_string(rows - 1)},
                {"pretrained", c.weights.empty() ? "0" : "1"}};
    s.reason = "no gradients, optimizer state or saved activations for the backbone";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever sgdLever(const TrainConfig& c) {
    Lever lever{"sgd", {}};
    const std::string name = toLower(c.optimizer);
    if (!isAdamFamily(name) && name != "auto")
        return lever;
    Step s;
    s.title = "SGD instead of " + optimizerName(c);
    s.changes = {{"optimizer", "SGD"}};
    s.apply = [](TrainConfig& t) { t.optimizer = "SGD"; };
    s.effect = fixcost::sgdInsteadOfAdam();
    s.values = {{"from", toLower(c.optimizer) == "auto" ? "auto" : c.optimizer}};
    s.reason = "SGD keeps one state tensor per weight (momentum), Adam/AdamW two";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever offloadLever(const TrainConfig& c, bool cuda) {
    Lever lever{"offload", {}};
    // On a CPU device the state already lives in host RAM: "offloading" it would only hide it
    // from the budget, which frees nothing real.
    if (c.optimizer_offload || !cuda)
        return lever;
    Step s;
    s.title = "optimizer state in host memory";
    s.changes = {{"optimizer_offload", "true"}};
    s.apply = [](TrainConfig& t) { t.optimizer_offload = true; };
    s.effect = fixcost::optimizerOffload(cuda);
    s.reason = "the optimizer state leaves the device";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever validationBatchLever(const TrainConfig& c) {
    Lever lever{"val_batch", {}};
    for (int v = validationBatch(c) / 2; v >= 1; v /= 2) {
        Step s;
        s.title = "validation batch " + std::to_string(v);
        s.changes = {{"val_batch", std::to_string(v)}};
        s.apply = [v](TrainConfig& t) { t.val_batch = v; };
        s.effect = fixcost::smallerValidationBatch();
        s.values = {{"val_batch", std::to_string(v)}, {"now", std::to_string(validationBatch(c))}};
        s.reason = "validation activations scale with its batch (now " +
                   std::to_string(validationBatch(c)) + ")";
        lever.steps.push_back(std::move(s));
        if (v == 1)
            break;
    }
    return lever;
}

/// Anchors of a 3-level (strides 8, 16, 32) detection head at `imgsz`: what the assigner
/// compares every box with.
std::int64_t anchorsAt(int imgsz) {
    std::int64_t anchors = 0;
    for (int stride : {8, 16, 32}) {
        const std::int64_t side = (imgsz + stride - 1) / stride;
        anchors += side * side;
    }
    return anchors;
}

/// Chunked assignment: the assigner takes fewer ground-truth boxes at a time (assign_chunk),
/// for an OOM in the loss phase on crowded images. The targets are the same.
Lever assignChunkLever(const TrainConfig& c, Phase phase, int objects) {
    Lever lever{"assign_chunk", {}};
    if (phase != Phase::Loss || (objects > 0 && objects < kManyObjectsPerImage))
        return lever;
    const std::int64_t images = rankBatch(c.batch, c.nproc);
    const std::int64_t anchors = anchorsAt(c.imgsz);
    // Unknown object count: size for Ultralytics' detection cap, the most a data set offers.
    const std::int64_t boxes = objects > 0 ? objects : 300;
    const std::int64_t now = assignerBoxesPerSlice(c.assign_chunk, images, boxes, anchors);
    const ModelScale model = parseModelScale(c);
    // A quarter of the slice, then one box at a time: the temporaries shrink in proportion.
    std::vector<std::int64_t> sizes;
    for (std::int64_t to : {now / 4, std::int64_t(1)})
        if (to >= 1 && to < now && (sizes.empty() || to < sizes.back()))
            sizes.push_back(to);
    for (std::int64_t to : sizes) {
        Step s;
        s.title = "chunked assignment: " + std::to_string(to) + (to == 1 ? " box" : " boxes") +
                  " at a time (now " + std::to_string(now) + ")";
        s.changes = {{"assign_chunk", std::to_string(to)}};
        const int value = static_cast<int>(to);
        s.apply = [value](TrainConfig& t) { t.assign_chunk = value; };
        s.effect = fixcost::chunkedAssignment(static_cast<int>(now), value, static_cast<int>(boxes),
                                              images, anchors, model.family, model.scale);
        s.values = {{"boxes", std::to_string(to)},
                    {"now", std::to_string(now)},
                    {"anchors", std::to_string(anchors)},
                    {"objects", std::to_string(objects > 0 ? objects : 0)},
                    {"less", std::to_string(std::max<std::int64_t>(1, now / to))}};
        s.reason = "the label assigner compares each box with all " + std::to_string(anchors) +
                   " anchors of every image at once; " +
                   (objects > 0 ? "up to " + std::to_string(objects) + " boxes per image"
                                : std::string("the data set's boxes per image are unknown")) +
                   ", taken " + std::to_string(to) + " at a time, need " +
                   std::to_string(std::max<std::int64_t>(1, now / to)) +
                   "x less for its temporaries";
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

Lever distributedLever(const TrainConfig& c, int devices) {
    Lever lever{"ddp", {}};
    if (devices <= 1 || (c.nproc >= devices && c.zero >= 1))
        return lever;
    const int n = std::max(devices, c.nproc);
    Step s;
    s.title = std::to_string(n) + " devices, data parallel, optimizer state sharded";
    if (c.nproc != n)
        s.changes.emplace_back("nproc", std::to_string(n));
    s.changes.emplace_back("zero", "1");
    s.apply = [n](TrainConfig& t) {
        t.nproc = n;
        t.zero = 1;
    };
    s.effect = fixcost::distributed(c.nproc >= n ? 1 : n / std::max(1, c.nproc));
    s.values = {{"devices", std::to_string(n)}};
    s.reason =
        "each device holds 1/" + std::to_string(n) + " of the batch and of the optimizer state";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever scaleLever(const TrainConfig& c) {
    Lever lever{"scale", {}};
    const ModelScale m = parseModelScale(c);
    if (m.family == 0 || m.scale == 0)
        return lever;
    const std::string order = scaleLettersOf(m.family);
    const std::size_t at = order.find(m.scale);
    if (at == std::string::npos || at == 0)
        return lever;
    for (std::size_t i = at; i-- > 0;) {
        const char to = order[i];
        TrainConfig changed = c;
        Step s;
        if (m.letterPos != std::string::npos) {
            changed.model[m.letterPos] = to;
            s.changes = {{"model", changed.model}};
        } else {
            changed.model_scale = std::string(1, to);
            s.changes = {{"model_scale", changed.model_scale}};
        }
        s.title = "model scale " + std::string(1, to) + " instead of " + std::string(1, m.scale);
        const std::string model = changed.model;
        const std::string scale = changed.model_scale;
        s.apply = [model, scale](TrainConfig& t) {
            t.model = model;
            t.model_scale = scale;
        };
        s.effect = fixcost::smallerScale(m.family, m.scale, to);
        s.values = {{"to", std::string(1, to)}, {"from", std::string(1, m.scale)}};
        s.reason = "fewer and narrower layers: less of everything";
        s.severity = static_cast<double>(at - i);
        s.restarts = true;
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

// --- search --------------------------------------------------------------------------------

/// A candidate: one step from each of some levers.
struct Candidate {
    std::vector<const Lever*> levers;
    std::vector<const Step*> steps;
    bool restarts = false;
    double score = 0.0; ///< accuracy cost + severity, summed
    double speed = 1.0;
    int changes = 0;
};

bool betterThan(const Candidate& a, const Candidate& b) {
    if (a.restarts != b.restarts)
        return !a.restarts;
    if (std::abs(a.score - b.score) > 1e-9)
        return a.score < b.score;
    if (std::abs(a.speed - b.speed) > 1e-9)
        return a.speed < b.speed;
    return a.changes < b.changes;
}

Candidate makeCandidate(const std::vector<const Lever*>& levers,
                        const std::vector<std::size_t>& index) {
    Candidate c;
    c.levers = levers;
    for (std::size_t i = 0; i < levers.size(); ++i) {
        const Step* s = &levers[i]->steps[index[i]];
        c.steps.push_back(s);
        c.restarts = c.restarts || s->restarts;
        c.score += s->effect.accuracyCost + s->severity;
        c.speed *= s->effect.speedFactor;
        c.changes += static_cast<int>(s->changes.size());
    }
    return c;
}

class Search {
public:
    /// `predictorBasis` says what `predictor`'s figures are.
    Search(const OomReport& report, PeakPredictor predictor, FigureBasis predictorBasis,
           const AdvisorOptions& options)
        : m_report(report), m_predictor(std::move(predictor)),
          m_predictorBasis(std::move(predictorBasis)), m_options(options) {
        m_budget = report.budgetBytes > 0 ? report.budgetBytes : report.config.memory_budget;
        const std::int64_t need = observedNeed(report);
        if (const auto now = predictRaw(report.config); now && *now > 0 && *now < need)
            m_correction = static_cast<double>(need) / static_cast<double>(*now);
    }

    double correction() const { return m_correction; }
    /// Asked before each full prediction; false ends the search (ended() turns true).
    void setBeforePrediction(std::function<bool()> check) { m_beforePrediction = std::move(check); }
    bool ended() const { return m_ended; }
    std::int64_t limit() const {
        return static_cast<std::int64_t>(m_options.safety * static_cast<double>(m_budget));
    }

    TrainConfig configOf(const Candidate& c) const {
        TrainConfig t = m_report.config;
        for (const Step* s : c.steps)
            s->apply(t);
        return t;
    }

    /// Where the prediction for `config` came from (after predict()).
    FigureBasis basisOf(const TrainConfig& config) const {
        FigureBasis b;
        const auto it = m_sources.find(cacheKey(config));
        if (it != m_sources.end())
            b = it->second;
        if (m_correction > 1.0) {
            char note[120];
            std::snprintf(note, sizeof note, "; scaled by %.2f to what the failed step needed",
                          m_correction);
            b.detail += note;
        }
        return b;
    }

    /// The corrected prediction, or nothing (unknown, or the prediction budget is spent).
    std::optional<std::int64_t> predict(const TrainConfig& config) {
        const auto raw = predictRaw(config);
        if (!raw)
            return std::nullopt;
        return static_cast<std::int64_t>(std::llround(static_cast<double>(*raw) * m_correction));
    }

    bool fits(const TrainConfig& config, std::int64_t* peak) {
        if (m_budget <= 0)
            return false;
        const auto p = predict(config);
        if (!p)
            return false;
        *peak = *p;
        return *p <= limit();
    }

    /// The best-ranked fitting combination of these levers (one step each), if any.
    std::optional<std::pair<Candidate, std::int64_t>>
    best(const std::vector<const Lever*>& levers) {
        std::vector<Candidate> all;
        std::vector<std::size_t> index(levers.size(), 0);
        for (;;) {
            all.push_back(makeCandidate(levers, index));
            std::size_t i = 0;
            while (i < levers.size() && ++index[i] == levers[i]->steps.size())
                index[i++] = 0;
            if (i == levers.size())
                break;
        }
        std::int64_t peak = 0;
        // Memory falls monotonically along each lever: when the strongest setting of every
        // lever does not fit, no combination of these levers does.
        std::vector<std::size_t> strongest;
        for (const Lever* l : levers)
            strongest.push_back(l->steps.size() - 1);
        if (!fits(configOf(makeCandidate(levers, strongest)), &peak))
            return std::nullopt;
        std::stable_sort(all.begin(), all.end(), betterThan);
        for (const Candidate& c : all) {
            if (m_calls >= m_options.maxPredictions)
                break;
            if (fits(configOf(c), &peak))
                return std::make_pair(c, peak);
        }
        return std::nullopt;
    }

private:
    std::optional<std::int64_t> predictRaw(const TrainConfig& config) {
        const std::string key = cacheKey(config);
        if (auto it = m_cache.find(key); it != m_cache.end())
            return it->second;
        if (m_calls >= m_options.maxPredictions)
            return std::nullopt;
        ++m_calls;
        // The quick predictor first (no probe steps); the full one only when the quick one has
        // no answer and the time for this report is not spent.
        std::optional<std::int64_t> value =
            m_options.quickPredictor ? m_options.quickPredictor(config) : std::nullopt;
        if (value)
            m_sources[key] = {FigureSource::MeasuredHere,
                              "the estimator's cached probe steps on this machine (another "
                              "image size scaled by the pixel count)"};
        const bool late =
            m_options.predictionSeconds > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count() >
                m_options.predictionSeconds;
        if (!value && !late && m_predictor) {
            // A prediction may run probe steps for seconds: whoever waits may end the search
            // first (nothing is cached then, and no more predictions are made).
            if (m_ended || (m_beforePrediction && !m_beforePrediction())) {
                m_ended = true;
                --m_calls;
                return std::nullopt;
            }
            value = m_predictor(config);
            if (value)
                m_sources[key] = m_predictorBasis;
        }
        m_cache.emplace(key, value);
        return value;
    }

    const OomReport& m_report;
    PeakPredictor m_predictor;
    FigureBasis m_predictorBasis;
    AdvisorOptions m_options;
    std::int64_t m_budget = 0;
    double m_correction = 1.0;
    int m_calls = 0;
    std::function<bool()> m_beforePrediction;
    bool m_ended = false;
    std::chrono::steady_clock::time_point m_started = std::chrono::steady_clock::now();
    std::map<std::string, std::optional<std::int64_t>> m_cache;
    std::map<std::string, FigureBasis> m_sources;
};

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (const std::string& p : parts) {
        if (p.empty())
            continue;
        if (!out.empty())
            out += separator;
        out += p;
    }
    return out;
}

FixSuggestion toSuggestion(const Candidate& c, const TrainConfig& config, std::int64_t peak,
                           bool fits) {
    FixSuggestion f;
    std::vector<std::string> ids, titles, effects, reasons, speeds;
    std::vector<FigureBasis> speedBases, accuracyBases;
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
        const Step& s = *c.steps[i];
        ids.push_back(c.levers[i]->id);
        titles.push_back(s.title);
        f.changes.insert(f.changes.end(), s.changes.begin(), s.changes.end());
        effects.push_back(
            c.steps.size() > 1 && s.effect.accuracyCost == 0 ? "" : s.effect.accuracyEffect);
        reasons.push_back(s.reason);
        speeds.push_back(s.effect.speedBasis.detail);
        speedBases.push_back(s.effect.speedBasis);
        accuracyBases.push_back(s.effect.accuracyBasis);
        f.parts.push_back({c.levers[i]->id, s.values, s.effect.accuracyCost});
        f.accuracyCost += s.effect.accuracyCost;
        f.restarts = f.restarts || s.restarts;
    }
    f.id = joined(ids, "+");
    f.title = joined(titles, " + ");
    f.config = config;
    f.predictedPeak = peak;
    f.speedFactor = c.speed;
    f.accuracyCost = std::min(f.accuracyCost, 3);
    f.accuracyEffect = joined(effects, "; ");
    if (f.accuracyEffect.empty())
        f.accuracyEffect = "none expected";
    f.reason = joined(reasons, "; ") + ". Speed: " + joined(speeds, "; ") + ".";
    f.speedBasis = fixcost::combined(speedBases);
    f.accuracyBasis = fixcost::combined(accuracyBases);
    f.fits = fits;
    return f;
}

std::vector<FixSuggestion> hostFixes(const OomReport& report) {
    const TrainConfig& c = report.config;
    std::vector<Lever> levers;
    if (toLower(c.cache) == "ram") {
        Lever l{"host_cache", {}};
        Step s;
        s.title = "host fix: image cache on disk instead of RAM";
        s.changes = {{"cache", "disk"}};
        s.apply = [](TrainConfig& t) { t.cache = "disk"; };
        s.effect = fixcost::noImageCache();
        s.reason = "the decoded images of the whole data set leave host RAM";
        s.values = {{"cache", "disk"}};
        l.steps.push_back(std::move(s));
        levers.push_back(std::move(l));
    }
    if (c.workers > 1) {
        const int to = c.workers / 2;
        Lever l{"host_workers", {}};
        Step s;
        s.title = "host fix: " + std::to_string(to) + " loader workers instead of " +
                  std::to_string(c.workers);
        s.changes = {{"workers", std::to_string(to)}};
        s.apply = [to](TrainConfig& t) { t.workers = to; };
        s.effect = fixcost::fewerWorkers(c.workers, to);
        s.values = {{"workers", std::to_string(to)}, {"from", std::to_string(c.workers)}};
        s.reason = "each worker holds batches being prepared in host RAM";
        l.steps.push_back(std::move(s));
        levers.push_back(std::move(l));
    }
    if (c.mosaic > 0.0 || c.mixup > 0.0) {
        Lever l{"host_mosaic", {}};
        Step s;
        s.title = c.mixup > 0.0 ? "host fix: mosaic and mixup off" : "host fix: mosaic off";
        s.changes = {{"mosaic", "0"}};
        if (c.mixup > 0.0)
            s.changes.emplace_back("mixup", "0");
        s.apply = [](TrainConfig& t) {
            t.mosaic = 0.0;
            t.mixup = 0.0;
        };
        s.effect = fixcost::mosaicOff();
        s.values = {{"mixup", c.mixup > 0.0 ? "1" : "0"}};
        s.reason = "mosaic assembles a 2 x imgsz canvas from four images per sample";
        l.steps.push_back(std::move(s));
        levers.push_back(std::move(l));
    }
    std::vector<Candidate> candidates;
    for (const Lever& l : levers)
        candidates.push_back(makeCandidate({&l}, {0}));
    std::stable_sort(candidates.begin(), candidates.end(), betterThan);
    std::vector<FixSuggestion> out;
    for (const Candidate& cand : candidates) {
        TrainConfig t = c;
        cand.steps[0]->apply(t);
        FixSuggestion f = toSuggestion(cand, t, 0, true);
        f.hostFix = true;
        f.memoryBasis = {FigureSource::NotMeasured, "host memory is not predicted"};
        f.reason += " Host memory is not predicted; this frees host RAM, not device memory.";
        out.push_back(std::move(f));
    }
    return out;
}

std::optional<FixSuggestion> releaseCacheFix(const OomReport& report, Search& search) {
    if (!isCuda(report.device) || report.timeline.empty())
        return std::nullopt;
    const MemorySample& last = report.timeline.back();
    const std::int64_t cached = last.reserved - last.allocated;
    const std::int64_t need = observedNeed(report);
    if (cached <= 0 || cached < std::max<std::int64_t>(report.requestedBytes, search.limit() / 10))
        return std::nullopt;
    if (need > search.limit())
        return std::nullopt;
    FixSuggestion f;
    f.id = "release_cache";
    f.title = "release cached blocks and retry";
    f.config = report.config;
    f.predictedPeak = need;
    const FixEffect e = fixcost::releaseCachedBlocks();
    f.speedFactor = e.speedFactor;
    f.accuracyCost = e.accuracyCost;
    f.accuracyEffect = e.accuracyEffect;
    f.reason = "the allocator held " + formatBytes(cached) +
               " in cached blocks that the failed request could not use (fragmentation); the "
               "step itself needed " +
               formatBytes(need) + ". Speed: " + e.speedBasis.detail + ".";
    f.memoryBasis = {FigureSource::MeasuredHere, "what the failed step needed"};
    f.speedBasis = e.speedBasis;
    f.accuracyBasis = e.accuracyBasis;
    f.fits = true;
    f.parts.push_back({f.id,
                       {{"cached", std::to_string(cached)}, {"need", std::to_string(need)}},
                       e.accuracyCost});
    return f;
}

/// A fix's figures from what this machine measured: the speed from the estimator's timed probe
/// steps of both configs, then how this fix's last prediction compared with the run that
/// applied it; the accuracy from finished runs of both configs on this data set.
void useMeasuredFigures(FixSuggestion& f, const OomReport& report, const AdvisorOptions& options) {
    if (options.measuredAccuracy) {
        const std::optional<MeasuredAccuracy> before = options.measuredAccuracy(report.config);
        const std::optional<MeasuredAccuracy> after =
            before ? options.measuredAccuracy(f.config) : std::nullopt;
        if (before && after) {
            char text[400];
            std::snprintf(text, sizeof text,
                          "measured here on this data set: mAP50-95 %.3f (mAP50 %.3f) in run "
                          "%s against %.3f (%.3f) in run %s",
                          after->map, after->map50, after->run.c_str(), before->map, before->map50,
                          before->run.c_str());
            f.accuracyBasis = {FigureSource::MeasuredHere, text};
        }
    }
    if (options.timePredictor) {
        const std::optional<double> before = options.timePredictor(report.config);
        const std::optional<double> after = before ? options.timePredictor(f.config) : std::nullopt;
        if (before && after && *before > 0 && *after > 0) {
            f.speedFactor = *after / *before;
            char text[200];
            std::snprintf(text, sizeof text,
                          "timed on this machine by the estimator's probe steps (CPU time, "
                          "medians of 3 or more steps): %.1f ms per image instead of %.1f ms",
                          *after * 1e3, *before * 1e3);
            f.speedBasis = {FigureSource::MeasuredHere, text};
        }
    }
    if (options.useSpeedChecks)
        if (const std::optional<double> ratio = speedCheckRatio(report.device, f.id)) {
            f.speedFactor *= *ratio;
            f.speedCorrection = *ratio;
            char text[160];
            std::snprintf(text, sizeof text,
                          "; x%.2f: the last run on this machine that applied this fix measured "
                          "that much against its prediction",
                          *ratio);
            f.speedBasis.detail += text;
            f.speedBasis.source = FigureSource::MeasuredHere;
        }
}

/// The lever subsets of one size that the search judges: every subset of that size, and for
/// triples only those with a smaller batch (the decision flow's core step).
std::vector<std::vector<const Lever*>> subsetsOfSize(const std::vector<const Lever*>& usable,
                                                     std::size_t size) {
    std::vector<std::vector<const Lever*>> subsets;
    std::vector<bool> pick(usable.size(), false);
    std::fill(pick.begin(), pick.begin() + static_cast<long>(size), true);
    do {
        std::vector<const Lever*> subset;
        bool hasBatch = false;
        for (std::size_t i = 0; i < usable.size(); ++i)
            if (pick[i]) {
                subset.push_back(usable[i]);
                hasBatch = hasBatch || usable[i]->id == "batch";
            }
        if (size < 3 || hasBatch)
            subsets.push_back(std::move(subset));
    } while (std::prev_permutation(pick.begin(), pick.end()));
    return subsets;
}

/// The device levers for an OOM in `phase`, in the decision flow's order (ARCHITECTURE.md),
/// which breaks ties in the ranking.
std::vector<Lever> deviceLevers(const TrainConfig& c, bool cuda, Phase phase, int objectsPerImage,
                                int deviceCount) {
    std::vector<Lever> levers;
    if (phase == Phase::Validation)
        levers.push_back(validationBatchLever(c));
    // No accuracy cost and a small speed cost: ranked ahead of every lever that changes
    // training, as the decision flow does with other free fixes.
    levers.push_back(assignChunkLever(c, phase, objectsPerImage));
    levers.push_back(distributedLever(c, deviceCount));
    levers.push_back(imageSizeLever(c));
    levers.push_back(batchLever(c, cuda));
    levers.push_back(ampLever(c, cuda));
    levers.push_back(checkpointingLever(c));
    levers.push_back(freezeLever(c));
    levers.push_back(scaleLever(c));
    levers.push_back(sgdLever(c));
    levers.push_back(offloadLever(c, cuda));
    return levers;
}

} // namespace

std::vector<FixSuggestion> suggestFixes(const OomReport& report, const PeakPredictor& predictor,
                                        const AdvisorOptions& options,
                                        const FixProgress& progress) {
    if (report.hostMemory) {
        std::vector<FixSuggestion> host = hostFixes(report);
        if (progress)
            progress({host, 1, 1, true});
        return host;
    }

    const TrainConfig& c = report.config;
    const bool cuda = isCuda(report.device);

    std::vector<Lever> levers =
        deviceLevers(c, cuda, report.phase, options.objectsPerImage, options.deviceCount);
    std::vector<const Lever*> usable;
    for (const Lever& l : levers)
        if (!l.steps.empty())
            usable.push_back(&l);

    FixSearchProgress state;
    state.planned = static_cast<int>(usable.size());
    // Before the first prediction: the search below may run probe steps for seconds.
    bool going = !progress || progress(state);
    if (!going)
        return {};
    const FigureBasis predictorBasis =
        predictor
            ? FigureBasis{FigureSource::MeasuredHere, "the estimator's probe steps on this machine"}
            : FigureBasis{FigureSource::Assumption,
                          "scaled from the failed step's measured breakdown by batch x "
                          "image size; AMP assumed to keep 60% (one CPU bf16 test)"};
    Search search(report, predictor ? predictor : reportScalingPredictor(report), predictorBasis,
                  options);

    if (progress)
        search.setBeforePrediction([&] { return progress(state); });
    std::vector<std::pair<Candidate, std::int64_t>> found;
    std::optional<FixSuggestion> release = releaseCacheFix(report, search);
    auto ranked = [&] {
        std::vector<std::pair<Candidate, std::int64_t>> order = found;
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& a, const auto& b) { return betterThan(a.first, b.first); });
        std::vector<FixSuggestion> out;
        if (release)
            out.push_back(*release);
        for (const auto& [candidate, peak] : order) {
            if (static_cast<int>(out.size()) >= options.maxSuggestions)
                break;
            FixSuggestion f = toSuggestion(candidate, search.configOf(candidate), peak, true);
            f.memoryBasis = search.basisOf(f.config);
            useMeasuredFigures(f, report, options);
            f.predictionScale = search.correction();
            if (search.correction() > 1.0) {
                char note[160];
                std::snprintf(note, sizeof note,
                              " Predictions scaled by %.2f: the estimator predicted less than "
                              "the failed step needed.",
                              search.correction());
                f.reason += note;
            }
            out.push_back(std::move(f));
        }
        return out;
    };

    // Singles first; pairs only when no single change that continues the run fits; triples
    // (always with a smaller batch) when no pair does.
    auto continues = [](const auto& hit) { return !hit.first.restarts; };
    for (std::size_t size = 1; going && size <= 3 && size <= usable.size(); ++size) {
        if (std::any_of(found.begin(), found.end(), continues))
            break;
        const std::vector<std::vector<const Lever*>> subsets = subsetsOfSize(usable, size);
        if (size > 1)
            state.planned += static_cast<int>(subsets.size());
        for (const auto& subset : subsets) {
            const bool hit = [&] {
                if (auto best = search.best(subset)) {
                    found.push_back(std::move(*best));
                    return true;
                }
                return false;
            }();
            if (search.ended()) {
                going = false;
                break;
            }
            ++state.checked;
            if (progress) {
                if (hit)
                    state.fixes = ranked();
                if (!progress(state)) {
                    going = false;
                    break;
                }
            }
        }
    }

    std::vector<FixSuggestion> out = ranked();
    if (progress && going) {
        state.fixes = out;
        state.planned = state.checked;
        state.done = true;
        progress(state);
    }
    return out;
}

std::vector<LeverChange> leverFirstSteps(const TrainConfig& config, const std::string& device,
                                         int objectsPerImage) {
    // Chunked assignment as for a loss-phase OOM; one device: no data-parallel lever.
    const std::vector<Lever> levers =
        deviceLevers(config, isCuda(device), Phase::Loss, objectsPerImage, 1);
    std::vector<LeverChange> out;
    for (const Lever& lever : levers) {
        // Both checkpointing settings are levers of their own in practice; others: the first.
        const std::size_t count = lever.id == "checkpointing"
                                      ? lever.steps.size()
                                      : std::min<std::size_t>(1, lever.steps.size());
        for (std::size_t i = 0; i < count; ++i) {
            const Step& step = lever.steps[i];
            LeverChange change;
            change.lever = lever.id;
            change.title = step.title;
            change.changes = step.changes;
            change.config = config;
            step.apply(change.config);
            change.speedFactor = step.effect.speedFactor;
            change.speedBasis = step.effect.speedBasis;
            out.push_back(std::move(change));
        }
    }
    return out;
}

PeakPredictor reportScalingPredictor(const OomReport& report) {
    const TrainConfig base = report.config;
    const MemoryBreakdown parts = report.breakdown;
    const Phase phase = report.phase;
    const std::int64_t need = observedNeed(report);
    const std::int64_t resident = std::min(parts.resident(), need);
    // What the failed phase added on top of the resident state: activations and batch data.
    // The optimizer step and the EMA update add temporaries that do not scale with the batch.
    const bool stepPhase = phase == Phase::Optimizer || phase == Phase::Ema;
    // A forward pass that failed had not finished, and backward holds more than forward's
    // end: what it showed is a lower bound. Assume a whole step needs twice what was seen (a
    // cautious guess that may cost some speed, never another OOM as often as a low one); the
    // loss phase sits at forward's end, so backward's extra alone remains. The estimator,
    // when the caller passes it, replaces this guess with calibrated numbers.
    const double unfinished = phase == Phase::Forward ? 2.0 : (phase == Phase::Loss ? 1.3 : 1.0);
    const double variable = stepPhase ? 0.0 : unfinished * static_cast<double>(need - resident);
    const double stepExtra = stepPhase ? static_cast<double>(need - resident) : 0.0;
    // State tensors per weight: AdamW/Adam two, SGD one (momentum); "auto" picks AdamW for the
    // short runs where it matters here (Ultralytics' rule).
    auto stateTensors = [](const TrainConfig& c) {
        if (c.optimizer_offload)
            return 0.0;
        return toLower(c.optimizer) == "sgd" ? 1.0 : 2.0;
    };
    auto ranks = [](const TrainConfig& c) { return std::max(c.nproc, 1); };
    auto stepImages = [](const TrainConfig& c) {
        return static_cast<double>(rankBatch(c.batch, c.nproc));
    };
    // The share of the optimizer state one rank keeps (ZeRO-1 shards it over the ranks).
    auto stateShare = [ranks](const TrainConfig& c) { return c.zero == 1 ? 1.0 / ranks(c) : 1.0; };
    const double w = static_cast<double>(parts.weights);
    // On the first step gradients and optimizer state do not exist yet when forward/backward
    // fail; a full step will hold them, so count them at their full size.
    const double grads = std::max(static_cast<double>(parts.gradients), w);
    const double baseState = std::max(static_cast<double>(parts.optimizerState),
                                      stateTensors(base) * w * stateShare(base));
    return [=](const TrainConfig& c) -> std::optional<std::int64_t> {
        if (c.checkpointing != base.checkpointing || c.freeze != base.freeze ||
            c.model != base.model || c.model_scale != base.model_scale || c.assign_chunk != base.assign_chunk ||
            (base.optimizer_offload && !c.optimizer_offload))
            return std::nullopt;
        if (base.batch <= 0 || base.imgsz <= 0)
            return std::nullopt;
        // Data parallel (the estimator's rule): a rank trains on batch / nproc images, rank 0
        // validates at the whole validation batch, ZeRO-1 keeps 1/nproc of the state, and
        // the gradient all-reduce adds up to one copy of the gradients.
        const double side = static_cast<double>(c.imgsz) / base.imgsz;
        const double images = phase == Phase::Validation
                                  ? static_cast<double>(validationBatch(c)) / validationBatch(base)
                                  : stepImages(c) / stepImages(base);
        double activations = variable * side * side * images;
        // bf16/fp16 autocast: the ~40% cut of peak tensor memory measured on a conv stack
        // (ARCHITECTURE.md, platform facts).
        if (c.amp && !base.amp)
            activations *= 0.6;
        else if (!c.amp && base.amp)
            activations /= 0.6;
        const double tensors = stateTensors(base) > 0 ? stateTensors(c) / stateTensors(base) : 1.0;
        const double ratio = tensors * stateShare(c) / stateShare(base);
        const double state = baseState * ratio;
        const double copies = (ranks(c) > 1 ? grads : 0.0) - (ranks(base) > 1 ? grads : 0.0);
        const double total = w + static_cast<double>(parts.ema) + grads + state + activations +
                             stepExtra * (stateTensors(base) > 0 ? ratio : 1.0) + copies;
        return static_cast<std::int64_t>(std::llround(total));
    };
}

std::string fixSuggestionsToJson(const std::vector<FixSuggestion>& fixes) {
    std::ostringstream out;
    out << '[';
    for (std::size_t i = 0; i < fixes.size(); ++i) {
        const FixSuggestion& f = fixes[i];
        if (i)
            out << ',';
        out << "{\"id\":\"" << jsonEscape(f.id) << "\",\"title\":\"" << jsonEscape(f.title)
            << "\",\"changes\":{";
        for (std::size_t k = 0; k < f.changes.size(); ++k)
            out << (k ? "," : "") << '"' << jsonEscape(f.changes[k].first) << "\":\""
                << jsonEscape(f.changes[k].second) << '"';
        char speed[32];
        std::snprintf(speed, sizeof speed, "%.3f", f.speedFactor);
        out << "},\"predicted_peak_bytes\":" << f.predictedPeak << ",\"speed_factor\":" << speed
            << ",\"accuracy_cost\":" << f.accuracyCost << ",\"accuracy_effect\":\""
            << jsonEscape(f.accuracyEffect) << "\",\"reason\":\"" << jsonEscape(f.reason)
            << "\",\"fits\":" << (f.fits ? "true" : "false")
            << ",\"host_fix\":" << (f.hostFix ? "true" : "false")
            << ",\"restarts\":" << (f.restarts ? "true" : "false");
        for (const auto& [name, basis] :
             {std::pair<const char*, const FigureBasis*>{"memory_basis", &f.memoryBasis},
              {"speed_basis", &f.speedBasis},
              {"accuracy_basis", &f.accuracyBasis}})
            out << ",\"" << name << "\":{\"source\":\"" << toString(basis->source)
                << "\",\"detail\":\"" << jsonEscape(basis->detail) << "\"}";
        out << '}';
    }
    out << ']';
    return out.str();
}

std::string formatFixList(const std::vector<FixSuggestion>& fixes) {
    static const char* costWords[] = {"none", "small", "moderate", "large"};
    std::ostringstream out;
    for (std::size_t i = 0; i < fixes.size(); ++i) {
        const FixSuggestion& f = fixes[i];
        char speed[32];
        std::snprintf(speed, sizeof speed, "x%.2f", f.speedFactor);
        out << "  " << (i + 1) << ". " << f.title << '\n';
        out << "     ";
        if (!f.changes.empty()) {
            for (std::size_t k = 0; k < f.changes.size(); ++k)
                out << (k ? " " : "") << f.changes[k].first << '=' << f.changes[k].second;
            out << " | ";
        }
        if (f.predictedPeak > 0)
            out << "predicted peak " << formatBytes(f.predictedPeak) << " | ";
        const FigureSource speedSource = f.speedBasis.source;
        out << "time per epoch " << speed
            << (speedSource == FigureSource::MeasuredHere ? " (measured here)"
                : speedSource == FigureSource::Assumption
                    ? " (estimate: assumption, not measured here)"
                : speedSource == FigureSource::NotMeasured
                    ? " (not measured)"
                    : " (estimate: published / FLOP count, not measured here)")
            << " | accuracy cost " << costWords[std::clamp(f.accuracyCost, 0, 3)]
            << (f.restarts ? " | restarts training" : "") << '\n';
        out << "     accuracy: " << f.accuracyEffect << '\n';
        out << "     why: " << f.reason << '\n';
    }
    return out.str();
}

} // namespace hr
