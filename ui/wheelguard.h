// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QWidget;

namespace hr::ui {

/// Lets the mouse wheel scroll past `editor` (a spin box or combo box in a scrolling form)
/// unless the user has given it focus by clicking or tabbing into it, so that scrolling a long
/// form does not change, unseen, whichever field passes under the pointer.
void scrollPastUnlessFocused(QWidget* editor);

} // namespace hr::ui
