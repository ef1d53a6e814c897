// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace hr {

/// Writes `contents` to `path` through a temporary file in the same folder and a rename, so a
/// kill at any moment leaves either the old file or the new one, never a torn one.
/// Returns false and fills `error` (when given) on failure.
bool writeFileAtomically(const std::string& path, const std::string& contents,
                         std::string* error = nullptr);

/// Appends `contents` to `path` (created when missing) and flushes it to disk (`sync`). A
/// write that fails part-way (a full disk) is cut back to the old end, so the file never ends
/// in a torn piece. Returns false and fills `error` (when given) on failure.
bool appendToFile(const std::string& path, const std::string& contents, bool sync,
                  std::string* error = nullptr);

/// Removes the temporary files a killed or failed writeFileAtomically() left in `folder`
/// ("<name>.tmp", "<name>.tmp<pid>"); returns how many it removed. Call it only while no other
/// process writes there.
int removeTemporaryFiles(const std::string& folder);

/// Tests only: the bytes this process may still write through this file's functions before
/// every write fails with ENOSPC, as on a disk that fills up (-1: no limit). The environment
/// variable HEADROOM_TEST_DISK_BYTES sets it at start, so a test can fill the disk of a
/// headroom-cli it runs.
void setTestDiskBytes(long long bytes);

/// Reads a whole file; returns false and fills `error` on failure.
bool readFile(const std::string& path, std::string& contents, std::string* error = nullptr);

} // namespace hr
