// SPDX-License-Identifier: GPL-3.0-or-later
#include "logwording.h"

namespace hr::ui {

QString LogWording::line(const std::string& code, const std::vector<std::string>& args,
                         const std::string& english) {
    const auto arg = [&args](std::size_t i) {
        return i < args.size() ? QString::fromStdString(args[i]) : QString();
    };
    if (code == "scanning")
        return (arg(0) == QLatin1String("val") ? tr("Scanning the validation images: %1 of %2")
                                               : tr("Scanning the training images: %1 of %2"))
            .arg(arg(1), arg(2));
    if (code == "builtin_data")
        return tr("Using the built-in data set %1").arg(arg(0));
    if (code == "no_val_images")
        return tr("The data set has no usable validation images; validating on the training "
                  "images.");
    if (code == "batch_auto")
        return tr("Batch -1 (Auto-fit) is resolved before the run starts; the trainer uses 16.");
    if (code == "optimizer_auto")
        return tr("Optimizer auto: %1, lr=%2 momentum=%3 (%4 planned iterations)")
            .arg(arg(0), arg(1), arg(2), arg(3));
    if (code == "resumed")
        return tr("Resumed %1 at epoch %2").arg(arg(0), arg(1));
    if (code == "validation_skipped")
        return tr("Stopped: the validation of epoch %1 was skipped").arg(arg(0));
    if (code == "best_write")
        return tr("Cannot write best.pt: %1").arg(arg(0));
    if (code == "results_write")
        return tr("Cannot write results.csv: %1").arg(arg(0));
    if (code == "unreadable_images")
        return tr("%1 image(s) could not be read this epoch and were replaced by grey images: "
                  "they were moved, deleted or damaged while training. Put them back, or check "
                  "the data set before the next run.")
            .arg(arg(0));
    if (code == "stopping_early")
        return tr("Stopping early: no improvement in the last %1 epochs; the best was epoch %2")
            .arg(arg(0), arg(1));
    if (code == "no_probe")
        return tr("No memory probe for %1, so memory is not measured: %2").arg(arg(0), arg(1));
    if (code == "transferred")
        return tr("Transferred %1/%2 items from %3").arg(arg(0), arg(1), arg(2));
    if (code == "transfer_mostly_failed")
        return tr("Most tensors did not transfer (%1 of %2 from %3): the weights were made for "
                  "another architecture than %4")
            .arg(arg(0), arg(1), arg(2), arg(3));
    if (code == "class_names_differ")
        return tr("The weights were trained on other classes (%1) than the data set's (%2): the "
                  "class layers learn the data set's classes from scratch where the counts "
                  "differ, and keep the checkpoint's meaning where they agree")
            .arg(arg(0), arg(1));
    if (code == "resumed_from_backup")
        return tr("%1 is damaged, so the run resumes from its backup %2 (epoch %3); the damaged "
                  "file is now %1.damaged. The error was: %4")
            .arg(arg(0), arg(1), arg(2), arg(3));
    return QString::fromStdString(english);
}

} // namespace hr::ui
