// SPDX-License-Identifier: GPL-3.0-or-later
#include "logview.h"

#include <QScrollBar>
#include <QTimer>

namespace hr::ui {

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    // The scroll range grows after the text is laid out, later than the append: follow it then.
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this] {
        if (m_follow)
            scrollToEnd();
    });
    // Only the user's own scrolling decides whether the log follows; blocks dropped at the top
    // (the line limit) also move the value, and must not.
    connect(verticalScrollBar(), &QScrollBar::actionTriggered, this,
            [this] { QTimer::singleShot(0, this, [this] { m_follow = atBottom(); }); });
}

void LogView::appendLine(const QString& line) {
    appendPlainText(line);
    if (m_follow)
        scrollToEnd();
}

void LogView::wheelEvent(QWheelEvent* event) {
    QPlainTextEdit::wheelEvent(event);
    m_follow = atBottom();
}

void LogView::keyPressEvent(QKeyEvent* event) {
    QPlainTextEdit::keyPressEvent(event);
    m_follow = atBottom();
}

bool LogView::atBottom() const {
    return verticalScrollBar()->value() >= verticalScrollBar()->maximum();
}

void LogView::scrollToEnd() {
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

} // namespace hr::ui
