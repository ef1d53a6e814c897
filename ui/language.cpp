// SPDX-License-Identifier: GPL-3.0-or-later
#include "language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

#include <memory>

namespace hr::ui {

namespace {
std::unique_ptr<QTranslator> g_appTranslator;
std::unique_ptr<QTranslator> g_qtTranslator;
const QString kKey = QStringLiteral("ui/language");
} // namespace

QString languageSetting() {
    return QSettings().value(kKey, QStringLiteral("system")).toString();
}

void setLanguageSetting(const QString& language) {
    QSettings().setValue(kKey, language);
}

QStringList availableLanguages() {
    return {QStringLiteral("en"), QStringLiteral("zh_CN")};
}

QString effectiveLanguage(const QString& setting) {
    QString name = setting;
    if (name.isEmpty() || name == QLatin1String("system"))
        name = QLocale::system().name();
    if (availableLanguages().contains(name))
        return name;
    // zh_SG, zh_Hans_CN ... read Simplified Chinese; everything else falls back to English.
    const QLocale locale(name);
    if (locale.language() == QLocale::Chinese &&
        locale.script() != QLocale::TraditionalChineseScript &&
        locale.territory() != QLocale::Taiwan && locale.territory() != QLocale::HongKong)
        return QStringLiteral("zh_CN");
    return QStringLiteral("en");
}

bool installTranslations(const QString& language) {
    if (g_appTranslator) {
        QCoreApplication::removeTranslator(g_appTranslator.get());
        g_appTranslator.reset();
    }
    if (g_qtTranslator) {
        QCoreApplication::removeTranslator(g_qtTranslator.get());
        g_qtTranslator.reset();
    }
    if (language == QLatin1String("en"))
        return true;
    auto app = std::make_unique<QTranslator>();
    if (!app->load(QStringLiteral(":/i18n/headroom_%1.qm").arg(language)))
        return false;
    QCoreApplication::installTranslator(app.get());
    g_appTranslator = std::move(app);
    // Qt's own strings (standard buttons, file dialogs) when qt6-translations-l10n is installed.
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(QStringLiteral("qtbase_%1").arg(language),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        g_qtTranslator = std::move(qt);
    }
    return true;
}

bool translationInstalled() {
    return g_appTranslator != nullptr;
}

} // namespace hr::ui
