// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/worker_launcher.h"

#include "dist/stderr_library_log.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <thread>

extern char** environ;

namespace hr {

namespace {

bool isLaunchVariable(const char* entry) {
    static const char* const names[] = {
        "RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "LOCAL_WORLD_SIZE=", "MASTER_PORT="};
    for (const char* name : names)
        if (std::strncmp(entry, name, std::strlen(name)) == 0)
            return true;
    return false;
}

constexpr size_t kTailBytes = 8192;
constexpr int kTailLines = 8;

/// A started worker: its process, the read end of its stderr pipe and the end of what it wrote.
struct Child {
    pid_t pid = -1;
    int rank = 0;
    int errorPipe = -1; ///< -1 once its output has ended
    std::string tail;
    std::string partial; ///< the start of a line not yet ended
    int status = -1;     ///< exitCodeOf() once it has ended
    LibraryLineFilter library; ///< its stderr's library lines and their backtraces
};

/// Passes one line of a worker's stderr on: glog's lines (c10d, Gloo) to the library log,
/// the rest to this process's stderr and the worker's kept tail.
void passLine(Child& child, const std::string& line, LibraryLogFile& log) {
    if (child.library.isLibrary(line)) {
        log.write(child.rank, line);
        return;
    }
    writeAll(STDERR_FILENO, line.data(), line.size());
    child.tail += line;
    if (child.tail.size() > kTailBytes)
        child.tail.erase(0, child.tail.size() - kTailBytes);
}

/// Passes on what the worker has written to stderr, a line at a time (the last one also
/// when its output ends without a newline). Returns false once the output has ended (the pipe
/// is closed then).
bool pump(Child& child, LibraryLogFile& log) {
    if (child.errorPipe < 0)
        return false;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(child.errorPipe, buffer, sizeof buffer);
        if (n > 0) {
            child.partial.append(buffer, static_cast<size_t>(n));
            size_t start = 0;
            for (size_t end; (end = child.partial.find('\n', start)) != std::string::npos;
                 start = end + 1)
                passLine(child, child.partial.substr(start, end + 1 - start), log);
            child.partial.erase(0, start);
            if (child.partial.size() > kTailBytes) { // a line without end: pass it on now
                passLine(child, child.partial, log);
                child.partial.clear();
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (!child.partial.empty())
            passLine(child, child.partial + "\n", log);
        child.partial.clear();
        ::close(child.errorPipe);
        child.errorPipe = -1;
        return false;
    }
}

int exitCodeOf(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/// "exited with status 3" / "was killed by signal 9 (Killed)", from exitCodeOf()'s code.
std::string endedHow(int code) {
    if (code > 128) {
        const char* name = ::strsignal(code - 128);
        return "was killed by signal " + std::to_string(code - 128) +
               (name ? std::string(" (") + name + ")" : std::string());
    }
    return "exited with status " + std::to_string(code);
}

} // namespace

bool isLibraryLogLine(const std::string& line) {
    // glog: "E20261207 20:55:53.988090 30207 socket.cpp:860] [c10d] ...", and the notice glog
    // prints before its first line when nothing initialised it. A c10 built without glog
    // (Debian 13's 2.6) writes "[E1208 02:19:46.837287552 socket.cpp:1023] [c10d] ...".
    static const std::regex glog(R"(^[IWEF]\d{4,8} \d\d:\d\d:\d\d\.\d+ +\d+ [^ \]]+:\d+\] )");
    static const std::regex c10(R"(^\[[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ (\d+ )?[^ \]]+:\d+\] )");
    return line.rfind("WARNING: Logging before InitGoogleLogging()", 0) == 0 ||
           std::regex_search(line, glog) || std::regex_search(line, c10);
}

bool continuesLibraryEntry(const std::string& line) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '\n' || line[start] == '\r')
        return true; // the blank line that ends c10's backtrace
    const std::string text = line.substr(start);
    return text.rfind("Exception raised from ", 0) == 0 || text.rfind("frame #", 0) == 0;
}

std::string lastLines(const std::string& text, int lines, const std::string& indent) {
    std::vector<std::string> kept;
    size_t end = text.size();
    while (end > 0 && static_cast<int>(kept.size()) < lines) {
        const size_t newline = text.rfind('\n', end - 1);
        const size_t begin = newline == std::string::npos ? 0 : newline + 1;
        std::string line = text.substr(begin, end - begin);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        if (!line.empty())
            kept.push_back(line);
        if (newline == std::string::npos)
            break;
        end = newline;
    }
    std::string out;
    for (auto it = kept.rbegin(); it != kept.rend(); ++it)
        out += indent + *it + "\n";
    return out;
}

std::vector<std::string> ownArguments() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> words;
    size_t start = 0;
    while (start < all.size()) {
        const size_t end = all.find('\0', start);
        words.push_back(all.substr(start, end == std::string::npos ? end : end - start));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return words;
}

int freeLocalPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

WorkerOutcome runWorkers(const WorkerPlan& plan, std::chrono::seconds grace) {
    WorkerOutcome outcome;
    const int world = plan.nproc * plan.nnodes;
    int port = plan.masterPort;
    if (port == 0 && plan.nnodes == 1)
        port = freeLocalPort();
    if (plan.nproc < 1 || plan.nnodes < 1 || plan.nodeRank < 0 || plan.nodeRank >= plan.nnodes ||
        port <= 0 || port > 65535 || plan.arguments.empty()) {
        outcome.exitCode = 2;
        outcome.summary =
            "cannot start workers: nproc " + std::to_string(plan.nproc) + ", nnodes " +
            std::to_string(plan.nnodes) + ", node rank " + std::to_string(plan.nodeRank) +
            ", master port " + std::to_string(port) +
            (plan.nnodes > 1 && plan.masterPort == 0 ? " (several machines need --master-port)"
                                                     : "");
        return outcome;
    }
    std::vector<std::string> inherited;
    for (char** e = environ; e && *e; ++e)
        if (!isLaunchVariable(*e))
            inherited.emplace_back(*e);
    // The real path, so that the workers show under this program's name (not "exe").
    std::string executable = plan.executable;
    {
        std::error_code ec;
        const std::filesystem::path resolved = std::filesystem::canonical(executable, ec);
        if (!ec)
            executable = resolved.string();
    }
    std::vector<char*> argv;
    for (const auto& a : plan.arguments)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    std::vector<Child> children;
    const auto startFailed = [&](int local, const std::string& why) {
        outcome.exitCode = 1;
        outcome.summary =
            "cannot start worker " + std::to_string(local) + " (" + executable + "): " + why;
        for (Child& started : children) {
            ::kill(started.pid, SIGTERM);
            ::waitpid(started.pid, nullptr, 0);
            ::close(started.errorPipe);
        }
        return outcome;
    };
    for (int local = 0; local < plan.nproc; ++local) {
        std::vector<std::string> env = inherited;
        env.push_back("RANK=" + std::to_string(plan.nodeRank * plan.nproc + local));
        env.push_back("WORLD_SIZE=" + std::to_string(world));
        env.push_back("LOCAL_RANK=" + std::to_string(local));
        env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(plan.nproc));
        env.push_back("MASTER_ADDR=" + plan.masterAddr);
        env.push_back("MASTER_PORT=" + std::to_string(port));
        std::vector<char*> envp;
        for (auto& e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        // The worker's stderr is a pipe to this process (both ends close-on-exec; dup2 makes
        // the worker's fd 2 inheritable).
        int errorPipe[2];
        if (::pipe2(errorPipe, O_CLOEXEC) != 0)
            return startFailed(local,
                               std::string("no pipe for its output: ") + std::strerror(errno));
        posix_spawn_file_actions_t actions;
        ::posix_spawn_file_actions_init(&actions);
        ::posix_spawn_file_actions_adddup2(&actions, errorPipe[1], STDERR_FILENO);
        pid_t pid = 0;
        const int rc =
            ::posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), envp.data());
        ::posix_spawn_file_actions_destroy(&actions);
        ::close(errorPipe[1]);
        if (rc != 0) {
            ::close(errorPipe[0]);
            return startFailed(local, std::strerror(rc));
        }
        ::fcntl(errorPipe[0], F_SETFL, ::fcntl(errorPipe[0], F_GETFL) | O_NONBLOCK);
        Child child;
        child.pid = pid;
        child.rank = plan.nodeRank * plan.nproc + local;
        child.errorPipe = errorPipe[0];
        children.push_back(child);
    }

