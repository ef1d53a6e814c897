// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <string>

namespace hr {

/// One writer per folder: an exclusive lock on `<folder>/.headroom.lock`, held until the
/// object is destroyed. The file holds the writer's PID for the message a second writer gets.
/// The lock itself is the kernel's (flock), so a writer that died, however it died, leaves no
/// lock behind: a file with a dead PID in it is stale and is taken over.
class FolderLock {
public:
    static constexpr const char* kFileName = ".headroom.lock";

    /// Takes the lock, or returns nothing with `error` set: another live process holds it
    /// (the sentence names its PID; `holder`, when given, gets it, -1 when unknown), or the
    /// file cannot be created (`holder` stays 0).
    static std::unique_ptr<FolderLock> acquire(const std::string& folder, std::string* error,
                                               long* holder = nullptr);
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    explicit FolderLock(int fd) : m_fd(fd) {}
    int m_fd;
};

} // namespace hr
