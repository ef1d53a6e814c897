// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace hr {

namespace {
bool fail(std::string* error, const std::string& what) {
    if (error)
        *error = what + ": " + std::strerror(errno);
    return false;
}

std::atomic<long long>& testDiskBytes() {
    static std::atomic<long long> bytes{[] {
        const char* text = std::getenv("HEADROOM_TEST_DISK_BYTES");
        return text && *text ? std::atoll(text) : -1LL;
    }()};
    return bytes;
}

// write(2) with the test's disk limit: what passes it is written, the rest fails as ENOSPC.
ssize_t writeSome(int fd, const char* data, size_t size) {
    std::atomic<long long>& left = testDiskBytes();
    long long allowed = left.load();
    if (allowed >= 0) {
        if (allowed == 0) {
            errno = ENOSPC;
            return -1;
        }
        size = std::min<size_t>(size, static_cast<size_t>(allowed));
    }
    const ssize_t n = ::write(fd, data, size);
    if (n > 0 && allowed >= 0)
        left -= n;
    return n;
}

bool writeAll(int fd, const std::string& contents) {
    size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = writeSome(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        written += static_cast<size_t>(n);
    }
    return true;
}
} // namespace

void setTestDiskBytes(long long bytes) {
    testDiskBytes() = bytes;
}

bool writeFileAtomically(const std::string& path, const std::string& contents, std::string* error) {
    const std::string temporary = path + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(error, "cannot create " + temporary);
    if (!writeAll(fd, contents)) {
        const int saved = errno;
        ::close(fd);
        ::unlink(temporary.c_str());
        errno = saved;
        return fail(error, "cannot write " + path);
    }
    // The data must be on disk before the rename makes it visible under the real name.
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int saved = errno;
        ::unlink(temporary.c_str());
        errno = saved;
        return fail(error, "cannot write " + path);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        ::unlink(temporary.c_str());
        return fail(error, "cannot rename " + temporary + " to " + path);
    }
    return true;
}

bool appendToFile(const std::string& path, const std::string& contents, bool sync,
                  std::string* error) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(error, "cannot open " + path);
    struct stat before {};
    const bool sized = ::fstat(fd, &before) == 0;
    if (!writeAll(fd, contents) || (sync && ::fdatasync(fd) != 0)) {
        const int saved = errno;
        if (sized && ::ftruncate(fd, before.st_size) != 0) {
            // Nothing more to do: the reader skips a torn last line.
        }
        ::close(fd);
        errno = saved;
        return fail(error, "cannot write " + path);
    }
    if (::close(fd) != 0)
        return fail(error, "cannot write " + path);
    return true;
}

int removeTemporaryFiles(const std::string& folder) {
    namespace fs = std::filesystem;
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        const size_t at = name.rfind(".tmp");
        if (at == std::string::npos || at == 0 ||
            name.find_first_not_of("0123456789", at + 4) != std::string::npos)
            continue;
        std::error_code ignored;
        if (entry.is_regular_file(ignored) && fs::remove(entry.path(), ignored))
            ++removed;
    }
    return removed;
}

bool readFile(const std::string& path, std::string& contents, std::string* error) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fail(error, "cannot open " + path);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    contents = buffer.str();
    return true;
}

} // namespace hr
