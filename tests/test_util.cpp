// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/diagnostic.h"
#include "util/text.h"

#include <QTemporaryDir>
#include <QtTest>

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
    void jsonEscape();
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

void TestUtil::jsonEscape() {
    QCOMPARE(QString::fromStdString(hr::jsonEscape("a\"b\\c\nd")), QString("a\\\"b\\\\c\\nd"));
}

QTEST_APPLESS_MAIN(TestUtil)
#include "test_util.moc"
