// SPDX-License-Identifier: GPL-3.0-or-later
// The data loader's worker threads and the queue of batches they build.
#include "data/data_loader_state.h"

#include "memory/cpu_memory_tracker.h"
#include "util/text.h"
#include "util/thread_priority.h"
#include "util/user_message.h"

#include <c10/util/Exception.h>

#include <algorithm>

namespace hr {

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

} // namespace hr
