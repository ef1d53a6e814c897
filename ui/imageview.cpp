// SPDX-License-Identifier: GPL-3.0-or-later
#include "imageview.h"

#include "plotpalette.h"

#include <QImageReader>
#include <QPainter>

namespace hr::ui {

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
    setMinimumSize(200, 150);
    m_message = tr("Choose an image to see its boxes.");
}

bool ImageView::setImage(const QString& path, const std::vector<LabelBox>& labels,
                         const QStringList& names) {
    QImageReader reader(path);
    reader.setAutoTransform(true);
    m_image = reader.read();
    m_labels = labels;
    m_names = names;
    m_message =
        m_image.isNull() ? tr("Cannot read %1: %2").arg(path, reader.errorString()) : QString();
    update();
    return !m_image.isNull();
}

void ImageView::clear() {
    m_image = QImage();
    m_labels.clear();
    m_message = tr("Choose an image to see its boxes.");
    update();
}

void ImageView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (m_image.isNull()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const QSize fitted = m_image.size().scaled(size() - QSize(8, 8), Qt::KeepAspectRatio);
    const QRect target(QPoint((width() - fitted.width()) / 2, (height() - fitted.height()) / 2),
                       fitted);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    painter.drawImage(target, m_image);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setBold(true);
    painter.setFont(font);
    const QFontMetrics metrics(font);
    // Boxes always sit on the image, so a fixed light palette keeps them readable in any theme.
    QPalette light;
    light.setColor(QPalette::Base, Qt::white);
    for (const LabelBox& box : m_labels) {
        const QColor color = seriesColor(box.cls, light);
        const QRectF r(target.left() + (box.cx - box.w / 2) * target.width(),
                       target.top() + (box.cy - box.h / 2) * target.height(),
                       box.w * target.width(), box.h * target.height());
        painter.setPen(QPen(color, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r);
        const QString name =
            box.cls >= 0 && box.cls < m_names.size() ? m_names[box.cls] : QString::number(box.cls);
        const QRectF tag(r.left(), r.top() - metrics.height() - 2,
                         metrics.horizontalAdvance(name) + 6, metrics.height() + 2);
        const QRectF placed = tag.top() < target.top() ? tag.translated(0, tag.height()) : tag;
        painter.fillRect(placed, color);
        painter.setPen(Qt::white);
        painter.drawText(placed, Qt::AlignCenter, name);
    }
}

} // namespace hr::ui
