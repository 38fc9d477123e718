// systemd's notification protocol against a stand-in for systemd: a UNIX datagram socket of the test's
// own, named by $NOTIFY_SOCKET, as systemd names its socket for a Type=notify service.
#include "augur/platform/service_notify.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "augur/testing/allocation_counter.hpp"

namespace augur::platform {
namespace {

/// Binds a datagram socket at a fresh path and points NOTIFY_SOCKET at it for the test's duration.
class FakeSystemd : public ::testing::Test {
protected:
    void SetUp() override {
        if (!serviceNotifyCompiledIn()) {
            GTEST_SKIP() << "built without libsystemd: sd_notify is a no-op";
        }
        m_path = ::testing::TempDir() + "augur-notify-" + std::to_string(getpid()) + ".sock";
        ::unlink(m_path.c_str());
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_GE(m_fd, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        ASSERT_LT(m_path.size(), sizeof(address.sun_path));
        m_path.copy(address.sun_path, m_path.size());
        ASSERT_EQ(::bind(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
        timeval timeout{1, 0};
        ASSERT_EQ(::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)), 0);
        ::setenv("NOTIFY_SOCKET", m_path.c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("NOTIFY_SOCKET");
        ::unsetenv("WATCHDOG_USEC");
        ::unsetenv("WATCHDOG_PID");
        if (m_fd >= 0) {
            ::close(m_fd);
            ::unlink(m_path.c_str());
        }
    }
    /// The next datagram systemd would have received ("" after a second without one).
    std::string received() {
        char buffer[256];
        const ssize_t n = ::recv(m_fd, buffer, sizeof(buffer), 0);
        return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
    }

    std::string m_path;
    int m_fd{-1};
};

TEST_F(FakeSystemd, ReadyAndWatchdogReachTheNotificationSocket) {
    ASSERT_TRUE(serviceNotifyEnabled());

    const bool ready = serviceNotify("READY=1");
    const bool ping = serviceNotify("WATCHDOG=1");

    EXPECT_TRUE(ready);
    EXPECT_TRUE(ping);
    EXPECT_EQ(received(), "READY=1");
    EXPECT_EQ(received(), "WATCHDOG=1");
}

TEST_F(FakeSystemd, TheWatchdogIntervalIsReadForThisProcessOnly) {
    ::setenv("WATCHDOG_USEC", "1000000", 1);
    ::setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
    const std::int64_t mine = serviceWatchdogInterval_ns();
    ::setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);

    const std::int64_t another = serviceWatchdogInterval_ns();

    EXPECT_EQ(mine, 1'000'000'000);
    EXPECT_EQ(another, 0);  // the variables were meant for another process (a parent's)
}

TEST_F(FakeSystemd, AWatchdogPingAllocatesNothing) {
    const std::uint64_t allocations = testing::allocationsDuring([] { (void)serviceNotify("WATCHDOG=1"); });

    EXPECT_EQ(allocations, 0U);
    EXPECT_EQ(received(), "WATCHDOG=1");
}

TEST(Journal, AJournalLineAllocatesNothing) {
    // Whether or not a journal runs here: the line is formatted on the stack either way.
    const std::uint64_t allocations =
        testing::allocationsDuring([] { (void)journalWrite(JournalPriority::Info, "augur-runtime: a test line"); });

    EXPECT_EQ(allocations, 0U);
}

TEST(ServiceNotify, WithoutANotificationSocketNothingIsSent) {
    ::unsetenv("NOTIFY_SOCKET");

    EXPECT_FALSE(serviceNotifyEnabled());
    EXPECT_FALSE(serviceNotify("READY=1"));
    EXPECT_EQ(serviceWatchdogInterval_ns(), 0);
}

}  // namespace
}  // namespace augur::platform
