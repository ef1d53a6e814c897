// SPDX-License-Identifier: GPL-3.0-or-later
#include "wheelguard.h"

#include <QEvent>
#include <QWidget>

namespace hr::ui {

namespace {

class WheelGuard final : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Wheel && !static_cast<QWidget*>(watched)->hasFocus()) {
            // Ignored and filtered: Qt hands the wheel to the parents, the scroll area's
            // viewport among them.
            event->ignore();
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

void scrollPastUnlessFocused(QWidget* editor) {
    // Wheel focus would let the first wheel turn focus the editor and change it.
    editor->setFocusPolicy(Qt::StrongFocus);
    editor->installEventFilter(new WheelGuard(editor));
}

} // namespace hr::ui
