// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/results_files.h"

#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace hr {

namespace {

const char* const kCurveKinds[] = {"precision", "recall", "f1", "pr"};

/// Fields of one CSV record starting at `pos` (a quoted field may hold commas, quotes and line
/// breaks); `pos` moves past the record's line break.
std::vector<std::string> readRecord(const std::string& text, size_t& pos) {
    std::vector<std::string> fields(1);
    bool inQuotes = false;
    for (; pos < text.size(); ++pos) {
        const char c = text[pos];
        if (inQuotes) {
            if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"')
                fields.back() += text[++pos];
            else if (c == '"')
                inQuotes = false;
            else
                fields.back() += c;
        } else if (c == '"') {
            inQuotes = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c == '\n') {
            ++pos;
            break;
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

/// Every record of `text` (blank lines left out).
std::vector<std::vector<std::string>> readRecords(const std::string& text) {
    std::vector<std::vector<std::string>> records;
    size_t pos = 0;
    while (pos < text.size()) {
        auto fields = readRecord(text, pos);
        if (!(fields.size() == 1 && fields[0].empty()))
            records.push_back(std::move(fields));
    }
    return records;
}

std::string number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", v);
    return buffer;
}

bool toNumber(const std::string& s, double& v) {
    if (s.empty())
        return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

bool toInt(const std::string& s, int& v) {
    double d = 0;
    if (!toNumber(s, d) || d != static_cast<int>(d))
        return false;
    v = static_cast<int>(d);
    return true;
}

bool fail(std::string* error, const std::string& what) {
    if (error)
        *error = what;
    return false;
}

std::string atLine(size_t record) {
    return "record " + std::to_string(record + 1) + ": ";
}

} // namespace

const CurveRow* CurveTable::find(const std::string& kind, const std::string& name) const {
    for (const auto& row : rows)
        if (row.kind == kind && row.name == name)
            return &row;
    return nullptr;
}

std::string className(const std::vector<std::string>& names, int cls) {
    return cls >= 0 && cls < static_cast<int>(names.size()) ? names[cls] : std::to_string(cls);
}

std::vector<PerClassRow> perClassRows(const MetricsResult& m,
                                      const std::vector<std::string>& names) {
    PerClassRow all{"all", m.images, 0, m.precision, m.recall, m.map50, m.map};
    std::vector<PerClassRow> rows;
    for (const ClassMetrics& c : m.perClass) {
        all.instances += c.instances;
        rows.push_back(
            {className(names, c.cls), c.images, c.instances, c.precision, c.recall, c.ap50, c.ap});
    }
    rows.insert(rows.begin(), all);
    return rows;
}

ConfusionTable confusionTable(const MetricsResult& m, const std::vector<std::string>& names) {
    ConfusionTable table;
    table.counts = m.confusion;
    const int nc = std::max(static_cast<int>(m.confusion.size()) - 1, 0);
    for (int c = 0; c < nc; ++c)
        table.names.push_back(className(names, c));
    table.names.push_back("background");
    return table;
}

CurveTable curveTable(const MetricsResult& m, const std::vector<std::string>& names) {
    CurveTable table;
    table.grid = m.curveGrid;
    table.bestF1Confidence = m.bestF1Confidence;
    const auto add = [&](const ClassCurves& c, const std::string& name) {
        table.rows.push_back({"precision", name, c.precision});
        table.rows.push_back({"recall", name, c.recall});
        table.rows.push_back({"f1", name, c.f1});
        table.rows.push_back({"pr", name, c.prPrecision});
    };
    if (m.curveGrid.empty())
        return table;
    add(m.allClasses, "all");
    for (size_t i = 0; i < m.perClass.size() && i < m.curves.size(); ++i)
        add(m.curves[i], className(names, m.perClass[i].cls));
    return table;
}

std::vector<ConfusionImageRow> confusionImageRows(const MetricsResult& m,
                                                  const std::vector<std::string>& names) {
    // Index nc is background, as in confusionTable().
    const int nc = m.confusion.empty() ? static_cast<int>(names.size())
                                       : static_cast<int>(m.confusion.size()) - 1;
    const auto cell = [&](int i) { return i >= nc ? std::string("background") : className(names, i); };
    std::vector<ConfusionImageRow> rows;
    rows.reserve(m.confusionHits.size());
    for (const ConfusionHit& hit : m.confusionHits) {
        const std::string image = hit.image >= 0 && hit.image < int(m.confusionImages.size())
                                      ? m.confusionImages[size_t(hit.image)]
                                      : std::string();
        rows.push_back({cell(hit.predicted), cell(hit.actual), image, hit.count});
    }
    return rows;
}

std::string confusionImagesCsv(const std::vector<ConfusionImageRow>& rows) {
    std::string out = "predicted,true,image,count\n";
    for (const ConfusionImageRow& r : rows)
        out += csvField(r.predicted) + "," + csvField(r.actual) + "," + csvField(r.image) + "," +
               std::to_string(r.count) + "\n";
    return out;
}

bool parseConfusionImagesCsv(const std::string& text, std::vector<ConfusionImageRow>& rows,
                             std::string* error) {
    const auto records = readRecords(text);
    if (records.empty() || records[0] != std::vector<std::string>{"predicted", "true", "image",
                                                                  "count"})
        return fail(error, "the first line is not predicted,true,image,count");
    rows.clear();
    for (size_t i = 1; i < records.size(); ++i) {
        const auto& f = records[i];
        ConfusionImageRow r;
        if (f.size() != 4 || !toInt(f[3], r.count) || r.count < 0)
            return fail(error, atLine(i) + "expected two classes, an image and a count");
        r.predicted = f[0];
        r.actual = f[1];
        r.image = f[2];
        rows.push_back(std::move(r));
    }
    return true;
}

std::string perClassCsv(const std::vector<PerClassRow>& rows) {
    std::string out = "class,images,instances,P,R,AP50,AP50-95\n";
    for (const auto& r : rows)
        out += csvField(r.name) + "," + std::to_string(r.images) + "," +
               std::to_string(r.instances) + "," + number(r.precision) + "," + number(r.recall) +
               "," + number(r.ap50) + "," + number(r.ap) + "\n";
    return out;
}

std::string confusionCsv(const ConfusionTable& table) {
    // Ultralytics' layout: a row per predicted class, a column per true class, background last.
    std::string out = "Predicted";
    for (const auto& name : table.names)
        out += "," + csvField(name);
    out += "\n";
    for (size_t i = 0; i < table.counts.size(); ++i) {
        out += csvField(i < table.names.size() ? table.names[i] : std::to_string(i));
        for (int v : table.counts[i])
            out += "," + std::to_string(v);
        out += "\n";
    }
    return out;
}

std::string curvesCsv(const CurveTable& table) {
    std::string out = "curve,class";
    for (double x : table.grid)
        out += "," + number(x);
    out += "\n";
    for (const auto& row : table.rows) {
        out += row.kind + "," + csvField(row.name);
        for (double v : row.values)
            out += "," + number(v);
        out += "\n";
    }
    return out;
}

bool parsePerClassCsv(const std::string& text, std::vector<PerClassRow>& rows, std::string* error) {
    const auto records = readRecords(text);
    if (records.empty() || records[0].size() != 7 || records[0][0] != "class")
        return fail(error, "the first line is not class,images,instances,P,R,AP50,AP50-95");
    rows.clear();
    for (size_t i = 1; i < records.size(); ++i) {
        const auto& f = records[i];
        PerClassRow r;
        r.name = f[0];
        if (f.size() != 7 || !toInt(f[1], r.images) || !toInt(f[2], r.instances) ||
            !toNumber(f[3], r.precision) || !toNumber(f[4], r.recall) || !toNumber(f[5], r.ap50) ||
            !toNumber(f[6], r.ap))
            return fail(error, atLine(i) + "expected a name, two counts and four numbers");
        rows.push_back(r);
    }
    return true;
}

bool parseConfusionCsv(const std::string& text, ConfusionTable& table, std::string* error) {
    const auto records = readRecords(text);
    if (records.empty() || records[0].size() < 2 || records[0][0] != "Predicted")
        return fail(error, "the first line is not Predicted,<classes>,background");
    table.names.assign(records[0].begin() + 1, records[0].end());
    const size_t n = table.names.size();
    if (records.size() != n + 1)
        return fail(error, std::to_string(records.size() - 1) + " rows for " + std::to_string(n) +
                               " columns (the matrix must be square)");
    table.counts.assign(n, std::vector<int>(n, 0));
    for (size_t i = 1; i < records.size(); ++i) {
        const auto& f = records[i];
        if (f.size() != n + 1 || f[0] != table.names[i - 1])
            return fail(error, atLine(i) + "expected " + table.names[i - 1] + " and " +
                                   std::to_string(n) + " counts");
        for (size_t j = 0; j < n; ++j)
            if (!toInt(f[j + 1], table.counts[i - 1][j]))
                return fail(error, atLine(i) + "'" + f[j + 1] + "' is not a count");
    }
    return true;
}

bool parseCurvesCsv(const std::string& text, CurveTable& table, std::string* error) {
    const auto records = readRecords(text);
    if (records.empty() || records[0].size() < 3 || records[0][0] != "curve")
        return fail(error, "the first line is not curve,class,<points>");
    table = CurveTable{};
    for (size_t j = 2; j < records[0].size(); ++j) {
        double x = 0;
        if (!toNumber(records[0][j], x))
            return fail(error, atLine(0) + "'" + records[0][j] + "' is not a number");
        table.grid.push_back(x);
    }
    for (size_t i = 1; i < records.size(); ++i) {
        const auto& f = records[i];
        if (f.size() != table.grid.size() + 2 ||
            std::find(std::begin(kCurveKinds), std::end(kCurveKinds), f[0]) ==
                std::end(kCurveKinds))
            return fail(error, atLine(i) + "expected precision, recall, f1 or pr, a class and " +
                                   std::to_string(table.grid.size()) + " values");
        CurveRow row{f[0], f[1], {}};
        for (size_t j = 2; j < f.size(); ++j) {
            double v = 0;
            if (!toNumber(f[j], v))
                return fail(error, atLine(i) + "'" + f[j] + "' is not a number");
            row.values.push_back(v);
        }
        table.rows.push_back(std::move(row));
    }
    // The best-F1 confidence is where the "all" F1 curve peaks (it is written smoothed).
    if (const CurveRow* f1 = table.find("f1", "all"); f1 && !f1->values.empty())
        table.bestF1Confidence =
            table.grid[std::max_element(f1->values.begin(), f1->values.end()) - f1->values.begin()];
    return true;
}

bool loadValidationTables(const std::string& runDir, ValidationTables& tables, std::string* error,
                          std::string* failedFile, bool* missing) {
    const struct {
        const char* file;
        bool (*parse)(const std::string&, ValidationTables&, std::string*);
    } files[] = {
        {kPerClassCsv, [](const std::string& t, ValidationTables& v,
                          std::string* e) { return parsePerClassCsv(t, v.perClass, e); }},
        {kConfusionCsv, [](const std::string& t, ValidationTables& v,
                           std::string* e) { return parseConfusionCsv(t, v.confusion, e); }},
        {kCurvesCsv, [](const std::string& t, ValidationTables& v,
                        std::string* e) { return parseCurvesCsv(t, v.curves, e); }},
    };
    for (const auto& f : files) {
        const std::string path = runDir + "/" + f.file;
        // Above kDenseConfusionClasses classes a validation writes no confusion matrix.
        if (f.file == std::string(kConfusionCsv) && !std::filesystem::exists(path) &&
            std::filesystem::exists(runDir + "/" + kPerClassCsv))
            continue;
        std::string text, why;
        const bool read = readFile(path, text, &why);
        if (read && f.parse(text, tables, &why))
            continue;
        if (failedFile)
            *failedFile = f.file;
        if (missing)
            *missing = !read && !std::filesystem::exists(path);
        return fail(error, path + ": " + why);
    }
    // Optional: runs written before it existed have none; a damaged one is named as above.
    const std::string path = runDir + "/" + kConfusionImagesCsv;
    tables.confusionImages.clear();
    std::string text, why;
    if (!std::filesystem::exists(path))
        return true;
    if (readFile(path, text, &why) && parseConfusionImagesCsv(text, tables.confusionImages, &why))
        return true;
    if (failedFile)
        *failedFile = kConfusionImagesCsv;
    if (missing)
        *missing = false;
    return fail(error, path + ": " + why);
}

} // namespace hr
