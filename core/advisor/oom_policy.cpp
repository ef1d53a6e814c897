// SPDX-License-Identifier: GPL-3.0-or-later
#include "advisor/oom_policy.h"

#include "advisor/fix_advisor.h"
#include "advisor/oom_diagnosis.h"
#include "estimate/memory_estimator.h"
#include "memory/memory_probe.h"

#include <algorithm>

#include <utility>

namespace hr {

AdvisorOptions advisorOptions(const TrainConfig& config, bool personAnswers) {
    AdvisorOptions options;
    // A data-parallel run has nproc devices (processes) already: sharding is a fix there.
    options.deviceCount = std::max({1, cudaDevicesFor(config.device), config.nproc});
    // Chunked assignment is offered for a loss-phase OOM on crowded images.
    options.objectsPerImage = assignerObjectsPerImage(config);
    // Calibrations already made (and their pixel-count scaling) answer first; new probe steps
    // only for a few seconds: someone is waiting, a person or the run.
    options.quickPredictor = predictPeakWithoutProbing;
    options.predictionSeconds = personAnswers ? 15.0 : 3.0;
    // Speeds timed by the same probe steps, corrected by this machine's earlier fixes.
    options.timePredictor =
        [](const TrainConfig& before, const TrainConfig& after, bool probe,
           const std::function<bool()>& keepGoing) -> std::optional<TimedSpeed> {
        std::string error;
        const std::optional<TimeFactor> t =
            predictTimeFactor(before, after, probe, &error, keepGoing);
        if (!t)
            return std::nullopt;
        return TimedSpeed{t->factor, t->beforeSeconds, t->afterSeconds, t->rounds};
    };
    // A person waits in the dialog, where speeds fill in; a run waiting on the auto policy
    // does not wait for them (the ranking uses the cost model either way).
    options.timingSeconds = personAnswers ? 30.0 : 0.0;
    options.useSpeedChecks = true;
    return options;
}

OomDecision decisionFor(const FixSuggestion& fix) {
    OomDecision d;
    d.stop = false;
    d.config = fix.config;
    d.fixId = fix.id;
    d.description = fix.title;
    d.predictedPeak = fix.predictedPeak;
    d.speedFactor = fix.speedFactor;
    d.speedCorrection = fix.speedCorrection;
    return d;
}

OomHandler makeAdvisorHandler(OomPolicy policy, PeakPredictor predictor, FixChooser ask,
                              AdvisorOptions options, OomObserver observer, FixProgress progress) {
    return [policy, predictor = std::move(predictor), ask = std::move(ask), options,
            observer = std::move(observer),
            progress = std::move(progress)](const OomReport& report) -> OomDecision {
        const std::vector<FixSuggestion> fixes = suggestFixes(report, predictor, options, progress);
        if (observer)
            observer(report, fixes);
        OomDecision stop;
        stop.stop = true;
        stop.config = report.config;
        stop.fixFits = std::any_of(fixes.begin(), fixes.end(), [](const FixSuggestion& fix) {
            return fix.fits && !fix.hostFix && !fix.restarts;
        });
        switch (policy) {
        case OomPolicy::Stop:
            return stop;
        case OomPolicy::Auto:
            for (const FixSuggestion& fix : fixes)
                if (fix.fits && !fix.restarts)
                    return decisionFor(fix);
            return stop;
        case OomPolicy::Ask: {
            if (!ask || fixes.empty())
                return stop;
            const std::optional<int> choice = ask(fixes, describeOom(report));
            if (!choice || *choice < 0 || *choice >= static_cast<int>(fixes.size()))
                return stop;
            return decisionFor(fixes[static_cast<std::size_t>(*choice)]);
        }
        }
        return stop;
    };
}

} // namespace hr
