// SPDX-License-Identifier: GPL-3.0-or-later
// The studio as a person meets it after a crash (issue 39): settings typed into the form are on
// disk before any quit, so a studio killed with SIGKILL comes back with them. The typing runs in
// a child process (this program, started again with one test function) that kills itself; the
// restart is a new MainWindow here over the same settings folder. Offscreen.
#include "interruptedrunbanner.h"
#include "mainwindow.h"
#include "runspage.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"
#include "ui_typing.h"

#include "elidedlabel.h"
#include "logview.h"

#include "config/train_config.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <unistd.h>

using hr::ui::MainWindow;

namespace {

const char* const kChildDirVar = "HEADROOM_WALK_CHILD_DIR";

/// QSettings in `dir`/settings, as tests/ui_test_env.h does, for this program and its child.
void isolateSettingsIn(const QString& dir) {
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                       dir + QStringLiteral("/settings"));
    QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_walk"));
}

/// Writes `text` to `path`, making its folder.
bool writeFile(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

using hr::testing::typeInto;

} // namespace

class TestUiWalk : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void childTypesSettingsThenIsKilled();
    void settingsSurviveSigkill();
    void interruptedRunIsOfferedAtStart();
    void pauseIsVisible();

private:
    QTemporaryDir m_dir;
    QString m_weights;
};

void TestUiWalk::initTestCase() {
    const QString childDir = qEnvironmentVariable(kChildDirVar);
    QVERIFY(m_dir.isValid());
    isolateSettingsIn(childDir.isEmpty() ? m_dir.path() : childDir);
    m_weights = QStringLiteral(HEADROOM_TEST_DATA "/ultralytics/yolov8n-tiny.pt");
}

void TestUiWalk::childTypesSettingsThenIsKilled() {
    if (qEnvironmentVariableIsEmpty(kChildDirVar))
        QSKIP("the child half of settingsSurviveSigkill");
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showPage(MainWindow::Page::Settings);
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    typeInto(form, QStringLiteral("imgsz"), QStringLiteral("160"));
    typeInto(form, QStringLiteral("epochs"), QStringLiteral("4"));
    typeInto(form, QStringLiteral("weights"), m_weights);
    QCOMPARE(form->config().imgsz, 160);
    // As a crash ends a process: no close event, no destructor, no QSettings flush.
    ::kill(::getpid(), SIGKILL);
}

