// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace hr {

class DataParallelGroup;

/// Synchronised BatchNorm for data-parallel training, the way PyTorch's SyncBatchNorm works:
/// in training mode a BatchNorm2d's batch mean and variance are those of the images of all
/// ranks together (an all-reduce of the per-channel sums, sums of squares around the local
/// mean, and element counts), the running statistics move towards them (unbiased variance, as
/// PyTorch does), and backward all-reduces the per-channel sums of the output gradient and of
/// gradient x centred input, so the input gradient is that of the whole batch. The affine
/// weight and bias gradients stay local; the gradient all-reduce averages them like any other.
///
/// Its collectives run over their own group (`channel`, not the one the gradient buckets use),
/// so BatchNorm's all-reduces inside backward never interleave with the buckets'. Every
/// message has the same size and carries one failure flag per rank, which lets a rank that
/// failed (out of memory) meet the others at whatever BatchNorm layer they are waiting in:
/// after its part of a step each rank calls closePhase(ok); a rank that failed sends its
/// flag, the others receive it inside forward()/backward() (or in their own closePhase()) and
/// throw c10::OutOfMemoryError naming the failed rank. Every rank thus sends the same number of
/// messages per phase and the channel stays aligned for the next step.
///
/// Not thread-safe: one instance per rank, used by that rank's training thread (backward may
/// run on an autograd thread, but never concurrently with forward).
class SyncBatchNorm {
public:
    /// `maxChannels`: the widest BatchNorm this instance will serve (sets the message size).
    SyncBatchNorm(DataParallelGroup& channel, std::int64_t maxChannels);
    SyncBatchNorm(const SyncBatchNorm&) = delete;
    SyncBatchNorm& operator=(const SyncBatchNorm&) = delete;

    /// `bn`'s forward. In training mode the statistics are synchronised over the ranks and
    /// bn's running_mean / running_var / num_batches_tracked are updated with the global ones;
    /// in eval mode (or with track_running_stats off and not training) it is bn's own forward.
    torch::Tensor forward(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& input);

    /// Ends a forward or backward phase of a step on this rank: `ok` is whether this rank's
    /// part succeeded. A rank whose part failed by itself sends its failure flag now; a rank
    /// that already received a failure during the phase sends nothing. Returns the rank that
    /// failed first in this phase, or -1. Throws DistributedError when the channel fails.
    int closePhase(bool ok);

    /// Whether the last exception of forward()/backward() came from another rank's failure
    /// (cleared by closePhase()).
    bool failureReceived() const { return m_failedRank >= 0; }
    std::int64_t maxChannels() const { return m_maxChannels; }
    /// All-reduces sent so far (forward and backward), for logs and tests.
    std::int64_t messages() const { return m_messages; }

    /// Called by the autograd function: sums `payload` (at most 2 * maxChannels + 1 values)
    /// over the ranks with this rank's flag clear. Throws c10::OutOfMemoryError when a flag
    /// says another rank failed.
    torch::Tensor exchange(const torch::Tensor& payload, const char* what);

private:
    torch::Tensor message(std::int64_t payloadSize) const;

    DataParallelGroup& m_channel;
    std::int64_t m_maxChannels = 0;
    int m_failedRank = -1; ///< a rank whose failure this rank received in the current phase
    std::int64_t m_messages = 0;
};

} // namespace hr
