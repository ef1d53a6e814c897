// SPDX-License-Identifier: GPL-3.0-or-later
#include "dist/worker_launcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
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

int exitCodeOf(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

} // namespace

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

    std::vector<pid_t> pids;
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
        pid_t pid = 0;
        const int rc =
            ::posix_spawn(&pid, executable.c_str(), nullptr, nullptr, argv.data(), envp.data());
        if (rc != 0) {
            outcome.exitCode = 1;
            outcome.summary = "cannot start worker " + std::to_string(local) + " (" + executable +
                              "): " + std::strerror(rc);
            for (const pid_t started : pids)
                ::kill(started, SIGTERM);
            for (const pid_t started : pids)
                ::waitpid(started, nullptr, 0);
            return outcome;
        }
        pids.push_back(pid);
    }

    // Interrupts are the workers' to handle (they agree to stop at the same step).
    struct sigaction ignore {};
    struct sigaction previous {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &previous);

    outcome.statuses.assign(pids.size(), -1);
    size_t running = pids.size();
    bool failed = false;
    auto deadline = std::chrono::steady_clock::time_point::max();
    bool terminated = false;
    while (running > 0) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            for (size_t i = 0; i < pids.size(); ++i)
                if (pids[i] == pid && outcome.statuses[i] < 0) {
                    outcome.statuses[i] = exitCodeOf(status);
                    --running;
                    if (outcome.statuses[i] != 0) {
                        outcome.summary +=
                            "worker " + std::to_string(i) + " (rank " +
                            std::to_string(plan.nodeRank * plan.nproc + static_cast<int>(i)) +
                            ") exited with status " + std::to_string(outcome.statuses[i]) + "\n";
                        if (!failed) {
                            failed = true;
                            outcome.exitCode = outcome.statuses[i];
                            deadline = std::chrono::steady_clock::now() + grace;
                        }
                    }
                }
            continue;
        }
        if (pid < 0 && errno != EINTR)
            break;
        if (failed && !terminated && std::chrono::steady_clock::now() >= deadline) {
            for (size_t i = 0; i < pids.size(); ++i)
                if (outcome.statuses[i] < 0)
                    ::kill(pids[i], SIGTERM);
            terminated = true;
            outcome.summary += "the remaining workers were terminated " +
                               std::to_string(grace.count()) + " s after the first failure\n";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::sigaction(SIGINT, &previous, nullptr);
    return outcome;
}

} // namespace hr
