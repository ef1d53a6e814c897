// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/data_loader.h"

#include "config/train_config.h"
#include "config/train_rules.h"
#include "data/image_disk_cache.h"
#include "data/image_io.h"
#include "data/label_cache.h"
#include "data/recent_images.h"
#include "memory/cpu_memory_tracker.h"
#include "util/text.h"
#include "util/thread_priority.h"
#include "util/user_message.h"

#include <c10/util/Exception.h>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <unordered_set>

namespace fs = std::filesystem;

namespace hr {

namespace {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    std::uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x632be59bd9b4e019ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// An image after loading: resized so that its longer side is imgsz, with pixel boxes.
struct Sample {
    cv::Mat image;
    PixelBoxes boxes;
};

} // namespace

LoaderOptions::LoaderOptions() : LoaderOptions(TrainConfig{}, true, torch::Device(torch::kCUDA)) {}

LoaderOptions::LoaderOptions(const TrainConfig& c, bool training, const torch::Device& device)
    : imgsz(c.imgsz), augment(training), shuffle(training && !c.rect),
      rect(training ? c.rect : true), seed(static_cast<std::uint64_t>(c.seed)), cache(c.cache),
      epochs(c.epochs), close_mosaic(c.close_mosaic), hyp(c), background(device.is_cpu()) {
    const int trainBatch = c.batch > 0 ? c.batch : TrainConfig{}.batch;
    batch = training ? trainBatch : validationBatch(c, trainBatch);
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    workers = std::clamp(c.workers, 0, cores);
}

LoaderOptions LoaderOptions::fromConfig(const TrainConfig& config, bool training,
                                        const torch::Device& device) {
    return LoaderOptions(config, training, device);
}

namespace {

/// This rank's part of `order`: padded by repeating its start to a multiple of `ranks`, then
/// every ranks-th entry from `rank` (PyTorch's DistributedSampler without drop_last).
std::vector<int> shardOf(const std::vector<int>& order, int rank, int ranks) {
    if (ranks <= 1 || order.empty())
        return order;
    const size_t n = order.size();
    const size_t padded = (n + static_cast<size_t>(ranks) - 1) / ranks * ranks;
    std::vector<int> mine;
    mine.reserve(padded / ranks);
    for (size_t i = static_cast<size_t>(rank); i < padded; i += static_cast<size_t>(ranks))
        mine.push_back(order[i % n]);
    return mine;
}

std::int64_t shardSize(std::int64_t images, int ranks) {
    return ranks <= 1 ? images : (images + ranks - 1) / ranks;
}

} // namespace

struct DataLoader::State {
    std::shared_ptr<const DatasetReport> data;
    LoaderOptions opt;

    // The running epoch; fixed while its workers run.
    int epoch = -1;
    bool mosaicOn = false;
    std::vector<std::vector<int>> batches; ///< image indices per batch, in hand-out order
    std::vector<cv::Size> batchShapes;     ///< (w, h) of each batch's images

    /// A batch that workers build an image at a time, each image by whichever is free.
    struct Building {
        Batch batch;
        std::vector<std::vector<float>> targets; ///< each image's rows of Batch::targets
        int claimed = 0;                         ///< images a worker has taken
        int finished = 0;
    };

    mutable std::mutex mutex;
    std::condition_variable workAvailable; ///< workers wait for an image to build
    std::condition_variable batchReady;    ///< next() waits for its batch
    std::vector<std::thread> threads;
    std::map<std::int64_t, Building> building;
    std::map<std::int64_t, Batch> ready;
    std::int64_t nextToHand = 0;
    std::int64_t nextToBuild = 0; ///< the next batch to start building
    bool stopping = false;
    std::string error;
    bool errorOutOfMemory = false; ///< the failure was an allocation (host memory)
    /// Records why building a batch failed (under `mutex`).
    void fail(const std::exception& e);
    /// fail() under `mutex`, and wakes the consumer and the other workers.
    void failWorker(const std::exception& e);
    std::atomic<std::int64_t> bytesInFlight{0};

