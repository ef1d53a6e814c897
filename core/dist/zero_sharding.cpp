// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/zero_sharding.h"

#include "dist/data_parallel_group.h"

#include <algorithm>
#include <numeric>

namespace hr {

std::vector<int> assignParameterOwners(const std::vector<std::int64_t>& numels, int ranks) {
    ranks = std::max(ranks, 1);
    std::vector<size_t> order(numels.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return numels[a] > numels[b]; });
    std::vector<std::int64_t> load(static_cast<size_t>(ranks), 0);
    std::vector<int> owner(numels.size(), 0);
    for (const size_t i : order) {
        const auto lightest = std::min_element(load.begin(), load.end());
        owner[i] = static_cast<int>(lightest - load.begin());
        *lightest += numels[i];
    }
    return owner;
}

OptimizerSharding::OptimizerSharding(DataParallelGroup& group,
                                     std::vector<torch::Tensor> parameters)
    : m_group(&group) {
    std::vector<std::int64_t> numels;
    for (auto& p : parameters)
        if (p.requires_grad()) {
            numels.push_back(p.numel());
            m_params.push_back(p);
        }
    m_owner = assignParameterOwners(numels, group.size());
}

int OptimizerSharding::ownerOf(const torch::Tensor& parameter) const {
    for (size_t i = 0; i < m_params.size(); ++i)
        if (m_params[i].is_same(parameter))
            return m_owner[i];
    return -1;
}

bool OptimizerSharding::owns(const torch::Tensor& parameter) const {
    return ownerOf(parameter) == m_group->rank();
}

std::int64_t OptimizerSharding::ownedElements(int rank) const {
    std::int64_t n = 0;
    for (size_t i = 0; i < m_params.size(); ++i)
        if (m_owner[i] == rank)
            n += m_params[i].numel();
    return n;
}

std::int64_t OptimizerSharding::totalElements() const {
    std::int64_t n = 0;
    for (const auto& p : m_params)
        n += p.numel();
    return n;
}

void OptimizerSharding::broadcastUpdated() {
    torch::NoGradGuard noGrad;
    for (int root = 0; root < m_group->size(); ++root) {
        std::vector<torch::Tensor> mine;
        for (size_t i = 0; i < m_params.size(); ++i)
            if (m_owner[i] == root)
                mine.push_back(m_params[i]);
        if (mine.empty())
            continue;
        std::vector<torch::Tensor> pieces;
        for (const auto& p : mine)
            pieces.push_back(p.detach().reshape({-1}));
        torch::Tensor flat = torch::cat(pieces);
        pieces.clear();
        m_group->broadcast(flat, root);
        if (m_group->rank() == root)
            continue;
        std::int64_t offset = 0;
        for (auto& p : mine) {
            p.detach().copy_(flat.slice(0, offset, offset + p.numel()).view_as(p));
            offset += p.numel();
        }
    }
}

} // namespace hr
