// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_budget_guard.h"

#include "config/train_config.h"
#include "data/data_loader.h"
#include "data/recent_images.h"
#include "data/synthetic_dataset.h"
#include "image_fixtures.h"
#include "memory/cpu_memory_tracker.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/imgcodecs.hpp>

#include <numeric>
#include <random>
#include <thread>

namespace {

hr::DataConfig configFor(const QString& root, const std::vector<std::string>& names) {
    hr::DataConfig data;
    data.yamlPath = (root + "/data.yaml").toStdString();
    data.root = root.toStdString();
    data.train = {(root + "/images/train").toStdString()};
    data.val = {(root + "/images/val").toStdString()};
    data.names = names;
    return data;
}

/// A small synthetic data set (12 train images of 64 px) scanned once per test run.
std::shared_ptr<const hr::DatasetReport> syntheticReport(const QString& root) {
    hr::SyntheticOptions o;
    o.train = 12;
    o.val = 4;
    o.imgsz = 64;
    std::string error;
    if (!hr::makeSyntheticDataset(root.toStdString(), o, &error))
        return nullptr;
    hr::ScanOptions scan;
    scan.useCache = false;
    return std::make_shared<hr::DatasetReport>(
        hr::scanDataset(configFor(root, hr::syntheticClassNames()), hr::Split::Train, scan));
}

hr::LoaderOptions trainOptions() {
    hr::LoaderOptions o;
    o.imgsz = 64;
    o.batch = 4;
    o.workers = 2;
    o.seed = 11;
    o.epochs = 5;
    o.close_mosaic = 2;
    o.hyp.mixup = 0.3;
    o.hyp.degrees = 10;
    o.hyp.flipud = 0.2;
    return o;
}

std::vector<hr::Batch> epochOf(hr::DataLoader& loader, int epoch) {
    loader.startEpoch(epoch);
    std::vector<hr::Batch> out;
    hr::Batch b;
    while (loader.next(b))
        out.push_back(std::move(b));
    return out;
}

/// Threads of this process whose nice value is `nice` (Linux: /proc/self/task/*/stat).
int threadsAtNice(int nice) {
    int count = 0;
    for (const QString& task :
         QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile f("/proc/self/task/" + task + "/stat");
        if (!f.open(QIODevice::ReadOnly))
            continue;
        // The name in parentheses may hold spaces; the fields after it are plain. Nice is the
        // 19th field of the line, the 17th after the name.
        const QByteArray line = f.readAll();
        const QList<QByteArray> rest = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (rest.size() > 16 && rest[16].toInt() == nice)
            ++count;
    }
    return count;
}

bool sameBatches(const std::vector<hr::Batch>& a, const std::vector<hr::Batch>& b) {
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!torch::equal(a[i].images, b[i].images) || !torch::equal(a[i].targets, b[i].targets) ||
            a[i].paths != b[i].paths)
            return false;
    return true;
}

void writePng(const QString& path, int w, int h) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    cv::imwrite(path.toStdString(), cv::Mat(h, w, CV_8UC3, cv::Scalar(40, 80, 120)));
}

void writeText(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    f.open(QIODevice::WriteOnly | QIODevice::Truncate);
    f.write(text);
}

} // namespace

class TestDataLoader : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void batchesHaveTheContractShapes();
    void sameSeedGivesIdenticalBatches();
    void closeMosaicAndEpochOrder();
    void validationTargetsFollowTheLetterbox();
    void rectangularValidationBatches();
    void stopsCleanlyMidEpochAndBoundsMemory();
    void ramAndDiskCacheGiveTheSameBatches();
    void survivesCorruptData();
    void namesImagesOnlyDecodingFinds();
    void optionsFromTrainConfig();
    void workersAllocateOutsideTheBudget();
    void backgroundWorkersTakeTheLowestPriority();
    void mosaicKeepsTheImagesItReadLast();
    void mosaicKeepsTheWholeSetWhenItFits();
    void recentImagesKeepTheLastPositions();

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const hr::DatasetReport> m_report;
};

void TestDataLoader::initTestCase() {
    m_report = syntheticReport(m_dir.path() + "/synthetic");
    QVERIFY(m_report);
    QCOMPARE(int(m_report->images.size()), 12);
}

