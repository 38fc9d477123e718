// The per-architecture tuning policies: which policy a device gets, the forced policy, and the values of
// each family's chain (sm_90's are the values the families had before the chain, so behaviour on an
// H100 / H200 is unchanged).
#include "augur/kernels/tuning_policy.hpp"

#include <gtest/gtest.h>

#include "augur/platform/gpu_info.hpp"
#include "flock/tuning.hpp"
#include "kf/tuning.hpp"
#include "markov/tuning.hpp"
#include "pf/tuning.hpp"
#include "primitives/tuning.hpp"

namespace augur::kernels {
namespace {

/// Restores the device's policy after a test that forces one.
class ForcedPolicy : public ::testing::Test {
protected:
    void TearDown() override { forceTuningArch(std::nullopt); }
};

TEST(TuningPolicy, XavierGetsTheSm72Policy) { EXPECT_EQ(tuningArchFor(7, 2), TuningArch::Sm72); }

TEST(TuningPolicy, OrinGetsTheSm87Policy) { EXPECT_EQ(tuningArchFor(8, 7), TuningArch::Sm87); }

TEST(TuningPolicy, HopperGetsTheSm90Policy) { EXPECT_EQ(tuningArchFor(9, 0), TuningArch::Sm90); }

TEST(TuningPolicy, NewerDevicesFallBackToTheNearestLowerPolicy) {
    EXPECT_EQ(tuningArchFor(10, 0), TuningArch::Sm90);  // Blackwell B200
    EXPECT_EQ(tuningArchFor(12, 0), TuningArch::Sm90);
    EXPECT_EQ(tuningArchFor(8, 9), TuningArch::Sm87);   // Ada: above Orin, below Hopper
    EXPECT_EQ(tuningArchFor(8, 6), TuningArch::Sm72);   // Ampere GA10x: below Orin
    EXPECT_EQ(tuningArchFor(8, 0), TuningArch::Sm72);
}

TEST(TuningPolicy, DevicesOlderThanXavierGetTheOldestPolicy) {
    EXPECT_EQ(tuningArchFor(7, 0), TuningArch::Sm72);
    EXPECT_EQ(tuningArchFor(6, 1), TuningArch::Sm72);
}

TEST(TuningPolicy, ParsesTheThreeArchitecturesAndNothingElse) {
    EXPECT_EQ(parseTuningArch("sm87"), TuningArch::Sm87);
    EXPECT_EQ(parseTuningArch("sm_72"), TuningArch::Sm72);
    EXPECT_EQ(parseTuningArch("90"), TuningArch::Sm90);
    EXPECT_FALSE(parseTuningArch("sm86").has_value());
    EXPECT_FALSE(parseTuningArch("").has_value());
    EXPECT_FALSE(parseTuningArch("sm_").has_value());
}

TEST(TuningPolicy, NamesEachArchitecture) {
    EXPECT_STREQ(toString(TuningArch::Sm72), "sm_72");
    EXPECT_STREQ(toString(TuningArch::Sm87), "sm_87");
    EXPECT_STREQ(toString(TuningArch::Sm90), "sm_90");
}

TEST_F(ForcedPolicy, AForcedPolicyIsTheActiveOneWhateverTheDevice) {
    forceTuningArch(TuningArch::Sm87);

    const auto sut = activeTuningArch();

    ASSERT_TRUE(sut.hasValue());
    EXPECT_EQ(sut.value(), TuningArch::Sm87);
    EXPECT_EQ(forcedTuningArch(), TuningArch::Sm87);
}

TEST_F(ForcedPolicy, WithoutAForcedPolicyTheDeviceDecides) {
    forceTuningArch(TuningArch::Sm72);
    forceTuningArch(std::nullopt);

    const auto sut = activeTuningArch();
    const auto capability = platform::currentComputeCapability();

    EXPECT_FALSE(forcedTuningArch().has_value());
    ASSERT_EQ(sut.hasValue(), capability.hasValue());  // no device (CPU-only build, no driver): both fail
    if (capability) {
        EXPECT_EQ(sut.value(), tuningArchFor(capability.value().major, capability.value().minor));
    }
}

// sm_90: the values of the single-value tuning the chains replaced.
TEST(TuningPolicy, Sm90KeepsTheParticleFilterValues) {
    EXPECT_EQ(pf::tuning::launchPolicy(TuningArch::Sm90).spreadMaxBlocks, 528U);
}

TEST(TuningPolicy, Sm90KeepsTheMarkovValues) {
    const auto sut = markov::tuning::launchPolicy(TuningArch::Sm90);
    EXPECT_EQ(sut.residentChunkRows, 4);
    EXPECT_EQ(sut.residentMaxClusterBlocks, 8);
    EXPECT_EQ(sut.residentMinCorridors, 1);
}

TEST(TuningPolicy, Sm90KeepsTheFlockValues) {
    const auto sut = flock::tuning::launchPolicy(TuningArch::Sm90);
    EXPECT_EQ(sut.block, 256);
    EXPECT_EQ(sut.blocksPerSm, 16);
    EXPECT_EQ(sut.windowBlock, 128);
    EXPECT_EQ(sut.largeStepEntities, 1024);
    EXPECT_EQ(sut.largeStepBlock, 512);
    EXPECT_EQ(sut.stepRoomPercent, 150);
    EXPECT_EQ(sut.smThreads, 2048);
    EXPECT_EQ(sut.workspaceBlocksPerSm, 2);
    EXPECT_EQ(sut.inPlaceWaves, 2);
}

TEST(TuningPolicy, CompiledValuesAreTheSameForEveryArchitecture) {
    EXPECT_EQ(kf::tuning::BANK_BLOCK_THREADS, 256);
    EXPECT_EQ(kf::tuning::SMOOTHER_BLOCK_THREADS, 128);
    EXPECT_EQ(primitives::tuning::REDUCE_MAX_BLOCKS, 1024U);
    EXPECT_EQ(primitives::tuning::SINGLE_PASS_SHAPE, 5U);
    EXPECT_EQ(kf::tuning::PolicySm87::SMOOTHER_BLOCK_THREADS, kf::tuning::PolicySm90::SMOOTHER_BLOCK_THREADS);
}

// sm_87 and sm_72: what differs from sm_90 and why (device limits, not measurements).
TEST(TuningPolicy, OrinFillsItsSmsWithTwoWavesOfItsFewerThreads) {
    const auto sut = flock::tuning::launchPolicy(TuningArch::Sm87);
    EXPECT_EQ(sut.smThreads, 1536);
    EXPECT_EQ(sut.blocksPerSm * sut.block, 2 * sut.smThreads);
}

TEST(TuningPolicy, ArchitecturesBeforeHopperSpreadNoCorridorOverACluster) {
    EXPECT_EQ(markov::tuning::launchPolicy(TuningArch::Sm87).residentMaxClusterBlocks, 1);
    EXPECT_EQ(markov::tuning::launchPolicy(TuningArch::Sm72).residentMaxClusterBlocks, 1);
}

TEST(TuningPolicy, TheResidentPathAsksNoMoreSharedMemoryThanEachArchitectureGivesABlock) {
    EXPECT_EQ(markov::tuning::launchPolicy(TuningArch::Sm72).maxSharedBytesPerBlock, 96 * 1024);
    EXPECT_EQ(markov::tuning::launchPolicy(TuningArch::Sm87).maxSharedBytesPerBlock, 163 * 1024);
    EXPECT_EQ(markov::tuning::launchPolicy(TuningArch::Sm90).maxSharedBytesPerBlock, 227 * 1024);
}

TEST(TuningPolicy, ResidentBlocksPerSmFollowTheArchitectureNotTheDevice) {
    constexpr int THREADS = markov::tuning::RESIDENT_THREADS;  // 512
    constexpr int ORIN_CHAIN = 157 * 1024;                    // config/jetson-orin.yaml's chain
    constexpr int SMALL_CHAIN = 60 * 1024;
    constexpr int TINY_CHAIN = 8 * 1024;
    const auto sm72 = markov::tuning::launchPolicy(TuningArch::Sm72);
    const auto sm87 = markov::tuning::launchPolicy(TuningArch::Sm87);
    const auto sm90 = markov::tuning::launchPolicy(TuningArch::Sm90);
    EXPECT_EQ(sm87.blocksPerSm(THREADS, ORIN_CHAIN), 1);
    EXPECT_EQ(sm87.blocksPerSm(THREADS, SMALL_CHAIN), 2);  // 164 KB per SM
    EXPECT_EQ(sm90.blocksPerSm(THREADS, SMALL_CHAIN), 3);  // 228 KB per SM
    EXPECT_EQ(sm87.blocksPerSm(THREADS, TINY_CHAIN), 3);   // 1536 threads per SM
    EXPECT_EQ(sm90.blocksPerSm(THREADS, TINY_CHAIN), 4);   // 2048
    EXPECT_EQ(sm72.blocksPerSm(THREADS, SMALL_CHAIN), 1);
    EXPECT_EQ(sm72.blocksPerSm(THREADS, ORIN_CHAIN), 0);
}

TEST(TuningPolicy, SpreadPartialsScaleWithTheSmCount) {
    EXPECT_EQ(pf::tuning::launchPolicy(TuningArch::Sm87).spreadMaxBlocks, 4U * 16U);
    EXPECT_EQ(pf::tuning::launchPolicy(TuningArch::Sm72).spreadMaxBlocks, 4U * 8U);
    EXPECT_LE(pf::tuning::launchPolicy(TuningArch::Sm87).spreadMaxBlocks, pf::tuning::MAX_SPREAD_BLOCKS);
}

TEST(TuningPolicy, InheritedValuesComeFromThePreviousPolicy) {
    EXPECT_EQ(flock::tuning::PolicySm87::LARGE_STEP_BLOCK, flock::tuning::PolicySm72::LARGE_STEP_BLOCK);
    EXPECT_EQ(markov::tuning::PolicySm87::RESIDENT_CHUNK_ROWS, markov::tuning::PolicySm72::RESIDENT_CHUNK_ROWS);
}

}  // namespace
}  // namespace augur::kernels
