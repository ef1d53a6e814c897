// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// LibTorch's thread count for one scope of a test.

#include <ATen/Parallel.h>

namespace hr::testing {

/// Sets LibTorch's intra-op threads and restores the previous count when the scope ends on any
/// path: a failed QVERIFY returns early, and later tests of the process must not run at this
/// test's count.
class TorchThreadsGuard {
public:
    explicit TorchThreadsGuard(int threads) : m_previous(at::get_num_threads()) {
        at::set_num_threads(threads);
    }
    ~TorchThreadsGuard() { at::set_num_threads(m_previous); }
    TorchThreadsGuard(const TorchThreadsGuard&) = delete;
    TorchThreadsGuard& operator=(const TorchThreadsGuard&) = delete;

private:
    int m_previous;
};

} // namespace hr::testing
