// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// Gives SIGSEGV, SIGBUS, SIGFPE and SIGILL back to the system where a library took them while
/// the program loaded. Debian 13's LibTorch loads UCX (through Open MPI), whose handlers print a
/// raw backtrace to the terminal on a crash; a user must never see one. Returns how many
/// handlers it replaced. Call first thing in main().
int restoreDefaultCrashSignals();

} // namespace hr
