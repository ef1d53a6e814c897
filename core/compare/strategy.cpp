// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/strategy.h"

#include "config/yaml_read.h"
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

using Severity = Diagnostic::Severity;

const std::vector<std::string> kStrategyKeys = {"name", "overrides", "claim", "description"};
const std::vector<std::string> kClaimKeys = {"memory_gb", "epoch_min", "map50", "source"};

Diagnostic error(const std::string& file, int line, const std::string& key,
                 const std::string& message, const std::string& fix = {}) {
    return makeDiagnostic(Severity::Error, file, line, key, message, fix);
}

/// `d` with the code and values a UI words it from (the codes are listed at checkStrategy()).
Diagnostic coded(Diagnostic d, std::string code, std::vector<std::string> args = {}) {
    d.code = std::move(code);
    d.args = std::move(args);
    return d;
}

/// Every key of `map` that is not in `known`, as an error with the nearest known key.
void checkKeys(const YAML::Node& map, const std::vector<std::string>& known,
               const std::string& file, const std::string& where, Diagnostics& out) {
    for (const auto& entry : map) {
        const std::string key = entry.first.Scalar();
        if (std::find(known.begin(), known.end(), key) != known.end())
            continue;
        std::string otherwise = "known keys:";
        for (const std::string& k : known)
            otherwise += (&k == &known.front() ? " " : ", ") + k;
        out.push_back(error(file, yaml::lineOf(entry.first), key, "unknown key in " + where,
                            yaml::suggestion(key, known, otherwise)));
    }
}

/// Why `name` cannot name a strategy (it becomes part of a folder name), if it cannot.
std::optional<Diagnostic> nameProblem(const std::string& name) {
    if (name.empty())
        return coded(
            error({}, 0, "name", "the strategy has no name", "add name: <letters, digits, - _ .>"),
            "strategy_no_name");
    const bool ok = std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    if (ok)
        return std::nullopt;
    return coded(error({}, 0, "name", "'" + name + "' cannot be part of a folder name",
                       "use letters, digits, '-', '_' and '.'"),
                 "strategy_bad_name", {name});
}

/// One override as TrainConfig reads it, against a typical batch (16) for `B` expressions.
Diagnostics overrideProblems(const std::string& key, const std::string& value) {
    Diagnostics out;
    if (trim(key).empty()) {
        out.push_back(coded(error({}, 0, "", "a setting without a name (= " + value + ")",
                                  "write key=value, e.g. lr0=0.005"),
                            "override_no_key", {value}));
        return out;
    }
    TrainConfig probe;
    for (Diagnostic d : applyOverride(probe, key, resolveBatchExpression(value, 16))) {
        if (d.severity == Severity::Note)
            continue;
        if (d.key.empty())
            d.key = key;
        out.push_back(d);
    }
    return out;
}

/// Claimed numbers out of range; each diagnostic's key is the claim's YAML key.
Diagnostics claimProblems(const PublishedClaim& claim) {
    Diagnostics out;
    const auto negative = [&](double value, const char* key) {
        if (value < 0 || !std::isfinite(value))
            out.push_back(
                coded(error({}, 0, key, "expected a number >= 0, got " + yaml::formatNumber(value)),
                      "not_negative", {yaml::formatNumber(value)}));
    };
    negative(claim.memoryGb, "memory_gb");
    negative(claim.epochMinutes, "epoch_min");
    negative(claim.map50, "map50");
    if (claim.map50 > 1)
        out.push_back(coded(
            error({}, 0, "map50", "mAP@0.5 is a fraction between 0 and 1", "write 0.68, not 68"),
            "claim_map50_fraction"));
    return out;
}

std::optional<PublishedClaim> parseClaim(const YAML::Node& node, const std::string& file,
                                         Diagnostics& out) {
    if (!node.IsMap()) {
        out.push_back(error(file, yaml::lineOf(node), "claim", "expected a map",
                            "write e.g. claim: {memory_gb: 6.8, epoch_min: 15, map50: 0.68}"));
        return std::nullopt;
    }
    checkKeys(node, kClaimKeys, file, "a claim", out);
    PublishedClaim claim;
    bool ok = true;
    const auto read = [&](const char* key, double& field) {
        const YAML::Node value = node[key];
        if (!value)
            return;
        if (const auto v = yaml::toNumber(value); v && *v >= 0) {
            field = *v;
        } else {
            out.push_back(error(file, yaml::lineOf(value), key,
                                "expected a number >= 0, got " + yaml::describe(value)));
            ok = false;
        }
    };
    read("memory_gb", claim.memoryGb);
    read("epoch_min", claim.epochMinutes);
    read("map50", claim.map50);
    if (node["source"] && node["source"].IsScalar())
        claim.source = node["source"].Scalar();
    if (!ok)
        return std::nullopt;
    for (Diagnostic d : claimProblems(claim)) {
        d.file = file;
        d.line = yaml::lineOf(node[d.key]);
        out.push_back(d);
        ok = false;
    }
    return ok ? std::optional<PublishedClaim>(claim) : std::nullopt;
}

