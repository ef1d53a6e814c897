// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/crash_signals.h"
#include "util/diagnostic.h"
#include "util/text.h"
#include "util/user_message.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

class TestUtil : public QObject {
    Q_OBJECT
private slots:
    void parseByteSize_data();
    void parseByteSize();
    void rejectsMalformedSizes();
    void formatBytes();
    void nearestMatch();
    void diagnosticText();
    void atomicWriteReplacesFile();
    void crashSignalsGoBackToTheSystem();
    void jsonEscape();
    void userMessageDropsBacktraces();
    void userMessageCollapsesRepeatedPrefixes();
    void userMessageNamesRemedies_data();
    void userMessageNamesRemedies();
};

void TestUtil::parseByteSize_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("plain") << "1048576" << qint64(1048576);
    QTest::newRow("GiB") << "3GiB" << qint64(3) * 1024 * 1024 * 1024;
    QTest::newRow("MiB") << "512MiB" << qint64(512) * 1024 * 1024;
    QTest::newRow("GB") << "1.5GB" << qint64(1500000000);
    QTest::newRow("bare G") << "2G" << qint64(2) * 1024 * 1024 * 1024;
    QTest::newRow("space") << " 64 mib " << qint64(64) * 1024 * 1024;
}

void TestUtil::parseByteSize() {
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    const auto parsed = hr::parseByteSize(text.toStdString());
    QVERIFY(parsed.has_value());
    QCOMPARE(qint64(*parsed), bytes);
}

void TestUtil::rejectsMalformedSizes() {
    QVERIFY(!hr::parseByteSize("").has_value());
    QVERIFY(!hr::parseByteSize("GiB").has_value());
    QVERIFY(!hr::parseByteSize("3 parsecs").has_value());
    QVERIFY(!hr::parseByteSize("-1GiB").has_value());
}

void TestUtil::formatBytes() {
    QCOMPARE(QString::fromStdString(hr::formatBytes(300)), QString("300 B"));
    QCOMPARE(QString::fromStdString(hr::formatBytes(1536LL * 1024 * 1024)), QString("1.50 GiB"));
    QCOMPARE(QString::fromStdString(hr::formatBytes(512LL * 1024 * 1024)), QString("512 MiB"));
}

void TestUtil::nearestMatch() {
    const std::vector<std::string> keys{"batch", "imgsz", "epochs", "mosaic"};
    QCOMPARE(QString::fromStdString(hr::nearestMatch("bacth", keys)), QString("batch"));
    QCOMPARE(QString::fromStdString(hr::nearestMatch("imgsize", keys)), QString("imgsz"));
    QCOMPARE(QString::fromStdString(hr::nearestMatch("zzzzzzzz", keys)), QString());
}

void TestUtil::diagnosticText() {
    hr::Diagnostic d;
    d.file = "cfg.yaml";
    d.line = 4;
    d.key = "batch";
    d.message = "must be at least 1";
    d.fix = "use batch: 16";
    QCOMPARE(QString::fromStdString(d.toString()),
             QString("cfg.yaml:4: error: 'batch': must be at least 1 (fix: use batch: 16)"));
    QVERIFY(hr::hasErrors({d}));
    d.severity = hr::Diagnostic::Severity::Warning;
    QVERIFY(!hr::hasErrors({d}));
}

void TestUtil::atomicWriteReplacesFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("file.txt").toStdString();
    std::string error;
    QVERIFY(hr::writeFileAtomically(path, "first", &error));
    QVERIFY(hr::writeFileAtomically(path, "second", &error));
    std::string contents;
    QVERIFY(hr::readFile(path, contents, &error));
    QCOMPARE(QString::fromStdString(contents), QString("second"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // no temporary left behind
    QVERIFY(!hr::writeFileAtomically(dir.filePath("missing/dir/x").toStdString(), "x", &error));
    QVERIFY(!error.empty());
}

void TestUtil::crashSignalsGoBackToTheSystem() {
    // As UCX does while Debian 13's LibTorch loads: a handler that would print a backtrace.
    struct sigaction library {};
    library.sa_sigaction = [](int, siginfo_t*, void*) {};
    library.sa_flags = SA_SIGINFO;
    sigemptyset(&library.sa_mask);
    QCOMPARE(::sigaction(SIGFPE, &library, nullptr), 0);
    QCOMPARE(::sigaction(SIGSEGV, &library, nullptr), 0);
    QVERIFY(hr::restoreDefaultCrashSignals() >= 2);
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
        struct sigaction now {};
        QCOMPARE(::sigaction(signal, nullptr, &now), 0);
        QVERIFY((now.sa_flags & SA_SIGINFO) == 0);
        QVERIFY(now.sa_handler == SIG_DFL);
    }
    QCOMPARE(hr::restoreDefaultCrashSignals(), 0);
}

