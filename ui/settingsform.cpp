// SPDX-License-Identifier: GPL-3.0-or-later
#include "settingsform.h"
#include "diagnosticwording.h"

#include "plotpalette.h"
#include "wheelguard.h"

#include "util/bytes.h"
#include "util/resources.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace hr::ui {

QString budgetText(std::int64_t bytes) {
    return bytes > 0 ? QString::fromStdString(exactByteSize(bytes, true)) : QString();
}

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

/// The layers as core reads them back: "" for none, else a YAML list "[0, 1, 2]".
QString freezeText(const std::vector<int>& layers) {
    if (layers.empty())
        return {};
    QStringList parts;
    for (int layer : layers)
        parts << QString::number(layer);
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

/// A text of the settings table in the studio's language.
QString translated(const char* text) {
    return QCoreApplication::translate(kSettingsContext, text);
}

/// A text-edited row's value as its editor shows it: "3 GiB", "[0, 1]", "backbone", a path.
QString displayText(const TrainConfig& c, const SettingRow& row) {
    return std::visit(
        [&c](auto member) -> QString {
            using T = std::decay_t<decltype(c.*member)>;
            if constexpr (std::is_same_v<T, std::string>)
                return qs(c.*member);
            else if constexpr (std::is_same_v<T, std::int64_t>)
                return budgetText(c.*member);
            else if constexpr (std::is_same_v<T, std::vector<int>>)
                return freezeText(c.*member);
            else if constexpr (std::is_same_v<T, Checkpointing> || std::is_same_v<T, OomPolicy>)
                return QString::fromLatin1(toString(c.*member));
            else
                return QString::number(c.*member);
        },
        row.member);
}

QStringList modelNames() {
    QStringList names;
    const QString dir = qs(hr::resourcesDir()) + QStringLiteral("/models");
    for (const QString& file : QDir(dir).entryList({QStringLiteral("*.yaml")}, QDir::Files))
        names << file;
    if (names.isEmpty())
        names << QStringLiteral("yolov8n.yaml");
    return names;
}

} // namespace

SettingsForm::SettingsForm(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_validation = new QLabel(this);
    m_validation->setObjectName(QStringLiteral("validation"));
    m_validation->setWordWrap(true);
    m_validation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_validation);
    m_columnRow = new QHBoxLayout;
    for (QVBoxLayout*& column : m_columns) {
        column = new QVBoxLayout;
        m_columnRow->addLayout(column, 1);
    }
    layout->addLayout(m_columnRow);
    layout->addStretch(1);
    buildFields();
    m_columnCount = 0;
    setColumnCount(2);
    setConfig(TrainConfig{});
}

SettingsForm::~SettingsForm() = default;

QString SettingsForm::tip(const SettingRow& row) const {
    auto effect = [this](const char* text) {
        return (text ? translated(text) : tr("No effect.")).toHtmlEscaped();
    };
    return QStringLiteral("<p>%1</p><p><b>%2</b> %3<br><b>%4</b> %5<br><b>%6</b> %7</p>")
        .arg(translated(row.help).toHtmlEscaped(), tr("Memory:"), effect(row.memory), tr("Speed:"),
             effect(row.speed), tr("Accuracy:"), effect(row.accuracy));
}

QFormLayout* SettingsForm::addGroup(const QString& title, int column) {
    auto* box = new QGroupBox(title, this);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_columns[column]->addWidget(box);
    m_groups.emplace_back(box, column);
    return form;
}

void SettingsForm::setColumnCount(int columns) {
    columns = columns <= 1 ? 1 : 2;
    if (columns == m_columnCount)
        return;
    m_columnCount = columns;
    for (QVBoxLayout* column : m_columns)
        while (QLayoutItem* item = column->takeAt(0))
            delete item; // spacers; the group boxes stay children of the form
    for (const auto& [group, column] : m_groups)
        m_columns[columns == 2 ? column : 0]->addWidget(group);
    for (QVBoxLayout* column : m_columns)
        column->addStretch(1);
    m_columnRow->setStretch(1, columns == 2 ? 1 : 0);
}

int SettingsForm::twoColumnWidth() const {
    int widest[2] = {0, 0};
    for (const auto& [group, column] : m_groups)
        widest[column] = std::max(widest[column], group->minimumSizeHint().width());
    const QMargins margins = layout()->contentsMargins();
    return widest[0] + widest[1] + m_columnRow->spacing() + margins.left() + margins.right();
}

