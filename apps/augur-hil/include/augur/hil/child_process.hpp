// A child process the bench starts and stops (iox-roudi, augur-runtime, the report writer), for the
// end-to-end run of `augur-hil demo`. POSIX (fork + exec with PR_SET_PDEATHSIG, kill, waitpid). Init/shutdown code only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "augur/core/result.hpp"

namespace augur::hil {

class ChildProcess {
public:
    ChildProcess() = default;
    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&& other) noexcept;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    /// Stops a still running child (SIGTERM, then SIGKILL after 2 s).
    ~ChildProcess();

    /// Starts argv[0] (searched in PATH when it has no '/') with `argv`; stdout/stderr inherited.
    /// Fails with the reason (e.g. "iox-roudi: No such file or directory").
    static Result<ChildProcess, std::string> spawn(const std::vector<std::string>& argv);

    /// True while the child has not exited (reaps it when it has).
    [[nodiscard]] bool running();
    /// Exit status once exited: the code, or 128 + signal number when a signal ended it.
    [[nodiscard]] std::optional<int> exitStatus() const noexcept { return m_status; }

    /// Sends `signal`, waits up to `wait_ms` for the child to exit, then SIGKILLs it. Returns its
    /// exit status (as exitStatus()).
    int stop(int signal, std::int64_t wait_ms);
    /// Waits up to `wait_ms` for the child to exit on its own; the status, or nothing on timeout.
    std::optional<int> wait(std::int64_t wait_ms);

    [[nodiscard]] int pid() const noexcept { return m_pid; }

private:
    int m_pid{-1};
    std::optional<int> m_status;
};

}  // namespace augur::hil
