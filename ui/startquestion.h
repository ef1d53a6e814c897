// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/diagnostic.h"

#include <QCoreApplication>
#include <QString>

#include <string>
#include <vector>

class QWidget;

namespace hr::ui {

/// What the person agreed to for one Start, beyond what the trainer does unasked
/// (TrainingSession::start): a data-set scan past its file limit, settings past this machine.
struct StartConsent {
    bool largeScan = false;     ///< Trainer::confirmLargeScan, `--yes` for the workers
    bool machineLimits = false; ///< no Trainer::setMachineCheck, as `--force`
};

/// The questions asked when a scan or a run was refused for what the person may still want: a
/// data-set scan past its file limit (`scan_too_large`: the Data page's scan, the trainer's at
/// Start) and settings past this machine (`machine_limits`, or the nproc check before any
/// worker starts). Each is one modal QMessageBox with Yes and No; Yes means go on anyway.
class StartQuestion {
    Q_DECLARE_TR_FUNCTIONS(StartQuestion)
public:
    /// Whether a run that failed with `code` (RunFinished::reasonCode) may go on once the
    /// person agrees; `consent` gets what a Yes agrees to.
    static bool asksAbout(const std::string& code, StartConsent* consent = nullptr);
    /// Asks about the refusal `code` with its values (RunFinished::reasonArgs). True for Yes.
    static bool ask(QWidget* parent, const std::string& code, const std::vector<std::string>& args);
    /// Asks about settings past this machine (checkMachineLimits' errors). True for Yes.
    static bool askMachineLimits(QWidget* parent, const Diagnostics& problems);
    /// What the studio says after a No.
    static QString declined(const std::string& code);
};

} // namespace hr::ui
