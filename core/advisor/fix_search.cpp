// SPDX-License-Identifier: GPL-3.0-or-later
// The advisor's search: combinations of levers judged by the predictor, ranked, as fixes.
#include "advisor/fix_advisor.h"

#include "advisor/fix_cost_model.h"
#include "advisor/fix_levers.h"
#include "config/settings_table.h"
#include "util/bytes.h"
#include "util/speed_checks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace hr {
namespace {

using advisor::isCuda;
using advisor::Lever;
using advisor::observedNeed;
using advisor::Step;

/// The settings a step's memory depends on (every lever is one): tells candidate configs apart.
std::string cacheKey(const TrainConfig& c) {
    return settingsKey(c, kAffectsMemory);
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
        if (corrected(config)) {
            char note[120];
            std::snprintf(note, sizeof note, "scaled by %.2f to what the failed step needed",
                          m_correction);
            char factor[32];
            std::snprintf(factor, sizeof factor, "%.2f", m_correction);
            b.add("scaled_to_failed_step", {factor}, note);
        }
        return b;
    }

    /// False for a figure scaled from the failed step (smallestBatch()): it is not the
    /// predictor's, so the predictor's correction does not apply to it.
    bool corrected(const TrainConfig& config) const {
        return m_correction > 1.0 && m_fromFailedStep.count(cacheKey(config)) == 0;
    }

    /// The predictor's correction of `f`'s figure, in its reason and predictionScale.
    void noteCorrection(FixSuggestion& f) const {
        const bool scaled = corrected(f.config);
        f.predictionScale = scaled ? m_correction : 1.0;
        if (!scaled)
            return;
        char note[160];
        std::snprintf(note, sizeof note,
                      " Predictions scaled by %.2f: the estimator predicted less than the "
                      "failed step needed.",
                      m_correction);
        f.reason += note;
    }

    /// The smallest batch of `lever` ("batch": accumulation keeps the nominal batch) alone,
    /// when it fits. It is predicted as any candidate; when that gives no figure (the
    /// prediction seconds are spent, or the predictor cannot tell), it is scaled from the
    /// failed step's measured breakdown: one measurement, no probe steps.
    std::optional<std::pair<Candidate, std::int64_t>> smallestBatch(const Lever& lever) {
        if (m_budget <= 0 || lever.steps.empty())
            return std::nullopt;
        const Candidate c = makeCandidate({&lever}, {lever.steps.size() - 1});
        const TrainConfig config = configOf(c);
        std::optional<std::int64_t> peak = predict(config);
        if (!peak && !m_ended) {
            peak = reportScalingPredictor(m_report)(config);
            if (peak) {
                m_fromFailedStep.insert(cacheKey(config));
                m_sources[cacheKey(config)] = figureBasis(
                    FigureSource::Assumption, "report_scaling", {},
                    "scaled from the failed step's measured breakdown by the batch (the "
                    "predictor had no figure for it in time)");
            }
        }
        if (!peak || *peak > limit())
            return std::nullopt;
        return std::make_pair(c, *peak);
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
            m_sources[key] =
                figureBasis(FigureSource::MeasuredHere, "cached_probe_steps", {},
                            "the estimator's cached probe steps on this machine (another "
                            "image size scaled by the pixel count)");
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
    std::set<std::string> m_fromFailedStep; ///< configs whose figure smallestBatch() scaled
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
    const std::vector<Lever> levers = advisor::hostLevers(c);
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
        f.memoryBasis = figureBasis(FigureSource::NotMeasured, "host_not_predicted", {},
                                    "host memory is not predicted");
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
    f.memoryBasis = figureBasis(FigureSource::MeasuredHere, "failed_step_need", {},
                                "what the failed step needed");
    f.speedBasis = e.speedBasis;
    f.accuracyBasis = e.accuracyBasis;
    f.fits = true;
    f.parts.push_back({f.id,
                       {{"cached", std::to_string(cached)}, {"need", std::to_string(need)}},
                       e.accuracyCost});
    return f;
}

/// A fix's figures from what this machine measured: the speed from the estimator's probe steps
/// of both configs timed in turns (new timings only while `mayProbe` says so), then how this
/// fix's last prediction compared with the run that applied it; the accuracy from finished runs
/// of both configs on this data set.
void useMeasuredFigures(FixSuggestion& f, const OomReport& report, const AdvisorOptions& options,
                        const std::function<bool()>& mayProbe) {
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
            char numbers[4][32];
            std::snprintf(numbers[0], sizeof numbers[0], "%.3f", after->map);
            std::snprintf(numbers[1], sizeof numbers[1], "%.3f", after->map50);
            std::snprintf(numbers[2], sizeof numbers[2], "%.3f", before->map);
            std::snprintf(numbers[3], sizeof numbers[3], "%.3f", before->map50);
            f.accuracyBasis = figureBasis(
                FigureSource::MeasuredHere, "measured_map",
                {numbers[0], numbers[1], after->run, numbers[2], numbers[3], before->run}, text);
        }
    }
    if (options.timePredictor) {
        std::optional<TimedSpeed> timed = options.timePredictor(report.config, f.config, false, {});
        // mayProbe is asked again between the timing's steps: a choice made meanwhile, or the
        // timing seconds running out, ends it within a step.
        if (!timed && mayProbe && mayProbe())
            timed = options.timePredictor(report.config, f.config, true, mayProbe);
        if (timed && timed->factor > 0) {
            f.speedFactor = timed->factor;
            char text[240];
            std::snprintf(text, sizeof text,
                          "timed on this machine by the estimator's probe steps, in turns with "
                          "the failed settings' (CPU time, median of %d rounds): %.1f ms per "
                          "image instead of %.1f ms",
                          timed->rounds, timed->afterSeconds * 1e3, timed->beforeSeconds * 1e3);
            char ms[2][32];
            std::snprintf(ms[0], sizeof ms[0], "%.1f", timed->afterSeconds * 1e3);
            std::snprintf(ms[1], sizeof ms[1], "%.1f", timed->beforeSeconds * 1e3);
            f.speedBasis =
                figureBasis(FigureSource::MeasuredHere, "timed_here", {ms[0], ms[1]}, text);
        }
    }
    if (options.useSpeedChecks)
        if (const std::optional<double> ratio = speedCheckRatio(report.device, f.id)) {
            f.speedFactor *= *ratio;
            f.speedCorrection = *ratio;
            char text[160];
            std::snprintf(text, sizeof text,
                          "x%.2f: the last run on this machine that applied this fix measured "
                          "that much against its prediction",
                          *ratio);
            char factor[32];
            std::snprintf(factor, sizeof factor, "%.2f", *ratio);
            f.speedBasis.add("speed_check", {factor}, text);
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

/// What `predictor`'s figures are: probe steps, or (none given) the failed step scaled.
FigureBasis predictorBasisOf(const PeakPredictor& predictor) {
    if (predictor)
        return figureBasis(FigureSource::MeasuredHere, "probe_steps", {},
                           "the estimator's probe steps on this machine");
    return figureBasis(FigureSource::Assumption, "report_scaling", {},
                       "scaled from the failed step's measured breakdown by batch x image size; "
                       "AMP assumed to keep 60% (one CPU bf16 test)");
}

} // namespace

