// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <vector>

class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace hr::ui {

/// Every TrainConfig setting as a form, grouped (model and data, device and memory, schedule,
/// loss, augmentation, validation, run folder, distributed). Each field's tooltip says what it
/// does to memory, speed and accuracy. The form edits a copy: config() returns the values
/// shown, setConfig() replaces them without emitting configChanged().
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

signals:
    /// The user changed a value.
    void configChanged();

private:
    struct Field {
        QString key;
        QWidget* widget = nullptr;
        std::function<void(const TrainConfig&)> load;
        std::function<void(TrainConfig&)> store;
    };

    /// A titled group in the left (0) or right (1) column.
    QFormLayout* addGroup(const QString& title, int column);
    QString tip(const QString& what, const QString& memory, const QString& speed,
                const QString& accuracy) const;
    void addField(QFormLayout* form, const QString& key, const QString& label, QWidget* widget,
                  const QString& tooltip, std::function<void(const TrainConfig&)> load,
                  std::function<void(TrainConfig&)> store);
    void addInt(QFormLayout* form, const QString& key, const QString& label,
                int TrainConfig::*member, int min, int max, const QString& tooltip,
                const QString& special = {}, int step = 1);
    void addDouble(QFormLayout* form, const QString& key, const QString& label,
                   double TrainConfig::*member, double min, double max, int decimals,
                   const QString& tooltip);
    void addBool(QFormLayout* form, const QString& key, const QString& label,
                 bool TrainConfig::*member, const QString& tooltip);
    void addText(QFormLayout* form, const QString& key, const QString& label,
                 std::string TrainConfig::*member, const QString& tooltip,
                 const QString& placeholder = {});
    void addChoice(QFormLayout* form, const QString& key, const QString& label,
                   std::string TrainConfig::*member, const QStringList& values,
                   const QStringList& labels, bool editable, const QString& tooltip);
    void buildFields();
    void updateValidation();

    QVBoxLayout* m_columns[2] = {nullptr, nullptr};
    QLabel* m_validation = nullptr;
    std::vector<Field> m_fields;
    TrainConfig m_base;
    bool m_loading = false;
};

/// Exact byte text for the budget field: "3 GiB", "1536 MiB", "1000000 B"; "" for 0.
QString budgetText(std::int64_t bytes);

} // namespace hr::ui