    std::mutex cacheMutex;
    std::vector<cv::Mat> ram;
    /// The images used last at their own positions, as many as Ultralytics' mosaic buffer
    /// holds: a mosaic's other images are often among them and then come without reading
    /// their files. Under cacheMutex.
    RecentImages recent;
    std::atomic<std::int64_t> filesRead{0};
    std::atomic<std::int64_t> cacheFilled{0};
    std::atomic<int> failures{0};
    mutable std::mutex unreadableMutex;
    std::vector<UnreadableImage> unreadable;
    std::unordered_set<int> unreadableIndices;
    void noteUnreadable(int index, std::string error, std::string reason);

    int imageCount() const { return static_cast<int>(data->images.size()); }

    void planEpoch(int e);
    /// Whether images are kept for mosaic: only mosaic reads them, and a RAM cache holds all.
    bool keepsImages(bool mosaic) const { return mosaic && opt.cache != "ram"; }
    /// Images kept for mosaic.
    size_t recentCapacity() const {
        const std::int64_t images = shardSize(imageCount(), opt.shardCount);
        // The images kept (mosaicBufferFor), and room for those the workers have in hand.
        return static_cast<size_t>(
            mosaicBufferFor(images, opt.batch, RecentImages::slotBytesFor(opt.imgsz)) +
            2 * std::max(1, opt.workers));
    }
    void joinWorkers();
    void workerLoop();
    /// The building batch with an image no worker has taken, earliest first, started here
    /// when there is room in the queue; null when there is none (under `mutex`).
    Building* batchWithWork(std::int64_t& index);
    int batchSize(std::int64_t index) const {
        return static_cast<int>(batches[static_cast<size_t>(index)].size());
    }
    /// The batch's image tensor, sized, with its per-image fields empty.
    void startBatch(std::int64_t index, Batch& out) const;
    /// Decodes and augments image `slot` of batch `index` into its place in `out`, its target
    /// rows into `targets`.
    void buildImage(std::int64_t index, int slot, Batch& out, std::vector<float>& targets);
    void buildBatch(std::int64_t index, Batch& out);
    /// `keep`: the image at its own position, kept for later mosaics.
    cv::Mat loadImage(int index, bool& failed, bool keep = false);
    Sample loadSample(int index, bool keep = false);
    /// The augmented image `index`. `own`: the image at its own position in the epoch (not a
    /// mixup partner), which may get a mixup partner and is kept for later mosaics.
    Sample trainSample(int index, cv::Size shape, AugmentRandom& random, bool own);
};

void DataLoader::State::planEpoch(int e) {
    epoch = e;
    const int n = imageCount();
    const int b = std::max(1, opt.batch);
    mosaicOn = opt.augment && !opt.rect && opt.hyp.mosaic > 0.0 &&
               e < opt.epochs - std::max(0, opt.close_mosaic);
    batches.clear();
    batchShapes.clear();
    {
        std::lock_guard<std::mutex> lock(cacheMutex);
        if (keepsImages(mosaicOn))
            recent.reserve(recentCapacity(), opt.imgsz);
        else
            recent = RecentImages();
    }
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i)
        order[i] = i;
    if (opt.rect) {
        // Batches of similar aspect ratio, each padded only to its own shape (Ultralytics).
        std::vector<double> aspect(n);
        for (int i = 0; i < n; ++i) {
            const auto& r = data->images[i];
            aspect[i] = r.width > 0 ? static_cast<double>(r.height) / r.width : 1.0;
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return aspect[x] < aspect[y]; });
        order = shardOf(order, opt.shardRank, opt.shardCount);
        const int count = static_cast<int>(order.size());
        for (int start = 0; start < count; start += b) {
            const int end = std::min(count, start + b);
            const double lo = aspect[order[start]], hi = aspect[order[end - 1]];
            double shapeH = 1.0, shapeW = 1.0; // relative to imgsz
            if (hi < 1.0)
                shapeH = hi;
            else if (lo > 1.0)
                shapeW = 1.0 / lo;
            constexpr int stride = 32;
            constexpr double pad = 0.5;
            const int h = static_cast<int>(std::ceil(shapeH * opt.imgsz / stride + pad)) * stride;
            const int w = static_cast<int>(std::ceil(shapeW * opt.imgsz / stride + pad)) * stride;
            batches.emplace_back(order.begin() + start, order.begin() + end);
            batchShapes.emplace_back(w, h);
        }
        return;
    }
    if (opt.shuffle) {
        // Fisher-Yates with a portable generator: the same order on every platform.
        AugmentRandom random(mix(opt.seed, 0x5eed0000ULL + static_cast<std::uint64_t>(e)));
        for (int i = n - 1; i > 0; --i)
            std::swap(order[i], order[random.index(i + 1)]);
    }
    order = shardOf(order, opt.shardRank, opt.shardCount);
    const int count = static_cast<int>(order.size());
    for (int start = 0; start < count; start += b) {
        batches.emplace_back(order.begin() + start, order.begin() + std::min(count, start + b));
        batchShapes.emplace_back(opt.imgsz, opt.imgsz);
    }
}

