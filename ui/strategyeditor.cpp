// SPDX-License-Identifier: GPL-3.0-or-later
#include "strategyeditor.h"

#include "diagnosticwording.h"
#include "wheelguard.h"

#include "config/train_config.h"
#include "util/text.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QResizeEvent>
#include <QSpinBox>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace hr::ui {

namespace {

/// The value without any white space, for comparing "B/4 * 4" with "B/4*4".
std::string squeezed(const std::string& text) {
    std::string out;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += c;
    return out;
}

/// A plain positive whole number ("8"), or nothing.
std::optional<long long> plainCount(const std::string& text) {
    const std::string t = squeezed(text);
    if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        }))
        return std::nullopt;
    const long long n = std::stoll(t);
    return n > 0 ? std::optional<long long>(n) : std::nullopt;
}

/// The accumulate field for a strategy's nbs: 0 when nbs is not set, k when nbs is the batch
/// times k ("B/4" and "B/4*4" give 4; 8 and 32 give 4), -1 when nbs says something else (it then
/// stays a plain setting).
int accumulateFor(const std::string& batch, const std::string& nbs) {
    if (nbs.empty())
        return 0;
    const std::string b = squeezed(batch.empty() ? "B" : batch), n = squeezed(nbs);
    if (n == b)
        return 1;
    if (n.size() > b.size() + 1 && n.compare(0, b.size(), b) == 0 && n[b.size()] == '*') {
        if (const auto k = plainCount(n.substr(b.size() + 1)); k && *k <= 4096)
            return static_cast<int>(*k);
    }
    const auto bn = plainCount(b), nn = plainCount(n);
    if (bn && nn && *nn % *bn == 0 && *nn / *bn <= 4096)
        return static_cast<int>(*nn / *bn);
    return -1;
}

/// nbs for a batch and an accumulation: "B/4*4", or a number when the batch is one.
std::string nbsFor(const std::string& batch, int accumulate) {
    const std::string b = batch.empty() ? "B" : batch;
    if (accumulate <= 1)
        return b;
    if (const auto n = plainCount(b))
        return std::to_string(*n * accumulate);
    return b + "*" + std::to_string(accumulate);
}

std::optional<bool> boolText(const std::string& text) {
    const std::string t = toLower(trim(text));
    if (t == "true" || t == "yes" || t == "on")
        return true;
    if (t == "false" || t == "no" || t == "off")
        return false;
    return std::nullopt;
}

const std::vector<std::string>& checkpointingModes() {
    static const std::vector<std::string> modes = {"none", "backbone", "all"};
    return modes;
}

/// Where a claim comes from: the default matrix's source in the user's language, a source from
/// a strategies file as written there.
QString claimSourceText(const std::string& source) {
    if (source == defaultStrategies().front().claim.value_or(PublishedClaim{}).source)
        return StrategyEditor::tr("published YOLOv9-c table, RTX-class GPU (design notes)");
    return QString::fromStdString(source);
}

/// The overrides as the user types them (key=value, comma-separated): setting names and values
/// are the same in every language.
QString overridesText(const Strategy& s) {
    QStringList pairs;
    for (const auto& [key, value] : s.overrides)
        pairs << QStringLiteral("%1=%2").arg(QString::fromStdString(key),
                                             QString::fromStdString(value));
    return pairs.isEmpty() ? StrategyEditor::tr("the base settings")
                           : pairs.join(QStringLiteral(", "));
}

} // namespace

QString strategyDescription(const Strategy& s) {
    if (s.description.empty())
        return overridesText(s);
    // The default matrix's descriptions are this program's words; a file's are the user's.
    const std::map<std::string, QString> defaults = {
        {"native", StrategyEditor::tr("native batch B")},
        {"quarter-acc4", StrategyEditor::tr("batch B/4 + accumulate 4")},
        {"quarter-amp", StrategyEditor::tr("batch B/4 + AMP")},
        {"eighth-amp-acc8", StrategyEditor::tr("batch B/8 + AMP + accumulate 8")},
        {"quarter-amp-ckpt", StrategyEditor::tr("batch B/4 + AMP + checkpointing")}};
    for (const Strategy& d : defaultStrategies())
        if (d.name == s.name && d.description == s.description)
            if (const auto it = defaults.find(d.name); it != defaults.end())
                return it->second;
    return QString::fromStdString(s.description);
}

