// Connecting without a RouDi must fail within our own timeout (iceoryx itself would wait 60 s).
#include <gtest/gtest.h>

#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"

namespace augur::platform {
namespace {

constexpr std::int64_t TIMEOUT_MS = 300;
constexpr std::int64_t GRACE_NS = 2'000'000'000;

TEST(RouDiConnection, MissingRouDiIsAClearErrorWithinTheTimeout) {
    ASSERT_FALSE(rouDiListening()) << "a RouDi is running on this machine; this test needs none";
    const std::int64_t start = monotonicNow_ns();
    const auto sut = connectToRouDi("augur-no-roudi", TIMEOUT_MS);
    const std::int64_t elapsed = monotonicNow_ns() - start;
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), TransportError::RouDiUnavailable);
    EXPECT_GE(elapsed, TIMEOUT_MS * 1'000'000);
    EXPECT_LT(elapsed, TIMEOUT_MS * 1'000'000 + GRACE_NS);
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

}  // namespace
}  // namespace augur::platform
