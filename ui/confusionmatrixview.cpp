// SPDX-License-Identifier: GPL-3.0-or-later
#include "confusionmatrixview.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace hr::ui {

namespace {

constexpr double kAxisTitle = 20; ///< room for "Predicted" / "True"
constexpr double kNameRoom = 110; ///< at most this much for the class names
constexpr double kGap = 4;

QColor blend(const QColor& from, const QColor& to, double t) {
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(static_cast<float>(from.redF() + (to.redF() - from.redF()) * t),
                            static_cast<float>(from.greenF() + (to.greenF() - from.greenF()) * t),
                            static_cast<float>(from.blueF() + (to.blueF() - from.blueF()) * t));
}

/// Black or white, whichever reads on `background`.
QColor textOn(const QColor& background) {
    const double luminance =
        0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace

ConfusionMatrixView::ConfusionMatrixView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ConfusionMatrixView::setTable(const hr::ConfusionTable& table) {
    m_table = table;
    update();
}

void ConfusionMatrixView::setNormalised(bool on) {
    m_normalised = on;
    update();
}

int ConfusionMatrixView::columnTotal(int actual) const {
    int total = 0;
    for (const std::vector<int>& row : m_table.counts)
        if (actual < static_cast<int>(row.size()))
            total += row[static_cast<std::size_t>(actual)];
    return total;
}

double ConfusionMatrixView::cellValue(int predicted, int actual) const {
    if (predicted < 0 || actual < 0 || predicted >= static_cast<int>(m_table.counts.size()))
        return 0;
    const std::vector<int>& row = m_table.counts[static_cast<std::size_t>(predicted)];
    if (actual >= static_cast<int>(row.size()))
        return 0;
    const double count = row[static_cast<std::size_t>(actual)];
    if (!m_normalised)
        return count;
    const int total = columnTotal(actual);
    return total > 0 ? count / total : 0.0;
}

ConfusionMatrixView::Layout ConfusionMatrixView::layout() const {
    Layout out;
    const int n = size();
    if (n == 0)
        return out;
    const QFontMetricsF metrics(font());
    double widest = 0;
    for (const std::string& name : m_table.names)
        widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(name)));
    const auto sideFor = [&](double room) {
        return std::max(0.0, std::min(width() - room - kGap, height() - room - kGap) / n);
    };
    out.nameRoom = std::min(widest, kNameRoom);
    double room = kAxisTitle + out.nameRoom + kGap;
    out.side = sideFor(room);
    out.names = out.side >= metrics.height();
    if (!out.names) {
        out.nameRoom = 0;
        room = kAxisTitle;
        out.side = sideFor(room);
    }
    out.matrix = QRectF(room, kGap, out.side * n, out.side * n);
    return out;
}

bool ConfusionMatrixView::cellAt(const QPoint& point, int* predicted, int* actual) const {
    const Layout l = layout();
    if (l.side <= 0 || !l.matrix.contains(point))
        return false;
    const int column = static_cast<int>((point.x() - l.matrix.left()) / l.side);
    const int row = static_cast<int>((point.y() - l.matrix.top()) / l.side);
    if (row < 0 || column < 0 || row >= size() || column >= size())
        return false;
    *predicted = row;
    *actual = column;
    return true;
}

QPoint ConfusionMatrixView::cellCentre(int predicted, int actual) const {
    const Layout l = layout();
    return QPointF(l.matrix.left() + (actual + 0.5) * l.side,
                   l.matrix.top() + (predicted + 0.5) * l.side)
        .toPoint();
}

