// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// Gives the calling thread the lowest CPU priority (nice 19 on Linux), so that it runs when the
/// process's other threads leave a core idle. False where the system refused or has no such
/// setting; the thread then runs as before.
bool runCallingThreadInBackground();

} // namespace hr
