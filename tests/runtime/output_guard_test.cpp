#include "augur/runtime/output_guard.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <memory>

namespace augur::runtime {
namespace {

constexpr float NAN_F = std::numeric_limits<float>::quiet_NaN();
constexpr float INF_F = std::numeric_limits<float>::infinity();

TEST(OutputGuard, DropsNonFiniteTracksAndKeepsTheOrderOfTheRest) {
    auto sut = std::make_unique<TrackList>();
    sut->trackCount = 4;
    for (std::uint32_t i = 0; i < 4; ++i) {
        sut->tracks[i].id = i + 1;
    }
    sut->tracks[1].vx_mps = NAN_F;
    sut->tracks[2].covYY_m2 = INF_F;
    EXPECT_EQ(dropNonFinite(*sut), 2U);
    ASSERT_EQ(sut->trackCount, 2U);
    EXPECT_EQ(sut->tracks[0].id, 1U);
    EXPECT_EQ(sut->tracks[1].id, 4U);
}

TEST(OutputGuard, FiniteMessagesAreLeftAlone) {
    auto tracks = std::make_unique<TrackList>();
    tracks->trackCount = 3;
    EXPECT_EQ(dropNonFinite(*tracks), 0U);
    EXPECT_EQ(tracks->trackCount, 3U);
    auto prediction = std::make_unique<MotionPrediction>();
    prediction->vehicleCount = 2;
    prediction->horizonSteps = 5;
    EXPECT_EQ(dropNonFinite(*prediction), 0U);
    EXPECT_EQ(prediction->vehicleCount, 2U);
}

TEST(OutputGuard, DropsAnIntentionWithANonFiniteProbability) {
    auto sut = std::make_unique<IntentionList>();
    sut->vehicleCount = 2;
    sut->vehicles[0].corridorCount = 2;
    sut->vehicles[0].corridorProbability[1] = NAN_F;
    sut->vehicles[1].corridorCount = 1;
    sut->vehicles[1].corridorProbability[3] = NAN_F;  // beyond its corridor count: not part of the message
    EXPECT_EQ(dropNonFinite(*sut), 1U);
    EXPECT_EQ(sut->vehicleCount, 1U);
}

TEST(OutputGuard, ChecksPredictedPointsWithinTheHorizonOnly) {
    auto sut = std::make_unique<MotionPrediction>();
    sut->vehicleCount = 3;
    sut->horizonSteps = 10;
    for (std::uint32_t v = 0; v < 3; ++v) {
        sut->vehicles[v].trackId = v;
        sut->vehicles[v].corridorCount = 1;
    }
    sut->vehicles[0].corridors[0].points[9].y_m = NAN_F;   // inside the horizon
    sut->vehicles[1].corridors[0].points[10].y_m = NAN_F;  // beyond it
    sut->vehicles[2].corridors[0].probability = INF_F;
    EXPECT_EQ(dropNonFinite(*sut), 2U);
    ASSERT_EQ(sut->vehicleCount, 1U);
    EXPECT_EQ(sut->vehicles[0].trackId, 1U);
}

TEST(OutputGuard, ANonFiniteStepRemovesEveryVehicle) {
    auto sut = std::make_unique<MotionPrediction>();
    sut->vehicleCount = 4;
    sut->step_s = NAN_F;
    EXPECT_EQ(dropNonFinite(*sut), 4U);
    EXPECT_EQ(sut->vehicleCount, 0U);
    EXPECT_EQ(sut->step_s, 0.0F);
}

TEST(OutputGuard, ACountOverCapacityIsCutToTheCapacity) {
    auto sut = std::make_unique<TrackList>();
    sut->trackCount = static_cast<std::uint32_t>(MAX_TRACKS) + 5;
    EXPECT_EQ(dropNonFinite(*sut), 5U);
    EXPECT_EQ(sut->trackCount, MAX_TRACKS);
}

}  // namespace
}  // namespace augur::runtime
