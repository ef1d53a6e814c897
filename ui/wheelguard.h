// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QWidget;

namespace hr::ui {

/// Lets the mouse wheel scroll past `editor` (a spin box or combo box in a scrolling form)
/// unless the user has given it focus by clicking or tabbing into it. Without this, scrolling
/// a long form changes whichever field passes under the pointer, unseen: a wheel turn over the
/// settings' DFL loss gain set it from 1.5 to 0.
void scrollPastUnlessFocused(QWidget* editor);

} // namespace hr::ui
