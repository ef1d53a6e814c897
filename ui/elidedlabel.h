// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

namespace hr::ui {

/// One line of text that never widens its window: what does not fit ends in "…", and the
/// tooltip holds the whole text (a status line that may receive a long error message).
class ElidedLabel : public QWidget {
    Q_OBJECT
public:
    explicit ElidedLabel(const QString& text = QString(), QWidget* parent = nullptr);

    QString text() const { return m_text; }
    /// True when the text does not fit and is shown cut.
    bool isElided() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void setText(const QString& text);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QString shownText() const;
    void updateToolTip();

    QString m_text;
};

} // namespace hr::ui
