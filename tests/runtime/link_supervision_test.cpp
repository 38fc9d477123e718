// The runtime's link supervision in simulated time: augur-bridge's link statuses and clock readings are fed in.
#include "augur/runtime/link_supervision.hpp"

#include <gtest/gtest.h>

namespace augur::runtime {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t STALE_AFTER_NS = 500 * MS;
constexpr std::int64_t T0 = 10'000 * MS;

LinkStatus statusWith(std::uint32_t faults, std::uint32_t alivePeers, std::uint64_t peerLosses) {
    LinkStatus status{};
    status.faults = faults;
    status.alivePeers = alivePeers;
    status.peerLosses = peerLosses;
    status.lastPeerLoss_ns = peerLosses > 0 ? T0 - MS : 0;
    return status;
}

TEST(LinkSupervision, WithoutABridgeNothingIsReported) {
    const LinkSupervision sut(STALE_AFTER_NS);
    Health health{};

    sut.fill(health, T0 + 100'000 * MS);

    EXPECT_EQ(health.faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(health.linkStatusAge_ns, -1);
    EXPECT_EQ(health.linkAlivePeers, 0U);
}

TEST(LinkSupervision, AReportedPeerLossIsLinkLostWithTheBridgesCounters) {
    LinkSupervision sut(STALE_AFTER_NS);
    sut.onStatus(statusWith(bit(LinkFault::PeerLost), 0, 2), T0);
    Health health{};

    sut.fill(health, T0 + 10 * MS);

    EXPECT_NE(health.faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(health.linkFaults, bit(LinkFault::PeerLost));
    EXPECT_EQ(health.linkPeerLosses, 2U);
    EXPECT_EQ(health.linkLastPeerLoss_ns, T0 - MS);
    EXPECT_EQ(health.linkStatusAge_ns, 10 * MS);
}

TEST(LinkSupervision, APeerBackClearsLinkLost) {
    LinkSupervision sut(STALE_AFTER_NS);
    sut.onStatus(statusWith(bit(LinkFault::PeerLost), 0, 1), T0);
    sut.onStatus(statusWith(0, 1, 1), T0 + 100 * MS);
    Health health{};

    sut.fill(health, T0 + 100 * MS);

    EXPECT_EQ(health.faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(health.linkAlivePeers, 1U);
    EXPECT_EQ(health.linkPeerLosses, 1U);
}

TEST(LinkSupervision, OtherLinkFaultsAreCarriedButAreNotALostLink) {
    LinkSupervision sut(STALE_AFTER_NS);
    sut.onStatus(statusWith(bit(LinkFault::DeadlineMissed) | bit(LinkFault::PayloadRejected), 1, 0), T0);
    Health health{};

    sut.fill(health, T0);

    EXPECT_EQ(health.faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(health.linkFaults, bit(LinkFault::DeadlineMissed) | bit(LinkFault::PayloadRejected));
}

TEST(LinkSupervision, AStatusOlderThanTheLimitIsLinkLostAndTheLimitItselfIsNot) {
    LinkSupervision sut(STALE_AFTER_NS);
    sut.onStatus(statusWith(0, 1, 0), T0);
    Health atLimit{};
    Health pastLimit{};

    sut.fill(atLimit, T0 + STALE_AFTER_NS);
    sut.fill(pastLimit, T0 + STALE_AFTER_NS + 1);

    EXPECT_EQ(atLimit.faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_NE(pastLimit.faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(pastLimit.linkStatusAge_ns, STALE_AFTER_NS + 1);
}

TEST(LinkSupervision, ABridgeGoesStaleOneNanosecondPastTheLimitAndNeverWithoutAStatus) {
    LinkSupervision sut(STALE_AFTER_NS);
    const std::int64_t withoutStatus = sut.staleAt_ns();
    sut.onStatus(statusWith(0, 1, 0), T0);

    const std::int64_t staleAt = sut.staleAt_ns();

    EXPECT_EQ(withoutStatus, INT64_MAX);
    EXPECT_EQ(staleAt, T0 + STALE_AFTER_NS + 1);
    EXPECT_FALSE(sut.lost(staleAt - 1));
    EXPECT_TRUE(sut.lost(staleAt));
}

TEST(LinkSupervision, FillKeepsTheCyclesOtherFaults) {
    LinkSupervision sut(STALE_AFTER_NS);
    sut.onStatus(statusWith(bit(LinkFault::PeerLost), 0, 1), T0);
    Health health{};
    health.faults = bit(HealthFault::InputLost);

    sut.fill(health, T0);

    EXPECT_EQ(health.faults, bit(HealthFault::InputLost) | bit(HealthFault::LinkLost));
}

}  // namespace
}  // namespace augur::runtime
