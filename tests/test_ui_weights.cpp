// SPDX-License-Identifier: GPL-3.0-or-later
// The studio with weights files (issue 16), driven as a person drives it: File → Export through
// the menu and the file dialogs (typed paths), the ONNX file read back with OpenCV's DNN
// module; and "Start from weights" typed in Settings, whose transfer count the Train page's log
// shows. Uses the Ultralytics fixture tests/data/ultralytics/yolov8n-tiny.pt (nc 3). Offscreen.
#include "mainwindow.h"
#include "settingsform.h"
#include "settingspage.h"
#include "trainingsession.h"
#include "trainpage.h"
#include "ui_test_env.h"
#include "ui_typing.h"

#include "logview.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <opencv2/dnn.hpp>

#include <functional>

using hr::ui::MainWindow;

namespace {

const QString kFixture = QStringLiteral(HEADROOM_TEST_DATA "/ultralytics/yolov8n-tiny.pt");

/// Calls `answer` with the first visible modal dialog whose title is `title` (a dialog's exec()
/// blocks the test's click until the dialog is answered). Returns the watching timer, which
/// deletes itself once it has answered.
QTimer* answerDialog(const QString& title, std::function<void(QWidget*)> answer) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, title, answer] {
        QWidget* dialog = QApplication::activeModalWidget();
        if (dialog && dialog->isVisible() && dialog->windowTitle() == title) {
            timer->stop();
            timer->deleteLater();
            answer(dialog);
        }
    });
    timer->start();
    return timer;
}

/// Pastes `path` into a file dialog's name field and clicks its Open/Save button, as a person
/// would.
void typePathAndAccept(QWidget* dialog, const QString& path) {
    auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    auto* buttons = dialog->findChild<QDialogButtonBox*>(QStringLiteral("buttonBox"));
    if (!name || !buttons) {
        qWarning("the file dialog has no name field or buttons");
        return;
    }
    name->setFocus();
    QTest::keyClick(name, Qt::Key_A, Qt::ControlModifier);
    // Pasted, as a person pastes a path: typed a character at a time, every '/' makes the
    // dialog change folder while the rest is still being typed.
    QApplication::clipboard()->setText(path);
    QTest::keyClick(name, Qt::Key_V, Qt::ControlModifier);
    for (QAbstractButton* button : buttons->buttons())
        if (buttons->buttonRole(button) == QDialogButtonBox::AcceptRole) {
            QTest::mouseClick(button, Qt::LeftButton);
            return;
        }
    qWarning("the file dialog has no Open/Save button");
}

using hr::testing::typeInto;

} // namespace

class TestUiWeights : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void exportFromFileMenuWritesOnnxOpenCvReads();
    void startFromWeightsShowsTransferredCount();

private:
    QTemporaryDir m_dir;
    QString m_dataYaml;
};

void TestUiWeights::initTestCase() {
    QVERIFY(m_dir.isValid());
    hr::testing::isolateSettings(m_dir, "test_ui_weights");
    // The platform's own dialogs cannot be typed into; Qt's are what offscreen gives anyway.
    QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);
    std::string error;
    m_dataYaml = hr::testing::makeTinyDataset(m_dir, 8, 4, &error);
    QVERIFY2(!m_dataYaml.isEmpty(), error.c_str());
    QVERIFY(QFileInfo::exists(kFixture));
}