QWidget* SettingsForm::makeEditor(const SettingRow& row, QWidget* parent) {
    const auto changed = [this] {
        if (!m_loading) {
            updateValidation();
            emit configChanged();
        }
    };
    Field& field = m_fields.back();
    if (const auto* member = std::get_if<int TrainConfig::*>(&row.member)) {
        auto* spin = new QSpinBox(parent);
        scrollPastUnlessFocused(spin);
        spin->setRange(static_cast<int>(row.lo), static_cast<int>(row.hi));
        spin->setSingleStep(row.step > 0 ? static_cast<int>(row.step) : 1);
        if (row.special)
            spin->setSpecialValueText(translated(row.special));
        connect(spin, &QSpinBox::valueChanged, this, changed);
        field.load = [spin, m = *member](const TrainConfig& c) { spin->setValue(c.*m); };
        field.store = [spin, m = *member](TrainConfig& c) { c.*m = spin->value(); };
        return spin;
    }
    if (const auto* member = std::get_if<double TrainConfig::*>(&row.member)) {
        auto* spin = new QDoubleSpinBox(parent);
        scrollPastUnlessFocused(spin);
        spin->setDecimals(row.decimals);
        // An open bound is one step of the shown digits inside it.
        const double unit = std::pow(10.0, -row.decimals);
        const bool openLow =
            row.bound == SettingBound::Above || row.bound == SettingBound::OpenClosed;
        const bool openHigh = row.bound == SettingBound::ClosedOpen;
        spin->setRange(row.lo + (openLow ? unit : 0), row.hi - (openHigh ? unit : 0));
        spin->setSingleStep(row.step > 0 ? row.step : (row.hi <= 1.0 ? 0.05 : 0.5));
        connect(spin, &QDoubleSpinBox::valueChanged, this, changed);
        field.load = [spin, m = *member](const TrainConfig& c) { spin->setValue(c.*m); };
        field.store = [spin, m = *member](TrainConfig& c) { c.*m = spin->value(); };
        return spin;
    }
    if (const auto* member = std::get_if<bool TrainConfig::*>(&row.member)) {
        auto* box = new QCheckBox(parent);
        connect(box, &QCheckBox::toggled, this, changed);
        field.load = [box, m = *member](const TrainConfig& c) { box->setChecked(c.*m); };
        field.store = [box, m = *member](TrainConfig& c) { c.*m = box->isChecked(); };
        return box;
    }
    // Everything else is text that core's parser reads (applyOverride): a path or name as one
    // quoted YAML string, a size or a layer list as YAML.
    const bool quote = std::holds_alternative<std::string TrainConfig::*>(row.member);
    std::function<QString()> text;
    QWidget* widget = nullptr;
    if (row.choices.empty() && row.editor != SettingEditor::ModelFile) {
        auto* edit = new QLineEdit(parent);
        if (row.special)
            edit->setPlaceholderText(translated(row.special));
        connect(edit, &QLineEdit::textEdited, this, [this] {
            updateValidation();
            emit configChanged();
        });
        field.load = [edit, &row](const TrainConfig& c) { edit->setText(displayText(c, row)); };
        text = [edit] { return edit->text(); };
        widget = edit;
    } else {
        auto* combo = new QComboBox(parent);
        scrollPastUnlessFocused(combo);
        combo->setEditable(row.editor != SettingEditor::Choice);
        if (row.editor == SettingEditor::ModelFile)
            for (const QString& name : modelNames())
                combo->addItem(name, name);
        for (const SettingChoice& choice : row.choices)
            combo->addItem(choice.label ? translated(choice.label) : qs(choice.value),
                           qs(choice.value));
        connect(combo, &QComboBox::currentIndexChanged, this, changed);
        if (combo->isEditable())
            connect(combo, &QComboBox::editTextChanged, this, changed);
        field.load = [combo, &row](const TrainConfig& c) {
            const QString value = displayText(c, row);
            if (const int index = combo->findData(value); index >= 0)
                combo->setCurrentIndex(index);
            else if (combo->isEditable())
                combo->setEditText(value);
            else {
                combo->addItem(value, value);
                combo->setCurrentIndex(combo->count() - 1);
            }
        };
        // The value: the chosen item's, or what the user typed over it.
        text = [combo] {
            if (combo->isEditable() &&
                combo->currentText() != combo->itemText(combo->currentIndex()))
                return combo->currentText();
            return combo->currentData().toString();
        };
        widget = combo;
    }
    const std::string name = row.key;
    auto value = [text, quote] {
        const QString typed = text().trimmed();
        if (!quote)
            return typed.toStdString();
        // One YAML single-quoted scalar: a path or name is text whatever characters it holds.
        QString escaped = typed;
        escaped.replace(QLatin1Char('\''), QStringLiteral("''"));
        return QStringLiteral("'%1'").arg(escaped).toStdString();
    };
    field.store = [name, value](TrainConfig& c) { hr::applyOverride(c, name, value()); };
    field.parseError = [name, value] {
        TrainConfig scratch;
        for (const Diagnostic& d : hr::applyOverride(scratch, name, value()))
            if (d.severity == Diagnostic::Severity::Error)
                return DiagnosticWording::message(d);
        return QString();
    };
    return widget;
}

