// SPDX-License-Identifier: GPL-3.0-or-later
// The files a validation leaves in its run folder: per-class, confusion-matrix and curve CSVs
// read back by their readers, on a case small enough to work out by hand.
#include "eval/average_precision.h"
#include "results/result_plots.h"
#include "results/results_files.h"
#include "results/tfevents_writer.h"
#include "results/validation_results.h"
#include "util/atomic_file.h"

#include "tfevents_reader.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace {

const std::vector<std::string> kNames = {"cat", "dog"};

/// One image with a cat at (0,0)-(10,10) and a dog at (20,20)-(30,30). Detections: the cat
/// found (0.9), the dog taken for a cat (0.6), a cat where there is nothing (0.3).
/// By hand: cat recall 1 at confidence <= 0.9 (0 above); cat precision 1 above 0.9, falling
/// linearly (in confidence) to 1/2 at 0.6 and 1/3 at 0.3, then 1/3; the dog has no
/// detection of its own, so zero curves and AP 0. Cat's AP50 is 0.995 (101-point rule).
/// Confusion (conf > 0.25, IoU > 0.45): [cat][cat] 1, [cat][dog] 1, [cat][background] 1.
hr::MetricsResult tinyCase() {
    // The detections after matching, as MetricsAccumulator leaves them (test_eval checks the
    // matching): only the first is a true positive, at every IoU threshold.
    hr::ScoredDetection found{0.9, 0, {}}, dogAsCat{0.6, 0, {}}, nothing{0.3, 0, {}};
    found.correct.fill(true);
    hr::MetricsResult m = hr::apPerClass({dogAsCat, nothing, found}, {0, 1}, {1, 1}, 2);
    m.images = 1;
    m.confusion = {{1, 1, 1}, {0, 0, 0}, {0, 0, 0}}; // as MetricsAccumulator counts this image
    return m;
}

/// Cat's precision at confidence x, worked out by hand (see tinyCase).
double catPrecision(double x) {
    if (x > 0.9)
        return 1.0;
    if (x >= 0.6)
        return 1.0 - 0.5 * (0.9 - x) / 0.3;
    if (x >= 0.3)
        return 0.5 - (0.5 - 1.0 / 3) * (0.6 - x) / 0.3;
    return 1.0 / 3;
}

bool near(double a, double b, double tolerance = 1e-5) {
    return std::abs(a - b) <= tolerance;
}

} // namespace

class TestResults : public QObject {
    Q_OBJECT

private slots:
    void filesRoundTrip();
    void confusionCsvHasUltralyticsLayout();
    void curvesMatchTheHandComputedCase();
    void readersNameTheBadRecord();
    void noMatrixAboveTheDenseLimit();
    void plotsAreWrittenAndDecode();
    void crc32cOfTheStandardVector();
    void eventFileReadsBack();
};

void TestResults::filesRoundTrip() {
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString();
    const hr::MetricsResult m = tinyCase();
    std::string error;
    QVERIFY2(hr::writeValidationResults(run, kNames, m, &error), error.c_str());
    hr::ValidationTables t;
    QVERIFY2(hr::loadValidationTables(run, t, &error), error.c_str());

    QCOMPARE(int(t.perClass.size()), 3);
    QCOMPARE(t.perClass[0].name, std::string("all"));
    QCOMPARE(t.perClass[0].images, 1);
    QCOMPARE(t.perClass[0].instances, 2);
    QCOMPARE(t.perClass[1].name, std::string("cat"));
    QCOMPARE(t.perClass[2].name, std::string("dog"));
    QCOMPARE(t.perClass[2].instances, 1);
    QVERIFY(near(t.perClass[1].ap50, 0.995));
    QVERIFY(near(t.perClass[1].recall, 1.0));
    QVERIFY(near(t.perClass[2].ap50, 0.0));
    QVERIFY(near(t.perClass[0].ap50, 0.4975));
    QVERIFY(near(t.perClass[0].precision, m.precision));
    QCOMPARE(t.confusion.counts, m.confusion);
    // tinyCase has no per-image cells: the file is written with its header only.
    QVERIFY(t.confusionImages.empty());
    std::vector<hr::ConfusionImageRow> rows = {{"cat", "dog", "a, b.jpg", 2}, {"background", "cat", "c.jpg", 1}};
    std::vector<hr::ConfusionImageRow> back;
    QVERIFY2(hr::parseConfusionImagesCsv(hr::confusionImagesCsv(rows), back, &error), error.c_str());
    QCOMPARE(int(back.size()), 2);
    QCOMPARE(back[0].image, std::string("a, b.jpg"));
    QCOMPARE(back[1].predicted, std::string("background"));
    QCOMPARE(back[0].count, 2);
    QVERIFY(!hr::parseConfusionImagesCsv("predicted,true,image,count\ncat,dog,x.jpg,-1\n", back, &error));
    QVERIFY2(error.find("record 2") != std::string::npos, error.c_str());
    QCOMPARE(int(t.curves.grid.size()), 1000);
    QCOMPARE(int(t.curves.rows.size()), 12); // 4 curves x (all, cat, dog)
    // Read back as the peak of the written (6-digit) "all" F1 row: within a grid step.
    QVERIFY(near(t.curves.bestF1Confidence, m.bestF1Confidence, 1.1e-3));
}

