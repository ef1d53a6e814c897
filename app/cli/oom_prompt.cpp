// SPDX-License-Identifier: GPL-3.0-or-later
#include "oom_prompt.h"

#include "estimate/memory_estimator.h"

#include "advisor/fix_advisor.h"
#include "advisor/oom_diagnosis.h"
#include "advisor/oom_policy.h"
#include "compare/measured_accuracy.h"
#include "util/text.h"

#include <torch/cuda.h>

#include <iostream>
#include <unistd.h>

namespace hr::cli {

std::optional<int> promptForFix(const std::vector<FixSuggestion>& fixes,
                                const std::string& diagnosis, std::istream& in, std::ostream& out) {
    out << "\nOut of memory. " << diagnosis << "\n\nFixes, best first:\n" << formatFixList(fixes);
    const int count = static_cast<int>(fixes.size());
    for (;;) {
        out << "Apply which fix? [1-" << count << ", s = stop]: " << std::flush;
        std::string line;
        if (!std::getline(in, line))
            return std::nullopt;
        const std::string answer = toLower(trim(line));
        if (answer.empty() || answer == "s" || answer == "stop" || answer == "q")
            return std::nullopt;
        try {
            std::size_t used = 0;
            const int n = std::stoi(answer, &used);
            if (used == answer.size() && n >= 1 && n <= count)
                return n - 1;
        } catch (const std::exception&) {
        }
        out << "Please answer a number from 1 to " << count << ", or s to stop.\n";
    }
}

OomHandler makeOomHandler(const TrainConfig& config, PeakPredictor predictor) {
    AdvisorOptions options;
    if (config.device.rfind("cuda", 0) == 0 ||
        (config.device == "auto" && torch::cuda::is_available()))
        options.deviceCount = std::max<int>(1, static_cast<int>(torch::cuda::device_count()));
    // A data-parallel run has nproc devices (processes) already: sharding is a fix there.
    options.deviceCount = std::max(options.deviceCount, config.nproc);
    // Chunked assignment is offered for a loss-phase OOM on crowded images.
    options.objectsPerImage = assignerObjectsPerImage(config);
    const OomPolicy policy = config.on_oom;
    const bool interactive = ::isatty(STDIN_FILENO) != 0;
    const OomPolicy effective = policy == OomPolicy::Ask && !interactive ? OomPolicy::Stop : policy;
    if (predictor) {
        // Calibrations already made (and their pixel-count scaling) answer first; new probe
        // steps only within a few seconds when the run continues unattended.
        options.quickPredictor = predictPeakWithoutProbing;
        options.predictionSeconds = predictionSecondsFor(effective);
        options.timePredictor = secondsPerImageWithoutProbing;
    }
    options.useSpeedChecks = true;
    options.measuredAccuracy = measuredAccuracyOfRuns(config.project);

    // Every policy prints the diagnosis and the fixes; `ask` prints them in its prompt.
    OomObserver print = [policy, interactive](const OomReport& report,
                                              const std::vector<FixSuggestion>& fixes) {
        if (policy == OomPolicy::Ask && interactive && !fixes.empty())
            return;
        std::cout << "\nOut of memory. " << describeOom(report) << '\n';
        if (fixes.empty()) {
            std::cout << "No fix is predicted to fit the budget.\n" << std::flush;
            return;
        }
        std::cout << "\nFixes, best first:\n" << formatFixList(fixes);
        if (policy == OomPolicy::Auto) {
            for (const FixSuggestion& fix : fixes)
                if (fix.fits && !fix.restarts) {
                    std::cout << "on_oom=auto: applying \"" << fix.title
                              << "\" and continuing from the same step.\n";
                    break;
                }
        } else {
            if (policy == OomPolicy::Ask)
                std::cout << "on_oom=ask, but stdin is not a terminal: stopping.\n";
            std::cout << "Stopping. Rerun with the changes of a fix (e.g. ";
            for (std::size_t k = 0; k < fixes.front().changes.size(); ++k)
                std::cout << (k ? " " : "") << fixes.front().changes[k].first << '='
                          << fixes.front().changes[k].second;
            std::cout << "), or with on_oom=auto.\n";
        }
        std::cout << std::flush;
    };
    FixChooser ask = [](const std::vector<FixSuggestion>& fixes, const std::string& diagnosis) {
        return promptForFix(fixes, diagnosis, std::cin, std::cout);
    };
    return makeAdvisorHandler(effective, std::move(predictor), std::move(ask), options,
                              std::move(print));
}

} // namespace hr::cli
