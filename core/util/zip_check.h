// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace hr {

/// The most a zip's entries may hold uncompressed, per byte of the file: torch.save stores its
/// entries (a ratio of 1), so anything far above is a zip bomb, not a checkpoint.
inline constexpr std::uint64_t kZipMostExpansion = 4;

/// Checks a zip archive (a .pt file) before anything reads it: the central directory and
/// every local header lie inside the file, stored entries match their CRC32 and size, and
/// the entries hold at most kZipMostExpansion times the file's size (plus 1 MiB)
/// uncompressed. Reads the whole file once. Returns false with `error` naming the entry; the
/// error's words include "zip archive", which userText() reads as a damaged checkpoint. A
/// data.pkl that names a callable running code (pickle::codeCallIn) is refused as that:
/// "<path>: refused: the file asks to run code (os.system) ...", without those words.
bool checkZipArchive(const std::string& path, std::string* error);

/// CRC-32 (IEEE, as zip uses it) of `size` bytes, continuing from `crc` (0 to start).
std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc = 0);

} // namespace hr
