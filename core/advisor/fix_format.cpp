// SPDX-License-Identifier: GPL-3.0-or-later
// The advisor's fixes as JSON (run folder, events.jsonl) and as text (CLI).
#include "advisor/fix_advisor.h"

#include "util/bytes.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace hr {

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