cv::Mat DataLoader::State::loadImage(int index, bool& failed, bool keep) {
    failed = false;
    const ImageRecord& record = data->images[index];
    {
        std::lock_guard<std::mutex> lock(cacheMutex);
        if (opt.cache == "ram" && !ram[index].empty())
            return ram[index];
        cv::Mat kept;
        if (recent.find(index, kept, keep)) // empty unless keepsImages(mosaicOn)
            return kept;
    }
    ++filesRead;
    cv::Mat image;
    std::string error, reason;
    // Training decodes large JPEGs at a reduced scale (a sixth less loader time for 640x480
    // photos at 320 px); validation in full, as Ultralytics' validator does, so the mAPs agree.
    const JpegDecode decode = opt.augment ? JpegDecode::Reduced : JpegDecode::Full;
    if (opt.cache == "disk") {
        const FileStamp stamp = FileStamp::of(record.imagePath);
        const std::string path = diskCachePath(record.imagePath, opt.imgsz, decode);
        if (!readDiskCache(path, stamp, image)) {
            image = readImageResized(record.imagePath, opt.imgsz, &error, &reason, decode);
            if (!image.empty())
                writeDiskCache(path, stamp, image);
        }
    } else {
        image = readImageResized(record.imagePath, opt.imgsz, &error, &reason, decode);
    }
    if (image.empty()) {
        // Damaged coded data that the header check let through, or a file that changed after
        // the scan: a grey background keeps training going.
        ++failures;
        noteUnreadable(index, error, reason);
        failed = true;
        const double r =
            static_cast<double>(opt.imgsz) / std::max({record.width, record.height, 1});
        image = cv::Mat(std::max(1, static_cast<int>(std::lround(record.height * r))),
                        std::max(1, static_cast<int>(std::lround(record.width * r))), CV_8UC3,
                        cv::Scalar::all(kPadValue));
        return image;
    }
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (opt.cache == "ram" && ram[index].empty()) {
        ram[index] = image;
        cacheFilled += static_cast<std::int64_t>(image.total() * image.elemSize());
    }
    if (keep)
        recent.keep(index, image);
    return image;
}

Sample DataLoader::State::loadSample(int index, bool keep) {
    Sample s;
    bool failed = false;
    s.image = loadImage(index, failed, keep);
    // A grey stand-in for a broken image carries no objects.
    if (!failed)
        s.boxes = toPixelBoxes(data->images[index].labels, s.image.cols, s.image.rows);
    return s;
}