void TestDataLoader::batchesHaveTheContractShapes() {
    hr::DataLoader loader(m_report, trainOptions());
    QCOMPARE(loader.batchesPerEpoch(), 3);
    const auto batches = epochOf(loader, 0);
    QCOMPARE(int(batches.size()), 3);
    int rows = 0;
    for (const auto& b : batches) {
        QCOMPARE(b.images.sizes(), (torch::IntArrayRef{4, 3, 64, 64}));
        QCOMPARE(b.images.scalar_type(), torch::kUInt8);
        QCOMPARE(b.targets.dim(), 2);
        QCOMPARE(b.targets.size(1), 6);
        QCOMPARE(int(b.paths.size()), 4);
        QCOMPARE(int(b.letterbox.size()), 4);
        if (b.targets.size(0) > 0) {
            const auto idx = b.targets.select(1, 0);
            QVERIFY(idx.min().item<float>() >= 0 && idx.max().item<float>() <= 3);
            const auto xywh = b.targets.slice(1, 2, 6);
            QVERIFY(xywh.min().item<float>() >= 0.f && xywh.max().item<float>() <= 1.f);
            QVERIFY(b.targets.select(1, 4).min().item<float>() > 2.f / 64);
        }
        rows += int(b.targets.size(0));
    }
    QVERIFY(rows > 0);
    // Every image appears once per epoch.
    std::set<std::string> paths;
    for (const auto& b : batches)
        paths.insert(b.paths.begin(), b.paths.end());
    QCOMPARE(int(paths.size()), 12);
}

void TestDataLoader::sameSeedGivesIdenticalBatches() {
    hr::DataLoader a(m_report, trainOptions());
    hr::DataLoader b(m_report, trainOptions());
    const auto first = epochOf(a, 1);
    QVERIFY(sameBatches(first, epochOf(b, 1)));
    // The worker count does not change a batch either: three workers share a batch's four
    // images unevenly.
    hr::LoaderOptions one = trainOptions();
    for (int workers : {3, 1}) {
        one.workers = workers;
        hr::DataLoader c(m_report, one);
        QVERIFY(sameBatches(first, epochOf(c, 1)));
    }
    one.workers = 0;
    hr::DataLoader d(m_report, one);
    QVERIFY(sameBatches(first, epochOf(d, 1)));
    // Another seed gives other batches.
    hr::LoaderOptions other = trainOptions();
    other.seed = 12;
    hr::DataLoader e(m_report, other);
    QVERIFY(!sameBatches(first, epochOf(e, 1)));
    // Starting an epoch at batch k (an OOM recovery repositions so) gives the batches that
    // follow k, with and without workers.
    QVERIFY(first.size() > 2);
    for (int workers : {2, 0}) {
        hr::LoaderOptions o = trainOptions();
        o.workers = workers;
        hr::DataLoader f(m_report, o);
        f.startEpoch(1, 2);
        std::vector<hr::Batch> rest;
        hr::Batch batch;
        while (f.next(batch))
            rest.push_back(std::move(batch));
        QVERIFY(sameBatches(std::vector<hr::Batch>(first.begin() + 2, first.end()), rest));
    }
}

void TestDataLoader::closeMosaicAndEpochOrder() {
    hr::DataLoader loader(m_report, trainOptions()); // 5 epochs, close_mosaic 2
    const auto e0 = epochOf(loader, 0);
    QVERIFY(loader.mosaicActive());
    const auto e1 = epochOf(loader, 1);
    QVERIFY(e0[0].paths != e1[0].paths || e0[1].paths != e1[1].paths); // reshuffled
    epochOf(loader, 2);
    QVERIFY(loader.mosaicActive());
    epochOf(loader, 3);
    QVERIFY(!loader.mosaicActive());
    const auto e4 = epochOf(loader, 4);
    QVERIFY(!loader.mosaicActive());
    QCOMPARE(int(e4.size()), 3);
}

