// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hr {

/// One problem found in user input (a YAML file, a label line, an image, a setting).
/// Core reports problems as values; callers decide how to show them (CLI text, GUI list).
struct Diagnostic {
    enum class Severity { Note, Warning, Error };

    Severity severity = Severity::Error;
    std::string file;    ///< the file the problem is in; empty when it came from the command line
    int line = 0;        ///< 1-based line, 0 when unknown
    std::string key;     ///< the setting or field concerned, may be empty
    std::string message; ///< what is wrong, in plain English
    std::string fix;     ///< what the user can do about it, may be empty
    /// What is wrong as a code and its values, for a UI that words the message in its own
    /// language (message and fix above are the CLI's English). Empty when not coded; the
    /// codes and their values are listed where train_config.cpp reports them.
    std::string code;
    std::vector<std::string> args;

    /// "file:line: error: key: message (fix: ...)" - the form compilers use, so editors can jump.
    std::string toString() const;
};

using Diagnostics = std::vector<Diagnostic>;

/// A diagnostic from its parts, in Diagnostic's field order.
Diagnostic makeDiagnostic(Diagnostic::Severity severity, const std::string& file, int line,
                          const std::string& key, const std::string& message,
                          const std::string& fix = {});

/// True when any diagnostic is an error.
bool hasErrors(const Diagnostics& diagnostics);

/// All diagnostics, one per line, in toString() form.
std::string formatDiagnostics(const Diagnostics& diagnostics);

/// A failure's values (RunError::args, an event's "args") that carry diagnostics: first
/// formatDiagnostics() for readers that show the English, then one element per diagnostic
/// holding its fields, so that a UI can word each code in its own language.
std::vector<std::string> diagnosticArgs(const Diagnostics& diagnostics);

/// The diagnostics diagnosticArgs() wrote, from element `from` of `args` on (where its
/// formatDiagnostics() text is). Empty when those elements are not of that form (a file
/// written before they carried diagnostics).
Diagnostics diagnosticsFromArgs(const std::vector<std::string>& args, std::size_t from);

} // namespace hr
