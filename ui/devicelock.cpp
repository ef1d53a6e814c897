// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicelock.h"

namespace hr::ui {

std::timed_mutex& deviceLock() {
    static std::timed_mutex lock;
    return lock;
}

} // namespace hr::ui
