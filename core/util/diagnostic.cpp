// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/diagnostic.h"

#include <algorithm>

namespace hr {

Diagnostic makeDiagnostic(Diagnostic::Severity severity, const std::string& file, int line,
                          const std::string& key, const std::string& message,
                          const std::string& fix) {
    Diagnostic d;
    d.severity = severity;
    d.file = file;
    d.line = line;
    d.key = key;
    d.message = message;
    d.fix = fix;
    return d;
}

std::string Diagnostic::toString() const {
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line > 0)
            out += ":" + std::to_string(line);
        out += ": ";
    }
    switch (severity) {
    case Severity::Note:
        out += "note: ";
        break;
    case Severity::Warning:
        out += "warning: ";
        break;
    case Severity::Error:
        out += "error: ";
        break;
    }
    if (!key.empty())
        out += "'" + key + "': ";
    out += message;
    if (!fix.empty())
        out += " (fix: " + fix + ")";
    return out;
}

bool hasErrors(const Diagnostics& diagnostics) {
    return std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Diagnostic::Severity::Error;
    });
}

std::string formatDiagnostics(const Diagnostics& diagnostics) {
    std::string out;
    for (const auto& d : diagnostics)
        out += d.toString() + "\n";
    return out;
}

} // namespace hr
