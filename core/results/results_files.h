// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The numbers behind a validation's plots as CSV files in the run folder, and their readers
// (for the studio's Results view and for scripts). Torch-free.

#include "eval/metrics.h"

#include <string>
#include <vector>

namespace hr {

/// File names inside a run folder.
inline constexpr const char* kPerClassCsv = "per_class.csv";
inline constexpr const char* kConfusionCsv = "confusion_matrix.csv";
inline constexpr const char* kCurvesCsv = "curves.csv";
inline constexpr const char* kConfusionImagesCsv = "confusion_images.csv";

/// One row of per_class.csv: the first row is "all" (the means, as Ultralytics' validator
/// prints them), then one row per class with ground truth.
struct PerClassRow {
    std::string name;
    int images = 0;
    int instances = 0;
    double precision = 0, recall = 0, ap50 = 0, ap = 0; ///< ap = AP@0.5:0.95
};

/// confusion_matrix.csv: `names` are the classes then "background"; `counts[predicted][true]`.
struct ConfusionTable {
    std::vector<std::string> names;
    std::vector<std::vector<int>> counts;
};

/// One row of confusion_images.csv: how many objects (or false detections) of one image went
/// to one cell of the confusion matrix, the cell named as confusion_matrix.csv names it.
struct ConfusionImageRow {
    std::string predicted;
    std::string actual;
    std::string image;
    int count = 0;
};

/// One curve of curves.csv: `kind` is "precision", "recall" or "f1" (against confidence) or
/// "pr" (precision against recall); `name` a class or "all".
struct CurveRow {
    std::string kind;
    std::string name;
    std::vector<double> values; ///< at each point of CurveTable::grid
};

struct CurveTable {
    std::vector<double> grid;
    double bestF1Confidence = 0;
    std::vector<CurveRow> rows;
    /// The row of `kind` and `name`; nullptr when absent.
    const CurveRow* find(const std::string& kind, const std::string& name) const;
};

/// The name of class `cls`: names[cls], or its number when the list is shorter.
std::string className(const std::vector<std::string>& names, int cls);

/// The tables of one validation, built from its metrics.
std::vector<PerClassRow> perClassRows(const MetricsResult& m,
                                      const std::vector<std::string>& names);
ConfusionTable confusionTable(const MetricsResult& m, const std::vector<std::string>& names);
CurveTable curveTable(const MetricsResult& m, const std::vector<std::string>& names);
std::vector<ConfusionImageRow> confusionImageRows(const MetricsResult& m,
                                                  const std::vector<std::string>& names);

/// CSV text of each table; names are quoted when they hold a comma, a quote or a line break.
std::string perClassCsv(const std::vector<PerClassRow>& rows);
std::string confusionCsv(const ConfusionTable& table);
std::string curvesCsv(const CurveTable& table);
std::string confusionImagesCsv(const std::vector<ConfusionImageRow>& rows);

/// Readers of the texts above. Return false and fill `error` (naming the line) on text that
/// is not such a file.
bool parsePerClassCsv(const std::string& text, std::vector<PerClassRow>& rows, std::string* error);
bool parseConfusionCsv(const std::string& text, ConfusionTable& table, std::string* error);
bool parseCurvesCsv(const std::string& text, CurveTable& table, std::string* error);
bool parseConfusionImagesCsv(const std::string& text, std::vector<ConfusionImageRow>& rows,
                             std::string* error);

/// The three tables of a run folder's last validation; false with `error` (the file named)
/// when one is missing or damaged, and then `failedFile` (its name) and `missing` (true when
/// it is absent rather than damaged) where given.
struct ValidationTables {
    std::vector<PerClassRow> perClass;
    ConfusionTable confusion;
    CurveTable curves;
    /// The images behind the matrix' cells; empty for a run written before the file existed.
    std::vector<ConfusionImageRow> confusionImages;
};
bool loadValidationTables(const std::string& runDir, ValidationTables& tables, std::string* error,
                          std::string* failedFile = nullptr, bool* missing = nullptr);

} // namespace hr
