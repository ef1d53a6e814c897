// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosticwording.h"

namespace hr::ui {

namespace {

QString arg(const Diagnostic& d, std::size_t i) {
    return i < d.args.size() ? QString::fromStdString(d.args[i]) : QString();
}

/// A value as core's parser describes it: quoted text, or the kind of a value that is not text.
QString got(const Diagnostic& d, std::size_t i) {
    const QString text = arg(d, i);
    if (text == QLatin1String("nothing"))
        return DiagnosticWording::tr("nothing");
    if (text == QLatin1String("a list"))
        return DiagnosticWording::tr("a list");
    if (text == QLatin1String("a map"))
        return DiagnosticWording::tr("a map");
    return text;
}

QString nearest(const Diagnostic& d, std::size_t i) {
    const QString near = arg(d, i);
    return near.isEmpty() ? QString() : DiagnosticWording::tr("; did you mean '%1'?").arg(near);
}

} // namespace

QString DiagnosticWording::message(const Diagnostic& d) {
    const std::string& code = d.code;
    if (code == "expected_whole")
        return tr("expected a whole number, got %1; write a number like %2")
            .arg(got(d, 0), arg(d, 1));
    if (code == "batch_fraction")
        return tr("expected a whole number of images, got %1 (Ultralytics' fraction of GPU "
                  "memory); use -1 to fit the batch to the memory budget")
            .arg(got(d, 0));
    if (code == "too_large")
        return tr("the number %1 is too large").arg(arg(d, 0));
    if (code == "expected_number")
        return tr("expected a number, got %1; write a number like %2").arg(got(d, 0), arg(d, 1));
    if (code == "expected_bool")
        return tr("expected true or false, got %1").arg(got(d, 0));
    if (code == "expected_text")
        return tr("expected one value, got %1").arg(got(d, 0));
    if (code == "expected_size")
        return tr("expected a size like 3GiB, 512MiB or 1.5GB, got %1; write a size with a unit "
                  "(KiB, MiB, GiB, KB, MB, GB), plain bytes, or none for no budget")
            .arg(got(d, 0));
    if (code == "expected_layers")
        return tr("expected a number of layers or a list of layer indices, got %1; write a "
                  "number N (freezes layers 0 to N-1) or a list like [0, 1, 2]")
            .arg(got(d, 0));
    if (code == "unknown_choice")
        return tr("expected one of %1, got %2").arg(arg(d, 1), got(d, 0)) + nearest(d, 2);
    if (code == "device_list")
        return tr("unknown device %1; for several GPUs choose cuda:0 and set the number of "
                  "processes")
            .arg(got(d, 0));
    if (code == "scale_value")
        return tr("expected an augmentation gain (a number like 0.5) or a model scale letter, "
                  "got %1")
            .arg(got(d, 0));
    if (code == "range")
        return tr("must be between %1 and %2, got %3").arg(arg(d, 0), arg(d, 1), arg(d, 2));
    if (code == "range_below")
        return tr("must be from %1 up to but not including %2, got %3")
            .arg(arg(d, 0), arg(d, 1), arg(d, 2));
    if (code == "range_above")
        return tr("must be above %1 and at most %2, got %3").arg(arg(d, 0), arg(d, 1), arg(d, 2));
    if (code == "above")
        return tr("must be above %1, got %2").arg(arg(d, 0), arg(d, 1));
    if (code == "at_least")
        return tr("must be at least %1, got %2").arg(arg(d, 0), arg(d, 1));
    if (code == "not_negative")
        return tr("cannot be negative, got %1").arg(arg(d, 0));
    if (code == "batch_value")
        return tr("must be a positive number of images or -1 (fit to memory), got %1")
            .arg(arg(d, 0));
    if (code == "multiple_of_32") {
        const QString below = arg(d, 1), above = arg(d, 2);
        return tr("must be a positive multiple of 32 (the largest stride), got %1; use %2")
            .arg(arg(d, 0), below == above ? below : tr("%1 or %2").arg(below, above));
    }
    if (code == "empty")
        return tr("must not be empty");
    if (code == "budget_too_small")
        return tr("a budget of %1 cannot hold even the smallest model and one image; give at "
                  "least %2, or none for no budget")
            .arg(arg(d, 0), arg(d, 1));
    if (code == "unknown_key")
        return tr("unknown setting %1").arg(arg(d, 0)) + nearest(d, 1);
    if (code == "unreadable_value")
        return tr("cannot read the value %1; quote it or fix its brackets").arg(arg(d, 0));
    if (code == "zero_needs_nproc")
        return tr("sharding the optimizer state needs several processes; with one it has no "
                  "effect");
    // The strategy editor's checks (compare/strategy.h).
    if (code == "strategy_no_name")
        return tr("the strategy has no name; give it one of letters, digits, '-', '_' and '.'");
    if (code == "strategy_bad_name")
        return tr("'%1' cannot be part of a folder name; use letters, digits, '-', '_' and '.'")
            .arg(arg(d, 0));
    if (code == "override_no_key")
        return tr("a setting without a name (= %1); write key=value, e.g. lr0=0.005")
            .arg(arg(d, 0));
    if (code == "override_twice")
        return tr("'%1' is set twice; keep one").arg(arg(d, 0));
    if (code == "claim_map50_fraction")
        return tr("the claimed mAP50 is a fraction between 0 and 1; write 0.68, not 68");
    if (code == "no_strategies")
        return tr("no strategies to run; add one, or reset to the default matrix");
    if (code == "strategy_duplicate")
        return tr("a second strategy named '%1'; give each strategy its own name").arg(arg(d, 0));
    QString text = QString::fromStdString(d.message);
    if (!d.fix.empty())
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(d.fix));
    return text;
}

} // namespace hr::ui