void TestUtil::jsonEscape() {
    QCOMPARE(QString::fromStdString(hr::jsonEscape("a\"b\\c\nd")), QString("a\\\"b\\\\c\\nd"));
}

void TestUtil::userMessageDropsBacktraces() {
    // The shape of c10::Error::what() in LibTorch 1.13 and 2.x.
    const std::string raw =
        "Headroom budget: tried to allocate 37.5 MiB (154 MiB already allocated; 160 MiB "
        "budget; 5.97 MiB free)\nException raised from allocate at "
        "/work/core/memory/cpu_memory_tracker.cpp:112 (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x55 (0x7f in "
        "/lib/libc10.so)\nframe #1: hr::CpuMemoryTracker::allocate(unsigned long) + 0x1d2\n"
        "frame #15: clone + 0x44 (0x7f in /lib/libc.so.6)\n";
    const std::string text = hr::userText("data loader: data loader: " + raw);
    QCOMPARE(QString::fromStdString(text),
             QString("data loader: Headroom budget: tried to allocate 37.5 MiB (154 MiB already "
                     "allocated; 160 MiB budget; 5.97 MiB free)"));
    QVERIFY(text.find("frame #") == std::string::npos);
    QVERIFY(text.find('\n') == std::string::npos);
    const std::runtime_error error(raw);
    QVERIFY(hr::userMessage(error).find("Exception raised") == std::string::npos);
    // exceptionText: the same words, without a remedy (a damaged zip is not named a run's
    // checkpoint with a backup).
    QCOMPARE(QString::fromStdString(hr::exceptionText(error)),
             QString::fromStdString(hr::userText(raw)));
    const std::runtime_error zip("PytorchStreamReader failed reading zip archive: failed finding "
                                 "central directory\nException raised from valid at x.cc:1\n"
                                 "frame #0: y");
    QCOMPARE(QString::fromStdString(hr::exceptionText(zip)),
             QString("PytorchStreamReader failed reading zip archive: failed finding central "
                     "directory"));
    QVERIFY(hr::userMessage(zip).find("last.pt.bak") != std::string::npos);
}

void TestUtil::userMessageCollapsesRepeatedPrefixes() {
    QCOMPARE(QString::fromStdString(hr::userText("a: a: a: b: c")), QString("a: b: c"));
    QCOMPARE(QString::fromStdString(hr::userText("resume: x: x")), QString("resume: x: x"));
    QCOMPARE(QString::fromStdString(hr::userText("")), QString("unknown error"));
}

void TestUtil::userMessageNamesRemedies_data() {
    QTest::addColumn<QString>("raw");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    QTest::newRow("truncated checkpoint")
        << "PytorchStreamReader failed reading zip archive: failed finding central directory\n"
           "Exception raised from valid at ../caffe2/serialize/inline_container.cc:184\nframe "
           "#0: x"
        << "runs/exp/weights/last.pt"
        << "the checkpoint runs/exp/weights/last.pt is damaged or incomplete";
    QTest::newRow("disk full") << "cannot write x.tmp1: No space left on device"
                               << "runs/exp/weights/last.pt"
                               << "the disk is full: free some space where "
                                  "runs/exp/weights/last.pt is written";
    QTest::newRow("unwritable") << "cannot create runs/exp: Permission denied"
                                << ""
                                << "choose a project folder you can write";
    QTest::newRow("not a folder") << "cannot create runs/exp: Not a directory"
                                  << ""
                                  << "choose a project folder you can write";
    QTest::newRow("vanished image") << "cannot read image: No such file or directory"
                                    << "data/images/a.jpg"
                                    << "data/images/a.jpg was moved or deleted";
}

void TestUtil::userMessageNamesRemedies() {
    QFETCH(QString, raw);
    QFETCH(QString, file);
    QFETCH(QString, expected);
    const QString text =
        QString::fromStdString(hr::userText(raw.toStdString(), file.toStdString()));
    QVERIFY2(text.contains(expected), qPrintable(text));
    QVERIFY2(!text.contains("frame #") && !text.contains("Exception raised"), qPrintable(text));
}

QTEST_APPLESS_MAIN(TestUtil)
#include "test_util.moc"
