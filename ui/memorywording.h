// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"
#include "estimate/memory_estimator.h"

#include <QString>

namespace hr::ui {

/// The memory panel's words for an estimate, in the UI's language: the names of the bar's
/// parts, how the estimate was made, and where each figure comes from (the tooltips). They
/// are MemoryPanel's texts (its tr() context), kept apart from the widget's layout.
class MemoryWording {
public:
    /// Part `part` of a bar: 0 weights, 1 gradients, 2 optimizer state, 3 EMA,
    /// 4 activations, 5 batch data, 6 other.
    static QString partName(int part);
    /// How the estimate was made, from the values core reports.
    static QString howText(const MemoryEstimate& e);
    /// "Source: measured here. …": the kind of source in the fix cards' words (FixWording),
    /// then what it is.
    static QString sourced(FigureSource source, const QString& detail);
    /// Where the training (or validation) peak comes from: the probe steps of these settings,
    /// or (scaled from another image size) the pixel-count rule, which is an assumption.
    static QString peakSource(const MemoryEstimate& e, bool validation);
    /// The source of one part of the training bar (partName() order).
    static QString partSource(int part, const MemoryEstimate& e);
};

} // namespace hr::ui
