// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/validation_results.h"

#include "results/result_plots.h"
#include "results/results_files.h"
#include "util/atomic_file.h"

#include <utility>
#include <vector>

namespace hr {

bool writeValidationResults(const std::string& runDir, const std::vector<std::string>& names,
                            const MetricsResult& metrics, std::string* error) {
    const auto perClass = perClassRows(metrics, names);
    const auto confusion = confusionTable(metrics, names);
    const auto curves = curveTable(metrics, names);
    std::vector<std::pair<std::string, std::string>> files = {
        {kPerClassCsv, perClassCsv(perClass)},
        {kCurvesCsv, curvesCsv(curves)},
        {kConfusionImagesCsv, confusionImagesCsv(confusionImageRows(metrics, names))},
    };
    // No dense matrix above kDenseConfusionClasses classes: no confusion CSV or plots then.
    const bool matrix = !confusion.counts.empty();
    if (matrix)
        files.emplace_back(kConfusionCsv, confusionCsv(confusion));
    const auto plots = drawResultPlots(perClass, confusion, curves);
    for (size_t i = 0; i < plots.size(); ++i)
        if (matrix || resultPlotFiles()[i].rfind("confusion", 0) != 0)
            files.emplace_back(resultPlotFiles()[i], plots[i]);
    for (const auto& [file, text] : files) {
        const std::string path = runDir + "/" + file;
        std::string why;
        if (!writeFileAtomically(path, text, &why)) {
            if (error)
                *error = path + ": " + why;
            return false;
        }
    }
    return true;
}

} // namespace hr
