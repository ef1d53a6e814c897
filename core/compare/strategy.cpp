// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/strategy.h"

#include "util/atomic_file.h"
#include "util/text.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace hr {

namespace {

const char* const kClaimSource = "published YOLOv9-c table, RTX-class GPU (design notes)";

Strategy make(std::string name, std::string description,
              std::vector<std::pair<std::string, std::string>> overrides, double memoryGb,
              double epochMinutes, double map50) {
    Strategy s;
    s.name = std::move(name);
    s.description = std::move(description);
    s.overrides = std::move(overrides);
    s.claim = PublishedClaim{memoryGb, epochMinutes, map50, kClaimSource};
    return s;
}

int lineOf(const YAML::Node& node) {
    const YAML::Mark mark = node.Mark();
    return mark.line >= 0 ? mark.line + 1 : 0;
}

Diagnostic error(const std::string& file, int line, const std::string& key,
                 const std::string& message, const std::string& fix = {}) {
    Diagnostic d;
    d.severity = Diagnostic::Severity::Error;
    d.file = file;
    d.line = line;
    d.key = key;
    d.message = message;
    d.fix = fix;
    return d;
}

/// The first unknown key of `map`, checked against `known`, as a diagnostic with a suggestion.
void checkKeys(const YAML::Node& map, const std::vector<std::string>& known,
               const std::string& file, const std::string& where, Diagnostics& out) {
    for (const auto& entry : map) {
        const std::string key = entry.first.Scalar();
        if (std::find(known.begin(), known.end(), key) != known.end())
            continue;
        const std::string nearest = nearestMatch(key, known);
        out.push_back(error(file, lineOf(entry.first), key, "unknown key in " + where,
                            nearest.empty() ? "known keys: name, overrides, claim, description"
                                            : "did you mean '" + nearest + "'?"));
    }
}

bool validName(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
}

std::optional<double> number(const YAML::Node& node) {
    if (!node.IsScalar())
        return std::nullopt;
    const std::string text = trim(node.Scalar());
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value < 0)
        return std::nullopt;
    return value;
}

std::optional<PublishedClaim> parseClaim(const YAML::Node& node, const std::string& file,
                                         Diagnostics& out) {
    if (!node.IsMap()) {
        out.push_back(error(file, lineOf(node), "claim", "expected a map",
                            "write e.g. claim: {memory_gb: 6.8, epoch_min: 15, map50: 0.68}"));
        return std::nullopt;
    }
    checkKeys(node, {"memory_gb", "epoch_min", "map50", "source"}, file, "a claim", out);
    PublishedClaim claim;
    bool ok = true;
    const auto read = [&](const char* key, double& field) {
        const YAML::Node value = node[key];
        if (!value)
            return;
        if (const auto v = number(value)) {
            field = *v;
        } else {
            out.push_back(error(file, lineOf(value), key,
                                "expected a number >= 0, got '" + value.Scalar() + "'"));
            ok = false;
        }
    };
    read("memory_gb", claim.memoryGb);
    read("epoch_min", claim.epochMinutes);
    read("map50", claim.map50);
    if (node["source"] && node["source"].IsScalar())
        claim.source = node["source"].Scalar();
    if (ok && claim.map50 > 1) {
        out.push_back(error(file, lineOf(node["map50"]), "map50",
                            "mAP@0.5 is a fraction between 0 and 1", "write 0.68, not 68"));
        ok = false;
    }
    return ok ? std::optional<PublishedClaim>(claim) : std::nullopt;
}

std::optional<Strategy> parseEntry(const YAML::Node& node, const std::string& file,
                                   Diagnostics& out) {
    if (!node.IsMap()) {
        out.push_back(
            error(file, lineOf(node), "", "a strategy must be a map",
                  "write e.g. - {name: quarter-amp, overrides: {batch: B/4, amp: true}}"));
        return std::nullopt;
    }
    const size_t before = out.size();
    checkKeys(node, {"name", "overrides", "claim", "description"}, file, "a strategy", out);
    Strategy s;
    const YAML::Node name = node["name"];
    if (!name || !name.IsScalar()) {
        out.push_back(error(file, lineOf(node), "name", "the strategy has no name",
                            "add name: <letters, digits, - _ .>"));
    } else if (!validName(name.Scalar())) {
        out.push_back(error(file, lineOf(name), "name",
                            "'" + name.Scalar() + "' cannot be part of a folder name",
                            "use letters, digits, '-', '_' and '.'"));
    } else {
        s.name = name.Scalar();
    }
    if (const YAML::Node description = node["description"]; description && description.IsScalar())
        s.description = description.Scalar();
    const YAML::Node overrides = node["overrides"];
    if (overrides && !overrides.IsMap() && !overrides.IsNull()) {
        out.push_back(error(file, lineOf(overrides), "overrides", "expected a map of settings",
                            "write e.g. overrides: {batch: B/4, amp: true}"));
    } else if (overrides && overrides.IsMap()) {
        for (const auto& entry : overrides) {
            const std::string key = entry.first.Scalar();
            if (!entry.second.IsScalar() && !entry.second.IsSequence()) {
                out.push_back(
                    error(file, lineOf(entry.second), key, "expected a value, got a map"));
                continue;
            }
            std::string value;
            if (entry.second.IsScalar()) {
                value = entry.second.Scalar();
            } else {
                YAML::Emitter emitter;
                emitter << YAML::Flow << entry.second;
                value = emitter.c_str();
            }
            // Check the setting now, against a typical batch, so the error names this line.
            TrainConfig probe;
            for (Diagnostic d : applyOverride(probe, key, resolveBatchExpression(value, 16))) {
                if (d.severity == Diagnostic::Severity::Note)
                    continue;
                d.file = file;
                d.line = lineOf(entry.second);
                if (d.key.empty())
                    d.key = key;
                out.push_back(d);
            }
            s.overrides.emplace_back(key, value);
        }
    }
    if (const YAML::Node claim = node["claim"])
        s.claim = parseClaim(claim, file, out);
    if (hasErrors(Diagnostics(out.begin() + static_cast<std::ptrdiff_t>(before), out.end())))
        return std::nullopt;
    return s;
}

} // namespace