std::optional<Strategy> parseEntry(const YAML::Node& node, const std::string& file,
                                   Diagnostics& out) {
    if (!node.IsMap()) {
        out.push_back(
            error(file, yaml::lineOf(node), "", "a strategy must be a map",
                  "write e.g. - {name: quarter-amp, overrides: {batch: B/4, amp: true}}"));
        return std::nullopt;
    }
    const size_t before = out.size();
    checkKeys(node, kStrategyKeys, file, "a strategy", out);
    Strategy s;
    const YAML::Node name = node["name"];
    if (const auto problem = nameProblem(name && name.IsScalar() ? name.Scalar() : "")) {
        Diagnostic d = *problem;
        d.file = file;
        d.line = yaml::lineOf(name && name.IsScalar() ? name : node);
        out.push_back(d);
    } else {
        s.name = name.Scalar();
    }
    if (const YAML::Node description = node["description"]; description && description.IsScalar())
        s.description = description.Scalar();
    const YAML::Node overrides = node["overrides"];
    if (overrides && !overrides.IsMap() && !overrides.IsNull()) {
        out.push_back(error(file, yaml::lineOf(overrides), "overrides",
                            "expected a map of settings, got " + yaml::describe(overrides),
                            "write e.g. overrides: {batch: B/4, amp: true}"));
    } else if (overrides && overrides.IsMap()) {
        for (const auto& entry : overrides) {
            const std::string key = entry.first.Scalar();
            if (!entry.second.IsScalar() && !entry.second.IsSequence()) {
                out.push_back(error(file, yaml::lineOf(entry.second), key,
                                    "expected a value, got " + yaml::describe(entry.second)));
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
            // Checked now, so that the error names this line.
            for (Diagnostic d : overrideProblems(key, value)) {
                d.file = file;
                d.line = yaml::lineOf(entry.second);
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

/// An override's value as YAML: a flow list stays a list ("[0, 1]"), anything else is text.
void emitValue(YAML::Emitter& out, const std::string& value) {
    if (!trim(value).empty() && trim(value).front() == '[') {
        Diagnostics ignored;
        if (const auto node = yaml::parseDocument(value, {}, ignored); node && node->IsSequence()) {
            out << YAML::Flow << *node;
            return;
        }
    }
    out << value;
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
    const std::optional<YAML::Node> root =
        yaml::parseDocument(yamlText, sourceName, result.diagnostics);
    if (!root)
        return result;
    YAML::Node list = *root;
    if (root->IsMap()) {
        checkKeys(*root, {"strategies"}, sourceName, "the strategies file", result.diagnostics);
        list = (*root)["strategies"];
    }
    if (!list || !list.IsSequence() || list.size() == 0) {
        result.diagnostics.push_back(
            error(sourceName, std::max(1, yaml::lineOf(*root)), "strategies",
                  "no list of strategies found",
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
            result.diagnostics.push_back(error(sourceName, yaml::lineOf(entry["name"]), "name",
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

Diagnostics checkStrategy(const Strategy& strategy) {
    Diagnostics out;
    if (const auto problem = nameProblem(strategy.name))
        out.push_back(*problem);
    std::set<std::string> keys;
    for (const auto& [key, value] : strategy.overrides) {
        Diagnostics problems = overrideProblems(key, value);
        if (!trim(key).empty() && !keys.insert(trim(key)).second)
            problems.push_back(
                coded(error({}, 0, key, "'" + key + "' is set twice", "keep one " + key + "=value"),
                      "override_twice", {trim(key)}));
        out.insert(out.end(), problems.begin(), problems.end());
    }
    if (strategy.claim) {
        const Diagnostics problems = claimProblems(*strategy.claim);
        out.insert(out.end(), problems.begin(), problems.end());
    }
    const std::string who =
        strategy.name.empty() ? std::string("a strategy") : "strategy '" + strategy.name + "'";
    for (Diagnostic& d : out)
        d.message = who + ": " + d.message;
    return out;
}

Diagnostics checkStrategies(const std::vector<Strategy>& strategies) {
    Diagnostics out;
    if (strategies.empty())
        out.push_back(coded(error({}, 0, "strategies", "no strategies to run",
                                  "add one, or reset to the default matrix"),
                            "no_strategies"));
    std::set<std::string> names;
    for (const Strategy& s : strategies) {
        const Diagnostics problems = checkStrategy(s);
        out.insert(out.end(), problems.begin(), problems.end());
        if (!s.name.empty() && !names.insert(s.name).second)
            out.push_back(coded(error({}, 0, "name", "a second strategy named '" + s.name + "'",
                                      "give each strategy its own name"),
                                "strategy_duplicate", {s.name}));
    }
    return out;
}

std::string strategiesToYaml(const std::vector<Strategy>& strategies) {
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "strategies" << YAML::Value << YAML::BeginSeq;
    for (const Strategy& s : strategies) {
        out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s.name;
        if (!s.description.empty())
            out << YAML::Key << "description" << YAML::Value << s.description;
        if (!s.overrides.empty()) {
            out << YAML::Key << "overrides" << YAML::Value << YAML::Flow << YAML::BeginMap;
            for (const auto& [key, value] : s.overrides) {
                out << YAML::Key << key << YAML::Value;
                emitValue(out, value);
            }
            out << YAML::EndMap;
        }
        if (s.claim) {
            const PublishedClaim& c = *s.claim;
            out << YAML::Key << "claim" << YAML::Value << YAML::Flow << YAML::BeginMap;
            const auto number = [&](const char* key, double value) {
                if (value > 0)
                    out << YAML::Key << key << YAML::Value << yaml::formatNumber(value);
            };
            number("memory_gb", c.memoryGb);
            number("epoch_min", c.epochMinutes);
            number("map50", c.map50);
            if (!c.source.empty())
                out << YAML::Key << "source" << YAML::Value << c.source;
            out << YAML::EndMap;
        }
        out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
    return "# Headroom strategies: headroom-cli compare --strategies FILE, or Load on the Compare "
           "page.\n# Values may use B, the base batch: B, B/4, B/4*4.\n" +
           std::string(out.c_str()) + "\n";
}

bool saveStrategies(const std::vector<Strategy>& strategies, const std::string& path,
                    std::string* error) {
    return writeFileAtomically(path, strategiesToYaml(strategies), error);
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
