// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "advisor/fix_suggestion.h"

#include <QCoreApplication>
#include <QString>

namespace hr::ui {

/// The words of a fix card, in the UI's language, from the levers and values core returns
/// (FixSuggestion::parts). Core's English title, reason and accuracy effect stay for the CLI;
/// a lever this UI does not know falls back to them.
class FixWording {
    Q_DECLARE_TR_FUNCTIONS(FixWording)
public:
    /// "batch 8 + accumulate 8 (nominal batch 64)" and the like, levers joined by " + ".
    static QString title(const FixSuggestion& fix);
    /// Why it lowers memory, one clause per lever, plus the host-fix and scaling notes.
    static QString reason(const FixSuggestion& fix);
    /// The expected accuracy effect in words ("none expected" when no lever costs any).
    static QString accuracyEffect(const FixSuggestion& fix);
    /// Where a figure comes from: its source kind, then its detail (numbers, citations):
    /// core's English in an English UI, worded from FigureBasis::parts in a translated one.
    static QString basis(const FigureBasis& basis);
    /// The kind of source with a citation (a name, shown as given in any language).
    static QString cited(FigureSource source, const std::string& citation);
    /// "(measured here)" after the card's speed figure, or "(estimate: FLOP count, not measured
    /// here)" and the like when it is not from this machine's timings.
    static QString speedNote(const FixSuggestion& fix);
    /// The fix card's tooltip: where its memory, speed and accuracy figures come from.
    static QString figuresTooltip(const FixSuggestion& fix);
};

} // namespace hr::ui