void TestDataLoader::validationTargetsFollowTheLetterbox() {
    hr::LoaderOptions o;
    o.imgsz = 64;
    o.batch = 5;
    o.augment = false;
    o.shuffle = false;
    o.workers = 2;
    hr::DataLoader loader(m_report, o);
    const auto batches = epochOf(loader, 0);
    QCOMPARE(int(batches.size()), 3); // 5 + 5 + 2
    QCOMPARE(batches[2].images.size(0), 2);
    int image = 0;
    for (const auto& b : batches) {
        for (int i = 0; i < b.images.size(0); ++i, ++image) {
            const hr::ImageRecord& record = m_report->images[image];
            QCOMPARE(b.paths[i], record.imagePath);
            QCOMPARE(b.letterbox[i].scale, 1.f);
            const auto rows = b.targets.index({b.targets.select(1, 0) == i});
            QCOMPARE(int(rows.size(0)), int(record.labels.size()));
            for (int k = 0; k < rows.size(0); ++k) {
                QCOMPARE(rows[k][1].item<float>(), float(record.labels[k].cls));
                QVERIFY(std::abs(rows[k][2].item<float>() - record.labels[k].cx) < 1e-6f);
                QVERIFY(std::abs(rows[k][5].item<float>() - record.labels[k].h) < 1e-6f);
            }
        }
    }
    // Pixels: the first image, unaugmented, is the file's pixels in RGB order, in the
    // channels-last layout the model uses on the CPU.
    QVERIFY(batches[0].images.is_contiguous(at::MemoryFormat::ChannelsLast));
    const cv::Mat file = cv::imread(m_report->images[0].imagePath);
    for (int c = 0; c < 3; ++c) {
        const int value = batches[0].images[0][c][10][20].item<int>();
        QCOMPARE(value, int(file.at<cv::Vec3b>(10, 20)[2 - c]));
    }
}

void TestDataLoader::rectangularValidationBatches() {
    QTemporaryDir dir;
    for (int i = 0; i < 3; ++i) {
        writePng(dir.path() + QString("/images/train/w%1.png").arg(i), 256, 128);
        writeText(dir.path() + QString("/labels/train/w%1.txt").arg(i), "0 0.5 0.5 0.5 0.5\n");
    }
    writePng(dir.path() + "/images/train/tall.png", 64, 128);
    hr::ScanOptions scan;
    scan.useCache = false;
    auto report = std::make_shared<hr::DatasetReport>(
        hr::scanDataset(configFor(dir.path(), {"a"}), hr::Split::Train, scan));
    QCOMPARE(int(report->images.size()), 4);
    hr::LoaderOptions o;
    o.imgsz = 128;
    o.batch = 3;
    o.augment = false;
    o.rect = true;
    o.workers = 1;
    hr::DataLoader loader(report, o);
    const auto batches = epochOf(loader, 0);
    QCOMPARE(int(batches.size()), 2);
    // Sorted by aspect ratio: the three wide images first, then the tall one alone. Batch
    // shapes follow Ultralytics: ceil(side * 128 / 32 + 0.5) * 32, i.e. 96 for the half side and
    // 160 for the full one.
    QCOMPARE(batches[0].images.sizes(), (torch::IntArrayRef{3, 3, 96, 160}));
    QCOMPARE(batches[1].images.sizes(), (torch::IntArrayRef{1, 3, 160, 96}));
    // 256 x 128 -> 128 x 64 (scale 0.5) centred in 160 x 96: 16 px of padding on each side.
    QCOMPARE(batches[0].letterbox[0].scale, 0.5f);
    QCOMPARE(batches[0].letterbox[0].padX, 16.f);
    QCOMPARE(batches[0].letterbox[0].padY, 16.f);
    const auto t = batches[0].targets[0];
    QVERIFY(std::abs(t[2].item<float>() - (32.f + 16.f + 32.f) / 160) < 1e-6f); // cx
    QVERIFY(std::abs(t[3].item<float>() - (16.f + 16.f + 16.f) / 96) < 1e-6f);  // cy
    QVERIFY(std::abs(t[4].item<float>() - 64.f / 160) < 1e-6f);                 // w
    QVERIFY(std::abs(t[5].item<float>() - 32.f / 96) < 1e-6f);                  // h
    QCOMPARE(batches[1].targets.size(0), 0); // the tall image has no label file
}