QString ConfusionMatrixView::cellText(int predicted, int actual) const {
    const int n = size();
    if (predicted < 0 || actual < 0 || predicted >= n || actual >= n)
        return {};
    const int count =
        m_table.counts[static_cast<std::size_t>(predicted)][static_cast<std::size_t>(actual)];
    const QString predictedName = QString::fromStdString(m_table.names[predicted]);
    const QString actualName = QString::fromStdString(m_table.names[actual]);
    const int background = n - 1;
    QString text;
    if (predicted == background && actual == background)
        text = tr("Background against background is not counted.");
    else if (predicted == background)
        text = tr("%n object(s) of %1 were missed: nothing was predicted there.", "", count)
                   .arg(actualName);
    else if (actual == background)
        text = tr("%n prediction(s) of %1 matched no object (false positives).", "", count)
                   .arg(predictedName);
    else if (predicted == actual)
        text = tr("%n object(s) of %1 were found as %1.", "", count).arg(actualName);
    else
        text = tr("%n object(s) of %1 were predicted as %2.", "", count)
                   .arg(actualName, predictedName);
    const int total = columnTotal(actual);
    if (actual != background && total > 0)
        text += QLatin1Char(' ') + tr("That is %1% of the %2 objects of %3.")
                                       .arg(QString::number(100.0 * count / total, 'f', 1))
                                       .arg(total)
                                       .arg(actualName);
    return text;
}

void ConfusionMatrixView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const int n = size();
    if (n == 0) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No confusion matrix yet."));
        return;
    }
    const Layout l = layout();
    const QColor low = palette().color(QPalette::Base);
    const QColor high = palette().color(QPalette::Highlight);
    double top = 0;
    for (int p = 0; p < n; ++p)
        for (int a = 0; a < n; ++a)
            top = std::max(top, cellValue(p, a));
    const QFontMetricsF metrics(font());
    const bool figures = l.names && l.side >= metrics.horizontalAdvance(QStringLiteral("0.00")) + 4;
    for (int p = 0; p < n; ++p)
        for (int a = 0; a < n; ++a) {
            const double value = cellValue(p, a);
            const QRectF cell(l.matrix.left() + a * l.side, l.matrix.top() + p * l.side, l.side,
                              l.side);
            const QColor colour = blend(low, high, top > 0 ? value / top : 0);
            painter.fillRect(cell, colour);
            if (figures && value > 0) {
                painter.setPen(textOn(colour));
                painter.drawText(cell, Qt::AlignCenter,
                                 m_normalised ? QString::number(value, 'f', 2)
                                              : QString::number(static_cast<int>(value)));
            }
        }
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(l.matrix);
    painter.setPen(palette().color(QPalette::WindowText));
    if (l.names) {
        for (int i = 0; i < n; ++i) {
            const QString name = metrics.elidedText(QString::fromStdString(m_table.names[i]),
                                                    Qt::ElideRight, l.nameRoom);
            const QRectF rowLabel(kAxisTitle, l.matrix.top() + i * l.side,
                                  l.matrix.left() - kAxisTitle - kGap, l.side);
            painter.drawText(rowLabel, Qt::AlignRight | Qt::AlignVCenter, name);
            painter.save();
            painter.translate(l.matrix.left() + (i + 0.5) * l.side, l.matrix.bottom() + kGap);
            painter.rotate(90);
            painter.drawText(QRectF(0, -l.side / 2, l.nameRoom, l.side),
                             Qt::AlignLeft | Qt::AlignVCenter, name);
            painter.restore();
        }
    }
    const double below = l.names ? l.nameRoom + kGap : 0;
    painter.drawText(
        QRectF(l.matrix.left(), l.matrix.bottom() + below, l.matrix.width(), kAxisTitle),
        Qt::AlignCenter, tr("True"));
    painter.save();
    painter.translate(0, l.matrix.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-l.matrix.height() / 2, 0, l.matrix.height(), kAxisTitle),
                     Qt::AlignCenter, tr("Predicted"));
    painter.restore();
}

void ConfusionMatrixView::mousePressEvent(QMouseEvent* event) {
    int predicted = 0, actual = 0;
    if (event->button() == Qt::LeftButton &&
        cellAt(event->position().toPoint(), &predicted, &actual))
        emit cellClicked(predicted, actual);
    QWidget::mousePressEvent(event);
}

bool ConfusionMatrixView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        int predicted = 0, actual = 0;
        if (cellAt(help->pos(), &predicted, &actual))
            QToolTip::showText(help->globalPos(), cellText(predicted, actual), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace hr::ui
