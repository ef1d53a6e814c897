// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/memory_sampler.h"

#include "memory/memory_probe.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

namespace hr {

MemorySampler::MemorySampler(MemoryProbe& probe, double hz)
    : m_probe(probe), m_hz(hz > 0 ? hz : 20.0), m_origin(std::chrono::steady_clock::now()) {}

MemorySampler::~MemorySampler() {
    stop();
}

void MemorySampler::setCallback(Callback callback) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_callback = std::move(callback);
}

void MemorySampler::start() {
    if (m_running.exchange(true))
        return;
    {
        std::lock_guard<std::mutex> lock(m_wakeMutex);
        m_stopRequested = false;
    }
    m_thread = std::thread([this] { loop(); });
}

void MemorySampler::stop() {
    if (!m_running.load())
        return;
    {
        std::lock_guard<std::mutex> lock(m_wakeMutex);
        m_stopRequested = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    m_running.store(false);
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_csv.is_open())
        m_csv.flush();
}

void MemorySampler::loop() {
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / m_hz));
    auto next = std::chrono::steady_clock::now();
    while (true) {
        record(take());
        next += period;
        const auto now = std::chrono::steady_clock::now();
        if (next < now)
            next = now; // fell behind (a busy machine): do not burst to catch up
        std::unique_lock<std::mutex> lock(m_wakeMutex);
        if (m_wake.wait_until(lock, next, [this] { return m_stopRequested; }))
            return;
    }
}

namespace {
std::atomic<int> g_probeSteps{0};
}

ProbeStepScope::ProbeStepScope() {
    g_probeSteps.fetch_add(1, std::memory_order_relaxed);
}

ProbeStepScope::~ProbeStepScope() {
    g_probeSteps.fetch_sub(1, std::memory_order_relaxed);
}

bool ProbeStepScope::active() {
    return g_probeSteps.load(std::memory_order_relaxed) > 0;
}

MemorySample MemorySampler::take() {
    MemorySample sample = m_probe.sample();
    sample.seconds = elapsed();
    sample.phase = ProbeStepScope::active() ? Phase::Probe : phase();
    sample.rank = m_rank.load(std::memory_order_relaxed);
    return sample;
}

void MemorySampler::record(const MemorySample& sample) {
    Callback callback;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_timeline.push_back(sample);
        while (m_timeline.size() > m_maxSamples)
            m_timeline.pop_front();
        if (m_csv.is_open())
            m_csv << csvLine(sample) << '\n' << std::flush;
        callback = m_callback;
    }
    if (callback)
        callback(sample); // outside the lock: the callback may ask for the timeline
}

MemorySample MemorySampler::sampleNow() {
    const MemorySample sample = take();
    record(sample);
    return sample;
}

MemorySample MemorySampler::markOom(Phase phase, std::int64_t allocated, std::int64_t peak) {
    MemorySample sample = take();
    sample.phase = phase;
    sample.allocated = allocated;
    sample.reserved = std::max(sample.reserved, allocated);
    sample.peakSinceLastStep = std::max(sample.peakSinceLastStep, peak);
    sample.oom = true;
    record(sample);
    return sample;
}

std::vector<MemorySample> MemorySampler::timeline() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return {m_timeline.begin(), m_timeline.end()};
}

std::vector<MemorySample> MemorySampler::timelineSince(double seconds) const {
    const double from = elapsed() - seconds;
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<MemorySample> out;
    for (const MemorySample& sample : m_timeline)
        if (sample.seconds >= from)
            out.push_back(sample);
    return out;
}

double MemorySampler::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_origin).count();
}

void MemorySampler::setMaxSamples(std::size_t count) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_maxSamples = count > 0 ? count : 1;
    while (m_timeline.size() > m_maxSamples)
        m_timeline.pop_front();
}

std::size_t MemorySampler::maxSamples() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_maxSamples;
}

bool MemorySampler::streamCsv(const std::string& path, bool append, std::string* error) {
    struct stat info {};
    const bool exists = ::stat(path.c_str(), &info) == 0 && info.st_size > 0;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_csv.is_open())
        m_csv.close();
    m_csv.open(path, append ? std::ios::app : std::ios::trunc);
    if (!m_csv) {
        if (error)
            *error = "cannot open " + path + " for writing";
        return false;
    }
    if (!append || !exists)
        m_csv << csvHeader() << '\n' << std::flush;
    return true;
}

bool MemorySampler::writeCsv(const std::string& path, std::string* error) const {
    std::string text = csvHeader() + '\n';
    for (const MemorySample& sample : timeline())
        text += csvLine(sample) + '\n';
    return writeFileAtomically(path, text, error);
}

std::string MemorySampler::csvHeader() {
    return "seconds,phase,allocated,reserved,peak,budget,rank,oom";
}

std::string MemorySampler::csvLine(const MemorySample& s) {
    char buffer[192];
    std::snprintf(buffer, sizeof buffer, "%.3f,%s,%lld,%lld,%lld,%lld,%d,%d", s.seconds,
                  toString(s.phase), static_cast<long long>(s.allocated),
                  static_cast<long long>(s.reserved), static_cast<long long>(s.peakSinceLastStep),
                  static_cast<long long>(s.budget), s.rank, s.oom ? 1 : 0);
    return buffer;
}

std::vector<MemorySample> MemorySampler::parseCsv(const std::string& text) {
    std::vector<MemorySample> out;
    for (const std::string& raw : split(text, '\n')) {
        const std::vector<std::string> f = split(trim(raw), ',');
        if (f.size() != 7 && f.size() != 8) // 7: written before the oom column existed
            continue;
        MemorySample s;
        char* end = nullptr;
        s.seconds = std::strtod(f[0].c_str(), &end);
        if (end == f[0].c_str() || !parsePhase(f[1], s.phase))
            continue; // the header, or a torn line
        s.allocated = std::strtoll(f[2].c_str(), nullptr, 10);
        s.reserved = std::strtoll(f[3].c_str(), nullptr, 10);
        s.peakSinceLastStep = std::strtoll(f[4].c_str(), nullptr, 10);
        s.budget = std::strtoll(f[5].c_str(), nullptr, 10);
        s.rank = static_cast<int>(std::strtol(f[6].c_str(), nullptr, 10));
        s.oom = f.size() == 8 && f[7] == "1";
        out.push_back(s);
    }
    return out;
}

} // namespace hr
