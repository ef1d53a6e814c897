// SPDX-License-Identifier: GPL-3.0-or-later
#include "logwording.h"

#include "train/log_code.h"

namespace hr::ui {

QString LogWording::line(const std::string& code, const std::vector<std::string>& args,
                         const std::string& english) {
    const auto arg = [&args](std::size_t i) {
        return i < args.size() ? QString::fromStdString(args[i]) : QString();
    };
    const std::optional<LogCode> known = parseLogCode(code);
    if (!known)
        return QString::fromStdString(english);
    // No default: a LogCode without a wording here does not compile.
    switch (*known) {
    case LogCode::Scanning:
        return (arg(0).startsWith(QLatin1String("val"))
                    ? tr("Scanning the validation images: %1 of %2")
                    : tr("Scanning the training images: %1 of %2"))
            .arg(arg(1), arg(2));
    case LogCode::BuiltinData:
        return tr("Using the built-in data set %1").arg(arg(0));
    case LogCode::NoValImages:
        return tr("The data set has no usable validation images; validating on the training "
                  "images.");
    case LogCode::BatchAuto:
        return tr("Batch -1 (Auto-fit) is resolved before the run starts; the trainer uses 16.");
    case LogCode::OptimizerAuto:
        return tr("Optimizer auto: %1, lr=%2 momentum=%3 (%4 planned iterations)")
            .arg(arg(0), arg(1), arg(2), arg(3));
    case LogCode::Resumed:
        return tr("Resumed %1 at epoch %2").arg(arg(0), arg(1));
    case LogCode::ValidationSkipped:
        return tr("Stopped: the validation of epoch %1 was skipped").arg(arg(0));
    case LogCode::BestWrite:
        return tr("Cannot write best.pt: %1").arg(arg(0));
    case LogCode::ResultsWrite:
        return tr("Cannot write results.csv: %1").arg(arg(0));
    case LogCode::UnreadableImages:
        return tr("%1 image(s) could not be read this epoch and were replaced by grey images: "
                  "they were moved or deleted, or their coded data is damaged (the scan reads "
                  "headers only). Put them back, or check every image with "
                  "headroom-cli data-check --deep before the next run.")
            .arg(arg(0));
    case LogCode::UnreadableImage:
        return tr("Cannot read %1: %2. Training goes on with a grey image without objects in "
                  "its place; headroom-cli data-check --deep finds such files before training.")
            .arg(arg(0), arg(1));
    case LogCode::StoppingEarly:
        return tr("Stopping early: no improvement in the last %1 epochs; the best was epoch %2")
            .arg(arg(0), arg(1));
    case LogCode::NoProbe:
        return tr("No memory probe for %1, so memory is not measured: %2").arg(arg(0), arg(1));
    case LogCode::Transferred:
        return tr("Transferred %1/%2 items from %3").arg(arg(0), arg(1), arg(2));
    case LogCode::TransferMostlyFailed:
        return tr("Most tensors did not transfer (%1 of %2 from %3): the weights were made for "
                  "another architecture than %4")
            .arg(arg(0), arg(1), arg(2), arg(3));
    case LogCode::ClassNamesDiffer:
        return tr("The weights were trained on other classes (%1) than the data set's (%2): the "
                  "class layers learn the data set's classes from scratch where the counts "
                  "differ, and keep the checkpoint's meaning where they agree")
            .arg(arg(0), arg(1));
    case LogCode::ResumedFromBackup:
        return tr("%1 is damaged, so the run resumes from its backup %2 (epoch %3); the damaged "
                  "file is now %1.damaged. The error was: %4")
            .arg(arg(0), arg(1), arg(2), arg(3));
    case LogCode::NprocAlone:
        return tr("Processes %1: this process was not started as one of the workers, so it "
                  "trains alone; the studio or `headroom-cli train --nproc N` starts them.")
            .arg(arg(0));
    case LogCode::SyncBn:
        return tr("sync_bn: BatchNorm statistics over the batches of all %1 ranks").arg(arg(0));
    case LogCode::BatchNotMultiple:
        return tr("Batch %1 is not a multiple of the %2 ranks; each rank takes %3")
            .arg(arg(0), arg(1), arg(2));
    case LogCode::GradientBuckets:
        return (arg(3) == QLatin1String("1")
                    ? tr("%1 ranks: gradients all-reduced in %2 buckets, %3 of them launched "
                         "during backward; optimizer state sharded (zero 1)")
                    : tr("%1 ranks: gradients all-reduced in %2 buckets, %3 of them launched "
                         "during backward"))
            .arg(arg(0), arg(1), arg(2));
    case LogCode::RankMemoryStream:
        return tr("Rank %1 cannot record its memory: %2").arg(arg(0), arg(1));
    case LogCode::OptimizerShardWrite:
        return tr("Rank %1 cannot write its optimizer shard (%2); a resumed run restarts it")
            .arg(arg(0), arg(1));
    case LogCode::OptimizerShardMissing:
        return tr("Rank %1 has no optimizer shard %2; its optimizer state starts afresh")
            .arg(arg(0), arg(1));
    case LogCode::LabelBinary:
        if (arg(2) == QLatin1String("0"))
            return tr("The label file %1 holds binary data, not text (from line %2): its image "
                      "trains as a background image. Replace it with a text file of 'class cx cy "
                      "w h' lines, or delete it.")
                .arg(arg(0), arg(1));
        return tr("The label file %1 holds binary data, not text (from line %2), and %3 more "
                  "label files do too: their images train as background images. Replace them "
                  "with text files of 'class cx cy w h' lines, or delete them (headroom-cli "
                  "data-check lists them all).")
            .arg(arg(0), arg(1), arg(2));
    }
    return QString::fromStdString(english);
}

} // namespace hr::ui
