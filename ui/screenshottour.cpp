// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshottour.h"

#include "comparepage.h"
#include "datapage.h"
#include "imageview.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "oomadvisordialog.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "strategyeditor.h"
#include "trainingsession.h"

#include "compare/strategy.h"

#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QListView>
#include <QPixmap>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>

#include <cstdio>
#include <memory>

namespace hr::ui {

namespace {
constexpr int kSettleMs = 800;
constexpr int kWatchdogMs = 20 * 60 * 1000;
constexpr int kWaitMs = 10 * 60 * 1000;
} // namespace

ScreenshotTour::ScreenshotTour(MainWindow* window, const QString& outDir, QObject* parent)
    : QObject(parent), m_window(window), m_dir(outDir) {}

bool ScreenshotTour::setOnly(const QString& shot) {
    if (shot != QLatin1String("compare"))
        return false;
    m_only = shot;
    return true;
}

void ScreenshotTour::start() {
    QDir().mkpath(m_dir);
    m_window->resize(1400, 900);
    QTimer::singleShot(kWatchdogMs, this, [this] { fail(QStringLiteral("timed out")); });
    DataPage* data = m_window->dataPage();
    connect(
        data, &DataPage::datasetChosen, this,
        [this] {
            QTimer::singleShot(kSettleMs, this,
                               m_only.isEmpty() ? &ScreenshotTour::afterData
                                                : &ScreenshotTour::compareStrategies);
        },
        Qt::SingleShotConnection);
    m_window->showPage(MainWindow::Page::Data);
    data->useBuiltin();
}

bool ScreenshotTour::save(QWidget* widget, const QString& name) {
    const QString path = QDir(m_dir).filePath(name);
    const bool ok = widget->grab().save(path);
    std::fprintf(stderr, "%s %s\n", ok ? "saved" : "could not save", qPrintable(path));
    m_ok = m_ok && ok;
    return ok;
}

void ScreenshotTour::fail(const QString& why) {
    std::fprintf(stderr, "screenshot tour failed: %s\n", qPrintable(why));
    m_ok = false;
    emit done(false);
}

TrainConfig ScreenshotTour::smallRun(const std::string& name) const {
    TrainConfig config = m_window->settingsPage()->form()->config();
    config.model = "yolov8n.yaml";
    config.imgsz = 128;
    config.workers = 2;
    config.fraction = 0.25;
    config.project = QDir(m_dir).filePath(QStringLiteral("runs")).toStdString();
    config.name = name;
    return config;
}

void ScreenshotTour::afterData() {
    DataPage* data = m_window->dataPage();
    if (data->imageList()->model()->rowCount() > 3)
        data->imageList()->setCurrentIndex(data->imageList()->model()->index(3, 0));
    QTimer::singleShot(200, this, [this] {
        save(m_window, QStringLiteral("data.png"));

        // A short, small run so the Train and Runs pages have real curves.
        TrainConfig config = smallRun("tour");
        config.epochs = 2;
        // A budget batch 32 does not fit: the memory panel says so, and Auto-fit picks the
        // batch the run then trains with.
        config.batch = 32;
        config.amp = false; // a CPU run: the estimator is checked within 10% without AMP
        config.memory_budget = std::int64_t(128) * 1024 * 1024;
        // Should the prediction still fall short, the run applies the best fix and continues
        // instead of waiting for a person (the advisor dialog has its own shot below).
        config.on_oom = OomPolicy::Auto;
        SettingsForm* form = m_window->settingsPage()->form();
        form->setConfig(config);
        emit form->configChanged();
        m_window->showPage(MainWindow::Page::Settings);
        MemoryPanel* panel = m_window->memoryPanel();
        waitFor([panel] { return panel->hasEstimate() && !panel->service()->isBusy(); },
                QStringLiteral("the memory estimate"),
                [this, panel] {
                    connect(panel, &MemoryPanel::fitFinished, this, &ScreenshotTour::afterFit,
                            Qt::SingleShotConnection);
                    panel->autoFitButton()->click();
                });
    });
}

void ScreenshotTour::afterFit(const FitResult& result) {
    if (!result.fits) {
        fail(QStringLiteral("auto-fit found nothing: ") + QString::fromStdString(result.summary));
        return;
    }
    MemoryPanel* panel = m_window->memoryPanel();
    const int batch = result.config.batch;
    waitFor(
        [panel, batch] {
            return panel->hasEstimate() && !panel->service()->isBusy() &&
                   panel->outcome().estimate.batch == batch;
        },
        QStringLiteral("the estimate after auto-fit"),
        [this] {
            save(m_window, QStringLiteral("settings.png"));
            TrainingSession* session = m_window->session();
            if (!m_window->startTraining()) {
                fail(QStringLiteral("could not start training"));
                return;
            }
            waitFor([session] { return !session->isRunning(); }, QStringLiteral("the training run"),
                    [this] { afterTraining(); });
        });
}

void ScreenshotTour::waitFor(std::function<bool()> ready, const QString& what,
                             std::function<void()> then) {
    auto* poll = new QTimer(this);
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    poll->setInterval(100);
    connect(poll, &QTimer::timeout, this, [this, poll, clock, ready, what, then] {
        if (ready()) {
            poll->stop();
            poll->deleteLater();
            QTimer::singleShot(kSettleMs, this, then);
        } else if (clock->elapsed() > kWaitMs) {
            poll->stop();
            poll->deleteLater();
            fail(QStringLiteral("gave up waiting for ") + what);
        }
    });
    poll->start();
}

void ScreenshotTour::afterTraining() {
    save(m_window, QStringLiteral("train.png"));
    RunsPage* runs = m_window->runsPage();
    runs->refresh();
    if (runs->runList()->topLevelItemCount() > 0)
        runs->openRun(runs->runList()->topLevelItem(0)->data(0, Qt::UserRole).toString());
    m_window->showPage(MainWindow::Page::Runs);
    QTimer::singleShot(kSettleMs, this, [this] {
        save(m_window, QStringLiteral("runs.png"));

        // The advisor: the same run with a budget the first step cannot fit.
        SettingsForm* form = m_window->settingsPage()->form();
        TrainConfig config = form->config();
        config.name = "tour-oom";
        config.batch = 16;
        config.imgsz = 160;
        config.epochs = 1;
        config.memory_budget = std::int64_t(160) * 1024 * 1024;
        config.on_oom = OomPolicy::Ask;
        form->setConfig(config);
        TrainingSession* session = m_window->session();
        // The dialog opens at once; its shot waits for the last fix card.
        connect(session, &TrainingSession::fixesFound, this,
                [this](const FixSearchProgress& progress) {
                    if (progress.done && !m_advisorShot) {
                        m_advisorShot = true;
                        QTimer::singleShot(kSettleMs * 2, this, &ScreenshotTour::afterAdvisor);
                    }
                });
        connect(session, &TrainingSession::runningChanged, this, [this](bool running) {
            if (!running && !m_window->advisor())
                compareStrategies();
        });
        if (!m_window->startTraining())
            fail(QStringLiteral("could not start the OOM run"));
    });
}

void ScreenshotTour::afterAdvisor() {
    OomAdvisorDialog* advisor = m_window->advisor();
    if (!advisor) {
        fail(QStringLiteral("the advisor did not open"));
        return;
    }
    save(advisor, QStringLiteral("oom-advisor.png"));
    m_window->session()->stop();
    advisor->reject();
}

void ScreenshotTour::compareStrategies() {
    if (m_comparing)
        return;
    m_comparing = true;
    // Three of the default strategies on the tour's small settings, three epochs each so that
    // the curves over epochs have points to join.
    TrainConfig base = smallRun("tour-compare");
    base.epochs = 3;
    base.batch = 16;
    base.amp = false;
    base.checkpointing = Checkpointing::None;
    base.memory_budget = 0;
    base.weights = m_compareWeights.toStdString();
    const std::vector<Strategy> defaults = defaultStrategies();
    ComparePage* page = m_window->comparePage();
    page->strategyEditor()->setStrategies({defaults.begin(), defaults.begin() + 3});
    m_window->showPage(MainWindow::Page::Compare);
    connect(
        page, &ComparePage::matrixFinished, this,
        [this, page] {
            QTimer::singleShot(kSettleMs, this, [this, page] {
                if (page->comparison().rows.size() < 3) {
                    fail(QStringLiteral("the strategy matrix ended with fewer than 3 rows"));
                    return;
                }
                save(m_window, QStringLiteral("compare.png"));
                emit done(m_ok);
            });
        },
        Qt::SingleShotConnection);
    if (!page->runMatrix(base))
        fail(QStringLiteral("could not start the strategy matrix: ") + page->statusLabel()->text());
}

} // namespace hr::ui
