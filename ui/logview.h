// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPlainTextEdit>

namespace hr::ui {

/// A read-only log that follows new lines, like `tail -f`, until the user scrolls up (wheel,
/// scroll bar or keys); scrolling back to the bottom follows again.
class LogView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit LogView(QWidget* parent = nullptr);

    /// Appends one line and, while following, keeps the last line in view.
    void appendLine(const QString& line);
    /// True while new lines scroll into view.
    bool isFollowing() const { return m_follow; }

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    bool atBottom() const;
    void scrollToEnd();

    bool m_follow = true;
};

} // namespace hr::ui
