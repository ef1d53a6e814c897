// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hr {

/// Parses "3GiB", "512MiB", "1.5GB", "800M", "1048576" (bytes). Binary units (KiB, MiB, GiB,
/// TiB) are powers of 1024, decimal ones (KB, MB, GB, TB) powers of 1000; a bare K/M/G/T is
/// binary. Returns nothing on malformed text.
std::optional<std::int64_t> parseByteSize(const std::string& text);

/// "1.50 GiB", "512.0 MiB", "300 B": binary units, three significant digits.
std::string formatBytes(std::int64_t bytes);

/// A size without rounding, in the largest binary unit that divides it ("3GiB", "1536MiB"), in
/// bytes when none does ("1000"). `spaced` puts a space before the unit and names bytes
/// ("3 GiB", "1000 B"), as the studio shows them; unspaced is what a config file holds.
/// parseByteSize reads both back to the same value.
std::string exactByteSize(std::int64_t bytes, bool spaced);

} // namespace hr
