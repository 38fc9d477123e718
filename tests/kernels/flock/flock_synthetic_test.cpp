// The synthetic trajectory generator: seeded, and its groups really move together.
#include <gtest/gtest.h>

#include <cmath>

#include "augur/kernels/flock/synthetic.hpp"

namespace augur::kernels::flock {
namespace {

SyntheticSpec groupsOnly() {
    SyntheticSpec spec;
    spec.entities = 30;
    spec.steps = 50;
    spec.groups = 3;
    spec.groupSize = 5;
    spec.area_m = 500.0;
    spec.groupSpread_m = 2.0;
    spec.leaveProbability = 0.0;
    spec.seed = 5;
    return spec;
}

TEST(FlockSynthetic, SameSeedGivesSameTrajectoriesAndAnotherSeedDiffers) {
    SyntheticSpec spec = groupsOnly();
    const SyntheticTrajectories first = generateTrajectories(spec);
    const SyntheticTrajectories again = generateTrajectories(spec);
    spec.seed = 6;
    const SyntheticTrajectories other = generateTrajectories(spec);
    EXPECT_EQ(first.x_m, again.x_m);
    EXPECT_EQ(first.present, again.present);
    EXPECT_NE(first.x_m, other.x_m);
}

TEST(FlockSynthetic, GroupMembersStayWithinTheSpreadOfEachOther) {
    const SyntheticSpec spec = groupsOnly();
    const SyntheticTrajectories sut = generateTrajectories(spec);
    const double diameter = 2.0 * spec.groupSpread_m * 1.1;  // spread plus jitter
    for (int t = 0; t < spec.steps; ++t) {
        for (int i = 0; i < spec.groups * spec.groupSize; ++i) {
            const int leader = (i / spec.groupSize) * spec.groupSize;
            const std::size_t a = static_cast<std::size_t>(t * spec.entities + i);
            const std::size_t b = static_cast<std::size_t>(t * spec.entities + leader);
            EXPECT_LE(std::hypot(sut.x_m[a] - sut.x_m[b], sut.y_m[a] - sut.y_m[b]), diameter);
        }
    }
}

TEST(FlockSynthetic, MissingProbabilityRemovesAboutThatShareOfSamples) {
    SyntheticSpec spec = groupsOnly();
    spec.missingProbability = 0.2;
    const SyntheticTrajectories sut = generateTrajectories(spec);
    std::size_t missing = 0;
    for (const auto p : sut.present) {
        missing += p == 0 ? 1U : 0U;
    }
    const double share = static_cast<double>(missing) / static_cast<double>(sut.present.size());
    EXPECT_NEAR(share, 0.2, 0.03);
}

}  // namespace
}  // namespace augur::kernels::flock