Sample DataLoader::State::trainSample(int index, cv::Size shape, AugmentRandom& random, bool own) {
    Sample out;
    double scale = 1.0;
    const bool square = shape.width == opt.imgsz && shape.height == opt.imgsz;
    if (mosaicOn && square && random.chance(opt.hyp.mosaic)) {
        const int s = opt.imgsz;
        std::array<cv::Mat, 4> images;
        std::array<PixelBoxes, 4> boxes;
        for (int k = 0; k < 4; ++k) {
            Sample part = k == 0 ? loadSample(index, own) : loadSample(random.index(imageCount()));
            images[k] = part.image;
            boxes[k] = std::move(part.boxes);
        }
        const int xc = static_cast<int>(random.uniform(s / 2.0, 1.5 * s));
        const int yc = static_cast<int>(random.uniform(s / 2.0, 1.5 * s));
        cv::Mat canvas;
        PixelBoxes placed;
        mosaic4(images, boxes, s, cv::Point(xc, yc), canvas, placed);
        const cv::Matx33d M = randomAffineMatrix(opt.hyp, canvas.size(), shape, random, &scale);
        warpWithBoxes(canvas, out.image, M, shape, placed, scale);
        out.boxes = std::move(placed);
    } else {
        Sample loaded = loadSample(index, own);
        cv::Mat boxed;
        letterbox(loaded.image, boxed, shape, true, &loaded.boxes);
        const cv::Matx33d M = randomAffineMatrix(opt.hyp, boxed.size(), shape, random, &scale);
        warpWithBoxes(boxed, out.image, M, shape, loaded.boxes, scale);
        out.boxes = std::move(loaded.boxes);
    }
    if (own && random.chance(opt.hyp.mixup) && mosaicOn) {
        Sample other = trainSample(random.index(imageCount()), shape, random, false);
        mixup(out.image, out.boxes, other.image, other.boxes, random);
    }
    return out;
}

void DataLoader::State::startBatch(std::int64_t index, Batch& out) const {
    const cv::Size shape = batchShapes[static_cast<size_t>(index)];
    const int count = batchSize(index);
    out.images = torch::empty(
        {count, 3, shape.height, shape.width},
        torch::TensorOptions(torch::kUInt8).memory_format(torch::MemoryFormat::ChannelsLast));
    out.paths.assign(static_cast<size_t>(count), std::string());
    out.letterbox.assign(static_cast<size_t>(count), LetterboxInfo{});
}

namespace {

/// Batch::targets from each image's rows, in image order.
void collateTargets(const std::vector<std::vector<float>>& perImage, Batch& out) {
    size_t values = 0;
    for (const auto& rows : perImage)
        values += rows.size();
    out.targets = torch::empty({static_cast<std::int64_t>(values / 6), 6}, torch::kFloat32);
    float* at = out.targets.data_ptr<float>();
    for (const auto& rows : perImage) {
        if (!rows.empty())
            std::memcpy(at, rows.data(), rows.size() * sizeof(float));
        at += rows.size();
    }
}

} // namespace

