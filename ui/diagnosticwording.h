// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/diagnostic.h"

#include <QCoreApplication>
#include <QString>

namespace hr::ui {

/// A settings problem in the UI's language, from the code and values core's parser returns
/// (Diagnostic::code, args). The message stands under its field, so it need not name it.
/// Uncoded diagnostics keep core's English message and fix.
class DiagnosticWording {
    Q_DECLARE_TR_FUNCTIONS(DiagnosticWording)
public:
    static QString message(const Diagnostic& diagnostic);
    /// "file:line: key: message" for a problem in a file the user opened (message() after
    /// where it is).
    static QString located(const Diagnostic& diagnostic);

    /// A data set problem (core/data/dataset.cpp's scan) for the Data page's table: what is
    /// wrong, and what to do about it. Uncoded ones keep core's English message (after their
    /// key, when they have one) and fix.
    static QString problem(const Diagnostic& diagnostic);
    static QString fix(const Diagnostic& diagnostic);
};

} // namespace hr::ui
