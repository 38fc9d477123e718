#include "augur/platform/service_notify.hpp"

#include <cstdlib>

#if AUGUR_HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif

namespace augur::platform {

bool serviceNotifyCompiledIn() noexcept { return AUGUR_HAVE_LIBSYSTEMD != 0; }

bool serviceNotifyEnabled() noexcept {
    const char* socket = std::getenv("NOTIFY_SOCKET");
    return serviceNotifyCompiledIn() && socket != nullptr && socket[0] != '\0';
}

std::int64_t serviceWatchdogInterval_ns() noexcept {
#if AUGUR_HAVE_LIBSYSTEMD
    std::uint64_t usec = 0;
    // 0: unset environment variables left alone (a child started later sees them too).
    if (serviceNotifyEnabled() && sd_watchdog_enabled(0, &usec) > 0) {
        return static_cast<std::int64_t>(usec) * 1000;
    }
#endif
    return 0;
}

bool serviceNotify(const char* state) noexcept {
#if AUGUR_HAVE_LIBSYSTEMD
    return sd_notify(0, state) > 0;
#else
    (void)state;
    return false;
#endif
}

bool journalWrite(JournalPriority priority, const char* line) noexcept {
#if AUGUR_HAVE_LIBSYSTEMD
    return sd_journal_print(static_cast<int>(priority), "%s", line) == 0;
#else
    (void)priority;
    (void)line;
    return false;
#endif
}

}  // namespace augur::platform
