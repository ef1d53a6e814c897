// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

namespace hr {

/// Writes all of `data` to `fd`, retrying after signals; gives up silently on an error (a
/// terminal or pipe that is gone: nothing better to do with a log line).
void writeAll(int fd, const char* data, size_t size);

/// Where the network library's lines (glog's, from c10d and Gloo: isLibraryLogLine) go instead
/// of a user's terminal: `<project>/network.log`, each line after the rank that wrote it. The
/// file and its folder are made at the first line; when it cannot be written the lines are
/// dropped, not shown. One thread at a time.
class LibraryLogFile {
public:
    explicit LibraryLogFile(std::string path) : m_path(std::move(path)) {}
    ~LibraryLogFile();
    LibraryLogFile(const LibraryLogFile&) = delete;
    LibraryLogFile& operator=(const LibraryLogFile&) = delete;

    void write(int rank, const std::string& line);
    const std::string& path() const { return m_path; }
    long lines() const { return m_lines; }

private:
    std::string m_path;
    int m_fd = -1;
    long m_lines = 0;
};

/// While it lives, this process's own stderr (fd 2) runs through a pipe: the network library's
/// lines go to a LibraryLogFile as rank `rank`'s, every other line to the stderr it replaced.
/// For a process that trains as a rank itself (the studio's rank 0), whose c10d and Gloo write
/// to its own stderr; `headroom-cli train --nproc N` sorts its workers' output instead. The
/// destructor puts stderr back and passes on what was still in the pipe.
class StderrLibraryLog {
public:
    StderrLibraryLog(const std::string& path, int rank);
    ~StderrLibraryLog();
    StderrLibraryLog(const StderrLibraryLog&) = delete;
    StderrLibraryLog& operator=(const StderrLibraryLog&) = delete;

    /// False when the pipe could not be made: stderr is as it was.
    bool active() const { return m_saved >= 0; }
    /// Lines written to the log file so far.
    long lines() const { return m_lines.load(); }
    const std::string& path() const { return m_log.path(); }

private:
    void pump();

    LibraryLogFile m_log; ///< the reader thread's only
    int m_rank;
    int m_saved = -1; ///< the replaced stderr
    int m_read = -1;  ///< the pipe's read end
    std::atomic<bool> m_stop{false};
    std::atomic<long> m_lines{0};
    std::thread m_reader;
};

} // namespace hr