std::vector<Strategy> defaultStrategies() {
    return {
        make("native", "native batch B",
             {{"batch", "B"}, {"nbs", "B"}, {"amp", "false"}, {"checkpointing", "none"}}, 22.5, 18,
             0.682),
        make("quarter-acc4", "batch B/4 + accumulate 4",
             {{"batch", "B/4"}, {"nbs", "B/4*4"}, {"amp", "false"}, {"checkpointing", "none"}},
             10.3, 21, 0.679),
        make("quarter-amp", "batch B/4 + AMP",
             {{"batch", "B/4"}, {"nbs", "B/4"}, {"amp", "true"}, {"checkpointing", "none"}}, 6.8,
             15, 0.680),
        make("eighth-amp-acc8", "batch B/8 + AMP + accumulate 8",
             {{"batch", "B/8"}, {"nbs", "B/8*8"}, {"amp", "true"}, {"checkpointing", "none"}}, 5.1,
             26, 0.675),
        make("quarter-amp-ckpt", "batch B/4 + AMP + checkpointing",
             {{"batch", "B/4"}, {"nbs", "B/4"}, {"amp", "true"}, {"checkpointing", "all"}}, 4.9, 31,
             0.673),
    };
}

std::string resolveBatchExpression(const std::string& value, int batch) {
    std::string text;
    for (char c : value)
        if (!std::isspace(static_cast<unsigned char>(c)))
            text += c;
    if (text.empty() || (text[0] != 'B' && text[0] != 'b'))
        return value;
    long long result = batch;
    size_t i = 1;
    while (i < text.size()) {
        const char op = text[i++];
        if (op != '/' && op != '*')
            return value;
        const size_t start = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
            ++i;
        if (i == start || i - start > 6)
            return value;
        const long long operand = std::stoll(text.substr(start, i - start));
        if (operand <= 0)
            return value;
        result = op == '/' ? result / operand : result * operand;
    }
    return std::to_string(std::max<long long>(result, 1));
}

std::string describeOverrides(const Strategy& strategy) {
    std::string out;
    for (const auto& [key, value] : strategy.overrides)
        out += (out.empty() ? "" : ", ") + key + " " + value;
    return out.empty() ? "the base settings" : out;
}

StrategiesResult parseStrategies(const std::string& yamlText, const std::string& sourceName) {
    StrategiesResult result;
    YAML::Node root;
    try {
        root = YAML::Load(yamlText);
    } catch (const YAML::Exception& e) {
        result.diagnostics.push_back(error(sourceName, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                                           "not valid YAML: " + e.msg));
        return result;
    }
    YAML::Node list = root;
    if (root.IsMap()) {
        checkKeys(root, {"strategies"}, sourceName, "the strategies file", result.diagnostics);
        list = root["strategies"];
    }
    if (!list || !list.IsSequence() || list.size() == 0) {
        result.diagnostics.push_back(
            error(sourceName, root ? lineOf(root) : 0, "strategies", "no list of strategies found",
                  "write a list: - {name: native, overrides: {batch: B}}"));
        return result;
    }
    std::set<std::string> names;
    std::vector<Strategy> strategies;
    for (const YAML::Node& entry : list) {
        std::optional<Strategy> s = parseEntry(entry, sourceName, result.diagnostics);
        if (!s)
            continue;
        if (!names.insert(s->name).second) {
            result.diagnostics.push_back(error(sourceName, lineOf(entry["name"]), "name",
                                               "a second strategy named '" + s->name + "'",
                                               "give each strategy its own name"));
            continue;
        }
        strategies.push_back(std::move(*s));
    }
    if (!hasErrors(result.diagnostics))
        result.strategies = std::move(strategies);
    return result;
}

StrategiesResult loadStrategies(const std::string& path) {
    std::string text, readError;
    if (!readFile(path, text, &readError)) {
        StrategiesResult result;
        result.diagnostics.push_back(
            error(path, 0, "", "cannot read the strategies file: " + readError));
        return result;
    }
    return parseStrategies(text, path);
}

std::optional<TrainConfig> applyStrategy(const TrainConfig& base, const Strategy& strategy,
                                         Diagnostics& diagnostics) {
    TrainConfig config = base;
    bool ok = true;
    for (const auto& [key, value] : strategy.overrides) {
        for (Diagnostic d : applyOverride(config, key, resolveBatchExpression(value, base.batch))) {
            if (d.severity == Diagnostic::Severity::Error) {
                ok = false;
                d.message = "strategy '" + strategy.name + "': " + d.message;
            }
            diagnostics.push_back(d);
        }
    }
    if (!ok)
        return std::nullopt;
    config.name = base.name + "-" + strategy.name;
    config.on_oom = OomPolicy::Stop;
    config.resume = false;
    Diagnostics problems = validate(config);
    for (Diagnostic& d : problems)
        d.message = "strategy '" + strategy.name + "': " + d.message;
    diagnostics.insert(diagnostics.end(), problems.begin(), problems.end());
    if (hasErrors(problems))
        return std::nullopt;
    return config;
}

} // namespace hr
