// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Set-up shared by the Qt Test programs that drive the studio's widgets.

#include "data/synthetic_dataset.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCoreApplication>
#include <QMessageBox>
#include <QSettings>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <string>

namespace hr::testing {

/// Keeps QSettings (the main window's) in `dir`/settings, away from the user's real
/// configuration, and names the application `appName`.
inline void isolateSettings(const QTemporaryDir& dir, const char* appName) {
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.filePath("settings"));
    QCoreApplication::setOrganizationName("HeadroomTest");
    QCoreApplication::setApplicationName(appName);
}

/// Writes a tiny synthetic data set (64 px images) to `dir`/data and returns its data.yaml, or
/// an empty string with `error` filled.
inline QString makeTinyDataset(const QTemporaryDir& dir, int train, int val, std::string* error) {
    SyntheticOptions options;
    options.train = train;
    options.val = val;
    options.imgsz = 64;
    if (!makeSyntheticDataset(dir.filePath("data").toStdString(), options, error))
        return {};
    return dir.filePath("data/data.yaml");
}

/// Answers the modal QMessageBox named `name` with `button` when it shows (from inside its own
/// event loop), once; `text` gets what it asked.
inline void answerWhenAsked(const QString& name, QMessageBox::StandardButton button,
                            QString* text) {
    auto* poll = new QTimer;
    poll->setInterval(20);
    QObject::connect(poll, &QTimer::timeout, [=] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != name)
            return;
        *text = box->text();
        poll->stop();
        poll->deleteLater();
        QTest::mouseClick(box->button(button), Qt::LeftButton);
    });
    poll->start();
}

/// An environment variable for one test, removed however the test ends.
struct ScopedEnv {
    const char* name;
    ScopedEnv(const char* n, const QByteArray& value) : name(n) { qputenv(name, value); }
    ~ScopedEnv() { qunsetenv(name); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
};

} // namespace hr::testing
