// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/settings_table.h"
#include "config/train_config.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <utility>
#include <vector>

class QFormLayout;
class QHBoxLayout;
class QLabel;
class QVBoxLayout;

namespace hr::ui {

/// Every TrainConfig setting as a form, made from the settings table (config/settings_table.h):
/// one field per row, in the row's group (model and data, device and memory, schedule, loss,
/// augmentation, validation, run folder, distributed), with the row's label, editor, range and
/// tooltip (what it does to memory, speed and accuracy). The form edits a copy: config() returns
/// the values shown, setConfig() replaces them without emitting configChanged().
class SettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit SettingsForm(QWidget* parent = nullptr);
    ~SettingsForm() override;

    TrainConfig config() const;
    void setConfig(const TrainConfig& config);

    /// The YAML keys the form has a field for, in form order.
    QStringList keys() const;
    /// The editor of one key (objectName == key), nullptr when there is none.
    QWidget* editor(const QString& key) const;

    /// False while a field holds a value core's parser or checks reject (the same checks as
    /// `headroom-cli train key=value`); config() then keeps that field's last valid value.
    bool isValid() const { return m_invalid.isEmpty(); }
    /// The labels of the fields with errors, in form order ("Memory budget").
    QStringList invalidFields() const { return m_invalid; }
    /// The message shown under a field ("" when it has none): core's message and fix.
    QString fieldMessage(const QString& key) const;

    /// The groups in two columns side by side, or all in one (a narrow window).
    void setColumnCount(int columns);
    int columnCount() const { return m_columnCount; }
    /// The narrowest width that shows two columns without cutting a field.
    int twoColumnWidth() const;

signals:
    /// The user changed a value.
    void configChanged();
    /// isValid() changed.
    void validityChanged(bool valid);
    /// invalidFields() changed (also while the form stays invalid).
    void invalidFieldsChanged(const QStringList& labels);

private:
    struct Field {
        QString key;
        QString label;
        QWidget* widget = nullptr;
        QLabel* labelWidget = nullptr;
        QLabel* message = nullptr; ///< the row under the field for core's message
        std::function<void(const TrainConfig&)> load;
        std::function<void(TrainConfig&)> store;
        /// Free text only: core's message about what the user typed, "" when it parses.
        std::function<QString()> parseError;
    };

    /// A titled group in the left (0) or right (1) column.
    QFormLayout* addGroup(const QString& title, int column);
    /// The row's tooltip: its help and its memory, speed and accuracy effect, translated.
    QString tip(const SettingRow& row) const;
    /// The row's editor, made from its type, range and choices.
    QWidget* makeEditor(const SettingRow& row, QWidget* parent);
    void addField(QFormLayout* form, const SettingRow& row);
    void buildFields();
    void updateValidation();

    QVBoxLayout* m_columns[2] = {nullptr, nullptr};
    QHBoxLayout* m_columnRow = nullptr;
    std::vector<std::pair<QWidget*, int>> m_groups; ///< each group and its column of two
    int m_columnCount = 2;
    QLabel* m_validation = nullptr;
    std::vector<Field> m_fields;
    QStringList m_invalid;
    TrainConfig m_base;
    bool m_loading = false;
};

/// Exact byte text for the budget field: "3 GiB", "1536 MiB", "1000000 B"; "" for 0.
QString budgetText(std::int64_t bytes);

} // namespace hr::ui