void TestDataLoader::stopsCleanlyMidEpochAndBoundsMemory() {
    hr::LoaderOptions o = trainOptions();
    o.batch = 1;
    o.prefetch = 2;
    hr::DataLoader loader(m_report, o);
    loader.startEpoch(0);
    hr::Batch b;
    QVERIFY(loader.next(b));
    const std::int64_t perBatch = b.bytes();
    // Wait until the workers have filled the queue to the prefetch depth (2 batches).
    const auto queueFull = 2 * static_cast<std::int64_t>(b.images.nbytes());
    QTRY_VERIFY_WITH_TIMEOUT(loader.hostBytesInFlight() >= queueFull, 10000);
    QVERIFY2(loader.hostBytesInFlight() <= 2 * perBatch + 2 * 64 * 6 * 4,
             qPrintable(QString::number(loader.hostBytesInFlight())));
    QElapsedTimer timer;
    timer.start();
    loader.stop();
    QVERIFY(timer.elapsed() < 2000);
    QVERIFY(!loader.next(b));
    QCOMPARE(loader.hostBytesInFlight(), 0);
    // The forecast covers the queue (2 batches) and both workers' batch plus working images.
    QVERIFY(loader.hostBytesEstimate() >= 4 * 3 * 64 * 64 + 2 * 11 * 64 * 64 * 3);
    QVERIFY(loader.error().empty());
    // A new epoch after a stop works again.
    QCOMPARE(int(epochOf(loader, 1).size()), 12);
}

void TestDataLoader::ramAndDiskCacheGiveTheSameBatches() {
    QTemporaryDir cacheHome;
    qputenv("XDG_CACHE_HOME", cacheHome.path().toUtf8());
    hr::LoaderOptions o = trainOptions();
    hr::DataLoader plain(m_report, o);
    const auto reference = epochOf(plain, 0);
    QCOMPARE(plain.cacheBytesEstimate(), 0);

    o.cache = "ram";
    hr::DataLoader ram(m_report, o);
    QCOMPARE(ram.cacheBytesEstimate(), 12LL * 64 * 64 * 3); // known before filling
    QCOMPARE(ram.cacheBytesFilled(), 0);
    QVERIFY(sameBatches(reference, epochOf(ram, 0)));
    QCOMPARE(ram.cacheBytesFilled(), ram.cacheBytesEstimate());
    QVERIFY(sameBatches(reference, epochOf(ram, 0)));

    o.cache = "disk";
    hr::DataLoader disk(m_report, o);
    QVERIFY(sameBatches(reference, epochOf(disk, 0)));
    QCOMPARE(QDir(cacheHome.path() + "/headroom/images").entryList(QDir::Files).size(), 12);
    QVERIFY(sameBatches(reference, epochOf(disk, 0))); // now read from the cache files
    qunsetenv("XDG_CACHE_HOME");
}

void TestDataLoader::survivesCorruptData() {
    QTemporaryDir dir;
    const QString root = dir.path();
    writePng(root + "/images/train/good.png", 40, 30);
    writeText(root + "/labels/train/good.txt", "0 0.5 0.5 0.5 0.5\n0 nan 1\n7 0.5 0.5 0.1 0.1\n");
    writePng(root + "/images/train/later_broken.png", 40, 30);
    writeText(root + "/labels/train/later_broken.txt", "0 0.5 0.5 0.5 0.5\n");
    writeText(root + "/images/train/zero.png", QByteArray());
    QFile png(root + "/images/train/good.png");
    png.open(QIODevice::ReadOnly);
    writeText(root + "/images/train/truncated.png", png.readAll().left(40));
    hr::ScanOptions scan;
    scan.useCache = false;
    auto report = std::make_shared<hr::DatasetReport>(
        hr::scanDataset(configFor(root, {"a"}), hr::Split::Train, scan));
    QCOMPARE(int(report->images.size()), 2);
    QCOMPARE(report->stats.skipped, 2);
    // Broken after the scan: the loader substitutes a grey background.
    writeText(root + "/images/train/later_broken.png", "not a png");
    hr::LoaderOptions o = trainOptions();
    o.batch = 2;
    hr::DataLoader loader(report, o);
    const auto batches = epochOf(loader, 0);
    QCOMPARE(int(batches.size()), 1);
    QVERIFY(loader.error().empty());
    QVERIFY(loader.loadFailures() > 0);
}

