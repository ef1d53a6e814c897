// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/diagnostic.h"

#include <algorithm>
#include <stdexcept>

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

namespace {

// Fields of one encoded diagnostic: severity letter, file, line, key, message, fix, code, then
// the args. The separator is ASCII's unit separator, which no path, key or message holds.
constexpr char kFieldSeparator = '\x1f';
constexpr std::size_t kFixedFields = 7;

std::vector<std::string> splitFields(const std::string& text) {
    std::vector<std::string> out(1);
    for (char c : text) {
        if (c == kFieldSeparator)
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

} // namespace

std::vector<std::string> diagnosticArgs(const Diagnostics& diagnostics) {
    std::vector<std::string> out{formatDiagnostics(diagnostics)};
    for (const Diagnostic& d : diagnostics) {
        const char* severity = d.severity == Diagnostic::Severity::Error     ? "E"
                               : d.severity == Diagnostic::Severity::Warning ? "W"
                                                                             : "N";
        std::string text = severity;
        for (const std::string& field :
             {d.file, std::to_string(d.line), d.key, d.message, d.fix, d.code})
            text += kFieldSeparator + field;
        for (const std::string& arg : d.args)
            text += kFieldSeparator + arg;
        out.push_back(std::move(text));
    }
    return out;
}

Diagnostics diagnosticsFromArgs(const std::vector<std::string>& args, std::size_t from) {
    Diagnostics out;
    for (std::size_t i = from + 1; i < args.size(); ++i) {
        const std::vector<std::string> f = splitFields(args[i]);
        if (f.size() < kFixedFields || f[0].size() != 1 ||
            std::string("EWN").find(f[0][0]) == std::string::npos)
            return {};
        Diagnostic d;
        d.severity = f[0] == "E"   ? Diagnostic::Severity::Error
                     : f[0] == "W" ? Diagnostic::Severity::Warning
                                   : Diagnostic::Severity::Note;
        d.file = f[1];
        try {
            d.line = std::stoi(f[2]);
        } catch (const std::exception&) {
            return {};
        }
        d.key = f[3];
        d.message = f[4];
        d.fix = f[5];
        d.code = f[6];
        d.args.assign(f.begin() + kFixedFields, f.end());
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace hr
