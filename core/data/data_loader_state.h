// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the data loader (data_loader.cpp, loader_images.cpp, loader_workers.cpp): the
// loader's shared state. Not part of the data module's interface.
#pragma once

#include "data/data_loader.h"
#include "data/recent_images.h"

#include <opencv2/core.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace hr {

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
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

/// Images per rank: the data set padded to a multiple of the ranks, then divided.
inline std::int64_t shardSize(std::int64_t images, int ranks) {
    return ranks <= 1 ? images : (images + ranks - 1) / ranks;
}

/// Batch::targets from each image's rows, in image order.
void collateTargets(const std::vector<std::vector<float>>& perImage, Batch& out);

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

} // namespace hr