void DataLoader::State::buildImage(std::int64_t index, int i, Batch& out,
                                   std::vector<float>& targets) {
    const cv::Size shape = batchShapes[static_cast<size_t>(index)];
    const int imageIndex = batches[static_cast<size_t>(index)][static_cast<size_t>(i)];
    const ImageRecord& record = data->images[imageIndex];
    // Everything random about this image depends on the seed, the epoch and its position.
    AugmentRandom random(mix(mix(opt.seed, static_cast<std::uint64_t>(epoch)),
                             static_cast<std::uint64_t>(index * opt.batch + i)));
    Sample sample;
    LetterboxInfo info;
    info.originalW = record.width;
    info.originalH = record.height;
    try {
        if (opt.augment) {
            sample = trainSample(imageIndex, shape, random, true);
            augmentHsv(sample.image, opt.hyp.hsv_h, opt.hyp.hsv_s, opt.hyp.hsv_v, random);
            if (random.chance(opt.hyp.flipud))
                flipVertical(sample.image, sample.boxes);
            if (random.chance(opt.hyp.fliplr))
                flipHorizontal(sample.image, sample.boxes);
        } else {
            Sample loaded = loadSample(imageIndex);
            const LetterboxInfo boxed =
                letterbox(loaded.image, sample.image, shape, false, &loaded.boxes);
            sample.boxes = std::move(loaded.boxes);
            const float loadScale =
                record.width > 0 ? static_cast<float>(loaded.image.cols) / record.width : 1.f;
            info.scale = loadScale * boxed.scale;
            info.padX = boxed.padX;
            info.padY = boxed.padY;
        }
    } catch (const cv::Exception&) {
        // OpenCV's message names its own source file and line: not words for a user.
        ++failures;
        noteUnreadable(imageIndex, "OpenCV could not prepare the image for training",
                       "cannot_process");
        sample.image = cv::Mat(shape, CV_8UC3, cv::Scalar::all(kPadValue));
        sample.boxes.clear();
    }
    if (opt.augment) {
        // Position of the plain letterbox of this image, for reference.
        const double r = std::min(static_cast<double>(shape.width) / std::max(1, record.width),
                                  static_cast<double>(shape.height) / std::max(1, record.height));
        info.scale = static_cast<float>(r);
        info.padX = static_cast<float>((shape.width - std::lround(record.width * r)) / 2);
        info.padY = static_cast<float>((shape.height - std::lround(record.height * r)) / 2);
    }
    // BGR -> RGB, in place in the batch's channels-last memory: the model's layout on the CPU,
    // so the trainer thread does not transpose the batch. Bytes, not floats: a quarter of the
    // memory to fill and queue here and to copy to a GPU; the trainer scales them
    // (docs/decisions.md, "8-bit batches").
    const std::int64_t plane = static_cast<std::int64_t>(shape.width) * shape.height;
    cv::Mat target(shape, CV_8UC3,
                   out.images.data_ptr<std::uint8_t>() + static_cast<std::int64_t>(i) * 3 * plane);
    cv::cvtColor(sample.image, target, cv::COLOR_BGR2RGB);
    const float W = static_cast<float>(shape.width), H = static_cast<float>(shape.height);
    targets.clear();
    for (const auto& b : sample.boxes) {
        targets.insert(targets.end(),
                       {static_cast<float>(i), static_cast<float>(b.cls), (b.x1 + b.x2) / 2 / W,
                        (b.y1 + b.y2) / 2 / H, b.width() / W, b.height() / H});
    }
    out.paths[static_cast<size_t>(i)] = record.imagePath;
    out.letterbox[static_cast<size_t>(i)] = info;
}

void DataLoader::State::buildBatch(std::int64_t index, Batch& out) {
    startBatch(index, out);
    std::vector<std::vector<float>> targets(static_cast<size_t>(batchSize(index)));
    for (int i = 0; i < batchSize(index); ++i)
        buildImage(index, i, out, targets[static_cast<size_t>(i)]);
    collateTargets(targets, out);
}

void DataLoader::State::noteUnreadable(int index, std::string error, std::string reason) {
    std::lock_guard<std::mutex> lock(unreadableMutex);
    if (unreadableIndices.insert(index).second)
        unreadable.push_back(
            {data->images[size_t(index)].imagePath, std::move(error), std::move(reason)});
}

void DataLoader::State::fail(const std::exception& e) {
    stopping = true;
    if (!error.empty())
        return; // the first failure is the one to report
    const std::string what = toLower(userMessage(e));
    errorOutOfMemory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
                       dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr ||
                       what.find("out of memory") != std::string::npos ||
                       what.find("memory exhausted") != std::string::npos ||
                       what.find("insufficient memory") != std::string::npos;
    error = "data loader: " + userMessage(e);
}

DataLoader::State::Building* DataLoader::State::batchWithWork(std::int64_t& index) {
    for (auto& [i, b] : building)
        if (b.claimed < batchSize(i)) {
            index = i;
            return &b;
        }
    const auto total = static_cast<std::int64_t>(batches.size());
    if (nextToBuild >= total || nextToBuild >= nextToHand + std::max(1, opt.prefetch))
        return nullptr;
    index = nextToBuild++;
    Building& b = building[index];
    // Host memory, as on a GPU machine (docs/ARCHITECTURE.md: What counts against a CPU
    // budget): the batch counts once the trainer moves it to the device.
    HostAllocationScope host;
    startBatch(index, b.batch);
    b.targets.resize(static_cast<size_t>(batchSize(index)));
    return &b;
}

