// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace hr {

class DataParallelGroup;

/// Averages the gradients of `parameters` over the ranks of a group in buckets, the way
/// PyTorch's DDP does: buckets of about `bucketBytes`, filled in reverse parameter order (the
/// order backward produces gradients), each launched as an asynchronous Gloo all-reduce from a
/// post-hook on the parameters' gradient accumulators as soon as its last gradient is
/// accumulated, so communication overlaps the rest of backward. Buckets are launched strictly
/// in index order on every rank, so the collectives match even when gradients arrive in a
/// different order. Not thread-safe across instances sharing parameters.
class GradientSync {
public:
    /// Parameters that do not require gradients (frozen) are left out. The group must outlive
    /// this object.
    GradientSync(DataParallelGroup& group, std::vector<torch::Tensor> parameters,
                 std::int64_t bucketBytes = 4 << 20);
    ~GradientSync(); ///< removes the hooks
    GradientSync(const GradientSync&) = delete;
    GradientSync& operator=(const GradientSync&) = delete;

    /// Whether the next backward is all-reduced (the last batch of an accumulation group);
    /// the others only accumulate locally, like DDP's no_sync().
    void setEnabled(bool enabled);
    bool enabled() const;

    /// After backward: launches the buckets not launched yet (a parameter without a gradient
    /// contributes zeros), waits for all, and writes the averaged gradients back. Throws
    /// DistributedError when a collective fails. No effect when not enabled.
    void finish();
    /// After a failed backward on this rank: completes the same sequence of collectives with
    /// zeros where gradients are missing, so the other ranks are not left waiting, and keeps
    /// no result. The caller drops the gradients.
    void abandon();

    int bucketCount() const;
    /// Buckets of the last enabled backward that were launched from a hook, i.e. while
    /// backward was still running (the rest were launched by finish()).
    int bucketsLaunchedDuringBackward() const;

private:
    struct State;
    class ReadyHook;
    std::shared_ptr<State> m;
};

} // namespace hr
