// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/stderr_library_log.h"

#include "dist/worker_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

namespace hr {

namespace {

constexpr size_t kLongestLine = 8192; // a line without end is passed on at this length

} // namespace

void writeAll(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        size -= static_cast<size_t>(n);
    }
}

LibraryLogFile::~LibraryLogFile() {
    if (m_fd >= 0)
        ::close(m_fd);
}

void LibraryLogFile::write(int rank, const std::string& line) {
    if (m_path.empty())
        return;
    if (m_fd < 0) {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(m_path).parent_path(), ec);
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (m_fd < 0) {
            m_path.clear(); // nowhere to keep them: they are dropped, not shown
            return;
        }
    }
    const std::string text = "rank " + std::to_string(rank) + ": " + line;
    writeAll(m_fd, text.data(), text.size());
    ++m_lines;
}

StderrLibraryLog::StderrLibraryLog(const std::string& path, int rank) : m_log(path), m_rank(rank) {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0)
        return;
    std::fflush(stderr);
    m_saved = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (m_saved < 0 || ::dup2(ends[1], STDERR_FILENO) < 0) {
        if (m_saved >= 0)
            ::close(m_saved);
        m_saved = -1;
        ::close(ends[0]);
        ::close(ends[1]);
        return;
    }
    ::close(ends[1]); // fd 2 is the write end now
    m_read = ends[0];
    m_reader = std::thread([this] { pump(); });
}

StderrLibraryLog::~StderrLibraryLog() {
    if (m_saved < 0)
        return;
    std::fflush(stderr);
    ::dup2(m_saved, STDERR_FILENO); // closes the pipe's write end
    m_stop = true;
    m_reader.join();
    ::close(m_read);
    ::close(m_saved);
}

void StderrLibraryLog::pump() {
    std::string partial;
    LibraryLineFilter library;
    const auto pass = [&](const std::string& line) {
        if (library.isLibrary(line)) {
            m_log.write(m_rank, line);
            m_lines = m_log.lines();
        } else {
            writeAll(m_saved, line.data(), line.size());
        }
    };
    char buffer[4096];
    for (;;) {
        // Polled, so that the end does not wait on a write end some child may have kept.
        pollfd p{m_read, POLLIN, 0};
        const int ready = ::poll(&p, 1, m_stop ? 0 : 100);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            if (m_stop)
                break;
            continue;
        }
        const ssize_t n = ::read(m_read, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        partial.append(buffer, static_cast<size_t>(n));
        size_t start = 0;
        for (size_t end; (end = partial.find('\n', start)) != std::string::npos; start = end + 1)
            pass(partial.substr(start, end + 1 - start));
        partial.erase(0, start);
        if (partial.size() > kLongestLine) {
            pass(partial);
            partial.clear();
        }
    }
    if (!partial.empty())
        pass(partial + "\n");
}

} // namespace hr
