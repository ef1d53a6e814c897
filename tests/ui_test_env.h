// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Set-up shared by the Qt Test programs that drive the studio's widgets.

#include "data/synthetic_dataset.h"

#include <QCoreApplication>
#include <QSettings>
#include <QString>
#include <QTemporaryDir>

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

} // namespace hr::testing