void TestResults::confusionCsvHasUltralyticsLayout() {
    const hr::MetricsResult m = tinyCase();
    const std::string csv = hr::confusionCsv(hr::confusionTable(m, kNames));
    QCOMPARE(csv, std::string("Predicted,cat,dog,background\n"
                              "cat,1,1,1\n"
                              "dog,0,0,0\n"
                              "background,0,0,0\n"));
    // A name with a comma or quote survives the round trip.
    hr::ConfusionTable odd{{"a,b", "say \"hi\"", "background"}, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}};
    hr::ConfusionTable back;
    std::string error;
    QVERIFY2(hr::parseConfusionCsv(hr::confusionCsv(odd), back, &error), error.c_str());
    QCOMPARE(back.names, odd.names);
    QCOMPARE(back.counts, odd.counts);
}

void TestResults::curvesMatchTheHandComputedCase() {
    const hr::MetricsResult m = tinyCase();
    QCOMPARE(int(m.curves.size()), 2);
    const auto& cat = m.curves[0];
    const auto& dog = m.curves[1];
    for (size_t k = 0; k < m.curveGrid.size(); ++k) {
        const double x = m.curveGrid[k];
        QVERIFY2(near(x, k / 999.0, 1e-12), qPrintable(QString::number(k)));
        QVERIFY2(near(cat.recall[k], x > 0.9 ? 0.0 : 1.0), qPrintable(QString::number(x)));
        QVERIFY2(near(cat.precision[k], catPrecision(x)), qPrintable(QString::number(x)));
        const double p = catPrecision(x), r = x > 0.9 ? 0.0 : 1.0;
        QVERIFY(near(cat.f1[k], 2 * p * r / (p + r + 1e-16)));
        // PR curve: the envelope is 1 up to recall 1, where it closes at 0.
        QVERIFY(near(cat.prPrecision[k], k + 1 == m.curveGrid.size() ? 0.0 : 1.0));
        QVERIFY(dog.precision[k] == 0 && dog.recall[k] == 0 && dog.f1[k] == 0);
        QVERIFY(near(m.allClasses.prPrecision[k], cat.prPrecision[k] / 2));
    }
    // The best smoothed mean F1 lies where the cat is found with its best precision:
    // between the dog-as-cat (0.6) and the cat (0.9), and P, R are taken there.
    QVERIFY2(m.bestF1Confidence > 0.6 && m.bestF1Confidence <= 0.9,
             qPrintable(QString::number(m.bestF1Confidence)));
    QVERIFY(near(m.perClass[0].precision, catPrecision(m.bestF1Confidence)));
    QVERIFY(near(m.perClass[0].recall, 1.0));
    const auto best = std::max_element(m.allClasses.f1.begin(), m.allClasses.f1.end());
    QVERIFY(near(m.curveGrid[size_t(best - m.allClasses.f1.begin())], m.bestF1Confidence));
}

void TestResults::readersNameTheBadRecord() {
    std::vector<hr::PerClassRow> rows;
    std::string error;
    QVERIFY(!hr::parsePerClassCsv("class,images,instances,P,R,AP50,AP50-95\nall,1,2,x,0,0,0\n",
                                  rows, &error));
    QVERIFY2(error.find("record 2") != std::string::npos, error.c_str());
    hr::ConfusionTable table;
    QVERIFY(!hr::parseConfusionCsv("Predicted,a,background\na,1,2\n", table, &error));
    QVERIFY2(error.find("square") != std::string::npos, error.c_str());
    hr::ValidationTables tables;
    QVERIFY(!hr::loadValidationTables("/nonexistent-run", tables, &error));
    QVERIFY2(error.find("per_class.csv") != std::string::npos, error.c_str());
}

