// SPDX-License-Identifier: GPL-3.0-or-later
#include "failurewording.h"

#include "diagnosticwording.h"
#include "oomadvisordialog.h"

#include "memory/phase.h"
#include "util/diagnostic.h"

#include <QStringList>

namespace hr::ui {

namespace {

/// Diagnostics a failure carries from `args[from]` on (diagnosticArgs), one per line in the
/// UI's language; a file written before they were coded keeps its English.
QString diagnosticLines(const std::vector<std::string>& args, std::size_t from, bool scan) {
    const Diagnostics diagnostics = diagnosticsFromArgs(args, from);
    if (diagnostics.empty())
        return from < args.size() ? QString::fromStdString(args[from]).trimmed() : QString();
    QStringList lines;
    for (const Diagnostic& d : diagnostics) {
        if (!scan) {
            lines << DiagnosticWording::located(d);
            continue;
        }
        const QString fix = DiagnosticWording::fix(d);
        const QString file = QString::fromStdString(d.file);
        const QString what = DiagnosticWording::problem(d);
        const QString line = file.isEmpty() ? what : FailureWording::tr("%1: %2").arg(file, what);
        lines << (fix.isEmpty() ? line : FailureWording::tr("%1 (%2)").arg(line, fix));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString FailureWording::reason(const std::string& code, const std::vector<std::string>& args,
                               const std::string& english) {
    const auto arg = [&args](std::size_t i) {
        return i < args.size() ? QString::fromStdString(args[i]) : QString();
    };
    if (code == "oom_no_fix") {
        Phase phase = Phase::Idle;
        parsePhase(args.empty() ? std::string() : args[0], phase);
        return tr("Out of memory in the %1 of epoch %2, batch %3, and no fix was chosen. The last "
                  "weights are in %4; lower batch or image size, or set \"on out of memory\" to "
                  "apply the best fix, and resume.")
            .arg(phaseName(phase), arg(1), arg(2), arg(3));
    }
    if (code == "oom_validation_no_fix")
        return tr("Out of memory while validating epoch %1, and no fix was chosen. Lower the "
                  "validation batch and resume.")
            .arg(arg(0));
    if (code == "oom_checkpoint")
        return tr("Out of memory while writing %1; the previous checkpoint is kept. Free host "
                  "memory (fewer workers, no image cache) and resume.")
            .arg(arg(0));
    if (code == "oom_setup")
        return tr("Out of memory while setting up the run: the model does not fit, so raise the "
                  "memory budget or use a smaller model.");
    if (code == "oom_repeated")
        return tr("Out of memory %1 times in a row without a completed step; the run gave up.")
            .arg(arg(0));
    if (code == "budget_too_small")
        return tr("A memory budget of %1 is too small for %2 at %3 px whatever the batch, AMP, "
                  "checkpointing or image size: set the budget to %4 MiB or more (or use a "
                  "smaller model) and start again.")
            .arg(arg(0), arg(1), arg(2), arg(3));
    if (code == "budget_too_small_for_model")
        return tr("A memory budget of %1 is too small: the weights, optimizer state and EMA copy "
                  "of %2 at %3 px do not fit in it, so raise the budget (or remove it) and start "
                  "again.")
            .arg(arg(0), arg(1), arg(2));
    if (code == "resume_missing")
        return tr("Cannot resume: %1 does not exist.").arg(arg(0));
    if (code == "resume_no_run")
        return tr("Cannot resume: no run with weights/last.pt under %1.").arg(arg(0));
    if (code == "resume_damaged")
        return tr("Cannot resume: the checkpoint %1 is damaged or incomplete (%2).")
            .arg(arg(0), arg(1));
    if (code == "resume_both_damaged")
        return tr("Cannot resume: the checkpoint %1 and its backup %2 are both damaged or "
                  "incomplete, so start a new run (without resume).")
            .arg(arg(0), arg(1));
    if (code == "checkpoint_write")
        return tr("Cannot write the checkpoint %1: %2").arg(arg(0), arg(1));
    if (code == "data_loader")
        return tr("The data loader failed: %1").arg(arg(0));
    if (code == "validation_loader")
        return tr("The validation data loader failed: %1").arg(arg(0));
    if (code == "builtin_data")
        return tr("Cannot create the built-in data set: %1").arg(arg(0));
    if (code == "fix_invalid")
        return tr("The fix '%1' gave invalid settings:\n%2")
            .arg(arg(0), diagnosticLines(args, 1, false));
    if (code == "data_config")
        return tr("The data set's description (data.yaml) has problems; fix the lines below and "
                  "start again:\n%1")
            .arg(diagnosticLines(args, 0, false));
    if (code == "no_train_images")
        return tr("The training split has no usable image; check the data set (the Data page "
                  "lists what is wrong):\n%1")
            .arg(diagnosticLines(args, 0, true));
    if (code == "launch_env")
        return tr("The data-parallel launch settings are wrong, so the run cannot start: %1")
            .arg(arg(0));
    if (code == "rank_connect") {
        // rank, ranks, address, then how it failed (DataParallelGroup::connect); a file from
        // before the values were coded has the English alone.
        const QString how = arg(3);
        QString why;
        if (how == QLatin1String("timeout"))
            why = tr("rank %1 of %2 waited %3 s at %4, and only %5 of the %2 processes joined")
                      .arg(arg(0), arg(1), arg(5), arg(2), arg(4));
        else if (how == QLatin1String("abandoned"))
            why = tr("rank %1 of %2 stopped waiting at %3: %4").arg(arg(0), arg(1), arg(2), arg(4));
        else if (how == QLatin1String("error"))
            why = tr("rank %1 of %2 could not reach %3; the network library said: %4")
                      .arg(arg(0), arg(1), arg(2), arg(4));
        else
            why = arg(0);
        return tr("The ranks of the data-parallel run could not connect: %1. Start again; if it "
                  "repeats, set the number of processes to 1.")
            .arg(why);
    }
    if (code == "device")
        return tr("The device \"%1\" cannot be used: %2. Choose another device in Settings.")
            .arg(arg(0), arg(1));
    if (code == "model_build")
        return tr("The model %1 cannot be built; fix the lines below or choose another "
                  "model:\n%2")
            .arg(arg(0), diagnosticLines(args, 1, false));
    if (code == "weights_load")
        return tr("The starting weights %1 cannot be loaded: %2").arg(arg(0), arg(1));
    if (code == "run_folder_busy")
        return tr("Another Headroom process (PID %2) is writing the run folder %1. Wait for it "
                  "to end, or choose another run name.")
            .arg(arg(0), arg(1));
    if (code == "run_folder")
        return tr("The run folder cannot be written: %1. Choose another project folder in "
                  "Settings, or free disk space.")
            .arg(arg(0));
    if (code == "resume_config")
        return tr("Cannot resume: the settings stored in the checkpoint %1 are unusable:\n%2")
            .arg(arg(0), diagnosticLines(args, 1, false));
    if (code == "fix_broadcast")
        return tr("Rank 0's fix could not be read by this rank:\n%1")
            .arg(diagnosticLines(args, 0, false));
    if (code == "machine_limits") {
        QStringList lines;
        for (const Diagnostic& d : diagnosticsFromArgs(args, 0))
            lines << DiagnosticWording::message(d);
        return tr("The settings ask for more than this machine has:\n%1\nLower them, or start "
                  "again and choose to go on anyway.")
            .arg(lines.isEmpty() ? arg(0).trimmed() : lines.join(QLatin1Char('\n')));
    }
    if (code == "scan_too_large")
        return tr("The data set %1 names '%2' as its path, which holds more than %3 files, so the "
                  "scan stopped. Point path at the data set's own folder, or start again and "
                  "confirm the scan.")
            .arg(arg(0), arg(1), arg(2));
    if (code == "unexpected")
        return tr("The run stopped on an unexpected error: %1").arg(arg(0));
    if (code == "aborted")
        return tr("The run was ended: %1").arg(arg(0));
    return QString::fromStdString(english);
}

} // namespace hr::ui
