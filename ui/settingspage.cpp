// SPDX-License-Identifier: GPL-3.0-or-later
#include "settingspage.h"

#include "diagnosticwording.h"
#include "plotpalette.h"
#include "settingsform.h"

#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace hr::ui {

SettingsPage::SettingsPage(QWidget* parent) : QWidget(parent), m_form(new SettingsForm) {
    auto* layout = new QVBoxLayout(this);
    auto* buttons = new QHBoxLayout;
    auto* open = new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Open YAML…"), this);
    auto* save = new QPushButton(QIcon(QStringLiteral(":/icons/save.svg")), tr("Save YAML…"), this);
    m_hint = tr("Settings are kept between sessions. Hover a field to see what it does to memory, "
                "speed and accuracy.");
    m_fileLabel = new QLabel(m_hint, this);
    m_fileLabel->setObjectName(QStringLiteral("settingsStatus"));
    m_fileLabel->setWordWrap(true);
    buttons->addWidget(open);
    buttons->addWidget(save);
    buttons->addWidget(m_fileLabel, 1);
    layout->addLayout(buttons);

    m_columns = new QHBoxLayout;
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_form);
    scroll->setMinimumWidth(420);
    // Two columns when they fit beside the memory panel, else one: never a sideways scroll.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->viewport()->installEventFilter(this);
    m_scroll = scroll;
    m_columns->addWidget(scroll, 3);
    layout->addLayout(m_columns, 1);

    // The fields with errors are named here, above the form, where nothing moves under the mouse.
    connect(m_form, &SettingsForm::invalidFieldsChanged, this, [this](const QStringList& labels) {
        QPalette pal = palette();
        if (!labels.isEmpty())
            pal.setColor(QPalette::WindowText,
                         isDarkPalette(pal) ? QColor(0xff8a80) : QColor(0xc0392b));
        m_fileLabel->setPalette(pal);
        m_fileLabel->setText(labels.isEmpty()
                                 ? m_hint
                                 : tr("Start is off until these settings are fixed: %1.")
                                       .arg(labels.join(QStringLiteral(", "))));
    });
    connect(open, &QPushButton::clicked, this, &SettingsPage::openRequested);
    connect(save, &QPushButton::clicked, this, &SettingsPage::saveRequested);
}

bool SettingsPage::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize)
        m_form->setColumnCount(m_scroll->viewport()->width() >= m_form->twoColumnWidth() ? 2 : 1);
    return QWidget::eventFilter(watched, event);
}

void SettingsPage::setSidePanel(QWidget* panel) {
    // A long Auto-fit result scrolls the panel instead of squeezing its rows into each other.
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(panel);
    m_columns->addWidget(scroll, 2);
}

bool SettingsPage::openYaml(const QString& path, QString* error) {
    const TrainConfigResult result = hr::loadTrainConfig(path.toStdString());
    QStringList lines;
    for (const Diagnostic& d : result.diagnostics)
        lines << DiagnosticWording::located(d);
    if (error)
        *error = lines.join(QLatin1Char('\n'));
    if (!result.config)
        return false;
    m_form->setConfig(*result.config);
    m_file = path;
    m_hint = tr("Settings from %1").arg(QDir::toNativeSeparators(path));
    m_fileLabel->setText(m_hint);
    emit m_form->configChanged();
    return true;
}

bool SettingsPage::saveYaml(const QString& path, QString* error) {
    std::string message;
    if (!hr::saveTrainConfig(m_form->config(), path.toStdString(), &message)) {
        if (error)
            *error = QString::fromStdString(message);
        return false;
    }
    m_file = path;
    m_hint = tr("Settings saved to %1").arg(QDir::toNativeSeparators(path));
    if (m_form->isValid())
        m_fileLabel->setText(m_hint);
    return true;
}

} // namespace hr::ui