void TestDataLoader::namesImagesOnlyDecodingFinds() {
    // A JPEG with garbage Huffman tables passes the scan's header check. Training and
    // validation go on with a grey image without objects in its place, and the loader names
    // the file once, with readImage's words and code.
    QTemporaryDir dir;
    const QString root = dir.path();
    writePng(root + "/images/train/good.png", 40, 30);
    writeText(root + "/labels/train/good.txt", "0 0.5 0.5 0.5 0.5\n");
    writeText(root + "/images/train/garbled.jpg", fixtures::garbledJpeg(40, 30));
    writeText(root + "/labels/train/garbled.txt", "0 0.5 0.5 0.5 0.5\n");
    hr::ScanOptions scan;
    scan.useCache = false;
    auto report = std::make_shared<hr::DatasetReport>(
        hr::scanDataset(configFor(root, {"a"}), hr::Split::Train, scan));
    QCOMPARE(int(report->images.size()), 2);
    QCOMPARE(report->stats.skipped, 0);
    const bool garbledFirst = QString::fromStdString(report->images[0].imagePath)
                                  .endsWith(QStringLiteral("/garbled.jpg"));

    hr::LoaderOptions o = trainOptions();
    o.batch = 2;
    hr::DataLoader training(report, o);
    QCOMPARE(int(epochOf(training, 0).size()), 1);
    QCOMPARE(int(epochOf(training, 1).size()), 1);
    QVERIFY(training.error().empty());
    QVERIFY(training.loadFailures() >= 2); // once an epoch at least
    const std::vector<hr::UnreadableImage> unreadable = training.unreadableImages();
    QCOMPARE(int(unreadable.size()), 1);
    QVERIFY2(QString::fromStdString(unreadable[0].path).endsWith("/images/train/garbled.jpg"),
             unreadable[0].path.c_str());
    QCOMPARE(unreadable[0].reason, std::string("not_decodable"));
    QVERIFY2(unreadable[0].error.find("not a decodable image") == 0, unreadable[0].error.c_str());

    o.augment = false;
    o.shuffle = false;
    hr::DataLoader validation(report, o);
    const std::vector<hr::Batch> batches = epochOf(validation, 0);
    QCOMPARE(int(batches.size()), 1);
    QVERIFY(validation.error().empty());
    QCOMPARE(int(validation.unreadableImages().size()), 1);
    // Only the good image's object is a target.
    const torch::Tensor& targets = batches[0].targets;
    QCOMPARE(int(targets.size(0)), 1);
    QCOMPARE(targets[0][0].item<float>(), garbledFirst ? 1.0f : 0.0f);
}

