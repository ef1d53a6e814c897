// SPDX-License-Identifier: GPL-3.0-or-later
#include "fitwording.h"

#include "bytestext.h"

#include <algorithm>

namespace hr::ui {

namespace {

QString checkpointingName(Checkpointing mode) {
    switch (mode) {
    case Checkpointing::None:
        return FitWording::tr("no checkpointing");
    case Checkpointing::Backbone:
        return FitWording::tr("checkpointing of the backbone");
    case Checkpointing::All:
        return FitWording::tr("checkpointing of all blocks");
    }
    return {};
}

} // namespace

QString FitWording::variant(const FitVariant& v) {
    return tr("image size %1, AMP %2, %3")
        .arg(v.imgsz)
        .arg(v.amp ? tr("on") : tr("off"), checkpointingName(v.checkpointing));
}

QString FitWording::decision(const FitDecision& d, const FitResult& fit) {
    switch (d.kind) {
    case FitDecision::Kind::AmpOn:
        return tr("turned AMP on (batch 1 did not fit without it)");
    case FitDecision::Kind::CheckpointingOn:
        return tr("turned gradient checkpointing on (batch 1 did not fit with AMP alone)");
    case FitDecision::Kind::TooLargeAtSmallest:
        return tr("batch 1 with %1 does not fit even at %2 px")
            .arg(variant(d.variant))
            .arg(d.imgsz);
    case FitDecision::Kind::ImgszLowered:
        return tr("lowered the image size to %1 px (batch 1 did not fit at %2 px; the largest "
                  "multiple of 32 that fits, found by bisection)")
            .arg(d.imgsz)
            .arg(d.fromImgsz);
    case FitDecision::Kind::LargestBatch:
        return tr("batch %1 is the largest that fits (%2): training peak %3, validation peak %4 "
                  "of %5 (90% of %6)")
            .arg(d.batch)
            .arg(variant(d.variant), bytesText(d.trainPeak), bytesText(d.valPeak),
                 bytesText(fit.target), bytesText(fit.budget));
    case FitDecision::Kind::Accumulate:
        return tr("accumulating %1 batches keeps the nominal batch of %2")
            .arg(d.accumulate)
            .arg(d.nbs);
    case FitDecision::Kind::ResidentFloor:
        return tr("the weights (%1), gradients (%2), optimizer state (%3) and EMA (%4) of %5 "
                  "take %6 whatever the batch, image size, AMP or checkpointing: more than %7 "
                  "(90% of %8), so no variant was tried")
            .arg(bytesText(d.floor.weights), bytesText(d.floor.gradients),
                 bytesText(d.floor.optimizerState), bytesText(d.floor.ema),
                 QString::fromStdString(fit.config.model), bytesText(d.floor.total),
                 bytesText(fit.target), bytesText(fit.budget));
    }
    return {};
}

QString FitWording::summary(const FitResult& fit) {
    switch (fit.outcome) {
    case FitOutcome::Failed:
        return {};
    case FitOutcome::Fits:
        return tr("batch %1 × accumulate %2, %3: predicted peak %4 of a %5 budget")
            .arg(fit.config.batch)
            .arg(fit.accumulate)
            .arg(variant(fitVariantOf(fit.config)), bytesText(std::max(fit.trainPeak, fit.valPeak)),
                 bytesText(fit.budget));
    case FitOutcome::AsConfigured:
        return tr("batch %1 as configured").arg(fit.config.batch);
    case FitOutcome::ResidentFloor: {
        // Adam/AdamW keep two state tensors per weight: SGD halves the optimizer state.
        const QString smaller = tr("a smaller model scale");
        const QString freeze = tr("freezing layers (no gradients or optimizer state for them)");
        const QString alternatives =
            fit.floor.optimizerState > fit.floor.gradients
                ? tr("%1, %2 or %3")
                      .arg(smaller,
                           tr("SGD instead of Adam/AdamW (one state tensor per weight, not two)"),
                           freeze)
                : tr("%1 or %2").arg(smaller, freeze);
        return tr("Nothing fits in %1: the weights, gradients, optimizer state and EMA of %2 "
                  "alone need %3 whatever the batch, image size, AMP or checkpointing, so the "
                  "smallest budget that would work is %4 (batch 1 with %5 needs %6); below it, "
                  "use %7.")
            .arg(bytesText(fit.budget), QString::fromStdString(fit.config.model),
                 bytesText(fit.floor.total), bytesText(fit.minimumBudget),
                 variant(fit.smallestVariant), bytesText(fit.smallestPeak), alternatives);
    }
    case FitOutcome::NothingFits:
        return tr("Nothing fits in %1: even batch 1 with %2 needs %3 (batch 1 as configured "
                  "needs %4), so the smallest budget that would work is %5; set at least that, "
                  "or use a smaller model.")
            .arg(bytesText(fit.budget), variant(fit.smallestVariant), bytesText(fit.smallestPeak),
                 bytesText(fit.configuredPeak), bytesText(fit.minimumBudget));
    }
    return {};
}

} // namespace hr::ui
