// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace hr {

namespace {
bool fail(std::string* error, const std::string& what) {
    if (error)
        *error = what + ": " + std::strerror(errno);
    return false;
}
} // namespace

bool writeFileAtomically(const std::string& path, const std::string& contents,
                         std::string* error) {
    const std::string temporary = path + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(error, "cannot create " + temporary);
    size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            ::unlink(temporary.c_str());
            return fail(error, "cannot write " + temporary);
        }
        written += static_cast<size_t>(n);
    }
    // The data must be on disk before the rename makes it visible under the real name.
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(temporary.c_str());
        return fail(error, "cannot flush " + temporary);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        ::unlink(temporary.c_str());
        return fail(error, "cannot rename " + temporary + " to " + path);
    }
    return true;
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
