// SPDX-License-Identifier: GPL-3.0-or-later
#include "elidedlabel.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOption>

namespace hr::ui {

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setText(text);
}

void ElidedLabel::setText(const QString& text) {
    if (text == m_text)
        return;
    m_text = text;
    updateToolTip();
    update();
}

QString ElidedLabel::shownText() const {
    // A multi-line message shows its lines joined; the tooltip keeps them apart.
    QString line = m_text;
    line.replace(QLatin1Char('\n'), QStringLiteral(" · "));
    return fontMetrics().elidedText(line, Qt::ElideRight, contentsRect().width());
}

bool ElidedLabel::isElided() const {
    QString line = m_text;
    line.replace(QLatin1Char('\n'), QStringLiteral(" · "));
    return shownText() != line;
}

void ElidedLabel::updateToolTip() {
    setToolTip(isElided() ? m_text : QString());
}

QSize ElidedLabel::sizeHint() const {
    const QFontMetrics metrics = fontMetrics();
    return {std::min(metrics.horizontalAdvance(m_text), 60 * metrics.averageCharWidth()),
            metrics.height()};
}

QSize ElidedLabel::minimumSizeHint() const {
    return {fontMetrics().averageCharWidth() * 4, fontMetrics().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setPen(palette().color(foregroundRole()));
    painter.drawText(contentsRect(), Qt::AlignLeft | Qt::AlignVCenter, shownText());
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateToolTip();
}

} // namespace hr::ui
