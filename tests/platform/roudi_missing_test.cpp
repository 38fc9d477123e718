// Connecting to RouDi when it is missing, hung, or when the application name is taken: each a clear
// error within our own timeout (iceoryx itself would wait 60 s, or abort).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"

namespace augur::platform {
namespace {

constexpr std::int64_t TIMEOUT_MS = 300;
constexpr std::int64_t NS_PER_MS = 1'000'000;
constexpr std::int64_t GRACE_NS = 2'000'000'000;
constexpr const char* ROUDI_SOCKET_PATH = "/tmp/roudi";                      // iceoryx 2.0: RouDi's IPC channel
constexpr const char* ROUDI_LOCK_PATH = "/tmp/iox-unique-roudi.lock";        // iceoryx 2.0: one RouDi per machine

/// An exclusive flock on `path` through a descriptor of its own (as another process would hold it);
/// -1 when the file cannot be opened or is locked already.
int lockFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return -1;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

TEST(RouDiConnection, MissingRouDiIsAClearErrorWithinTheTimeout) {
    ASSERT_FALSE(rouDiListening()) << "a RouDi is running on this machine; this test needs none";
    const std::int64_t start = monotonicNow_ns();
    const auto sut = connectToRouDi("augur-no-roudi", TIMEOUT_MS);
    const std::int64_t elapsed = monotonicNow_ns() - start;
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), TransportError::RouDiUnavailable);
    EXPECT_GE(elapsed, TIMEOUT_MS * NS_PER_MS);
    EXPECT_LT(elapsed, TIMEOUT_MS * NS_PER_MS + GRACE_NS);
    EXPECT_FALSE(registrationAbandoned());
    // A failed connection does not keep the name.
    const int nameLock = lockFile(applicationNameLockPath("augur-no-roudi"));
    EXPECT_GE(nameLock, 0) << "the name lock outlived the failed connection";
    ::close(nameLock);
}

TEST(RouDiConnection, EmptyNameIsRejected) {
    EXPECT_EQ(connectToRouDi("", TIMEOUT_MS).error(), TransportError::InvalidName);
}

TEST(RouDiConnection, NamesThatIceoryxWouldTurnIntoOtherPathsAreRejectedAtOnce) {
    // iceoryx binds (and first unlinks) /tmp/<name>: "../x" would be /x.
    const std::string names[] = {"../x", "/augur", "augur main", "augur\xc3\xa9", std::string("a\0b", 3),
                                 ".", "..", std::string(101, 'a')};
    for (const std::string& name : names) {
        const std::int64_t start = monotonicNow_ns();

        const auto sut = connectToRouDi(name, TIMEOUT_MS);

        ASSERT_TRUE(sut.hasError()) << name;
        EXPECT_EQ(sut.error(), TransportError::InvalidName) << name;
        EXPECT_LT(monotonicNow_ns() - start, TIMEOUT_MS * 1'000'000) << "waited for RouDi: " << name;
    }
}

TEST(RouDiConnection, NameHeldByAnotherProcessIsNameInUseAtOnce) {
    constexpr const char* NAME = "augur-name-in-use-test";
    const std::string lockPath = applicationNameLockPath(NAME);
    EXPECT_EQ(lockPath, "/tmp/augur-augur-name-in-use-test.pid");
    const int other = lockFile(lockPath);
    ASSERT_GE(other, 0) << lockPath;
    const std::int64_t start = monotonicNow_ns();
    const auto sut = connectToRouDi(NAME, TIMEOUT_MS);
    const std::int64_t elapsed = monotonicNow_ns() - start;
    ::close(other);
    ::unlink(lockPath.c_str());
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), TransportError::NameInUse);
    EXPECT_LT(elapsed, TIMEOUT_MS * NS_PER_MS);  // no wait for RouDi: the name decides first
}

TEST(RouDiConnection, UnregisteredProcessHasNoRouDiToLose) {
    EXPECT_TRUE(registeredRouDiAlive());
}

/// A RouDi that is there but never answers (as one stopped with SIGSTOP): RouDi's socket bound by the
/// test and never read. The test holds RouDi's machine-wide lock meanwhile, so no real RouDi starts
/// and finds the socket taken; it skips when a RouDi runs.
class HungRouDi : public ::testing::Test {
protected:
    void SetUp() override {
        m_rouDiLock = lockFile(ROUDI_LOCK_PATH);
        if (m_rouDiLock < 0) {
            GTEST_SKIP() << "a RouDi runs on this machine (" << ROUDI_LOCK_PATH << " is locked)";
        }
        ::unlink(ROUDI_SOCKET_PATH);  // left by a killed RouDi: no RouDi runs while the lock is ours
        m_socket = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_GE(m_socket, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, ROUDI_SOCKET_PATH, sizeof(address.sun_path) - 1);
        ASSERT_EQ(::bind(m_socket, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0)
            << std::strerror(errno);
        m_bound = true;
    }
    void TearDown() override {
        if (m_socket >= 0) {
            ::close(m_socket);
        }
        if (m_bound) {
            ::unlink(ROUDI_SOCKET_PATH);
        }
        if (m_rouDiLock >= 0) {
            ::close(m_rouDiLock);
        }
    }

private:
    int m_rouDiLock{-1};
    int m_socket{-1};
    bool m_bound{false};
};

using HungRouDiDeathTest = HungRouDi;

// In a child process: the registration thread it leaves behind stays blocked in iceoryx, and the
// process must end with _Exit (registrationAbandoned).
TEST_F(HungRouDiDeathTest, RegistrationGivesUpAtTheTimeoutAndTheProcessMustQuickExit) {
    ASSERT_TRUE(rouDiListening());
    EXPECT_EXIT(
        {
            const std::int64_t start = monotonicNow_ns();
            const auto sut = connectToRouDi("augur-hung-roudi-test", TIMEOUT_MS);
            const std::int64_t elapsed = monotonicNow_ns() - start;
            const bool notResponding = sut.hasError() && sut.error() == TransportError::RouDiNotResponding;
            const bool inTime = elapsed >= TIMEOUT_MS * NS_PER_MS && elapsed < TIMEOUT_MS * NS_PER_MS + GRACE_NS;
            const auto again = connectToRouDi("augur-hung-roudi-test", TIMEOUT_MS);
            const bool refusedAgain = again.hasError() && again.error() == TransportError::RouDiNotResponding;
            std::fprintf(stderr, "not responding %d after %lld ms, abandoned %d, refused again %d\n", notResponding,
                         static_cast<long long>(elapsed / NS_PER_MS), registrationAbandoned(), refusedAgain);
            std::_Exit(notResponding && inTime && registrationAbandoned() && refusedAgain ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "not responding 1");
}

TEST_F(HungRouDi, ListeningProbeFindsTheBoundSocketEveryTime) {
    constexpr int PROBES = 1000;
    const std::int64_t start = monotonicNow_ns();
    int listening = 0;
    for (int i = 0; i < PROBES; ++i) {
        listening += rouDiListening() ? 1 : 0;
    }
    const double mean_us = static_cast<double>(monotonicNow_ns() - start) / PROBES * 1e-3;
    std::printf("rouDiListening(): %.2f us per probe (socket, connect, close)\n", mean_us);
    RecordProperty("probe_mean_us", std::to_string(mean_us));
    EXPECT_EQ(listening, PROBES);
}

}  // namespace
}  // namespace augur::platform
