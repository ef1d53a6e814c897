// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "data/label.h"

#include <QImage>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace hr::ui {

/// Shows one image scaled to fit, with its label boxes and class names drawn on top.
class ImageView : public QWidget {
    Q_OBJECT
public:
    explicit ImageView(QWidget* parent = nullptr);

    /// Loads `path` (EXIF orientation applied, as training sees it). Returns false when the
    /// image cannot be read; the view then says so.
    bool setImage(const QString& path, const std::vector<LabelBox>& labels,
                  const QStringList& names);
    void clear();
    int boxCount() const { return static_cast<int>(m_labels.size()); }
    QSize sizeHint() const override { return {480, 360}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QImage m_image;
    std::vector<LabelBox> m_labels;
    QStringList m_names;
    QString m_message;
};

} // namespace hr::ui