void TestDataLoader::optionsFromTrainConfig() {
    hr::TrainConfig c;
    c.imgsz = 320;
    c.batch = 8;
    c.workers = 64;
    c.mosaic = 0.5;
    c.scale = 0.25;
    c.close_mosaic = 3;
    c.cache = "ram";
    const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA);
    const auto train = hr::LoaderOptions::fromConfig(c, true, cpu);
    QCOMPARE(train.imgsz, 320);
    QCOMPARE(train.batch, 8);
    QVERIFY(train.workers >= 1 && train.workers <= int(std::thread::hardware_concurrency()));
    QVERIFY(train.augment && train.shuffle && !train.rect);
    QCOMPARE(train.hyp.mosaic, 0.5);
    QCOMPARE(train.hyp.scale, 0.25);
    QCOMPARE(train.close_mosaic, 3);
    QCOMPARE(train.cache, std::string("ram"));
    const auto val = hr::LoaderOptions::fromConfig(c, false, cpu);
    QCOMPARE(val.batch, 8); // the training batch (validationBatch)
    QVERIFY(!val.augment && !val.shuffle && val.rect);
    // Background workers for a model on the CPU only.
    QVERIFY(train.background && val.background);
    QVERIFY(!hr::LoaderOptions::fromConfig(c, true, cuda).background);

    // Every augmentation setting reaches the loader under its own name.
    hr::TrainConfig distinct;
    double* const fields[] = {&distinct.hsv_h,   &distinct.hsv_s,       &distinct.hsv_v,
                              &distinct.degrees, &distinct.translate,   &distinct.scale,
                              &distinct.shear,   &distinct.perspective, &distinct.flipud,
                              &distinct.fliplr,  &distinct.mosaic,      &distinct.mixup};
    for (size_t i = 0; i < std::size(fields); ++i)
        *fields[i] = 0.01 * double(i + 1);
    const hr::AugmentParams hyp = hr::LoaderOptions::fromConfig(distinct, true, cpu).hyp;
    const double got[] = {hyp.hsv_h,     hyp.hsv_s,  hyp.hsv_v,  hyp.degrees,
                          hyp.translate, hyp.scale,  hyp.shear,  hyp.perspective,
                          hyp.flipud,    hyp.fliplr, hyp.mosaic, hyp.mixup};
    for (size_t i = 0; i < std::size(got); ++i)
        QCOMPARE(got[i], 0.01 * double(i + 1));

    // Without a config, the options are a default TrainConfig's: each default lives there.
    const hr::TrainConfig defaults;
    const hr::LoaderOptions plain;
    QCOMPARE(plain.imgsz, defaults.imgsz);
    QCOMPARE(plain.batch, defaults.batch);
    QCOMPARE(plain.epochs, defaults.epochs);
    QCOMPARE(plain.close_mosaic, defaults.close_mosaic);
    QCOMPARE(plain.cache, defaults.cache);
    QCOMPARE(plain.rect, defaults.rect);
    QCOMPARE(plain.hyp.mosaic, defaults.mosaic);
    QCOMPARE(plain.hyp.fliplr, defaults.fliplr);
    QCOMPARE(hr::AugmentParams().hsv_s, defaults.hsv_s);
    QVERIFY(plain.augment && plain.shuffle && !plain.background);
}

void TestDataLoader::workersAllocateOutsideTheBudget() {
    // The budget simulates a device: batches the workers build and queue are host memory and
    // must neither count nor be refused (issue 15: a worker's 37.5 MiB collate was refused and
    // ended the run). A budget of 64 KiB is far below one 4 x 64 px batch (196 KiB).
    auto& tracker = hr::CpuMemoryTracker::instance();
    tracker.install();
    const std::int64_t before = tracker.allocated();
    const hr::testing::CpuBudgetGuard budget(before + 64 * 1024);
    for (int workers : {2, 0}) {
        hr::LoaderOptions o = trainOptions();
        o.workers = workers;
        hr::DataLoader loader(m_report, o);
        const std::vector<hr::Batch> batches = epochOf(loader, 0);
        QVERIFY2(loader.error().empty(), loader.error().c_str());
        QCOMPARE(int(batches.size()), 3);
        QCOMPARE(tracker.allocated(), before);
        QVERIFY(tracker.hostAllocated() >= 3 * batches.front().bytes());
    }
}

void TestDataLoader::backgroundWorkersTakeTheLowestPriority() {
    // With a one-batch queue the workers wait, alive, once it is full.
    const int before = threadsAtNice(19);
    hr::LoaderOptions o = trainOptions();
    o.batch = 1;
    o.prefetch = 1;
    o.background = false;
    {
        hr::DataLoader normal(m_report, o);
        normal.startEpoch(0);
        QTRY_VERIFY_WITH_TIMEOUT(normal.hostBytesInFlight() > 0, 10000);
        QCOMPARE(threadsAtNice(19), before);
    }
    o.background = true;
    hr::DataLoader background(m_report, o);
    background.startEpoch(0);
    QTRY_COMPARE_WITH_TIMEOUT(threadsAtNice(19), before + o.workers, 10000);
    // They build the same batches.
    hr::DataLoader plain(m_report, trainOptions());
    hr::LoaderOptions low = trainOptions();
    low.background = true;
    hr::DataLoader lowered(m_report, low);
    QVERIFY(sameBatches(epochOf(plain, 0), epochOf(lowered, 0)));
}

