// SPDX-License-Identifier: GPL-3.0-or-later
// ProcessGroupGloo.hpp only declares the group when the build that made LibTorch had Gloo;
// Debian's libtorch_cpu does (and links libgloo), so say so for this file.
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO 1
#endif

#include "dist/data_parallel_group.h"

#include "dist/rank_heartbeat.h"
#include "util/torch_compat.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace hr {

namespace {

bool isLoopback(const std::string& address) {
    return address == "localhost" || address.rfind("127.", 0) == 0 || address == "::1";
}

/// The network device Gloo uses: GLOO_SOCKET_IFNAME when set (as in PyTorch), loopback for a
/// one-machine run, else the address this machine's hostname resolves to.
std::shared_ptr<::gloo::transport::Device> glooDevice(const std::string& masterAddr) {
    if (const char* name = std::getenv("GLOO_SOCKET_IFNAME"); name && *name)
        return c10d::ProcessGroupGloo::createDeviceForInterface(name);
    if (isLoopback(masterAddr))
        return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    return c10d::ProcessGroupGloo::createDefaultDevice();
}

/// The rendezvous: each rank adds 1 to this key of the TCPStore and waits until it reaches
/// the world size, asking every kJoinPoll whether to give up; a rank other than 0 retries its
/// connection to rank 0's store in attempts of kJoinStep.
const std::string kJoinedKey = "rendezvous/joined";
constexpr std::chrono::milliseconds kJoinPoll{50};
constexpr std::chrono::milliseconds kJoinStep{1000};

std::string firstLine(const std::string& text) {
    const auto end = text.find('\n');
    return end == std::string::npos ? text : text.substr(0, end);
}

} // namespace

struct DataParallelGroup::Impl {
    c10::intrusive_ptr<c10d::Store> store;
    std::string masterAddr;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    /// Shared with the group's channels; null for a group over a test's store.
    std::shared_ptr<RankHeartbeat> heartbeat;
};

std::unique_ptr<DataParallelGroup>
DataParallelGroup::connect(const LaunchEnv& env, std::chrono::milliseconds timeout,
                           std::string* error, const std::function<std::string()>& abandoned,
                           std::vector<std::string>* errorArgs) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    const std::string where = "rank " + std::to_string(env.rank) + " of " +
                              std::to_string(env.worldSize) + " cannot join the run at " +
                              env.masterAddr + ":" + std::to_string(env.masterPort) + ": ";
    const auto fail = [&](const std::string& why, std::vector<std::string> values) {
        if (error)
            *error = where + why;
        if (errorArgs) {
            *errorArgs = {std::to_string(env.rank), std::to_string(env.worldSize),
                          env.masterAddr + ":" + std::to_string(env.masterPort)};
            errorArgs->insert(errorArgs->end(), values.begin(), values.end());
        }
        return std::unique_ptr<DataParallelGroup>();
    };
    const auto givenUp = [&] { return abandoned ? abandoned() : std::string(); };
    try {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(env.masterPort);
        options.isServer = env.rank == 0;
        options.numWorkers = static_cast<std::size_t>(env.worldSize);
        // The ranks count themselves in below, in steps that can be abandoned; TCPStore's own
        // wait for the workers would block for the whole timeout.
        options.waitWorkers = false;
        options.timeout = std::min<std::chrono::milliseconds>(timeout, kJoinStep);
        c10::intrusive_ptr<c10d::TCPStore> tcp;
        while (!tcp) {
            try {
                tcp = compat::makeTcpStore<c10d::TCPStore>(env.masterAddr, options);
            } catch (const std::exception&) {
                // A rank other than 0 retries until rank 0's store is up.
                if (env.rank == 0 || Clock::now() >= deadline)
                    throw;
                if (const std::string why = givenUp(); !why.empty())
                    return fail(why, {"abandoned", why});
            }
        }
        tcp->setTimeout(timeout);
        tcp->add(kJoinedKey, 1);
        for (;;) {
            const std::int64_t joined = tcp->add(kJoinedKey, 0);
            if (joined >= env.worldSize)
                break;
            const std::string count = std::to_string(joined) + " of " +
                                      std::to_string(env.worldSize) + " ranks had joined";
            if (const std::string why = givenUp(); !why.empty())
                return fail(why + " (" + count + ")", {"abandoned", why});
            if (Clock::now() >= deadline) {
                const std::string seconds = std::to_string(timeout.count() / 1000);
                return fail(count + " after " + seconds + " s (HEADROOM_DIST_TIMEOUT)",
                            {"timeout", std::to_string(joined), seconds});
            }
            std::this_thread::sleep_for(kJoinPoll);
        }
        auto store = c10::make_intrusive<c10d::PrefixStore>("headroom", tcp);
        std::unique_ptr<DataParallelGroup> group(
            new DataParallelGroup(store, env.rank, env.worldSize, timeout, env.masterAddr));
        group->d->heartbeat = std::make_shared<RankHeartbeat>(
            env.masterAddr, env.masterPort, env.rank, env.worldSize, rankTimeoutFromEnvironment());
        return group;
    } catch (const std::exception& e) {
        return fail(firstLine(e.what()), {"error", firstLine(e.what())});
    }
}