void TestUiWeights::exportFromFileMenuWritesOnnxOpenCvReads() {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString onnx = m_dir.filePath("exported.onnx");

    QString report;
    answerDialog(QStringLiteral("Weights to export"), [&](QWidget* open) {
        answerDialog(QStringLiteral("Save ONNX model"), [&](QWidget* save) {
            answerDialog(QStringLiteral("Export finished"), [&](QWidget* done) {
                report = qobject_cast<QMessageBox*>(done)->text();
                qobject_cast<QMessageBox*>(done)->accept();
            });
            typePathAndAccept(save, onnx);
        });
        typePathAndAccept(open, kFixture);
    });
    QPointer<QTimer> failure = answerDialog(QStringLiteral("Export failed"), [&](QWidget* failed) {
        report = QStringLiteral("FAILED: ") + qobject_cast<QMessageBox*>(failed)->text();
        qobject_cast<QMessageBox*>(failed)->accept();
    });

    // File menu → Export to ONNX…: the menu opened with the mouse.
    QMenuBar* bar = window.menuBar();
    QMenu* file = nullptr;
    for (QAction* a : bar->actions())
        if (a->menu() && a->text().remove('&') == QStringLiteral("File"))
            file = a->menu();
    QVERIFY(file);
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(file->menuAction()).center());
    QTRY_VERIFY(file->isVisible());
    auto* exportAction = window.findChild<QAction*>(QStringLiteral("export"));
    QVERIFY(exportAction && exportAction->isEnabled());
    // The item is picked with the keyboard, a person's other way through a menu: under the
    // offscreen platform, Qt 6.8's popups no longer receive synthesised mouse events.
    for (int i = 0; i < file->actions().size() && file->activeAction() != exportAction; ++i)
        QTest::keyClick(file, Qt::Key_Down);
    QCOMPARE(file->activeAction(), exportAction);
    QTest::keyClick(file, Qt::Key_Return);

    QTRY_VERIFY_WITH_TIMEOUT(!report.isEmpty(), 60000);
    QVERIFY2(!report.startsWith(QStringLiteral("FAILED")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("OpenCV")), qPrintable(report));
    QTRY_VERIFY(exportAction->isEnabled());
    delete failure.data();

    // The file is OpenCV's to read and run: Ultralytics' layout, 1 × (4 + nc) × anchors.
    QVERIFY(QFileInfo::exists(onnx));
    cv::dnn::Net net = cv::dnn::readNetFromONNX(onnx.toStdString());
    QVERIFY(!net.empty());
    const int size = 64;
    cv::Mat image(size, size, CV_8UC3, cv::Scalar(90, 120, 150));
    net.setInput(cv::dnn::blobFromImage(image, 1.0 / 255.0, cv::Size(size, size), cv::Scalar(),
                                        /*swapRB=*/true));
    const cv::Mat out = net.forward();
    QCOMPARE(out.dims, 3);
    QCOMPARE(out.size[0], 1);
    QCOMPARE(out.size[1], 4 + 3);
    QCOMPARE(out.size[2], 8 * 8 + 4 * 4 + 2 * 2);
}

void TestUiWeights::startFromWeightsShowsTransferredCount() {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    hr::ui::SettingsForm* form = window.settingsPage()->form();
    hr::TrainConfig c;
    c.data = m_dataYaml.toStdString();
    c.imgsz = 64;
    c.batch = 4;
    c.epochs = 1;
    c.workers = 1;
    c.threads = 1;
    c.mosaic = 0.0;
    c.close_mosaic = 0;
    c.warmup_epochs = 0;
    c.project = m_dir.filePath("runs").toStdString();
    c.name = "from-weights";
    form->setConfig(c);
    // The checkpoint's architecture, and its weights: typed as a person would.
    typeInto(form, QStringLiteral("model"), kFixture);
    typeInto(form, QStringLiteral("weights"), kFixture);
    QCOMPARE(QString::fromStdString(form->config().weights), kFixture);
    QCOMPARE(QString::fromStdString(form->config().model), kFixture);

    hr::ui::TrainingSession* session = window.session();
    QSignalSpy failed(session, &hr::ui::TrainingSession::failed);
    QVERIFY(window.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 120000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));

    // The fixture has 3 classes, the data set 7: all but the head's 6 class tensors transfer,
    // and the class names differ.
    const QString log = window.trainPage()->log()->toPlainText();
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("Transferred (\\d+)/(\\d+) items from yolov8n-tiny.pt"))
            .match(log);
    QVERIFY2(m.hasMatch(), qPrintable(log));
    QCOMPARE(m.captured(2).toInt() - m.captured(1).toInt(), 6);
    QVERIFY2(log.contains(QStringLiteral("circle, square, triangle")), qPrintable(log));
}

QTEST_MAIN(TestUiWeights)
#include "test_ui_weights.moc"
