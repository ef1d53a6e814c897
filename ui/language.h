// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace hr::ui {

/// The language chosen in View → Language: "system", "en" or "zh_CN" (QSettings "ui/language").
QString languageSetting();
void setLanguageSetting(const QString& language);

/// The translation to load for a setting: "system" follows QLocale::system(); returns "en" or a
/// locale name Headroom ships a translation for.
QString effectiveLanguage(const QString& setting);

/// Locale names with a shipped translation, English (the source language) first.
QStringList availableLanguages();

/// Installs Headroom's (and, when present, Qt's own) translators for `language` on the running
/// application, replacing earlier ones. Returns false when the translation could not be loaded;
/// English needs none and returns true.
bool installTranslations(const QString& language);

/// True when installTranslations() has put a translation in force (the UI is not English).
bool translationInstalled();

} // namespace hr::ui
