#include "augur/hil/child_process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "augur/platform/clock.hpp"

extern char** environ;

namespace augur::hil {
namespace {

constexpr std::int64_t NS_PER_MS = 1'000'000;
constexpr std::int64_t POLL_NS = 10 * NS_PER_MS;
constexpr std::int64_t DESTRUCTOR_WAIT_MS = 2000;

int decode(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return 255;
}

}  // namespace

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_status(other.m_status) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
    if (this != &other) {
        if (running()) {
            stop(SIGTERM, DESTRUCTOR_WAIT_MS);
        }
        m_pid = std::exchange(other.m_pid, -1);
        m_status = other.m_status;
    }
    return *this;
}

ChildProcess::~ChildProcess() {
    if (running()) {
        stop(SIGTERM, DESTRUCTOR_WAIT_MS);
    }
}

Result<ChildProcess, std::string> ChildProcess::spawn(const std::vector<std::string>& argv) {
    if (argv.empty()) {
        return fail(std::string("no program given"));
    }
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    // fork + exec rather than posix_spawn: the child asks for SIGTERM when this process ends
    // (PR_SET_PDEATHSIG, kept across exec), so a bench that is killed leaves no RouDi or runtime behind.
    // Between fork and exec the child calls only async-signal-safe functions.
    const pid_t parent = ::getpid();
    const bool search = argv[0].find('/') == std::string::npos;
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        return fail(argv[0] + ": pipe: " + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        return fail(argv[0] + ": fork: " + std::strerror(error));
    }
    if (pid == 0) {
        ::close(pipeFds[0]);
        if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) {
            ::_exit(127);  // the parent is already gone
        }
        if (search) {
            ::execvp(args[0], args.data());
        } else {
            ::execv(args[0], args.data());
        }
        const int error = errno;
        (void)!::write(pipeFds[1], &error, sizeof error);  // exec failed: tell the parent why
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    int execError = 0;
    ssize_t got = 0;
    do {
        got = ::read(pipeFds[0], &execError, sizeof execError);
    } while (got < 0 && errno == EINTR);
    ::close(pipeFds[0]);
    if (got == static_cast<ssize_t>(sizeof execError)) {  // exec failed; the pipe closes on a successful exec
        int status = 0;
        (void)::waitpid(pid, &status, 0);
        return fail(argv[0] + ": " + std::strerror(execError));
    }
    ChildProcess child;
    child.m_pid = pid;
    return Result<ChildProcess, std::string>(std::move(child));
}

bool ChildProcess::running() {
    if (m_pid <= 0 || m_status) {
        return false;
    }
    int status = 0;
    const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
    if (r == m_pid) {
        m_status = decode(status);
        return false;
    }
    return r == 0;
}

std::optional<int> ChildProcess::wait(std::int64_t wait_ms) {
    const std::int64_t end = platform::monotonicNow_ns() + wait_ms * NS_PER_MS;
    while (running()) {
        const std::int64_t now = platform::monotonicNow_ns();
        if (now >= end) {
            return std::nullopt;
        }
        platform::sleepUntil_ns(std::min(end, now + POLL_NS));
    }
    return m_status;
}

int ChildProcess::stop(int signal, std::int64_t wait_ms) {
    if (running()) {
        ::kill(m_pid, signal);
        if (!wait(wait_ms)) {
            ::kill(m_pid, SIGKILL);
            int status = 0;
            if (::waitpid(m_pid, &status, 0) == m_pid) {
                m_status = decode(status);
            }
        }
    }
    return m_status.value_or(255);
}

}  // namespace augur::hil