void TestResults::noMatrixAboveTheDenseLimit() {
    // A validation without a dense matrix (too many classes) writes no confusion CSV or plots,
    // and its run folder still loads, with an empty matrix.
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString();
    hr::MetricsResult m = tinyCase();
    m.confusion.clear();
    m.confusionImages = {"a.jpg"};
    m.confusionHits = {{0, 1, 0, 1}};
    std::string error;
    QVERIFY2(hr::writeValidationResults(run, kNames, m, &error), error.c_str());
    QVERIFY(!QFile::exists(dir.filePath("confusion_matrix.csv")));
    QVERIFY(!QFile::exists(dir.filePath("confusion_matrix.png")));
    QVERIFY(QFile::exists(dir.filePath("PR_curve.png")));
    hr::ValidationTables t;
    QVERIFY2(hr::loadValidationTables(run, t, &error), error.c_str());
    QVERIFY(t.confusion.counts.empty());
    QCOMPARE(int(t.confusionImages.size()), 1);
    QCOMPARE(t.confusionImages[0].actual, std::string("dog"));
}

void TestResults::plotsAreWrittenAndDecode() {
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString();
    std::string error;
    QVERIFY2(hr::writeValidationResults(run, kNames, tinyCase(), &error), error.c_str());
    QCOMPARE(int(hr::resultPlotFiles().size()), 6);
    for (const std::string& file : hr::resultPlotFiles()) {
        const cv::Mat image = cv::imread(run + "/" + file, cv::IMREAD_COLOR);
        QVERIFY2(!image.empty(), file.c_str());
        QCOMPARE(image.cols, 1350);
        QCOMPARE(image.rows, 900);
        // Something was drawn: not a blank page.
        cv::Mat grey;
        cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
        QVERIFY2(cv::countNonZero(grey < 128) > 1000, file.c_str());
    }
    // A validation without ground truth (empty tables) still gives axes, not a failure.
    QVERIFY2(hr::writeValidationResults(run, kNames, hr::MetricsResult{}, &error), error.c_str());
    QVERIFY(!cv::imread(run + "/F1_curve.png").empty());
}

void TestResults::crc32cOfTheStandardVector() {
    // The check value of CRC-32C (RFC 3720, B.4) and TFRecord's mask of it.
    QCOMPARE(hr::crc32c("123456789"), 0xE3069283u);
    QCOMPARE(tfreader::crc32c("123456789", 9), 0xE3069283u);
    const std::uint32_t c = 0xE3069283u;
    QCOMPARE(hr::maskedCrc32c("123456789"), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

void TestResults::eventFileReadsBack() {
    QTemporaryDir dir;
    const double start = 1765000000.25;
    hr::TfEventsWriter writer(dir.path().toStdString(), start);
    QVERIFY(QString::fromStdString(writer.path())
                .contains(QRegularExpression("/events\\.out\\.tfevents\\.1765000000\\.[^/]+"
                                             "\\.headroom$")));
    writer.addScalars(start + 1, 1, {{"train/box_loss", 1.5f}, {"metrics/mAP50(B)", 0.25f}});
    std::string error;
    QVERIFY2(writer.flush(&error), error.c_str());
    writer.addScalars(start + 2, 2, {{"lr/pg0", 0.01f}});
    writer.addScalars(start + 3, 123456789012LL, {{"memory/allocated_MiB", 3.0f}});
    QVERIFY2(writer.flush(&error), error.c_str());

    std::vector<tfreader::Event> events;
    QVERIFY2(tfreader::readEvents(writer.path(), events, error), error.c_str());
    QCOMPARE(int(events.size()), 4);
    QCOMPARE(events[0].fileVersion, std::string("brain.Event:2"));
    QCOMPARE(events[0].wallTime, start);
    QCOMPARE(events[1].step, std::int64_t(1));
    QCOMPARE(events[1].wallTime, start + 1);
    QCOMPARE(int(events[1].scalars.size()), 2);
    QCOMPARE(events[1].scalars[0].first, std::string("train/box_loss"));
    QCOMPARE(events[1].scalars[0].second, 1.5f);
    QCOMPARE(events[1].scalars[1].first, std::string("metrics/mAP50(B)"));
    QCOMPARE(events[1].scalars[1].second, 0.25f);
    QCOMPARE(events[2].scalars[0].second, 0.01f);
    QCOMPARE(events[3].step, std::int64_t(123456789012LL));

    // A flipped byte in a record's data fails its CRC.
    std::string bytes;
    QVERIFY(hr::readFile(writer.path(), bytes));
    bytes[bytes.size() - 6] ^= 0x01;
    QVERIFY(hr::writeFileAtomically(writer.path(), bytes));
    events.clear();
    QVERIFY(!tfreader::readEvents(writer.path(), events, error));
    QVERIFY2(error.find("CRC") != std::string::npos, error.c_str());
}

QTEST_GUILESS_MAIN(TestResults)
#include "test_results.moc"
