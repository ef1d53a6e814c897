// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dist/launch_env.h"

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hr {

/// A collective failed: another rank died, stopped answering within the timeout, or the
/// rendezvous did not complete. The message names the operation, this rank and the cause.
struct DistributedError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The processes of one data-parallel run: c10d's ProcessGroupGloo over a store (TCPStore for
/// real runs, any store for tests). Every collective is blocking unless named *Async, applies
/// the group's timeout, and throws DistributedError on failure. All ranks must call the same
/// collectives in the same order.
class DataParallelGroup {
public:
    /// Rendezvous over a TCPStore at env.masterAddr:masterPort (rank 0 hosts it) and connects
    /// the Gloo group. Returns nullptr with `error` set when that fails within `timeout`.
    /// The wait for the other ranks goes in steps of at most a second; before each,
    /// `abandoned` (when given) is asked whether to give up, and a non-empty answer ends the
    /// wait at once with that reason in `error` (whoever started the workers saw one die).
    /// Once connected, every rank sends a heartbeat (RankHeartbeat); a collective that fails
    /// after a rank went silent names that rank.
    /// `errorArgs`, when given, receives the failure as values for a UI that words it itself:
    /// rank, ranks, "address:port", then "timeout" with the ranks joined and the seconds
    /// waited, "abandoned" with the reason, or "error" with the network library's own text.
    static std::unique_ptr<DataParallelGroup>
    connect(const LaunchEnv& env, std::chrono::milliseconds timeout, std::string* error,
            const std::function<std::string()>& abandoned = {},
            std::vector<std::string>* errorArgs = nullptr);
    /// A group over an existing store (tests run ranks as threads sharing a HashStore).
    DataParallelGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                      std::chrono::milliseconds timeout);
    ~DataParallelGroup();
    DataParallelGroup(const DataParallelGroup&) = delete;
    DataParallelGroup& operator=(const DataParallelGroup&) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    std::chrono::milliseconds timeout() const { return m_timeout; }

    /// Starts a sum all-reduce of `tensor` in place; wait() the result with waitFor().
    c10::intrusive_ptr<c10d::Work> allReduceSumAsync(torch::Tensor& tensor);
    /// Waits for `work`, turning a failure into DistributedError naming `what`.
    void waitFor(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what);

    void allReduceSum(torch::Tensor& tensor);
    void broadcast(torch::Tensor& tensor, int root);
    void barrier();

    /// Each rank says whether its part went well; returns the ranks that said no (same list
    /// on every rank, empty when all succeeded).
    std::vector<int> failedRanks(bool ok);
    /// `text` of rank `root`, on every rank.
    std::string broadcastText(const std::string& text, int root);

    /// A second group of the same ranks with its own connections, so that its collectives
    /// never interleave with this group's (synchronised BatchNorm talks during backward while
    /// gradient buckets are in flight here). Every rank must open the same channels in the
    /// same order; `name` keeps their rendezvous keys apart.
    std::unique_ptr<DataParallelGroup> openChannel(const std::string& name);

private:
    DataParallelGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                      std::chrono::milliseconds timeout, const std::string& masterAddr);

    struct Impl;
    std::unique_ptr<Impl> d;
    int m_rank = 0;
    int m_size = 1;
    std::chrono::milliseconds m_timeout;
};

} // namespace hr
