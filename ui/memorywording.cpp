// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorywording.h"

#include "fixwording.h"
#include "memorypanel.h"

#include <QStringList>

#include <cmath>

namespace hr::ui {

QString MemoryWording::partName(int part) {
    switch (part) {
    case 0:
        return MemoryPanel::tr("Weights");
    case 1:
        return MemoryPanel::tr("Gradients");
    case 2:
        return MemoryPanel::tr("Optimizer state");
    case 3:
        return MemoryPanel::tr("EMA");
    case 4:
        return MemoryPanel::tr("Activations");
    case 5:
        return MemoryPanel::tr("Batch data");
    default:
        return MemoryPanel::tr("Other");
    }
}

QString MemoryWording::howText(const MemoryEstimate& e) {
    const MemoryEstimate::How& how = e.how;
    QStringList parts;
    parts << MemoryPanel::tr("calibrated with real training steps at batch %1 and %2 on %3 (%4 "
                             "targets per image)")
                 .arg(how.probeBatchSmall)
                 .arg(how.probeBatchLarge)
                 .arg(QString::fromStdString(how.probeDevice))
                 .arg(e.objectsPerImage);
    switch (how.peakPart) {
    case MemoryEstimate::How::PeakPart::Forward:
        parts << MemoryPanel::tr("the step peaks in its forward pass");
        break;
    case MemoryEstimate::How::PeakPart::Loss:
        parts << MemoryPanel::tr("the step peaks in its loss");
        break;
    case MemoryEstimate::How::PeakPart::Backward:
        parts << MemoryPanel::tr("the step peaks in its backward pass");
        break;
    case MemoryEstimate::How::PeakPart::OptimizerStep:
        parts << MemoryPanel::tr("the step peaks in its optimizer step");
        break;
    }
    parts << MemoryPanel::tr("counts the batch on the device, not the loader's queued batches "
                             "(host memory)");
    if (e.ranks > 1) {
        QString rank = MemoryPanel::tr("per rank of %1: training batch %2, the gradients' "
                                       "all-reduce copies counted")
                           .arg(e.ranks)
                           .arg(e.rankBatch);
        if (how.stateShare < 1.0)
            rank += MemoryPanel::tr(", %1% of the optimizer state (ZeRO-1, the most loaded rank)")
                        .arg(std::lround(how.stateShare * 100.0));
        parts << rank << MemoryPanel::tr("rank 0 validates at batch %1").arg(e.valBatch);
    }
    if (how.valProbeSmall > 0)
        parts << MemoryPanel::tr("validation from probes at %1 and %2 images")
                     .arg(how.valProbeSmall)
                     .arg(how.valProbeLarge);
    parts << MemoryPanel::tr("validation NMS is sized by an untrained model's few candidates");
    if (how.scaledFromOtherSize)
        parts << MemoryPanel::tr("per-image memory scaled by the pixel count from a calibration "
                                 "at another image size");
    return parts.join(MemoryPanel::tr("; ")) + MemoryPanel::tr(".");
}

QString MemoryWording::sourced(FigureSource source, const QString& detail) {
    return MemoryPanel::tr("Source: %1. %2")
        .arg(FixWording::basis(FigureBasis{source, {}}), detail);
}

QString MemoryWording::peakSource(const MemoryEstimate& e, bool validation) {
    const MemoryEstimate::How& how = e.how;
    if (how.scaledFromOtherSize)
        return sourced(FigureSource::Assumption,
                       MemoryPanel::tr("Probe steps at another image size, their per-image memory "
                                       "scaled by the pixel count."));
    if (validation) {
        const int small = how.valProbeSmall > 0 ? how.valProbeSmall : how.probeBatchSmall;
        const int large = how.valProbeLarge > 0 ? how.valProbeLarge : how.probeBatchLarge;
        return sourced(FigureSource::MeasuredHere,
                       MemoryPanel::tr("The allocator's peak of validation batches of %1 and %2 "
                                       "images on %3, on a line to batch %4.")
                           .arg(small)
                           .arg(large)
                           .arg(QString::fromStdString(how.probeDevice))
                           .arg(e.valBatch));
    }
    return sourced(FigureSource::MeasuredHere,
                   MemoryPanel::tr("The allocator's peak of real training steps at batch %1 and "
                                   "%2 on %3, on a line to batch %4.")
                       .arg(how.probeBatchSmall)
                       .arg(how.probeBatchLarge)
                       .arg(QString::fromStdString(how.probeDevice))
                       .arg(e.rankBatch > 0 ? e.rankBatch : e.batch));
}

QString MemoryWording::partSource(int part, const MemoryEstimate& e) {
    const QString device = QString::fromStdString(e.how.probeDevice);
    switch (part) {
    case 0:
        return sourced(FigureSource::MeasuredHere,
                       MemoryPanel::tr("The bytes of the model's weights, counted from its "
                                       "tensors on %1 after the probe steps.")
                           .arg(device));
    case 1:
        return sourced(FigureSource::MeasuredHere,
                       MemoryPanel::tr("The bytes of the trainable parameters' gradients, "
                                       "counted from their tensors after the probe steps."));
    case 2: {
        QString text = MemoryPanel::tr("The bytes of the optimizer's state, counted from its "
                                       "tensors after the probe steps.");
        if (e.how.stateShare < 1.0)
            text += QLatin1Char(' ') +
                    MemoryPanel::tr("This rank keeps %1% of it (ZeRO-1: the most loaded rank "
                                    "by parameter size).")
                        .arg(std::lround(e.how.stateShare * 100.0));
        return sourced(FigureSource::MeasuredHere, text);
    }
    case 3:
        return sourced(FigureSource::MeasuredHere,
                       MemoryPanel::tr("The bytes of the EMA copy of the weights, counted from "
                                       "its tensors after the probe steps."));
    case 4:
        return peakSource(e, false) + QLatin1Char(' ') +
               MemoryPanel::tr("Activations are that peak less the parts above and the "
                               "batch.");
    case 5:
        return MemoryPanel::tr("Source: byte count. %1 images × 3 colour channels × the image "
                               "size squared × 4 bytes (float32): the batch once the step has "
                               "moved it to the device.")
            .arg(e.rankBatch > 0 ? e.rankBatch : e.batch);
    default:
        return peakSource(e, false) + QLatin1Char(' ') +
               MemoryPanel::tr("Other is what that peak holds beyond the parts above (the "
                               "activations take it all).");
    }
}

} // namespace hr::ui
