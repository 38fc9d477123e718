// Track identity metrics: identity switches, fragmentation, MOTA/MOTP, false tracks and GOSPA's parts on
// hand-built cycles.
#include <gtest/gtest.h>

#include <vector>

#include "augur/hil/identity_metrics.hpp"

namespace augur::hil {
namespace {

constexpr double GATE_M = 2.5;
constexpr double CUTOFF_M = 10.0;
constexpr double ORDER = 2.0;
constexpr double TOLERANCE = 1e-9;

IdentityAccumulator makeAccumulator() { return IdentityAccumulator(GATE_M, CUTOFF_M, ORDER); }

TEST(IdentityMetrics, TracksThatKeepTheirRoadUsersScoreAPerfectMota) {
    auto sut = makeAccumulator();
    for (int k = 0; k < 5; ++k) {
        const double x = k;
        const std::vector<IdentifiedPosition> truth{{1, x, 0.0}, {2, x, 5.0}};
        const std::vector<IdentifiedPosition> tracks{{10, x + 0.5, 0.0}, {11, x, 5.0}};
        sut.addCycle(0.1 * k, truth, tracks);
    }
    const IdentitySummary s = sut.summary();
    EXPECT_EQ(s.idSwitches, 0U);
    EXPECT_EQ(s.fragmentations, 0U);
    EXPECT_NEAR(s.mota, 1.0, TOLERANCE);
    EXPECT_NEAR(s.motp_m, 0.25, TOLERANCE);
    EXPECT_EQ(s.trackIds, 2U);
    EXPECT_EQ(s.falseTrackIds, 0U);
    EXPECT_NEAR(s.gospaLocalisation, 0.25, TOLERANCE);  // 0.5² per cycle
    EXPECT_NEAR(s.gospaMissed, 0.0, TOLERANCE);
}

TEST(IdentityMetrics, ANewTrackIdOnTheSameRoadUserIsOneIdentitySwitch) {
    auto sut = makeAccumulator();
    const std::vector<IdentifiedPosition> truth{{1, 0.0, 0.0}};
    sut.addCycle(0.0, truth, std::vector<IdentifiedPosition>{{10, 0.0, 0.0}});
    sut.addCycle(0.1, truth, std::vector<IdentifiedPosition>{{11, 0.0, 0.0}});
    sut.addCycle(0.2, truth, std::vector<IdentifiedPosition>{{11, 0.0, 0.0}});
    const IdentitySummary s = sut.summary();
    EXPECT_EQ(s.idSwitches, 1U);
    EXPECT_NEAR(s.mota, 1.0 - 1.0 / 3.0, TOLERANCE);
}

TEST(IdentityMetrics, AnInterruptedTrackIsAFragmentationAndItsGapMisses) {
    auto sut = makeAccumulator();
    const std::vector<IdentifiedPosition> truth{{1, 0.0, 0.0}};
    const std::vector<IdentifiedPosition> track{{10, 0.0, 0.0}};
    const std::vector<IdentifiedPosition> none;
    sut.addCycle(0.0, truth, track);
    sut.addCycle(0.1, truth, none);
    sut.addCycle(0.2, truth, track);
    const IdentitySummary s = sut.summary();
    EXPECT_EQ(s.fragmentations, 1U);
    EXPECT_EQ(s.idSwitches, 0U);
    EXPECT_EQ(s.misses, 1U);
    EXPECT_NEAR(s.gospaMissed, CUTOFF_M * CUTOFF_M / 2.0 / 3.0, TOLERANCE);
}

TEST(IdentityMetrics, ATrackNeverNearARoadUserIsAFalseTrackWithItsLifetime) {
    auto sut = makeAccumulator();
    const std::vector<IdentifiedPosition> truth{{1, 0.0, 0.0}};
    for (int k = 0; k < 4; ++k) {
        sut.addCycle(0.2 * k, truth, std::vector<IdentifiedPosition>{{10, 0.0, 0.0}, {20, 50.0, 50.0}});
    }
    const IdentitySummary s = sut.summary();
    EXPECT_EQ(s.falseTrackIds, 1U);
    EXPECT_NEAR(s.longestFalseTrack_s, 0.6, TOLERANCE);
    EXPECT_EQ(s.falsePositives, 4U);
    EXPECT_NEAR(s.gospaFalse, CUTOFF_M * CUTOFF_M / 2.0, TOLERANCE);
}

TEST(IdentityMetrics, ARoadUserOutOfRangeIsMatchedButNeverMissed) {
    auto sut = makeAccumulator();
    const std::vector<IdentifiedPosition> truth{{1, 0.0, 0.0, false}};
    sut.addCycle(0.0, truth, std::vector<IdentifiedPosition>{{10, 0.0, 0.0}});
    sut.addCycle(0.1, truth, std::vector<IdentifiedPosition>{});
    const IdentitySummary s = sut.summary();
    EXPECT_EQ(s.groundTruth, 0U);
    EXPECT_EQ(s.misses, 0U);
    EXPECT_EQ(s.falsePositives, 0U);
    EXPECT_EQ(s.falseTrackIds, 0U);
}

TEST(IdentityMetrics, CrossingRoadUsersKeepTheirTracksWhileBothAreInsideTheGate) {
    // Two road users pass each other 1 m apart; the previous correspondences are kept (CLEAR MOT), so the
    // moment the other track is nearer does not count as two switches.
    auto sut = makeAccumulator();
    for (int k = 0; k <= 4; ++k) {
        const double x = -1.0 + 0.5 * k;
        const std::vector<IdentifiedPosition> truth{{1, x, 0.0}, {2, -x, 1.0}};
        const std::vector<IdentifiedPosition> tracks{{10, x, 0.0}, {20, -x, 1.0}};
        sut.addCycle(0.1 * k, truth, tracks);
    }
    EXPECT_EQ(sut.summary().idSwitches, 0U);
}

}  // namespace
}  // namespace augur::hil