void SettingsForm::addField(QFormLayout* form, const SettingRow& row) {
    const QString key = QString::fromLatin1(row.key);
    m_fields.push_back(Field{key, translated(row.label), nullptr, nullptr, nullptr, {}, {}, {}});
    QWidget* widget = makeEditor(row, form->parentWidget());
    Field& field = m_fields.back();
    field.widget = widget;
    const QString tooltip = tip(row);
    widget->setObjectName(key);
    widget->setToolTip(tooltip);
    field.labelWidget = new QLabel(field.label, widget->parentWidget());
    field.labelWidget->setToolTip(tooltip);
    field.labelWidget->setBuddy(widget);
    form->addRow(field.labelWidget, widget);
    // Core's message about this field, right under it; hidden while there is none.
    field.message = new QLabel(widget->parentWidget());
    field.message->setObjectName(key + QStringLiteral("_message"));
    field.message->setWordWrap(true);
    field.message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), field.message);
    form->setRowVisible(field.message, false);
}

void SettingsForm::buildFields() {
    // The groups in the order they stand; the left column holds what the run trains and where,
    // the right one how it learns.
    const std::pair<SettingGroup, int> groups[] = {
        {SettingGroup::ModelData, 0},    {SettingGroup::DeviceMemory, 0},
        {SettingGroup::Schedule, 1},     {SettingGroup::Loss, 1},
        {SettingGroup::Augmentation, 1}, {SettingGroup::Validation, 1},
        {SettingGroup::RunFolder, 0},    {SettingGroup::Distributed, 0}};
    for (const auto& [group, column] : groups) {
        std::vector<const SettingRow*> rows;
        for (const SettingRow& row : settingRows())
            if (row.group == group)
                rows.push_back(&row);
        std::stable_sort(rows.begin(), rows.end(), [](const SettingRow* a, const SettingRow* b) {
            return a->place < b->place;
        });
        QFormLayout* form = addGroup(translated(settingGroupTitle(group)), column);
        for (const SettingRow* row : rows)
            addField(form, *row);
    }
}

TrainConfig SettingsForm::config() const {
    TrainConfig c = m_base;
    for (const Field& field : m_fields)
        field.store(c);
    return c;
}

void SettingsForm::setConfig(const TrainConfig& config) {
    m_loading = true;
    m_base = config;
    for (const Field& field : m_fields)
        field.load(config);
    m_loading = false;
    updateValidation();
}

QStringList SettingsForm::keys() const {
    QStringList result;
    for (const Field& field : m_fields)
        result << field.key;
    return result;
}

QWidget* SettingsForm::editor(const QString& key) const {
    for (const Field& field : m_fields)
        if (field.key == key)
            return field.widget;
    return nullptr;
}

QString SettingsForm::fieldMessage(const QString& key) const {
    for (const Field& field : m_fields)
        if (field.key == key)
            return field.message->isVisibleTo(field.message->parentWidget()) ? field.message->text()
                                                                             : QString();
    return {};
}

void SettingsForm::updateValidation() {
    // Per key: what core's parser says about typed text, else what its checks say about the
    // value (the same words `headroom-cli train key=value` prints).
    QMap<QString, QString> errors, warnings;
    for (const Field& field : m_fields)
        if (field.parseError)
            if (const QString error = field.parseError(); !error.isEmpty())
                errors.insert(field.key, error);
    QStringList general;
    for (const Diagnostic& d : hr::validate(config())) {
        if (d.severity == Diagnostic::Severity::Note)
            continue;
        const QString key = QString::fromStdString(d.key);
        const QString text = DiagnosticWording::message(d);
        const bool error = d.severity == Diagnostic::Severity::Error;
        if (!editor(key))
            general << (key.isEmpty() ? text : key + QStringLiteral(": ") + text);
        else if (error && !errors.contains(key))
            errors.insert(key, text);
        else if (!error && !errors.contains(key))
            warnings.insert(key, text);
    }
    const QColor red = isDarkPalette(palette()) ? QColor(0xff8a80) : QColor(0xc0392b);
    QStringList invalid;
    for (const Field& field : m_fields) {
        const bool error = errors.contains(field.key);
        const QString text = error ? errors.value(field.key) : warnings.value(field.key);
        field.message->setText(text);
        QPalette pal = palette();
        if (error)
            pal.setColor(QPalette::WindowText, red);
        field.message->setPalette(pal);
        field.labelWidget->setPalette(pal);
        if (auto* form = qobject_cast<QFormLayout*>(field.message->parentWidget()->layout()))
            form->setRowVisible(field.message, !text.isEmpty());
        if (error)
            invalid << QString(field.label).remove(QLatin1Char('&'));
    }
    // Keyless problems only: a field's own stands under it, and the page's top line names the
    // fields (a line appearing here would move every field under the mouse).
    m_validation->setVisible(!general.isEmpty());
    QPalette pal = palette();
    pal.setColor(QPalette::WindowText, red);
    m_validation->setPalette(pal);
    m_validation->setText(general.join(QLatin1Char('\n')));
    const bool changed = invalid != m_invalid;
    const bool wasValid = m_invalid.isEmpty();
    m_invalid = invalid;
    if (changed)
        emit invalidFieldsChanged(m_invalid);
    if (changed && wasValid != m_invalid.isEmpty())
        emit validityChanged(m_invalid.isEmpty());
}

} // namespace hr::ui