StrategyEditor::StrategyEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    m_list = new QTableWidget(this);
    m_list->setObjectName(QStringLiteral("strategies"));
    m_list->setColumnCount(2);
    m_list->setHorizontalHeaderLabels({tr("Strategy"), tr("What it changes")});
    m_list->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->horizontalHeader()->setStretchLastSection(true);
    m_list->verticalHeader()->hide();
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_list, 1);

    m_add = new QPushButton(tr("Add"), this);
    m_add->setObjectName(QStringLiteral("addStrategy"));
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setObjectName(QStringLiteral("removeStrategy"));
    m_up = new QPushButton(tr("Up"), this);
    m_up->setObjectName(QStringLiteral("strategyUp"));
    m_down = new QPushButton(tr("Down"), this);
    m_down->setObjectName(QStringLiteral("strategyDown"));
    auto* edit = new QHBoxLayout;
    for (QPushButton* b : {m_add, m_remove, m_up, m_down})
        edit->addWidget(b);
    layout->addLayout(edit);

    m_reset = new QPushButton(tr("Defaults"), this);
    m_reset->setObjectName(QStringLiteral("resetStrategies"));
    m_reset->setToolTip(tr("The default matrix relative to the base batch B: native B; B/4 + "
                           "accumulate 4; B/4 + AMP; B/8 + AMP + accumulate 8; B/4 + AMP + "
                           "checkpointing"));
    m_load = new QPushButton(QIcon(QStringLiteral(":/icons/open.svg")), tr("Load…"), this);
    m_load->setToolTip(tr("Reads a strategies file (the one headroom-cli compare --strategies "
                          "reads)"));
    m_save = new QPushButton(QIcon(QStringLiteral(":/icons/save.svg")), tr("Save…"), this);
    m_save->setToolTip(tr("Writes the list as a strategies file for headroom-cli compare "
                          "--strategies"));
    auto* files = new QHBoxLayout;
    for (QPushButton* b : {m_reset, m_load, m_save})
        files->addWidget(b);
    layout->addLayout(files);

    m_form = new QWidget(this);
    auto* form = new QFormLayout(m_form);
    form->setContentsMargins(0, 0, 0, 0);
    m_name = new QLineEdit(m_form);
    m_name->setToolTip(tr("Part of the run folder's name: letters, digits, '-', '_' and '.'"));
    m_batch = new QLineEdit(m_form);
    m_batch->setPlaceholderText(tr("the base batch"));
    m_batch->setToolTip(tr("Images per step: a number, or relative to the base batch B: B, "
                           "B/4, B*2. Empty keeps the base batch."));
    m_accumulate = new QSpinBox(m_form);
    m_accumulate->setRange(0, 4096);
    m_accumulate->setSpecialValueText(tr("not set"));
    m_accumulate->setToolTip(tr("Batches per optimizer step, written as nbs = batch × "
                                "accumulate. \"not set\" keeps the base settings' nbs."));
    scrollPastUnlessFocused(m_accumulate);
    m_amp = new QComboBox(m_form);
    scrollPastUnlessFocused(m_amp);
    m_amp->addItems({tr("as the base settings"), tr("on"), tr("off")});
    m_checkpointing = new QComboBox(m_form);
    scrollPastUnlessFocused(m_checkpointing);
    m_checkpointing->addItem(tr("as the base settings"));
    // In checkpointingModes() order; the key=value text keeps core's words.
    m_checkpointing->addItems({tr("off"), tr("backbone"), tr("all blocks")});
    m_other = new QPlainTextEdit(m_form);
    m_other->setPlaceholderText(tr("key=value, one a line, e.g. imgsz=320"));
    m_other->setToolTip(tr("Any other setting, as on headroom-cli's command line: key=value, "
                           "one a line. Values may use B."));
    m_other->setMaximumHeight(m_other->fontMetrics().lineSpacing() * 4 + 12);
    m_description = new QLineEdit(m_form);
    m_description->setObjectName(QStringLiteral("strategyDescription"));
    m_description->setPlaceholderText(tr("made from the settings"));
    m_claim = new QLabel(m_form);
    m_claim->setWordWrap(true);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Batch"), m_batch);
    form->addRow(tr("Accumulate"), m_accumulate);
    form->addRow(tr("AMP"), m_amp);
    form->addRow(tr("Checkpointing"), m_checkpointing);
    form->addRow(tr("Other settings"), m_other);
    form->addRow(tr("Description"), m_description);
    form->addRow(tr("Published"), m_claim);
    layout->addWidget(m_form);

    m_problems = new QLabel(this);
    m_problems->setObjectName(QStringLiteral("strategyProblems"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette warn = m_problems->palette();
    warn.setColor(QPalette::WindowText, QColor(0xc0, 0x30, 0x30));
    m_problems->setPalette(warn);
    layout->addWidget(m_problems);

    connect(m_list, &QTableWidget::currentCellChanged, this,
            [this](int row, int, int previous, int) {
                if (row != previous)
                    fillForm();
            });
    connect(m_add, &QPushButton::clicked, this, &StrategyEditor::addStrategy);
    connect(m_remove, &QPushButton::clicked, this, &StrategyEditor::removeCurrent);
    connect(m_up, &QPushButton::clicked, this, [this] { moveCurrent(-1); });
    connect(m_down, &QPushButton::clicked, this, [this] { moveCurrent(+1); });
    connect(m_reset, &QPushButton::clicked, this, &StrategyEditor::resetToDefaults);
    connect(m_load, &QPushButton::clicked, this, &StrategyEditor::askLoad);
    connect(m_save, &QPushButton::clicked, this, &StrategyEditor::askSave);
    for (QLineEdit* e : {m_name, m_batch, m_description})
        connect(e, &QLineEdit::textChanged, this, &StrategyEditor::commitForm);
    connect(m_accumulate, qOverload<int>(&QSpinBox::valueChanged), this,
            &StrategyEditor::commitForm);
    for (QComboBox* c : {m_amp, m_checkpointing})
        connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this,
                &StrategyEditor::commitForm);
    connect(m_other, &QPlainTextEdit::textChanged, this, &StrategyEditor::commitForm);

    setStrategies(defaultStrategies());
}

