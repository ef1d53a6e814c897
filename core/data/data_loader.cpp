// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/data_loader.h"

#include "config/train_config.h"
#include "config/train_rules.h"
#include "data/data_loader_state.h"
#include "memory/cpu_memory_tracker.h"

#include <algorithm>
#include <cmath>

namespace hr {

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

} // namespace

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
