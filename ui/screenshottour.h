// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <string>

namespace hr {
struct FitResult;
struct TrainConfig;
} // namespace hr

namespace hr::ui {

class MainWindow;

/// Drives the main window through each page on the built-in data set and saves a PNG of each
/// (QWidget::grab): data, settings (the memory panel after Auto-fit fitted a budget), a short
/// training run at the fitted batch, the runs page, the OOM advisor (a second short run
/// with a budget that the first step cannot fit), and the Compare page after three of the
/// default strategies (native, B/4 + accumulate 4, B/4 + AMP) ran for three epochs each. Used by
/// scripts/screenshots.sh under Xvfb. Emits done() once, with false when a step failed.
class ScreenshotTour : public QObject {
    Q_OBJECT
public:
    ScreenshotTour(MainWindow* window, const QString& outDir, QObject* parent = nullptr);
    /// Makes only this shot ("compare"); the default is every one. Returns false for a name
    /// the tour cannot make alone.
    bool setOnly(const QString& shot);
    /// The Compare shot's strategies all start from this weights file (a short comparison from
    /// random weights shows mAP 0 for every strategy); empty = random weights.
    void setCompareWeights(const QString& weights) { m_compareWeights = weights; }
    void start();

signals:
    void done(bool ok);

private:
    bool save(QWidget* widget, const QString& name);
    void fail(const QString& why);
    /// The tour's small runs: the form's settings on yolov8n at 128 px, a quarter of the
    /// images, two loader threads, written to the tour's runs/<name>.
    TrainConfig smallRun(const std::string& name) const;
    void afterData();
    void afterFit(const hr::FitResult& result);
    /// Polls `ready` every 100 ms; runs `then` after a short settle, or fails naming `what`.
    void waitFor(std::function<bool()> ready, const QString& what, std::function<void()> then);
    void afterTraining();
    void afterAdvisor();
    void compareStrategies();

    MainWindow* m_window;
    QString m_dir;
    bool m_ok = true;
    QString m_only;
    QString m_compareWeights;
    bool m_comparing = false;
    bool m_advisorShot = false;
};

} // namespace hr::ui
