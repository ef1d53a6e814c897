// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Typing into the studio's fields as a person does, shared by the Qt Test programs.

#include <QLineEdit>
#include <QString>
#include <QWidget>
#include <QtTest>

namespace hr::testing {

/// Clicks the field named `name` under `root` (a line edit, or the one an editable combo box
/// holds), selects what it holds, types `text` over it and leaves it with Tab.
inline void typeInto(QWidget* root, const QString& name, const QString& text) {
    auto* edit = root->findChild<QLineEdit*>(name);
    if (!edit)
        if (auto* holder = root->findChild<QWidget*>(name))
            edit = holder->findChild<QLineEdit*>();
    QVERIFY2(edit, qPrintable(name));
    QTest::mouseClick(edit, Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Tab);
}

} // namespace hr::testing
