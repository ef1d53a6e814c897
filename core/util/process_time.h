// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// CPU seconds (user + system, every thread) this process has used so far: unlike wall time,
/// barely moved by other processes' load, so timings on a shared machine compare.
double processCpuSeconds();

/// CPU seconds the calling thread has run: not stretched by other programs on a busy machine
/// either (with one thread it is the whole computation).
double threadCpuSeconds();

} // namespace hr