void StrategyEditor::setStrategies(std::vector<hr::Strategy> strategies) {
    m_strategies = std::move(strategies);
    rebuildList();
    setCurrentIndex(m_strategies.empty() ? -1 : 0);
    fillForm();
    updateProblems();
    emit strategiesChanged();
}

int StrategyEditor::currentIndex() const {
    const int row = m_list->currentRow();
    return row >= 0 && row < static_cast<int>(m_strategies.size()) ? row : -1;
}

void StrategyEditor::setCurrentIndex(int index) {
    if (index < 0 || index >= static_cast<int>(m_strategies.size())) {
        m_list->setCurrentCell(-1, -1);
        fillForm();
        return;
    }
    m_list->setCurrentCell(index, 0);
    m_list->selectRow(index);
}

void StrategyEditor::rebuildList() {
    m_list->setRowCount(static_cast<int>(m_strategies.size()));
    for (int row = 0; row < static_cast<int>(m_strategies.size()); ++row)
        updateRow(row);
}

void StrategyEditor::updateRow(int row) {
    const Strategy& s = m_strategies[static_cast<size_t>(row)];
    auto* name = new QTableWidgetItem(QString::fromStdString(s.name));
    auto* what = new QTableWidgetItem(strategyDescription(s));
    what->setToolTip(overridesText(s));
    m_list->setItem(row, 0, name);
    m_list->setItem(row, 1, what);
}

