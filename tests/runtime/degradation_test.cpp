#include "augur/runtime/degradation.hpp"

#include <gtest/gtest.h>

namespace augur::runtime {
namespace {

constexpr std::uint32_t GOOD_CYCLES = 3;

TEST(DegradationLadder, StartsNominalAndStaysThereWhenOnTime) {
    DegradationLadder sut({1, GOOD_CYCLES});
    for (int i = 0; i < 10; ++i) {
        EXPECT_FALSE(sut.onCycle(false).has_value());
    }
    EXPECT_EQ(sut.mode(), RuntimeMode::Nominal);
}

TEST(DegradationLadder, EachMissStepsDownOneRungToNoPrediction) {
    DegradationLadder sut({1, GOOD_CYCLES});
    const RuntimeMode expected[] = {RuntimeMode::ReducedParticles, RuntimeMode::ConstantVelocity,
                                    RuntimeMode::HoldLast, RuntimeMode::NoPrediction, RuntimeMode::NoPrediction};
    for (const RuntimeMode mode : expected) {
        (void)sut.onCycle(true);
        EXPECT_EQ(sut.mode(), mode);
    }
    EXPECT_EQ(sut.consecutiveMisses(), 5U);
    EXPECT_EQ(sut.transitions(), 4U);
}

TEST(DegradationLadder, StepsBackUpAfterARunOfGoodCycles) {
    DegradationLadder sut({1, GOOD_CYCLES});
    (void)sut.onCycle(true);
    (void)sut.onCycle(true);
    ASSERT_EQ(sut.mode(), RuntimeMode::ConstantVelocity);
    EXPECT_FALSE(sut.onCycle(false).has_value());
    EXPECT_FALSE(sut.onCycle(false).has_value());
    const auto transition = sut.onCycle(false);
    ASSERT_TRUE(transition.has_value());
    EXPECT_EQ(transition->from, RuntimeMode::ConstantVelocity);
    EXPECT_EQ(transition->to, RuntimeMode::ReducedParticles);
    for (std::uint32_t i = 0; i < GOOD_CYCLES; ++i) {
        (void)sut.onCycle(false);
    }
    EXPECT_EQ(sut.mode(), RuntimeMode::Nominal);
}

TEST(DegradationLadder, AMissResetsTheGoodRun) {
    DegradationLadder sut({1, GOOD_CYCLES});
    (void)sut.onCycle(true);
    (void)sut.onCycle(false);
    (void)sut.onCycle(false);
    (void)sut.onCycle(true);  // back down before the run completed
    EXPECT_EQ(sut.mode(), RuntimeMode::ConstantVelocity);
}

TEST(DegradationLadder, StepsDownOnlyAfterTheConfiguredRunOfMisses) {
    DegradationLadder sut({2, GOOD_CYCLES});
    EXPECT_FALSE(sut.onCycle(true).has_value());
    EXPECT_EQ(sut.mode(), RuntimeMode::Nominal);
    EXPECT_TRUE(sut.onCycle(true).has_value());
    EXPECT_EQ(sut.mode(), RuntimeMode::ReducedParticles);
    EXPECT_FALSE(sut.onCycle(true).has_value());
    EXPECT_TRUE(sut.onCycle(true).has_value());
    EXPECT_EQ(sut.mode(), RuntimeMode::ConstantVelocity);
}

TEST(DegradationLadder, ForceAtLeastOnlyStepsDown) {
    DegradationLadder sut({1, GOOD_CYCLES});
    EXPECT_TRUE(sut.forceAtLeast(RuntimeMode::ConstantVelocity).has_value());
    EXPECT_FALSE(sut.forceAtLeast(RuntimeMode::ReducedParticles).has_value());
    EXPECT_EQ(sut.mode(), RuntimeMode::ConstantVelocity);
}

TEST(DegradationLadder, AFloorHoldsTheModeDownAndLiftsAtOnce) {
    DegradationLadder sut({1, GOOD_CYCLES});
    const auto down = sut.onCycle(false, RuntimeMode::HoldLast);
    ASSERT_TRUE(down.has_value());
    EXPECT_EQ(down->from, RuntimeMode::Nominal);
    EXPECT_EQ(down->to, RuntimeMode::HoldLast);
    EXPECT_FALSE(sut.onCycle(false, RuntimeMode::HoldLast).has_value());
    const auto deeper = sut.onCycle(false, RuntimeMode::NoPrediction);
    ASSERT_TRUE(deeper.has_value());
    EXPECT_EQ(deeper->to, RuntimeMode::NoPrediction);
    const auto lifted = sut.onCycle(false, RuntimeMode::Nominal);
    ASSERT_TRUE(lifted.has_value());
    EXPECT_EQ(lifted->to, RuntimeMode::Nominal) << "no run of good cycles is needed when a condition ends";
    EXPECT_EQ(sut.transitions(), 3U);
}

TEST(DegradationLadder, TheModeIsTheWorseOfTheTimingRungAndTheFloor) {
    DegradationLadder sut({1, GOOD_CYCLES});
    (void)sut.onCycle(true, RuntimeMode::Nominal);
    (void)sut.onCycle(true, RuntimeMode::Nominal);
    ASSERT_EQ(sut.mode(), RuntimeMode::ConstantVelocity);
    EXPECT_FALSE(sut.onCycle(false, RuntimeMode::ReducedParticles).has_value()) << "a milder floor changes nothing";
    const auto lifted = sut.onCycle(false, RuntimeMode::HoldLast);
    ASSERT_TRUE(lifted.has_value());
    EXPECT_EQ(sut.mode(), RuntimeMode::HoldLast);
    EXPECT_EQ(sut.timingRung(), RuntimeMode::ConstantVelocity);
    const auto released = sut.onCycle(false, RuntimeMode::Nominal);
    ASSERT_TRUE(released.has_value());
    EXPECT_EQ(released->to, RuntimeMode::ReducedParticles) << "the timing rung kept stepping up meanwhile";
}

}  // namespace
}  // namespace augur::runtime