std::vector<FixSuggestion> suggestFixes(const OomReport& report, const PeakPredictor& predictor,
                                        const AdvisorOptions& options,
                                        const FixProgress& progress) {
    if (report.hostMemory && !hostFailureInCpuStep(report)) {
        std::vector<FixSuggestion> host = hostFixes(report);
        if (progress)
            progress({host, 1, 1, true});
        return host;
    }

    const TrainConfig& c = report.config;
    const bool cuda = isCuda(report.device);

    std::vector<Lever> levers =
        advisor::deviceLevers(c, cuda, report.phase, options.objectsPerImage, options.deviceCount);
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
    Search search(report, predictor ? predictor : reportScalingPredictor(report),
                  predictorBasisOf(predictor), options);

    if (progress)
        search.setBeforePrediction([&] { return progress(state); });
    std::vector<std::pair<Candidate, std::int64_t>> found;
    std::optional<FixSuggestion> release = releaseCacheFix(report, search);
    // `final`: the last ranking, which may time the shown fixes' speeds for the options'
    // timing seconds while whoever waits lets the search go on.
    std::chrono::steady_clock::time_point timingStart;
    auto ranked = [&](bool final) {
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
            useMeasuredFigures(f, report, options, [&] {
                const double spent =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - timingStart)
                        .count();
                if (!final || !going || search.ended() || spent > options.timingSeconds)
                    return false;
                going = !progress || progress(state);
                return going;
            });
            search.noteCorrection(f);
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
                    state.fixes = ranked(false);
                if (!progress(state)) {
                    going = false;
                    break;
                }
            }
        }
    }

    // Before saying that nothing fits: the smallest batch, even when the prediction seconds
    // ran out before the search reached it.
    if (going && !search.ended() && std::none_of(found.begin(), found.end(), continues))
        for (const Lever* lever : usable)
            if (lever->id == "batch")
                if (auto smallest = search.smallestBatch(*lever))
                    found.push_back(std::move(*smallest));

    timingStart = std::chrono::steady_clock::now();
    std::vector<FixSuggestion> out = ranked(true);
    // Host RAM that ran out in a CPU step: the device fixes above free it, and so do these.
    if (hostFailureInCpuStep(report))
        for (FixSuggestion& host : hostFixes(report))
            out.push_back(std::move(host));
    if (progress && going) {
        state.fixes = out;
        state.planned = state.checked;
        state.done = true;
        progress(state);
    }
    return out;
}

} // namespace hr
