// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/gradient_sync.h"

#include "dist/data_parallel_group.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <mutex>

namespace hr {

struct GradientSync::State {
    struct Bucket {
        std::vector<size_t> members; ///< indices into params
        int pending = 0;             ///< gradients not yet accumulated in this backward
        bool launched = false;
        torch::Tensor flat;
        c10::intrusive_ptr<c10d::Work> work;
    };

    DataParallelGroup* group = nullptr;
    std::vector<torch::Tensor> params;
    std::vector<size_t> bucketOf;
    std::vector<char> ready;
    std::vector<Bucket> buckets;
    std::vector<std::pair<std::shared_ptr<torch::autograd::Node>, std::uintptr_t>> hooks;
    std::mutex mutex;
    bool enabled = false;
    size_t nextToLaunch = 0;
    int launchedInHook = 0;

    void reset() {
        std::fill(ready.begin(), ready.end(), 0);
        for (auto& b : buckets) {
            b.pending = static_cast<int>(b.members.size());
            b.launched = false;
            b.flat = torch::Tensor();
            b.work.reset();
        }
        nextToLaunch = 0;
        launchedInHook = 0;
    }

    /// Flattens the bucket's gradients (zeros where there is none, or all zeros when
    /// `zeros`) and starts its all-reduce. Called with the mutex held.
    void launch(Bucket& b, bool zeros) {
        torch::NoGradGuard noGrad;
        std::vector<torch::Tensor> pieces;
        pieces.reserve(b.members.size());
        for (const size_t i : b.members) {
            const torch::Tensor& p = params[i];
            const torch::Tensor g = p.grad();
            if (zeros || !g.defined())
                pieces.push_back(torch::zeros({p.numel()}, p.options()));
            else
                pieces.push_back(g.reshape({-1}));
        }
        b.flat = torch::cat(pieces);
        pieces.clear();
        b.work = group->allReduceSumAsync(b.flat);
        b.launched = true;
    }

    /// Launches every bucket from nextToLaunch on whose gradients are all in.
    void launchReady() {
        while (nextToLaunch < buckets.size() && buckets[nextToLaunch].pending == 0) {
            launch(buckets[nextToLaunch], false);
            ++launchedInHook;
            ++nextToLaunch;
        }
    }

    void markReady(size_t index) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!enabled || ready[index])
            return;
        ready[index] = 1;
        if (--buckets[bucketOf[index]].pending == 0)
            launchReady();
    }

    /// Launches the rest in order and waits for every bucket.
    void completeAll(bool zeros) {
        std::lock_guard<std::mutex> lock(mutex);
        for (; nextToLaunch < buckets.size(); ++nextToLaunch)
            launch(buckets[nextToLaunch], zeros);
        for (size_t k = 0; k < buckets.size(); ++k)
            group->waitFor(buckets[k].work, "gradient all-reduce (bucket " + std::to_string(k) +
                                                " of " + std::to_string(buckets.size()) + ")");
    }
};

/// Runs after a parameter's AccumulateGrad: the parameter's .grad now holds this backward's
/// contribution.
class GradientSync::ReadyHook : public torch::autograd::FunctionPostHook {
public:
    ReadyHook(std::weak_ptr<GradientSync::State> state, size_t index)
        : m_state(std::move(state)), m_index(index) {}
    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list&) override {
        if (auto state = m_state.lock())
            state->markReady(m_index);
        return outputs;
    }

private:
    std::weak_ptr<GradientSync::State> m_state;
    size_t m_index;
};

GradientSync::GradientSync(DataParallelGroup& group, std::vector<torch::Tensor> parameters,
                           std::int64_t bucketBytes)
    : m(std::make_shared<State>()) {
    m->group = &group;
    for (auto& p : parameters)
        if (p.requires_grad())
            m->params.push_back(p);
    const size_t n = m->params.size();
    m->bucketOf.assign(n, 0);
    m->ready.assign(n, 0);
    // Reverse registration order approximates the order backward produces gradients.
    std::int64_t filled = 0;
    for (size_t k = n; k-- > 0;) {
        const torch::Tensor& p = m->params[k];
        if (m->buckets.empty() || filled >= bucketBytes ||
            p.scalar_type() != m->params[m->buckets.back().members.front()].scalar_type()) {
            m->buckets.emplace_back();
            filled = 0;
        }
        m->buckets.back().members.push_back(k);
        m->bucketOf[k] = m->buckets.size() - 1;
        filled += static_cast<std::int64_t>(p.nbytes());
    }
    for (size_t k = 0; k < n; ++k) {
        std::shared_ptr<torch::autograd::Node> accumulator =
            torch::autograd::impl::grad_accumulator(m->params[k]);
        TORCH_CHECK(accumulator, "parameter ", k, " has no gradient accumulator");
        const std::uintptr_t key = accumulator->add_post_hook(std::make_unique<ReadyHook>(m, k));
        m->hooks.emplace_back(std::move(accumulator), key);
    }
    m->reset();
}

GradientSync::~GradientSync() {
    for (auto& [node, key] : m->hooks)
        node->del_post_hook(key);
}

void GradientSync::setEnabled(bool enabled) {
    std::lock_guard<std::mutex> lock(m->mutex);
    m->enabled = enabled;
    m->reset();
}

bool GradientSync::enabled() const {
    return m->enabled;
}

void GradientSync::finish() {
    if (!m->enabled)
        return;
    m->completeAll(false);
    std::lock_guard<std::mutex> lock(m->mutex);
    torch::NoGradGuard noGrad;
    const double scale = 1.0 / m->group->size();
    for (auto& b : m->buckets) {
        b.flat.mul_(scale);
        std::int64_t offset = 0;
        for (const size_t i : b.members) {
            torch::Tensor& p = m->params[i];
            const std::int64_t numel = p.numel();
            if (p.grad().defined())
                p.mutable_grad().copy_(b.flat.slice(0, offset, offset + numel).view_as(p));
            offset += numel;
        }
        b.flat = torch::Tensor();
        b.work.reset();
    }
    m->enabled = false;
}

void GradientSync::abandon() {
    if (!m->enabled)
        return;
    try {
        m->completeAll(true);
    } catch (...) {
        std::lock_guard<std::mutex> lock(m->mutex);
        m->enabled = false;
        m->reset();
        throw;
    }
    std::lock_guard<std::mutex> lock(m->mutex);
    m->enabled = false;
    m->reset();
}

int GradientSync::bucketCount() const {
    return static_cast<int>(m->buckets.size());
}

int GradientSync::bucketsLaunchedDuringBackward() const {
    return m->launchedInHook;
}

} // namespace hr
