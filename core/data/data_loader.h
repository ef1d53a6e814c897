// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "data/augment.h"
#include "data/batch.h"
#include "data/dataset.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hr {

struct TrainConfig;

/// How the loader builds batches. Augmentation names follow Ultralytics' hyperparameters. The
/// settings' defaults are TrainConfig's: a default LoaderOptions is fromConfig(TrainConfig{},
/// true, a CUDA device), workers at normal priority.
struct LoaderOptions {
    LoaderOptions();

    int imgsz;
    int batch;
    int workers;  ///< threads that decode and augment; 0 = build batches in next()
    bool augment; ///< mosaic/affine/mixup/HSV/flips; false = letterbox only
    bool shuffle;
    bool rect; ///< rectangular batches (aspect-sorted, no mosaic, no shuffle)
    std::uint64_t seed;
    std::string cache; ///< none | ram | disk: keep decoded, resized images
    int prefetch = 4;  ///< batches built ahead of the consumer (bounds host memory)
    int epochs;
    int close_mosaic; ///< mosaic and mixup off for the last N epochs
    AugmentParams hyp;
    /// Data parallel (like PyTorch's DistributedSampler): every rank orders the whole data set
    /// the same way (seed + epoch), pads it by repeating its start to a multiple of
    /// shardCount, and takes every shardCount-th image from position shardRank.
    int shardRank = 0;
    int shardCount = 1;
    /// Workers run at the lowest CPU priority, in the gaps the consumer leaves: for a model on
    /// the CPU, whose step keeps every core busy. A worker that preempts one of the step's
    /// threads stalls the others at its next barrier (docs/decisions.md, "The loader in the
    /// step's gaps").
    bool background = false;

    /// The options for training (`training` = true: augment, shuffle) or validation (letterbox,
    /// rectangular batches, batch = validationBatch) from a TrainConfig, for a model on
    /// `device` (background workers on the CPU). Workers are capped at the number of cores;
    /// batch -1 (auto) becomes the default batch until the trainer resolves it.
    static LoaderOptions fromConfig(const TrainConfig& config, bool training,
                                    const torch::Device& device);

private:
    LoaderOptions(const TrainConfig& config, bool training, const torch::Device& device);
};

/// An image the loader could not read and replaced by a grey background.
struct UnreadableImage {
    std::string path;
    std::string error; ///< readImage's English words, e.g. "not a decodable image (...)"
    /// readImage's code (cannot_open, empty, cannot_read, not_decodable), or cannot_process
    /// when OpenCV failed on the image after reading it.
    std::string reason;
};

/// A multi-threaded loader: worker threads decode and augment images into a bounded queue of
/// `prefetch` batches, handed out in order. Each worker takes the next image of the earliest
/// batch not yet built, so that the batch the consumer waits for is built by all of them. A batch
/// depends only on the seed, the epoch and its position, so it is the same for any number of
/// workers. Corrupt images found while loading become grey backgrounds (counted in loadFailures(),
/// named in unreadableImages()), never a crash. The scan checks only headers by default, so a file
/// whose coded data is damaged is first found here.
class DataLoader {
public:
    /// The report must outlive nothing: the loader keeps a shared reference.
    DataLoader(std::shared_ptr<const DatasetReport> dataset, LoaderOptions options);
    ~DataLoader(); ///< stops and joins the workers
    DataLoader(const DataLoader&) = delete;
    DataLoader& operator=(const DataLoader&) = delete;

    /// Starts building the batches of `epoch` (0-based): order from seed + epoch, mosaic off in
    /// the last close_mosaic epochs. Stops a previous epoch still running. With `firstBatch`,
    /// the epoch starts at that batch: the same batches as after taking the earlier ones (a
    /// batch depends only on seed, epoch and position), without building them.
    void startEpoch(int epoch, std::int64_t firstBatch = 0);
    /// The next batch in order; false at the end of the epoch, after stop(), or when a worker
    /// failed (error() says why).
    bool next(Batch& out);
    /// Stops the workers mid-epoch and drops queued batches; next() then returns false.
    void stop();

    std::int64_t batchesPerEpoch() const;
    std::int64_t size() const; ///< images per epoch
    /// Bytes the image cache (ram) will hold when full; 0 for none/disk. Known before filling.
    std::int64_t cacheBytesEstimate() const;
    std::int64_t cacheBytesFilled() const;
    /// Upper estimate of the host memory the loader holds at its peak: `prefetch` queued
    /// batches, each worker's batch under construction and its working images (mosaic canvas,
    /// mixup partner), the images kept for mosaic, and the RAM cache when full. For the memory
    /// forecast and the advisor.
    std::int64_t hostBytesEstimate() const;
    /// Bytes of batches built and not yet taken (bounded by prefetch batches).
    std::int64_t hostBytesInFlight() const;
    /// Images read from their files (or the disk cache) so far. A mosaic takes its four images
    /// from those the loader kept when it can (as many as Ultralytics' buffer holds), so an
    /// epoch reads fewer than four per image.
    std::int64_t imagesRead() const;
    int loadFailures() const; ///< loads that failed (an image can fail once per load)
    /// Each image that could not be read since the loader was made, once, in the order found.
    std::vector<UnreadableImage> unreadableImages() const;
    /// Why a worker failed, as user text ("data loader: ..."; no backtrace); "" when none did.
    std::string error() const;
    /// The failure was an allocation (host RAM, or OpenCV's "insufficient memory"): the
    /// trainer reports it as an out-of-memory failure of the loader phase, not as an error.
    bool errorIsOutOfMemory() const;
    const LoaderOptions& options() const;
    bool mosaicActive() const; ///< whether the running epoch uses mosaic

private:
    struct State;
    std::unique_ptr<State> m;
};

} // namespace hr
