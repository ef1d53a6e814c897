// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/folder_lock.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace hr {

std::unique_ptr<FolderLock> FolderLock::acquire(const std::string& folder, std::string* error,
                                                long* holder) {
    const std::string path = folder + "/" + kFileName;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (error)
            *error = "cannot create " + path + ": " + std::strerror(errno);
        return nullptr;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char text[32] = {};
        const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
        const long pid = n > 0 ? std::atol(text) : 0;
        ::close(fd);
        if (holder)
            *holder = pid > 0 ? pid : -1;
        if (error)
            *error = "another Headroom process" +
                     (pid > 0 ? " (PID " + std::to_string(pid) + ")" : std::string()) +
                     " is writing the run folder " + folder +
                     "; wait for it to end, or choose another name (name=...)";
        return nullptr;
    }
    // Ours now: a PID left in the file by a writer that died is stale and replaced.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // The PID only words a second writer's message; the lock holds without it.
    }
    return std::unique_ptr<FolderLock>(new FolderLock(fd));
}

FolderLock::~FolderLock() {
    // The file stays: removing it could let a process that opened it a moment ago lock an
    // unlinked file while a third locks a new one.
    ::close(m_fd);
}

} // namespace hr
