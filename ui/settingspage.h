// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QScrollArea;

namespace hr::ui {

class SettingsForm;

/// The Settings page: the settings form in a scroll area with open/save YAML, and a side
/// column (the memory panel) beside it.
class SettingsPage : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPage(QWidget* parent = nullptr);

    SettingsForm* form() const { return m_form; }
    /// Puts `panel` beside the form (the memory panel).
    void setSidePanel(QWidget* panel);

    /// Loads a train config YAML into the form. Returns false and fills `error` (every
    /// problem, one per line) when it has errors; warnings are returned in `error` too.
    bool openYaml(const QString& path, QString* error);
    /// Writes the form's config as YAML. Returns false and fills `error` on failure.
    bool saveYaml(const QString& path, QString* error);
    /// The file last opened or saved, "" when none.
    QString currentFile() const { return m_file; }

    QScrollArea* scrollArea() const { return m_scroll; }
    /// The line above the form: a hint, the file, or the fields that keep Start off.
    QLabel* statusLabel() const { return m_fileLabel; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

signals:
    void openRequested();
    void saveRequested();

private:
    SettingsForm* m_form;
    QHBoxLayout* m_columns;
    QLabel* m_fileLabel;
    QScrollArea* m_scroll = nullptr;
    QString m_hint; ///< what the top line says while every field is valid
    QString m_file;
};

} // namespace hr::ui
