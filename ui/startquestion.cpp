// SPDX-License-Identifier: GPL-3.0-or-later
#include "startquestion.h"

#include "diagnosticwording.h"

#include <QMessageBox>
#include <QStringList>

namespace hr::ui {

namespace {

bool askYesNo(QWidget* parent, const QString& name, const QString& title, const QString& text) {
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::No, parent);
    box.setObjectName(name);
    box.setDefaultButton(QMessageBox::No);
    return box.exec() == QMessageBox::Yes;
}

} // namespace

bool StartQuestion::asksAbout(const std::string& code, StartConsent* consent) {
    const bool scan = code == "scan_too_large";
    const bool machine = code == "machine_limits";
    if (consent) {
        consent->largeScan = consent->largeScan || scan;
        consent->machineLimits = consent->machineLimits || machine;
    }
    return scan || machine;
}

bool StartQuestion::ask(QWidget* parent, const std::string& code,
                        const std::vector<std::string>& args) {
    if (code == "machine_limits")
        return askMachineLimits(parent, diagnosticsFromArgs(args, 0));
    const auto arg = [&args](std::size_t i) {
        return i < args.size() ? QString::fromStdString(args[i]) : QString();
    };
    // scan_too_large: data.yaml, its resolved path, the file limit.
    return askYesNo(parent, QStringLiteral("confirmLargeScan"), tr("Scan a large folder?"),
                    tr("The data set %1 names '%2' as its path, which holds more than %3 files. "
                       "Scanning them all reads every folder below it and can take long.\n\n"
                       "Scan them all?")
                        .arg(arg(0), arg(1), arg(2)));
}

bool StartQuestion::askMachineLimits(QWidget* parent, const Diagnostics& problems) {
    QStringList lines;
    for (const Diagnostic& d : problems)
        if (d.severity == Diagnostic::Severity::Error)
            lines << QStringLiteral("• ") + DiagnosticWording::message(d);
    return askYesNo(parent, QStringLiteral("confirmMachineLimits"),
                    tr("More than this machine has"),
                    tr("These settings ask for more than this machine has:\n%1\n\nThe run may be "
                       "very slow or run out of memory. Start anyway?")
                        .arg(lines.join(QLatin1Char('\n'))));
}

QString StartQuestion::declined(const std::string& code) {
    if (code == "scan_too_large")
        return tr("Not scanned: the data set's path holds more files than a data set should. "
                  "Point path in data.yaml at the data set's own folder.");
    return tr("Not started: the settings ask for more than this machine has. Lower them, or "
              "start again and choose to go on anyway.");
}

} // namespace hr::ui