void StrategyEditor::fillForm() {
    const int index = currentIndex();
    m_filling = true;
    m_form->setEnabled(index >= 0);
    Strategy s;
    if (index >= 0)
        s = m_strategies[static_cast<size_t>(index)];
    std::string batch, nbs;
    int amp = 0, checkpointing = 0;
    std::vector<std::pair<std::string, std::string>> other;
    bool haveBatch = false, haveNbs = false;
    for (const auto& [key, value] : s.overrides) {
        if (key == "batch" && !haveBatch) {
            batch = value;
            haveBatch = true;
        } else if (key == "nbs" && !haveNbs) {
            nbs = value;
            haveNbs = true;
        } else if (key == "amp" && amp == 0 && boolText(value)) {
            amp = *boolText(value) ? 1 : 2;
        } else if (key == "checkpointing" && checkpointing == 0 && parseCheckpointing(value)) {
            checkpointing = 1 + static_cast<int>(*parseCheckpointing(value));
        } else {
            other.emplace_back(key, value);
        }
    }
    int accumulate = accumulateFor(batch, nbs);
    if (accumulate < 0) {
        other.insert(other.begin(), std::make_pair(std::string("nbs"), nbs));
        accumulate = 0;
    }
    QString otherText;
    for (const auto& [key, value] : other)
        otherText += QString::fromStdString(key + "=" + value) + QLatin1Char('\n');
    m_name->setText(QString::fromStdString(s.name));
    m_batch->setText(QString::fromStdString(batch));
    m_accumulate->setValue(accumulate);
    m_amp->setCurrentIndex(amp);
    m_checkpointing->setCurrentIndex(checkpointing);
    m_other->setPlainText(otherText);
    // A default strategy's description in the UI's language, as in the table.
    m_description->setText(s.description.empty() ? QString() : strategyDescription(s));
    if (s.claim && !s.claim->empty()) {
        QStringList parts;
        if (s.claim->memoryGb > 0)
            parts << tr("%1 GB").arg(s.claim->memoryGb);
        if (s.claim->epochMinutes > 0)
            parts << tr("%1 min/epoch").arg(s.claim->epochMinutes);
        if (s.claim->map50 > 0)
            parts << tr("mAP50 %1").arg(s.claim->map50, 0, 'f', 3);
        m_claim->setText(parts.join(QStringLiteral(", ")));
        m_claim->setToolTip(claimSourceText(s.claim->source));
    } else {
        m_claim->setText(tr("no published claim"));
        m_claim->setToolTip(QString());
    }
    m_filling = false;
    updateButtons();
}

void StrategyEditor::commitForm() {
    const int index = currentIndex();
    if (m_filling || index < 0)
        return;
    Strategy& s = m_strategies[static_cast<size_t>(index)];
    // An untouched default description keeps core's words, so files keep them too.
    const QString shown = s.description.empty() ? QString() : strategyDescription(s);
    if (shown.isEmpty() || m_description->text().trimmed() != shown)
        s.description = trim(m_description->text().toStdString());
    s.name = trim(m_name->text().toStdString());
    s.overrides.clear();
    const std::string batch = trim(m_batch->text().toStdString());
    if (!batch.empty())
        s.overrides.emplace_back("batch", batch);
    if (m_accumulate->value() > 0)
        s.overrides.emplace_back("nbs", nbsFor(batch, m_accumulate->value()));
    if (m_amp->currentIndex() > 0)
        s.overrides.emplace_back("amp", m_amp->currentIndex() == 1 ? "true" : "false");
    if (m_checkpointing->currentIndex() > 0)
        s.overrides.emplace_back(
            "checkpointing",
            checkpointingModes()[static_cast<size_t>(m_checkpointing->currentIndex() - 1)]);
    for (const QString& line : m_other->toPlainText().split(QLatin1Char('\n'))) {
        const std::string text = trim(line.toStdString());
        if (text.empty())
            continue;
        const size_t eq = text.find('=');
        // A line without '=' stays as it is, so core names it as an unknown setting.
        if (eq == std::string::npos)
            s.overrides.emplace_back(text, "");
        else
            s.overrides.emplace_back(trim(text.substr(0, eq)), trim(text.substr(eq + 1)));
    }
    updateRow(index);
    updateProblems();
    emit strategiesChanged();
}

