// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "estimate/auto_fit.h"

#include <QCoreApplication>
#include <QString>

namespace hr::ui {

/// Auto-fit's decisions and outcome in the UI's language, from the codes and values core
/// returns (FitResult::decisions, outcome); the CLI words the same values in English
/// (fitDecisionText, fitSummaryText).
class FitWording {
    Q_DECLARE_TR_FUNCTIONS(FitWording)
public:
    /// "image size 320, AMP on, checkpointing of all blocks".
    static QString variant(const FitVariant& variant);
    static QString decision(const FitDecision& decision, const FitResult& fit);
    /// One line: what was chosen, or why nothing fits; empty when the fit failed.
    static QString summary(const FitResult& fit);
};

} // namespace hr::ui