void DataLoader::State::failWorker(const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex);
    fail(e);
    batchReady.notify_all();
    workAvailable.notify_all();
}

void DataLoader::State::workerLoop() {
    if (opt.background)
        runCallingThreadInBackground();
    for (;;) {
        try {
            std::int64_t index = 0;
            Building* b = nullptr;
            int slot = 0;
            {
                std::unique_lock<std::mutex> lock(mutex);
                workAvailable.wait(
                    lock, [&] { return stopping || (b = batchWithWork(index)) != nullptr; });
                if (stopping)
                    return;
                slot = b->claimed++;
            }
            {
                HostAllocationScope host; // as the batch itself
                buildImage(index, slot, b->batch, b->targets[static_cast<size_t>(slot)]);
            }
            std::lock_guard<std::mutex> lock(mutex);
            if (++b->finished < batchSize(index))
                continue;
            {
                HostAllocationScope host;
                collateTargets(b->targets, b->batch);
            }
            bytesInFlight += b->batch.bytes();
            ready.emplace(index, std::move(b->batch));
            building.erase(index);
            batchReady.notify_all();
        } catch (const std::exception& e) {
            failWorker(e);
            return;
        }
    }
}

void DataLoader::State::joinWorkers() {
    {
        std::lock_guard<std::mutex> lock(mutex);
        stopping = true;
    }
    workAvailable.notify_all();
    batchReady.notify_all();
    for (auto& t : threads)
        if (t.joinable())
            t.join();
    threads.clear();
    std::lock_guard<std::mutex> lock(mutex);
    building.clear();
    ready.clear();
    bytesInFlight = 0;
}

DataLoader::DataLoader(std::shared_ptr<const DatasetReport> dataset, LoaderOptions options)
    : m(std::make_unique<State>()) {
    m->data = dataset ? std::move(dataset) : std::make_shared<DatasetReport>();
    m->opt = std::move(options);
    m->opt.batch = std::max(1, m->opt.batch);
    m->opt.imgsz = std::max(32, m->opt.imgsz);
    m->opt.workers = std::max(0, m->opt.workers);
    m->opt.shardCount = std::max(1, m->opt.shardCount);
    m->opt.shardRank = std::clamp(m->opt.shardRank, 0, m->opt.shardCount - 1);
    if (m->opt.rect)
        m->opt.shuffle = false;
    if (m->opt.cache == "ram")
        m->ram.resize(m->data->images.size());
}

DataLoader::~DataLoader() {
    m->joinWorkers();
}

void DataLoader::startEpoch(int epoch, std::int64_t firstBatch) {
    m->joinWorkers();
    m->planEpoch(epoch);
    const auto total = static_cast<std::int64_t>(m->batches.size());
    const std::int64_t first = std::clamp<std::int64_t>(firstBatch, 0, total);
    {
        std::lock_guard<std::mutex> lock(m->mutex);
        m->nextToHand = first;
        m->nextToBuild = first;
        m->stopping = false;
        m->error.clear();
        m->errorOutOfMemory = false;
    }
    const int workers = static_cast<int>(std::min<std::int64_t>(m->opt.workers, total - first));
    for (int i = 0; i < workers; ++i)
        m->threads.emplace_back([state = m.get()] { state->workerLoop(); });
}

bool DataLoader::next(Batch& out) {
    if (m->epoch < 0)
        startEpoch(0);
    const auto total = static_cast<std::int64_t>(m->batches.size());
    if (m->opt.workers == 0) {
        std::int64_t index = 0;
        {
            std::lock_guard<std::mutex> lock(m->mutex);
            if (m->stopping || m->nextToHand >= total)
                return false;
            index = m->nextToHand++;
        }
        try {
            HostAllocationScope host; // as the workers' batches
            m->buildBatch(index, out);
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(m->mutex);
            m->fail(e);
            return false;
        }
        return true;
    }
    std::unique_lock<std::mutex> lock(m->mutex);
    m->batchReady.wait(lock, [&] {
        return m->stopping || m->nextToHand >= total || m->ready.count(m->nextToHand) > 0;
    });
    if (m->stopping || m->nextToHand >= total)
        return false;
    auto it = m->ready.find(m->nextToHand);
    out = std::move(it->second);
    m->ready.erase(it);
    m->bytesInFlight -= out.bytes();
    ++m->nextToHand;
    lock.unlock();
    m->workAvailable.notify_all();
    return true;
}