hr::Diagnostics StrategyEditor::problems() const {
    return checkStrategies(m_strategies);
}

QString StrategyEditor::problemLine(const std::string& name, const Diagnostic& d) {
    if (!d.code.empty()) {
        const QString who =
            name.empty() ? tr("a strategy") : tr("strategy '%1'").arg(QString::fromStdString(name));
        QString what = DiagnosticWording::message(d);
        if (!d.key.empty() && d.key != "name" && d.code != "override_twice")
            what = tr("%1: %2").arg(QString::fromStdString(d.key), what);
        return tr("%1: %2").arg(who, what);
    }
    QString line = QString::fromStdString(d.message);
    if (!d.key.empty() && d.message.find(d.key) == std::string::npos)
        line += QStringLiteral(" ('%1')").arg(QString::fromStdString(d.key));
    if (!d.fix.empty())
        line += QStringLiteral(" - ") + QString::fromStdString(d.fix);
    return line;
}

QString StrategyEditor::problemsText() const {
    // checkStrategies() is checkStrategy() for each strategy plus the list's own problems:
    // each strategy's are taken from it with the name they belong to.
    QStringList lines;
    for (const Strategy& s : m_strategies)
        for (const Diagnostic& d : checkStrategy(s))
            if (d.severity == Diagnostic::Severity::Error)
                lines << problemLine(s.name, d);
    for (const Diagnostic& d : problems())
        if (d.severity == Diagnostic::Severity::Error &&
            (d.code == "no_strategies" || d.code == "strategy_duplicate"))
            lines << DiagnosticWording::message(d);
    return lines.join(QLatin1Char('\n'));
}

void StrategyEditor::fitProblemsLabel() {
    // A word-wrapped label is laid out at its one-line height here (the list takes the rest):
    // ask for the height its text needs at its width, so that no problem is cut off.
    const QString text = m_problems->text();
    if (text.isEmpty()) {
        m_problems->setMinimumHeight(0);
        return;
    }
    const int width = std::max(m_problems->width(), 200);
    const QRect needed =
        m_problems->fontMetrics().boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, text);
    m_problems->setMinimumHeight(needed.height() + 4);
}

void StrategyEditor::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitProblemsLabel();
}

void StrategyEditor::updateProblems() {
    m_problems->setText(problemsText());
    fitProblemsLabel();
    std::set<std::string> seen;
    const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    for (int row = 0; row < static_cast<int>(m_strategies.size()); ++row) {
        const Strategy& s = m_strategies[static_cast<size_t>(row)];
        QStringList lines;
        for (const Diagnostic& d : checkStrategy(s))
            if (d.severity == Diagnostic::Severity::Error)
                lines << problemLine(s.name, d);
        if (!s.name.empty() && !seen.insert(s.name).second)
            lines << tr("a second strategy named '%1'").arg(QString::fromStdString(s.name));
        if (QTableWidgetItem* item = m_list->item(row, 0)) {
            item->setIcon(lines.isEmpty() ? QIcon() : warning);
            item->setToolTip(lines.join(QLatin1Char('\n')));
        }
    }
    updateButtons();
}

void StrategyEditor::updateButtons() {
    const int index = currentIndex();
    const int count = static_cast<int>(m_strategies.size());
    m_remove->setEnabled(index >= 0);
    m_up->setEnabled(index > 0);
    m_down->setEnabled(index >= 0 && index + 1 < count);
}

