// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace hr {
struct FitResult;
}

namespace hr::ui {

class MainWindow;

/// Drives the main window through each page on the built-in data set and saves a PNG of each
/// (QWidget::grab): data, settings (the memory panel after Auto-fit fitted a budget), a short
/// training run at the fitted batch, the runs page, and the OOM advisor (a second short run
/// with a budget that the first step cannot fit). Used by scripts/screenshots.sh under Xvfb. Emits
/// done() once, with false when a step failed.
class ScreenshotTour : public QObject {
    Q_OBJECT
public:
    ScreenshotTour(MainWindow* window, const QString& outDir, QObject* parent = nullptr);
    void start();

signals:
    void done(bool ok);

private:
    bool save(QWidget* widget, const QString& name);
    void fail(const QString& why);
    void afterData();
    void afterFit(const hr::FitResult& result);
    /// Polls `ready` every 100 ms; runs `then` after a short settle, or fails naming `what`.
    void waitFor(std::function<bool()> ready, const QString& what, std::function<void()> then);
    void afterTraining();
    void afterAdvisor();

    MainWindow* m_window;
    QString m_dir;
    bool m_ok = true;
};

} // namespace hr::ui
