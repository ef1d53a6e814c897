// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace hr::ui {

/// The line above the pages that says the newest run did not finish (the studio or the machine
/// ended mid-run), with its epoch, and offers Resume and Open. Hidden until showRun().
class InterruptedRunBanner : public QFrame {
    Q_OBJECT
public:
    explicit InterruptedRunBanner(QWidget* parent = nullptr);

    /// Shows the banner for the run folder `dir` named `name`, `epochsDone` of `epochsPlanned`
    /// epochs written (`epochsPlanned` 0 when unknown).
    void showRun(const QString& dir, const QString& name, int epochsDone, int epochsPlanned);
    QString runDir() const { return m_dir; }
    QLabel* message() const { return m_message; }

signals:
    void resumeClicked(const QString& runDir);
    void openClicked(const QString& runDir);

private:
    QLabel* m_message;
    QString m_dir;
};

} // namespace hr::ui
