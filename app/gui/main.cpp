// SPDX-License-Identifier: GPL-3.0-or-later
// Headroom's GUI start-up: application identity, translations, the main window and the
// screenshot tour used by scripts/screenshots.sh.
#include "language.h"
#include "mainwindow.h"
#include "screenshottour.h"
#include "util/crash_signals.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

int main(int argc, char* argv[]) {
    hr::keepCrashSignalsWithTheSystem(argv);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Headroom"));
    QApplication::setApplicationName(QStringLiteral("headroom"));
    QApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Headroom: a YOLO training studio"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption language(QStringLiteral("language"),
                                      QStringLiteral("Language: system, en or zh_CN."),
                                      QStringLiteral("name"));
    const QCommandLineOption screenshots(
        QStringLiteral("screenshot-dir"),
        QStringLiteral("Open each page on the built-in data set, save PNGs there and quit."),
        QStringLiteral("dir"));
    const QCommandLineOption only(
        QStringLiteral("screenshot-only"),
        QStringLiteral("With --screenshot-dir: make only this shot (compare)."),
        QStringLiteral("shot"));
    const QCommandLineOption compareWeights(
        QStringLiteral("screenshot-weights"),
        QStringLiteral("With --screenshot-dir: the compared strategies start from this .pt."),
        QStringLiteral("file"));
    parser.addOption(language);
    parser.addOption(screenshots);
    parser.addOption(only);
    parser.addOption(compareWeights);
    parser.process(app);

    const QString chosen =
        parser.isSet(language) ? parser.value(language) : hr::ui::languageSetting();
    hr::ui::installTranslations(hr::ui::effectiveLanguage(chosen));

    hr::ui::MainWindow window;
    window.show();
    if (parser.isSet(screenshots)) {
        auto* tour = new hr::ui::ScreenshotTour(&window, parser.value(screenshots), &window);
        if (parser.isSet(only) && !tour->setOnly(parser.value(only))) {
            std::fprintf(stderr, "--screenshot-only: no shot named %s (compare)\n",
                         qPrintable(parser.value(only)));
            return 2;
        }
        tour->setCompareWeights(parser.value(compareWeights));
        QObject::connect(tour, &hr::ui::ScreenshotTour::done, &app,
                         [](bool ok) { QApplication::exit(ok ? 0 : 1); });
        tour->start();
    }
    return app.exec();
}
