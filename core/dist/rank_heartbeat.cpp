// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/rank_heartbeat.h"

#include "util/torch_compat.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace hr {

namespace {

using Clock = std::chrono::steady_clock;

std::string hostName() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

/// Field 22 of /proc/<pid>/stat, the process's start time: a PID with another start time is
/// another process, which must never be killed for the one that was there.
std::string startTimeOf(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = all.rfind(')'); // the command name may hold spaces
    if (close == std::string::npos)
        return {};
    std::istringstream fields(all.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i)
        if (i == 22)
            return field;
    return {};
}

std::vector<std::uint8_t> bytesOf(const std::string& text) {
    return std::vector<std::uint8_t>(text.begin(), text.end());
}

std::string key(int rank, const char* what) {
    return "heartbeat/" + std::to_string(rank) + "/" + what;
}

} // namespace

std::chrono::milliseconds rankTimeoutFromEnvironment() {
    if (const char* text = std::getenv("HEADROOM_RANK_TIMEOUT"); text && *text) {
        char* end = nullptr;
        const double seconds = std::strtod(text, &end);
        if (end && *end == '\0' && std::isfinite(seconds) && seconds > 0)
            return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
    }
    return std::chrono::seconds(60);
}

struct RankHeartbeat::State {
    std::string host;
    int port = 0;
    int rank = 0;
    int size = 1;
    std::chrono::milliseconds timeout{60000};
    std::chrono::milliseconds interval{1000};

    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false;
    int threadsRunning = 0;
    std::atomic<int> silent{-1};
    std::string silence; ///< under mutex
    /// When the store operation in flight began (0: none); rank 0 hosts the store, so one that
    /// never returns means rank 0 is silent.
    std::atomic<std::int64_t> storeCallSince{0};

    void declareSilent(int who, const std::string& pidLine, std::chrono::milliseconds quiet);
    /// A client connection of its own to rank 0's store (the training's is busy in collectives).
    auto openStore() const {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(port);
        options.isServer = false;
        options.waitWorkers = false;
        options.timeout = timeout;
        return compat::makeTcpStore<c10d::TCPStore>(host, options);
    }
    void beat();
    void watchStore();
    bool sleep(std::chrono::milliseconds time) {
        std::unique_lock<std::mutex> lock(mutex);
        return !wake.wait_for(lock, time, [&] { return stopping; });
    }
    void threadEnded() {
        std::lock_guard<std::mutex> lock(mutex);
        --threadsRunning;
        wake.notify_all();
    }
};

void RankHeartbeat::State::declareSilent(int who, const std::string& pidLine,
                                         std::chrono::milliseconds quiet) {
    const double seconds = static_cast<double>(quiet.count()) / 1000.0;
    std::ostringstream text;
    text.precision(3);
    text << "rank " << who << " of " << size << " sent no heartbeat for " << seconds
         << " s (HEADROOM_RANK_TIMEOUT): it was stopped (SIGSTOP, a debugger), froze, or lost "
            "its machine";
    // "host pid start-time", written by that rank when it started.
    std::istringstream fields(pidLine);
    std::string theirHost, start;
    long pid = 0;
    const bool here = fields >> theirHost >> pid >> start && theirHost == hostName() && pid > 0 &&
                      startTimeOf(pid) == start;
    if (here)
        text << "; it was ended (PID " << pid << ")";
    {
        // The text first: the collective that the kill ends reads it.
        std::lock_guard<std::mutex> lock(mutex);
        if (silent >= 0)
            return;
        silence = text.str();
        silent = who;
    }
    if (here)
        ::kill(static_cast<pid_t>(pid), SIGKILL);
}

void RankHeartbeat::State::beat() {
    const auto now = [] { return Clock::now().time_since_epoch().count(); };
    try {
        storeCallSince = now();
        auto store = openStore();
        store->set(key(rank, "pid"), bytesOf(hostName() + " " + std::to_string(::getpid()) + " " +
                                             startTimeOf(::getpid())));
        storeCallSince = 0;
        std::vector<std::int64_t> counts(static_cast<size_t>(size), -1);
        std::vector<Clock::time_point> moved(static_cast<size_t>(size), Clock::now());
        for (bool first = true; first || sleep(interval); first = false) {
            storeCallSince = now();
            store->add(key(rank, "beats"), 1);
            for (int other = 0; other < size && silent < 0; ++other) {
                if (other == rank)
                    continue;
                const std::int64_t count = store->add(key(other, "beats"), 0);
                const auto at = static_cast<size_t>(other);
                if (count != counts[at]) {
                    counts[at] = count;
                    moved[at] = Clock::now();
                    continue;
                }
                const auto quiet =
                    std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - moved[at]);
                if (quiet <= timeout || store->check({key(other, "done")}))
                    continue;
                const std::vector<std::uint8_t> who = store->check({key(other, "pid")})
                                                          ? store->get(key(other, "pid"))
                                                          : std::vector<std::uint8_t>();
                declareSilent(other, std::string(who.begin(), who.end()), quiet);
            }
            storeCallSince = 0;
        }
        store->set(key(rank, "done"), bytesOf("1"));
    } catch (const std::exception&) {
        // A store that fails at once has ended with rank 0's run: nothing to report. One that
        // fails only after the timeout did not answer, which watchStore() reports.
        const auto since = Clock::duration(storeCallSince.load());
        if (since.count() != 0 && Clock::now().time_since_epoch() - since < timeout)
            storeCallSince = 0;
    }
    threadEnded();
}

void RankHeartbeat::State::watchStore() {
    // Rank 0's own PID line, read here so that it is known when its store stops answering.
    std::string rankZero;
    bool asked = false;
    while (sleep(interval)) {
        if (!asked && rank != 0) {
            asked = true;
            try {
                auto store = openStore();
                store->wait({key(0, "pid")});
                const std::vector<std::uint8_t> who = store->get(key(0, "pid"));
                rankZero.assign(who.begin(), who.end());
            } catch (const std::exception&) {
            }
        }
        const std::int64_t since = storeCallSince;
        if (since == 0 || rank == 0)
            continue;
        const auto quiet = std::chrono::duration_cast<std::chrono::milliseconds>(
            Clock::now().time_since_epoch() - Clock::duration(since));
        if (quiet > timeout)
            declareSilent(0, rankZero, quiet);
    }
    threadEnded();
}

RankHeartbeat::RankHeartbeat(const std::string& host, int port, int rank, int size,
                             std::chrono::milliseconds timeout)
    : m_state(std::make_shared<State>()) {
    State& s = *m_state;
    s.host = host;
    s.port = port;
    s.rank = rank;
    s.size = size;
    s.timeout = timeout;
    s.interval = std::clamp<std::chrono::milliseconds>(timeout / 5, std::chrono::milliseconds(50),
                                                       std::chrono::milliseconds(1000));
    if (size < 2)
        return;
    s.threadsRunning = 2;
    // Detached, each holding the state: a thread inside a store call to a stopped rank 0 may
    // never return, and must not hold up this rank's end.
    std::thread([state = m_state] { state->beat(); }).detach();
    std::thread([state = m_state] { state->watchStore(); }).detach();
}

RankHeartbeat::~RankHeartbeat() {
    std::unique_lock<std::mutex> lock(m_state->mutex);
    m_state->stopping = true;
    m_state->wake.notify_all();
    m_state->wake.wait_for(lock, std::chrono::seconds(1),
                           [&] { return m_state->threadsRunning == 0; });
}

int RankHeartbeat::silentRank() const {
    return m_state->silent;
}

std::string RankHeartbeat::silence() const {
    std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->silence;
}

} // namespace hr
