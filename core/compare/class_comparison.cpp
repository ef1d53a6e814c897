// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/class_comparison.h"

#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace hr {

namespace {

std::string number(const std::optional<double>& value) {
    if (!value)
        return {};
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", *value);
    return text;
}

} // namespace

std::optional<double> ClassAcrossRuns::apChange(std::size_t run) const {
    if (run >= ap.size() || ap.empty() || !ap[run] || !ap[0])
        return std::nullopt;
    return *ap[run] - *ap[0];
}

ClassComparison compareByClass(const Comparison& comparison) {
    ClassComparison out;
    const std::size_t runs = comparison.rows.size();
    std::map<std::string, std::size_t> index;
    for (std::size_t r = 0; r < runs; ++r) {
        const ComparisonRow& row = comparison.rows[r];
        out.runs.push_back(row.strategy);
        out.hasResults.push_back(!row.perClass.empty());
        for (const PerClassRow& c : row.perClass) {
            auto [it, added] = index.emplace(c.name, out.classes.size());
            if (added) {
                ClassAcrossRuns fresh;
                fresh.name = c.name;
                fresh.ap50.resize(runs);
                fresh.ap.resize(runs);
                fresh.instances.resize(runs);
                out.classes.push_back(std::move(fresh));
            }
            ClassAcrossRuns& cls = out.classes[it->second];
            cls.ap50[r] = c.ap50;
            cls.ap[r] = c.ap;
            cls.instances[r] = c.instances;
        }
    }
    return out;
}

std::string classComparisonText(const ClassComparison& table) {
    std::size_t width = 5;
    for (const ClassAcrossRuns& c : table.classes)
        width = std::max(width, c.name.size());
    std::string out = "AP50-95 by class (change from " +
                      (table.runs.empty() ? std::string("-") : table.runs.front()) + ")\n";
    char cell[64];
    std::snprintf(cell, sizeof cell, "%-*s", static_cast<int>(width), "class");
    out += cell;
    for (const std::string& run : table.runs) {
        std::snprintf(cell, sizeof cell, "  %18.18s", run.c_str());
        out += cell;
    }
    out += "\n";
    for (const ClassAcrossRuns& c : table.classes) {
        std::snprintf(cell, sizeof cell, "%-*s", static_cast<int>(width), c.name.c_str());
        out += cell;
        for (std::size_t r = 0; r < table.runs.size(); ++r) {
            const std::optional<double> change = c.apChange(r);
            if (!c.ap[r])
                std::snprintf(cell, sizeof cell, "  %18s", "-");
            else if (r == 0 || !change)
                std::snprintf(cell, sizeof cell, "  %18.3f", *c.ap[r]);
            else
                std::snprintf(cell, sizeof cell, "  %10.3f (%+.3f)", *c.ap[r], *change);
            out += cell;
        }
        out += "\n";
    }
    return out;
}

std::string classComparisonCsv(const ClassComparison& table) {
    std::string out = "class";
    for (std::size_t r = 0; r < table.runs.size(); ++r) {
        out += "," + csvField(table.runs[r] + " AP50") + "," + csvField(table.runs[r] + " AP50-95");
        if (r > 0)
            out += "," + csvField(table.runs[r] + " change");
    }
    out += "\n";
    for (const ClassAcrossRuns& c : table.classes) {
        out += csvField(c.name);
        for (std::size_t r = 0; r < table.runs.size(); ++r)
            out += "," + number(c.ap50[r]) + "," + number(c.ap[r]) +
                   (r > 0 ? "," + number(c.apChange(r)) : std::string());
        out += "\n";
    }
    return out;
}

} // namespace hr