    // Interrupts are the workers' to handle (they agree to stop at the same step).
    struct sigaction ignore {};
    struct sigaction previous {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &previous);

    LibraryLogFile libraryLog(plan.libraryLog);
    size_t running = children.size();
    auto deadline = std::chrono::steady_clock::time_point::max();
    bool killed = false;
    std::string later; // what became of the others after the first failure
    while (running > 0) {
        // Forward the workers' output as it comes; wake at least every 50 ms to reap.
        std::vector<pollfd> open;
        for (const Child& child : children)
            if (child.errorPipe >= 0)
                open.push_back({child.errorPipe, POLLIN, 0});
        if (open.empty())
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        else if (::poll(open.data(), open.size(), 50) > 0)
            for (Child& child : children)
                pump(child, libraryLog);

        int status = 0;
        pid_t pid = 0;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
            for (Child& child : children) {
                if (child.pid != pid || child.status >= 0)
                    continue;
                child.status = exitCodeOf(status);
                --running;
                if (child.status == 0)
                    continue;
                pump(child, libraryLog); // its last words are in the pipe already
                if (outcome.firstFailedRank >= 0) {
                    later += "then rank " + std::to_string(child.rank) + " " +
                             endedHow(child.status) + "\n";
                    continue;
                }
                outcome.firstFailedRank = child.rank;
                outcome.exitCode = child.status;
                const std::string tail = lastLines(child.tail, kTailLines, "    | ");
                outcome.summary = "rank " + std::to_string(child.rank) + " " +
                                  endedHow(child.status) + " before the run ended" +
                                  (tail.empty() ? std::string("; it wrote nothing to stderr\n")
                                                : "; the end of its output:\n" + tail);
                // Without it the others cannot go on: a Headroom worker ends its rendezvous
                // wait or its run at the next batch on SIGTERM.
                size_t signalled = 0;
                for (const Child& other : children)
                    if (other.status < 0 && ::kill(other.pid, SIGTERM) == 0)
                        ++signalled;
                if (signalled > 0)
                    outcome.summary += "the other " + std::to_string(signalled) +
                                       " worker(s) were asked to end (SIGTERM) at once\n";
                deadline = std::chrono::steady_clock::now() + grace;
            }
        }
        if (pid < 0 && errno != EINTR)
            break;
        if (!killed && std::chrono::steady_clock::now() >= deadline) {
            for (const Child& child : children)
                if (child.status < 0 && ::kill(child.pid, SIGKILL) == 0)
                    later += "rank " + std::to_string(child.rank) + " was still running " +
                             std::to_string(grace.count()) + " s later and was killed\n";
            killed = true;
        }
    }
    for (Child& child : children) {
        // What is there now; a process the worker left behind may keep the pipe open.
        if (pump(child, libraryLog))
            ::close(child.errorPipe);
        child.errorPipe = -1;
        outcome.statuses.push_back(child.status);
        outcome.errorTails.push_back(lastLines(child.tail, kTailLines, ""));
    }
    outcome.summary += later;
    outcome.libraryLogLines = libraryLog.lines();
    ::sigaction(SIGINT, &previous, nullptr);
    return outcome;
}

} // namespace hr
