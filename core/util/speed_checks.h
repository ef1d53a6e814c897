// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

namespace hr {

/// How a fix's predicted speed compared with the run that applied it, kept per machine: the
/// trainer records measured / predicted time per image after a fix, and the advisor multiplies
/// later predictions of the same fix on the same device by it. Stored in
/// headroomCacheDir()/speed-checks.tsv beside the other caches; every function is thread-safe
/// and never throws (a cache that cannot be read or written is treated as empty).
void recordSpeedCheck(const std::string& device, const std::string& fixId, double ratio);

/// The last recorded measured / predicted ratio of `fixId` on `device`, if any.
std::optional<double> speedCheckRatio(const std::string& device, const std::string& fixId);

} // namespace hr
