// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/crash_signals.h"

#include <csignal>
#include <cstdlib>
#include <initializer_list>

#include <unistd.h>

namespace hr {

int restoreDefaultCrashSignals() {
    int replaced = 0;
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
        struct sigaction current {};
        if (::sigaction(signal, nullptr, &current) != 0)
            continue;
        const bool installed = (current.sa_flags & SA_SIGINFO) != 0 ||
                               (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
        if (!installed)
            continue;
        struct sigaction system {};
        system.sa_handler = SIG_DFL;
        sigemptyset(&system.sa_mask);
        if (::sigaction(signal, &system, nullptr) == 0)
            ++replaced;
    }
    return replaced;
}

void keepCrashSignalsWithTheSystem(char** argv) {
    if (restoreDefaultCrashSignals() == 0 || std::getenv("UCX_HANDLE_ERRORS") != nullptr)
        return;
    ::setenv("UCX_HANDLE_ERRORS", "none", 0);
    ::execv("/proc/self/exe", argv);
}

} // namespace hr