void TestUiWalk::settingsSurviveSigkill() {
    if (!qEnvironmentVariableIsEmpty(kChildDirVar))
        QSKIP("the parent half");
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(kChildDirVar), m_dir.path());
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::ForwardedChannels);
    child.start(QCoreApplication::applicationFilePath(),
                {QStringLiteral("childTypesSettingsThenIsKilled")});
    QVERIFY(child.waitForStarted());
    QVERIFY(child.waitForFinished(120000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    // The file as another process reads it, before any studio here has started.
    QSettings onDisk(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("HeadroomTest"),
                     QStringLiteral("test_ui_walk"));
    const QString yaml = onDisk.value(QStringLiteral("settings/config")).toString();
    QVERIFY2(yaml.contains(QStringLiteral("imgsz: 160")), qPrintable(yaml));

    // The restart: the same settings come back in the form.
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const hr::TrainConfig config = window.settingsPage()->form()->config();
    QCOMPARE(config.imgsz, 160);
    QCOMPARE(config.epochs, 4);
    QCOMPARE(QString::fromStdString(config.weights), m_weights);
}

void TestUiWalk::interruptedRunIsOfferedAtStart() {
    if (!qEnvironmentVariableIsEmpty(kChildDirVar))
        QSKIP("the parent half");
    // A run killed after its second epoch of four: a checkpoint, no run_finished event.
    const QString runs = m_dir.filePath(QStringLiteral("runs"));
    const QString run = runs + QStringLiteral("/killed");
    QVERIFY(writeFile(run + QStringLiteral("/config.yaml"), "epochs: 4\nimgsz: 64\n"));
    QVERIFY(writeFile(run + QStringLiteral("/results.csv"), "epoch,box_loss\n1,1.0\n2,0.9\n"));
    QVERIFY(writeFile(run + QStringLiteral("/events.jsonl"), "{\"type\":\"run_started\"}\n"));
    QVERIFY(writeFile(run + QStringLiteral("/weights/last.pt"), "not a checkpoint"));
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showPage(MainWindow::Page::Settings);
        typeInto(window.settingsPage()->form(), QStringLiteral("project"), runs);
    }

    // The restart says so, with the epoch, and offers Resume and Open; so does the Train menu.
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    hr::ui::InterruptedRunBanner* banner = window.interruptedRunBanner();
    QTRY_VERIFY(banner->isVisible());
    QVERIFY2(banner->message()->text().contains(QStringLiteral("epoch 2 of 4")),
             qPrintable(banner->message()->text()));
    QVERIFY(banner->message()->text().contains(QStringLiteral("killed")));
    QVERIFY(window.resumeLastAction()->isEnabled());
    QVERIFY(window.resumeLastAction()->toolTip().contains(QStringLiteral("killed")));

    auto* open = banner->findChild<QPushButton*>(QStringLiteral("interruptedRunOpen"));
    QVERIFY(open);
    QTest::mouseClick(open, Qt::LeftButton);
    QTRY_VERIFY(!banner->isVisible());
    QTRY_VERIFY(window.runsPage()->isVisible());

    // Resume goes to the run itself; this checkpoint is not real, so the run fails at once.
    banner->showRun(run, QStringLiteral("killed"), 2, 4);
    auto* resume = banner->findChild<QPushButton*>(QStringLiteral("interruptedRunResume"));
    QSignalSpy resumed(banner, &hr::ui::InterruptedRunBanner::resumeClicked);
    QSignalSpy failed(window.session(), &hr::ui::TrainingSession::failed);
    QTest::mouseClick(resume, Qt::LeftButton);
    QCOMPARE(resumed.size(), 1);
    QCOMPARE(resumed.at(0).at(0).toString(), run);
    QTRY_VERIFY(window.trainPage()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!window.session()->isRunning(), 60000);
}

void TestUiWalk::pauseIsVisible() {
    if (!qEnvironmentVariableIsEmpty(kChildDirVar))
        QSKIP("the parent half");
    std::string error;
    const QString data = hr::testing::makeTinyDataset(m_dir, 16, 4, &error);
    QVERIFY2(!data.isEmpty(), error.c_str());
    MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    hr::TrainConfig c;
    c.model = "yolov8n.yaml";
    c.data = data.toStdString();
    c.imgsz = 64;
    c.batch = 4;
    c.epochs = 20;
    c.workers = 1;
    c.threads = 1;
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.warmup_epochs = 0;
    c.device = "cpu";
    c.project = m_dir.filePath(QStringLiteral("runs")).toStdString();
    c.name = "paused";
    window.settingsPage()->form()->setConfig(c);

    hr::ui::TrainingSession* session = window.session();
    hr::ui::TrainPage* page = window.trainPage();
    QSignalSpy batches(session, &hr::ui::TrainingSession::batchEnded);
    QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(batches.size() >= 1 || !session->isRunning(), 120000);
    QVERIFY(session->isRunning());

    QTest::keyClick(&window, Qt::Key_F6);
    QVERIFY(session->isPaused());
    QTRY_VERIFY(page->statusLine()->text().startsWith(QStringLiteral("Paused")));
    QVERIFY(page->log()->toPlainText().contains(QStringLiteral("Paused: training waits")));
    QTRY_VERIFY2(page->progressBar()->format().contains(QStringLiteral("ETA paused")),
                 qPrintable(page->progressBar()->format()));

    QTest::keyClick(&window, Qt::Key_F6);
    QVERIFY(!session->isPaused());
    QTRY_VERIFY(page->statusLine()->text().startsWith(QStringLiteral("Resumed")));
    QVERIFY(page->log()->toPlainText().contains(QStringLiteral("Resumed: training continues")));
    const qsizetype before = batches.size();
    QTRY_VERIFY_WITH_TIMEOUT(batches.size() > before, 60000);
    QVERIFY(!page->progressBar()->format().contains(QStringLiteral("paused")));

    QTest::keyClick(&window, Qt::Key_Period, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
}

QTEST_MAIN(TestUiWalk)
#include "test_ui_walk.moc"