DataParallelGroup::DataParallelGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                     int size, std::chrono::milliseconds timeout)
    : DataParallelGroup(store, rank, size, timeout, "127.0.0.1") {}

DataParallelGroup::DataParallelGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                     int size, std::chrono::milliseconds timeout,
                                     const std::string& masterAddr)
    : d(std::make_unique<Impl>()), m_rank(rank), m_size(size), m_timeout(timeout) {
    TORCH_CHECK(size >= 1 && rank >= 0 && rank < size, "rank ", rank, " of ", size);
    d->store = store;
    d->masterAddr = masterAddr;
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    options->devices.push_back(glooDevice(masterAddr));
    options->threads = 2;
    try {
        d->group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
    } catch (const std::exception& e) {
        throw DistributedError("rank " + std::to_string(rank) + " of " + std::to_string(size) +
                               " cannot connect to the other ranks within " +
                               std::to_string(timeout.count() / 1000) +
                               " s: " + firstLine(e.what()));
    }
}

DataParallelGroup::~DataParallelGroup() = default;

c10::intrusive_ptr<c10d::Work> DataParallelGroup::allReduceSumAsync(torch::Tensor& tensor) {
    std::vector<torch::Tensor> tensors{tensor};
    try {
        return d->group->allreduce(tensors);
    } catch (const std::exception& e) {
        throw DistributedError("rank " + std::to_string(m_rank) +
                               ": cannot start an all-reduce: " + firstLine(e.what()));
    }
}

void DataParallelGroup::waitFor(const c10::intrusive_ptr<c10d::Work>& work,
                                const std::string& what) {
    try {
        work->wait();
    } catch (const std::exception& e) {
        const std::string where =
            "rank " + std::to_string(m_rank) + " of " + std::to_string(m_size) + ": " + what;
        // The heartbeat knows which rank stopped answering; Gloo's error only that one did.
        if (d->heartbeat && d->heartbeat->silentRank() >= 0)
            throw DistributedError(where + " failed: " + d->heartbeat->silence() + ".");
        throw DistributedError(where + " failed (" + firstLine(e.what()) +
                               "). Another rank has stopped, or did not answer within " +
                               std::to_string(m_timeout.count() / 1000) +
                               " s; its own output says why.");
    }
}

void DataParallelGroup::allReduceSum(torch::Tensor& tensor) {
    waitFor(allReduceSumAsync(tensor), "all-reduce");
}

void DataParallelGroup::broadcast(torch::Tensor& tensor, int root) {
    std::vector<torch::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    c10::intrusive_ptr<c10d::Work> work;
    try {
        work = d->group->broadcast(tensors, options);
    } catch (const std::exception& e) {
        throw DistributedError("rank " + std::to_string(m_rank) +
                               ": cannot start a broadcast: " + firstLine(e.what()));
    }
    waitFor(work, "broadcast from rank " + std::to_string(root));
}

void DataParallelGroup::barrier() {
    c10::intrusive_ptr<c10d::Work> work;
    try {
        work = d->group->barrier();
    } catch (const std::exception& e) {
        throw DistributedError("rank " + std::to_string(m_rank) +
                               ": cannot start a barrier: " + firstLine(e.what()));
    }
    waitFor(work, "barrier");
}

std::vector<int> DataParallelGroup::failedRanks(bool ok) {
    torch::Tensor flags = torch::zeros({m_size}, torch::kInt);
    flags[m_rank] = ok ? 0 : 1;
    allReduceSum(flags);
    std::vector<int> failed;
    const int* values = flags.data_ptr<int>();
    for (int r = 0; r < m_size; ++r)
        if (values[r] != 0)
            failed.push_back(r);
    return failed;
}

std::string DataParallelGroup::broadcastText(const std::string& text, int root) {
    torch::Tensor length =
        torch::full({1}, static_cast<std::int64_t>(m_rank == root ? text.size() : 0), torch::kLong);
    broadcast(length, root);
    const std::int64_t n = length.item<std::int64_t>();
    if (n == 0)
        return {};
    torch::Tensor bytes = torch::empty({n}, torch::kUInt8);
    if (m_rank == root)
        std::memcpy(bytes.data_ptr<std::uint8_t>(), text.data(), static_cast<size_t>(n));
    broadcast(bytes, root);
    return std::string(reinterpret_cast<const char*>(bytes.data_ptr<std::uint8_t>()),
                       static_cast<size_t>(n));
}

std::unique_ptr<DataParallelGroup> DataParallelGroup::openChannel(const std::string& name) {
    auto store = c10::make_intrusive<c10d::PrefixStore>(name, d->store);
    std::unique_ptr<DataParallelGroup> channel(
        new DataParallelGroup(store, m_rank, m_size, m_timeout, d->masterAddr));
    channel->d->heartbeat = d->heartbeat;
    return channel;
}

} // namespace hr
