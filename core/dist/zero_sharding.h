// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace hr {

class DataParallelGroup;

/// Which rank owns each parameter under ZeRO stage 1: largest first, each to the rank that owns
/// the fewest elements so far (ties to the lower rank). Deterministic, so every rank computes
/// the same assignment. `ranks` < 1 is treated as 1.
std::vector<int> assignParameterOwners(const std::vector<std::int64_t>& numels, int ranks);

/// ZeRO stage 1 (sharded optimizer state): each rank keeps the optimizer state of, and updates,
/// only the parameters it owns; after the optimizer step every owner broadcasts its updated
/// parameters (one flat broadcast per rank) so all replicas hold the same weights again.
/// Gradients are still all-reduced in full (GradientSync).
class OptimizerSharding {
public:
    /// Parameters that do not require gradients (frozen) are never updated and not shared.
    /// The group must outlive this object.
    OptimizerSharding(DataParallelGroup& group, std::vector<torch::Tensor> parameters);

    /// Whether this rank updates `parameter` (by identity). Frozen parameters: false.
    bool owns(const torch::Tensor& parameter) const;
    int ownerOf(const torch::Tensor& parameter) const; ///< -1 when not shared
    std::int64_t ownedElements(int rank) const;
    std::int64_t totalElements() const;

    /// Sends each owner's parameters to the other ranks. Throws DistributedError.
    void broadcastUpdated();

private:
    DataParallelGroup* m_group;
    std::vector<torch::Tensor> m_params;
    std::vector<int> m_owner;
};

} // namespace hr