void TestDataLoader::mosaicKeepsTheImagesItReadLast() {
    // Every image gets a mosaic of itself and three images drawn from the whole set. The loader
    // keeps the images it read (a set this small, all of them) and takes a mosaic's images from
    // them when it can: once all 12 are kept, an epoch reads no file (it would read 48 without
    // them).
    hr::LoaderOptions o = trainOptions();
    o.workers = 0;
    o.hyp.mixup = 0.0;
    o.hyp.mosaic = 1.0;
    o.close_mosaic = 0;
    hr::DataLoader loader(m_report, o);
    QCOMPARE(int(epochOf(loader, 0).size()), 3);
    const std::int64_t first = loader.imagesRead();
    QVERIFY2(first >= 12 && first < 48, qPrintable(QString::number(first)));
    QCOMPARE(int(epochOf(loader, 1).size()), 3);
    QCOMPARE(loader.imagesRead(), first);
    // Ultralytics' buffer would hold 8 + 2 images of 12 at batch 1; the whole set fits the
    // allowance, so an epoch after the first still reads nothing, with workers or without.
    o.batch = 1;
    for (int workers : {0, 2}) {
        o.workers = workers;
        hr::DataLoader small(m_report, o);
        epochOf(small, 0);
        const std::int64_t before = small.imagesRead();
        epochOf(small, 1);
        QCOMPARE(small.imagesRead() - before, std::int64_t(0));
    }
    // Without mosaic nothing is kept.
    o.workers = 0;
    o.hyp.mosaic = 0.0;
    hr::DataLoader plain(m_report, o);
    epochOf(plain, 0);
    epochOf(plain, 1);
    QCOMPARE(plain.imagesRead(), std::int64_t(24));
}

void TestDataLoader::mosaicKeepsTheWholeSetWhenItFits() {
    const std::int64_t at320 = hr::RecentImages::slotBytesFor(320);
    const std::int64_t at640 = hr::RecentImages::slotBytesFor(640);
    // A few hundred photos at 320 px (75 MiB): all of them, not Ultralytics' 8 batches.
    QCOMPARE(hr::mosaicBufferFor(256, 16, at320), 256);
    // Larger than 256 MiB: Ultralytics' buffer, eight batches, at most 1000.
    QCOMPARE(hr::mosaicBufferFor(1000, 16, at640), 128);
    QCOMPARE(hr::mosaicBufferFor(118287, 16, at320), 128);
    QCOMPARE(hr::mosaicBufferFor(118287, 256, at640), 1000);
    // Never fewer than one slot.
    QCOMPARE(hr::mosaicBufferFor(0, 16, at320), 1);
}

void TestDataLoader::recentImagesKeepTheLastPositions() {
    // 256 images in a shuffled order and room for 130. Each position's image is used (read and
    // kept when missing), then three images of the last 128 positions are looked up without
    // use: all must be kept, however often they were looked up before (only a use orders).
    hr::RecentImages recent;
    recent.reserve(130, 8);
    std::vector<int> order(256);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 random(5);
    std::shuffle(order.begin(), order.end(), random);
    cv::Mat out;
    int partnersMissing = 0;
    for (int p = 0; p < 256; ++p) {
        const cv::Mat image(4 + p % 5, 8, CV_8UC3, cv::Scalar(p % 256, 1, 2));
        QVERIFY(!recent.find(order[p], out, true));
        recent.keep(order[p], image);
        for (int k = 0; k < 3; ++k) {
            const int q = p - int(random() % std::uint32_t(std::min(128, p + 1)));
            if (!recent.find(order[q], out, false))
                ++partnersMissing;
            else if (out.rows != 4 + q % 5 || out.at<cv::Vec3b>(0, 0)[0] != q % 256)
                QFAIL("a kept image came back changed");
        }
    }
    QCOMPARE(partnersMissing, 0);
    // The next pass starts with the last 130 positions' images kept.
    int kept = 0;
    for (int p = 0; p < 256; ++p)
        kept += recent.find(order[p], out, false) ? 1 : 0;
    QCOMPARE(kept, 130);
    // An image larger than a slot is not kept.
    recent.keep(1000, cv::Mat(9, 8, CV_8UC3));
    QVERIFY(!recent.find(1000, out, false));
}

QTEST_APPLESS_MAIN(TestDataLoader)
#include "test_data_loader.moc"