void StrategyEditor::addStrategy() {
    std::set<std::string> names;
    for (const Strategy& s : m_strategies)
        names.insert(s.name);
    Strategy s;
    int n = static_cast<int>(m_strategies.size()) + 1;
    do
        s.name = "strategy-" + std::to_string(n++);
    while (names.count(s.name));
    s.overrides = {{"batch", "B"}};
    const int at = currentIndex() < 0 ? static_cast<int>(m_strategies.size()) : currentIndex() + 1;
    m_strategies.insert(m_strategies.begin() + at, s);
    rebuildList();
    setCurrentIndex(at);
    fillForm();
    updateProblems();
    emit strategiesChanged();
    m_name->setFocus();
    m_name->selectAll();
}

void StrategyEditor::removeCurrent() {
    const int index = currentIndex();
    if (index < 0)
        return;
    m_strategies.erase(m_strategies.begin() + index);
    rebuildList();
    setCurrentIndex(std::min(index, static_cast<int>(m_strategies.size()) - 1));
    fillForm();
    updateProblems();
    emit strategiesChanged();
}

void StrategyEditor::moveCurrent(int delta) {
    const int index = currentIndex();
    const int to = index + delta;
    if (index < 0 || to < 0 || to >= static_cast<int>(m_strategies.size()))
        return;
    std::swap(m_strategies[static_cast<size_t>(index)], m_strategies[static_cast<size_t>(to)]);
    updateRow(index);
    updateRow(to);
    setCurrentIndex(to);
    updateProblems();
    emit strategiesChanged();
}

void StrategyEditor::resetToDefaults() {
    setStrategies(defaultStrategies());
    emit message(tr("The default strategy matrix (relative to the base batch B)."));
}

bool StrategyEditor::loadFile(const QString& path, QString* error) {
    const StrategiesResult loaded = loadStrategies(path.toStdString());
    if (hasErrors(loaded.diagnostics) || loaded.strategies.empty()) {
        QStringList lines;
        for (const Diagnostic& d : loaded.diagnostics)
            lines << DiagnosticWording::located(d);
        const QString text =
            tr("%1 was not loaded:\n%2")
                .arg(QDir::toNativeSeparators(path), lines.join(QLatin1Char('\n')));
        m_problems->setText(text);
        fitProblemsLabel();
        if (error)
            *error = text;
        emit message(tr("%1 was not loaded; the problems are under the list.")
                         .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    setStrategies(loaded.strategies);
    emit message(tr("Loaded %n strategies from %1.", nullptr, static_cast<int>(m_strategies.size()))
                     .arg(QDir::toNativeSeparators(path)));
    return true;
}

bool StrategyEditor::saveFile(const QString& path, QString* error) {
    if (hasErrors(problems())) {
        const QString text = tr("Not saved: fix the strategies first.\n%1").arg(problemsText());
        if (error)
            *error = text;
        emit message(tr("Not saved: the strategies have problems (listed under the form)."));
        return false;
    }
    std::string why;
    if (!saveStrategies(m_strategies, path.toStdString(), &why)) {
        const QString text = tr("Cannot write %1: %2")
                                 .arg(QDir::toNativeSeparators(path), QString::fromStdString(why));
        if (error)
            *error = text;
        emit message(text);
        return false;
    }
    emit message(tr("Saved %n strategies to %1.", nullptr, static_cast<int>(m_strategies.size()))
                     .arg(QDir::toNativeSeparators(path)));
    return true;
}

void StrategyEditor::askLoad() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load strategies"), QString(), tr("Strategies (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty())
        loadFile(path);
}

void StrategyEditor::askSave() {
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save strategies"), QStringLiteral("strategies.yaml"),
                                     tr("Strategies (*.yaml *.yml);;All files (*)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QStringLiteral(".yaml")) && !path.endsWith(QStringLiteral(".yml")))
        path += QStringLiteral(".yaml");
    saveFile(path);
}

} // namespace hr::ui
