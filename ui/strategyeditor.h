// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/strategy.h"
#include "util/diagnostic.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace hr::ui {

/// A strategy's one-line description in the UI's language: the default matrix's own in this
/// UI's words, one from a strategies file as written there, else its overrides as key=value.
QString strategyDescription(const hr::Strategy& s);

/// The strategy matrix as a list the user edits before running it on the Compare page: add,
/// remove, reorder, reset to the default matrix, load and save the YAML file that
/// `headroom-cli compare --strategies FILE` reads. The selected strategy is edited in a form:
/// name, batch (a number or B, B/4 ...), accumulate (written as nbs = batch x accumulate, as
/// the default matrix does), AMP, checkpointing, any other `key=value` settings (one a line)
/// and a description. Every change is checked at once with core's checks (the same as the
/// strategies file and `train`'s overrides get); problems are listed under the form and the
/// strategies that have them are marked. A published claim rides along unchanged.
class StrategyEditor : public QWidget {
    Q_OBJECT
public:
    explicit StrategyEditor(QWidget* parent = nullptr);

    const std::vector<hr::Strategy>& strategies() const { return m_strategies; }
    void setStrategies(std::vector<hr::Strategy> strategies);
    /// The problems of the list as it stands; a matrix with errors must not run.
    hr::Diagnostics problems() const;
    /// problems() in words, one a line; empty when there are none.
    QString problemsText() const;
    /// One problem of the strategy named `name` in words: the strategy, the message, the setting
    /// when the message does not name it, and the fix. Coded problems are worded in the UI's
    /// language; others keep core's English (whose message names the strategy).
    static QString problemLine(const std::string& name, const hr::Diagnostic& d);

    int currentIndex() const;
    void setCurrentIndex(int index);

    void addStrategy();
    void removeCurrent();
    /// Moves the selected strategy up (-1) or down (+1).
    void moveCurrent(int delta);
    void resetToDefaults();
    /// Replaces the list with the file's strategies. On problems (named with file and line)
    /// returns false, keeps the list, and puts them in `error`.
    bool loadFile(const QString& path, QString* error = nullptr);
    /// Writes the list as a strategies file. Refuses (false, `error`) while it has problems.
    bool saveFile(const QString& path, QString* error = nullptr);

    QTableWidget* list() const { return m_list; }
    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* batchEdit() const { return m_batch; }
    QSpinBox* accumulateSpin() const { return m_accumulate; }
    QComboBox* ampCombo() const { return m_amp; }
    QComboBox* checkpointingCombo() const { return m_checkpointing; }
    QPlainTextEdit* otherEdit() const { return m_other; }
    QLineEdit* descriptionEdit() const { return m_description; }
    QLabel* problemsLabel() const { return m_problems; }

signals:
    void strategiesChanged();
    /// A file was loaded or saved, or could not be: a line for the page's status.
    void message(const QString& text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitProblemsLabel();
    void rebuildList();
    void updateRow(int row);
    void fillForm();
    void commitForm();
    void updateProblems();
    void updateButtons();
    void askLoad();
    void askSave();

    std::vector<hr::Strategy> m_strategies;
    bool m_filling = false;
    QTableWidget* m_list;
    QPushButton* m_add;
    QPushButton* m_remove;
    QPushButton* m_up;
    QPushButton* m_down;
    QPushButton* m_reset;
    QPushButton* m_load;
    QPushButton* m_save;
    QWidget* m_form;
    QLineEdit* m_name;
    QLineEdit* m_batch;
    QSpinBox* m_accumulate;
    QComboBox* m_amp;
    QComboBox* m_checkpointing;
    QPlainTextEdit* m_other;
    QLineEdit* m_description;
    QLabel* m_claim;
    QLabel* m_problems;
};

} // namespace hr::ui
