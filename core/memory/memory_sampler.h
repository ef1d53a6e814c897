// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memory/memory_sample.h"
#include "memory/phase.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hr {

class MemoryProbe;

/// While one is alive (on any thread), every sampler tags its samples Phase::Probe: the
/// estimator's and the advisor's probe steps are not the run's own memory, and the UI draws
/// them as a band of their own, outside every peak. Nesting is fine.
class ProbeStepScope {
public:
    ProbeStepScope();
    ~ProbeStepScope();
    ProbeStepScope(const ProbeStepScope&) = delete;
    ProbeStepScope& operator=(const ProbeStepScope&) = delete;
    static bool active();
};

/// A thread that reads a MemoryProbe `hz` times a second and records a timeline, each point
/// tagged with the phase the trainer last set. Each sample is also passed to a callback (the
/// trainer forwards it to the event stream) and, when streaming is on, appended to a CSV file
/// (the run's memory.csv). Every method is thread-safe; the destructor stops the thread.
class MemorySampler {
public:
    using Callback = std::function<void(const MemorySample&)>;

    /// `probe` is not owned and must outlive the sampler. `hz` <= 0 means 20.
    explicit MemorySampler(MemoryProbe& probe, double hz = 20.0);
    ~MemorySampler();
    MemorySampler(const MemorySampler&) = delete;
    MemorySampler& operator=(const MemorySampler&) = delete;

    /// Called on the sampler thread for every sample (and on the caller's thread for
    /// sampleNow()). Must be cheap. Set it before start().
    void setCallback(Callback callback);
    /// Starts the thread; does nothing when it already runs.
    void start();
    /// Stops and joins the thread; idempotent. The timeline is kept.
    void stop();
    bool running() const { return m_running.load(); }

    /// The phase the next samples are tagged with (the trainer sets it as it goes).
    void setPhase(Phase phase) { m_phase.store(phase, std::memory_order_relaxed); }
    Phase phase() const { return m_phase.load(std::memory_order_relaxed); }
    void setRank(int rank) { m_rank.store(rank, std::memory_order_relaxed); }
    double hz() const { return m_hz; }

    /// Takes one sample now, records it like the thread's samples, and returns it.
    MemorySample sampleNow();
    /// Records the moment an allocation failed: a sample with oom = true, the failed phase and
    /// the figures of the failure's snapshot (taken before the step released its memory).
    MemorySample markOom(Phase phase, std::int64_t allocated, std::int64_t peak);

    /// Every recorded sample (at most maxSamples(), the oldest dropped first).
    std::vector<MemorySample> timeline() const;
    /// The samples of the last `seconds` seconds.
    std::vector<MemorySample> timelineSince(double seconds) const;
    /// Seconds since the sampler was constructed (the samples' time base).
    double elapsed() const;
    void setMaxSamples(std::size_t count);
    std::size_t maxSamples() const;

    /// Appends every later sample to `path` as a CSV line (writing the header first when the
    /// file is new or `append` is false). Returns false and fills `error` when it cannot open.
    bool streamCsv(const std::string& path, bool append, std::string* error = nullptr);
    /// Writes the whole recorded timeline to `path` (atomically).
    bool writeCsv(const std::string& path, std::string* error = nullptr) const;

    /// "seconds,phase,allocated,reserved,peak,budget,rank,oom" (oom: 1 on the sample taken at
    /// an allocation failure)
    static std::string csvHeader();
    static std::string csvLine(const MemorySample& sample);
    /// Parses text written by writeCsv()/streamCsv(); malformed lines are skipped.
    static std::vector<MemorySample> parseCsv(const std::string& text);

private:
    void loop();
    MemorySample take();
    void record(const MemorySample& sample);

    MemoryProbe& m_probe;
    double m_hz = 20.0;
    std::chrono::steady_clock::time_point m_origin;
    std::atomic<Phase> m_phase{Phase::Idle};
    std::atomic<int> m_rank{0};

    std::atomic<bool> m_running{false};
    std::thread m_thread;
    std::mutex m_wakeMutex;
    std::condition_variable m_wake;
    bool m_stopRequested = false;

    mutable std::mutex m_mutex; ///< guards everything below
    std::deque<MemorySample> m_timeline;
    std::size_t m_maxSamples = 20 * 60 * 60 * 4; ///< four hours at 20 Hz
    Callback m_callback;
    std::ofstream m_csv;
};

} // namespace hr
