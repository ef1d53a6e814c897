// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// Gives SIGSEGV, SIGBUS, SIGFPE and SIGILL back to the system where a library took them while
/// the program loaded. Returns how many handlers it replaced.
int restoreDefaultCrashSignals();

/// Debian 13's LibTorch loads UCX (through Open MPI), whose handlers print a raw backtrace to
/// the terminal on a crash, and it installs them again after main() has started; a user must
/// never see one. Where a library holds those signals and UCX_HANDLE_ERRORS is unset, the
/// program starts itself again with UCX_HANDLE_ERRORS=none (UCX reads it only while loading).
/// Call first thing in main(); returns only when no new start was needed or it failed.
void keepCrashSignalsWithTheSystem(char** argv);

} // namespace hr
