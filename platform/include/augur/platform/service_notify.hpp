// systemd for a supervised runtime: the service notification protocol (sd_notify(3)): READY=1 once it
// produces, WATCHDOG=1 from the cycle thread after every cycle (a hung cycle thread stops sending, and
// systemd's WatchdogSec= restarts the service), STOPPING=1 on the way out; and log lines to the journal
// with their priority (sd_journal_print(3)).
//
// Through libsystemd's sd_notify where the build found it (AUGUR_HAVE_LIBSYSTEMD); without it every call
// is a no-op and enabled() is false. Without $NOTIFY_SOCKET (not started by systemd with Type=notify)
// every call is a no-op as well.
//
// Run-phase properties of notify(): noexcept, allocation-free (sd_notify builds its datagram on the
// stack), bounded: a handful of system calls that do not wait for a peer (socket, setsockopt, sendmsg on
// a UNIX datagram socket, close), a few microseconds.
#pragma once

#include <cstdint>

namespace augur::platform {

/// True when this build can notify systemd (libsystemd found at build time).
[[nodiscard]] bool serviceNotifyCompiledIn() noexcept;

/// True when this process was started with a notification socket ($NOTIFY_SOCKET) and the build can
/// use it. Init phase (reads the environment).
[[nodiscard]] bool serviceNotifyEnabled() noexcept;

/// The watchdog interval systemd expects pings within ($WATCHDOG_USEC for this process), nanoseconds;
/// 0 when no watchdog is configured or notification is not enabled. Init phase.
[[nodiscard]] std::int64_t serviceWatchdogInterval_ns() noexcept;

/// Sends `state` ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=...") to systemd. Returns true when
/// sent, false when notification is not enabled or the send failed. Run-phase safe (see the banner).
bool serviceNotify(const char* state) noexcept;

/// syslog priorities of journal lines.
enum class JournalPriority : std::uint8_t { Error = 3, Warning = 4, Info = 6, Debug = 7 };

/// Writes `line` (one line, without its newline) to the systemd journal with `priority`. Returns false
/// when the build has no libsystemd or no journal answers. Run-phase safe: noexcept, allocation-free
/// (sd_journal_print formats on the stack for lines under LINE_MAX, 2048 bytes), bounded: one sendmsg on
/// a datagram socket opened once.
bool journalWrite(JournalPriority priority, const char* line) noexcept;

}  // namespace augur::platform