void DataLoader::stop() {
    m->joinWorkers();
}

std::int64_t DataLoader::batchesPerEpoch() const {
    const std::int64_t n =
        shardSize(static_cast<std::int64_t>(m->data->images.size()), m->opt.shardCount);
    return (n + m->opt.batch - 1) / m->opt.batch;
}

std::int64_t DataLoader::size() const {
    return shardSize(static_cast<std::int64_t>(m->data->images.size()), m->opt.shardCount);
}

std::int64_t DataLoader::cacheBytesEstimate() const {
    if (m->opt.cache != "ram")
        return 0;
    std::int64_t bytes = 0;
    const int s = m->opt.imgsz;
    for (const auto& r : m->data->images) {
        const double scale = static_cast<double>(s) / std::max({r.width, r.height, 1});
        const auto w =
            std::min<std::int64_t>(s, static_cast<std::int64_t>(std::ceil(r.width * scale - 1e-6)));
        const auto h = std::min<std::int64_t>(
            s, static_cast<std::int64_t>(std::ceil(r.height * scale - 1e-6)));
        bytes += std::max<std::int64_t>(1, w) * std::max<std::int64_t>(1, h) * 3;
    }
    return bytes;
}

std::int64_t DataLoader::hostBytesEstimate() const {
    const std::int64_t s = m->opt.imgsz;
    const std::int64_t image = s * s * 3; // one 8-bit BGR image at training size
    // Rectangular batches are at most imgsz + 32 on a side (Ultralytics' 0.5 stride padding).
    const std::int64_t side = m->opt.rect ? s + 32 : s;
    const std::int64_t batch = m->opt.batch * 3 * side * side; // 8-bit, as Batch::images
    const bool mosaic = m->opt.augment && !m->opt.rect && m->opt.hyp.mosaic > 0.0;
    // Mosaic: the 2s x 2s canvas (4 images), four loaded parts, the warped result, HSV and
    // channel-split temporaries; mixup builds a second such sample at the same time.
    std::int64_t working = mosaic ? 11 * image : 4 * image;
    if (mosaic && m->opt.hyp.mixup > 0.0)
        working *= 2;
    const std::int64_t workers = std::max(1, m->opt.workers);
    // Mosaic's recent images, at most imgsz on a side.
    const std::int64_t recent =
        m->keepsImages(mosaic) ? static_cast<std::int64_t>(m->recentCapacity()) * image : 0;
    return std::max(1, m->opt.prefetch) * batch + workers * (batch + working) + recent +
           cacheBytesEstimate();
}

std::int64_t DataLoader::cacheBytesFilled() const {
    return m->cacheFilled;
}
std::int64_t DataLoader::hostBytesInFlight() const {
    return m->bytesInFlight;
}
std::int64_t DataLoader::imagesRead() const {
    return m->filesRead;
}
int DataLoader::loadFailures() const {
    return m->failures;
}

std::vector<UnreadableImage> DataLoader::unreadableImages() const {
    std::lock_guard<std::mutex> lock(m->unreadableMutex);
    return m->unreadable;
}

std::string DataLoader::error() const {
    std::lock_guard<std::mutex> lock(m->mutex);
    return m->error;
}

bool DataLoader::errorIsOutOfMemory() const {
    std::lock_guard<std::mutex> lock(m->mutex);
    return m->errorOutOfMemory;
}

const LoaderOptions& DataLoader::options() const {
    return m->opt;
}
bool DataLoader::mosaicActive() const {
    return m->mosaicOn;
}

} // namespace hr
