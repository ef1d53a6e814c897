// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/thread_priority.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace hr {

bool runCallingThreadInBackground() {
#if defined(__linux__)
    // On Linux a nice value belongs to a thread, named by its kernel id.
    const auto thread = static_cast<id_t>(syscall(SYS_gettid));
    return setpriority(PRIO_PROCESS, thread, 19) == 0;
#else
    return false;
#endif
}

} // namespace hr
