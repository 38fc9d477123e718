// Perception emulation: field of view, message contents a perception stack would send (validated by the
// runtime's own validation), determinism under a seed, and the statistics of the injected noise,
// dropouts and id switches.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <set>
#include <vector>

#include "augur/core/message_validation.hpp"
#include "augur/hil/perception_emulator.hpp"
#include "augur/testing/testing.hpp"

namespace augur::hil {
namespace {

constexpr std::uint32_t EGO_ID = 1;
constexpr double STEP_S = 0.1;

/// The ego at the origin heading east at 5 m/s, and `others` road users on a line east of it, 10 m
/// apart from x = 10 m, each at 8 m/s heading north, for `steps` steps (positions fixed: the emulator
/// does not care about motion).
Scenario lineScenario(std::size_t others, std::size_t steps) {
    std::vector<GroundTruthState> states;
    std::vector<std::size_t> stepOf;
    for (std::size_t k = 0; k < steps; ++k) {
        states.push_back({EGO_ID, ObjectClass::Car, 0.0F, 0.0F, 0.0F, 5.0F, 4.5F, 1.8F});
        stepOf.push_back(k);
        for (std::size_t i = 0; i < others; ++i) {
            states.push_back({static_cast<std::uint32_t>(i + 2), ObjectClass::Truck, 10.0F * static_cast<float>(i + 1),
                              0.0F, static_cast<float>(std::numbers::pi / 2), 8.0F, 9.0F, 2.5F});
            stepOf.push_back(k);
        }
    }
    auto built = Scenario::fromStates("line", STEP_S, states, stepOf);
    AUGUR_ASSERT(built.hasValue(), "lineScenario");
    return std::move(built).value();
}

PerceptionConfig exactConfig() {
    PerceptionConfig c;
    c.egoId = EGO_ID;
    c.range_m = 45.0F;
    c.stdPosition_m = 0.0F;
    c.stdHeading_rad = 0.0F;
    c.stdSpeed_mps = 0.0F;
    c.dropoutProbability = 0.0F;
    c.falseIdProbability = 0.0F;
    return c;
}

TEST(PerceptionEmulator, ReportsOthersWithinRangeNearestFirstWithoutTheEgo) {
    const Scenario scenario = lineScenario(6, 1);  // others at 10..60 m; range 45 m sees 4
    auto sut = PerceptionEmulator::create(scenario, exactConfig());
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    ASSERT_EQ(sut->emit(0, *list), EmitStatus::Emitted);
    ASSERT_EQ(list->objectCount, 4U);
    for (std::uint32_t i = 0; i < 4; ++i) {
        EXPECT_EQ(list->objects[i].id, i + 2);
        EXPECT_FLOAT_EQ(list->objects[i].x_m, 10.0F * static_cast<float>(i + 1));
        EXPECT_EQ(list->objects[i].objectClass, ObjectClass::Truck);
        EXPECT_FLOAT_EQ(list->objects[i].length_m, 9.0F);
        EXPECT_FLOAT_EQ(list->objects[i].speed_mps, 8.0F);
        EXPECT_FLOAT_EQ(list->objects[i].stdX_m, MIN_REPORTED_STD);  // noise-free: floored, still > 0
    }
    EXPECT_FLOAT_EQ(list->ego.speed_mps, 5.0F);
}

TEST(PerceptionEmulator, FillsHeaderWithIncreasingSequenceAndStepStamps) {
    constexpr std::int64_t START_NS = 1'000'000'000;
    const Scenario scenario = lineScenario(2, 3);
    PerceptionConfig config = exactConfig();
    config.startStamp_ns = START_NS;
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    for (std::size_t step = 0; step < 3; ++step) {
        ASSERT_EQ(sut->emit(step, *list), EmitStatus::Emitted);
        EXPECT_EQ(list->header.schemaVersion, MESSAGE_SCHEMA_VERSION);
        EXPECT_EQ(list->header.sequence, step + 1);
        EXPECT_EQ(list->header.stamp_ns, START_NS + static_cast<std::int64_t>(step) * 100'000'000);
    }
    EXPECT_EQ(sut->emit(3, *list), EmitStatus::StepOutOfRange);
    EXPECT_EQ(sut->stats().listsEmitted, 3U);
}

TEST(PerceptionEmulator, KeepsTheNearestObjectsUpToCapacityAndCountsTheRest) {
    const Scenario scenario = lineScenario(5, 1);
    PerceptionConfig config = exactConfig();
    config.range_m = 100.0F;
    config.maxObjects = 3;
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    ASSERT_EQ(sut->emit(0, *list), EmitStatus::Emitted);
    EXPECT_EQ(list->objectCount, 3U);
    EXPECT_EQ(list->objects[2].id, 4U);
    EXPECT_EQ(sut->stats().objectsTruncated, 2U);
}

TEST(PerceptionEmulator, EmitsNothingWhileTheEgoIsAbsent) {
    std::vector<GroundTruthState> states = {{2, ObjectClass::Car, 0, 0, 0, 1, 4, 2}, {EGO_ID, ObjectClass::Car, 0, 5, 0, 1, 4, 2}};
    const auto scenario = Scenario::fromStates("late ego", STEP_S, states, {0, 1});
    ASSERT_TRUE(scenario);
    auto sut = PerceptionEmulator::create(scenario.value(), exactConfig());
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    EXPECT_EQ(sut->emit(0, *list), EmitStatus::EgoAbsent);
    ASSERT_EQ(sut->emit(1, *list), EmitStatus::Emitted);
    EXPECT_EQ(list->header.sequence, 1U);  // the absent step used no sequence number
    EXPECT_EQ(list->objectCount, 0U);
}

TEST(PerceptionEmulator, RejectsInvalidConfiguration) {
    const Scenario scenario = lineScenario(1, 1);
    PerceptionConfig c = exactConfig();
    c.egoId = 99;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::EgoNotInScenario);
    c = exactConfig();
    c.range_m = 0.0F;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::InvalidRange);
    c = exactConfig();
    c.stdHeading_rad = -0.1F;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::InvalidNoise);
    c = exactConfig();
    c.dropoutProbability = 1.5F;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::InvalidProbability);
    c = exactConfig();
    c.maxObjects = static_cast<std::uint32_t>(MAX_OBJECTS) + 1;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::InvalidCapacity);
    c = exactConfig();
    c.clutterRate = -1.0F;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::InvalidClutter);
    c = exactConfig();
    c.idShuffleProbability = 2.0F;
    EXPECT_EQ(PerceptionEmulator::create(scenario, c).error(), PerceptionConfigError::InvalidProbability);
}

PerceptionConfig noisyConfig(std::uint64_t seed) {
    PerceptionConfig c;
    c.egoId = EGO_ID;
    c.range_m = 1000.0F;
    c.stdPosition_m = 0.5F;
    c.stdHeading_rad = 0.05F;
    c.stdSpeed_mps = 0.3F;
    c.dropoutProbability = 0.1F;
    c.falseIdProbability = 0.02F;
    c.seed = seed;
    return c;
}

std::vector<ObjectList> emitAll(const Scenario& scenario, const PerceptionConfig& config) {
    auto sut = PerceptionEmulator::create(scenario, config);
    AUGUR_ASSERT(sut.hasValue(), "emitAll");
    std::vector<ObjectList> lists(scenario.stepCount());
    for (std::size_t step = 0; step < scenario.stepCount(); ++step) {
        AUGUR_ASSERT(sut->emit(step, lists[step]) == EmitStatus::Emitted, "emitAll");
    }
    return lists;
}

TEST(PerceptionEmulator, GivesIdenticalListsForTheSameSeedAndDifferentOnesForAnother) {
    const Scenario scenario = lineScenario(20, 30);
    const auto first = emitAll(scenario, noisyConfig(7));
    const auto second = emitAll(scenario, noisyConfig(7));
    const auto other = emitAll(scenario, noisyConfig(8));
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(ObjectList)), 0);
    EXPECT_NE(std::memcmp(first.data(), other.data(), first.size() * sizeof(ObjectList)), 0);
}

class PerceptionEmulatorIds : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(WithAndWithoutIds, PerceptionEmulatorIds, ::testing::Values(false, true));

TEST_P(PerceptionEmulatorIds, ProducesListsTheRuntimeValidationAccepts) {
    const auto scenario = Scenario::load(testing::sourcePath("data/scenarios/intersection-4way"));
    ASSERT_TRUE(scenario) << scenario.error().detail;
    PerceptionConfig config = noisyConfig(3);
    config.range_m = 80.0F;
    config.egoId = scenario->vehicles().front().id;
    config.clutterRate = 2.0F;  // with every id fault: still valid lists, no id repeated within one
    config.newIdOnReappearance = true;
    config.idShuffleProbability = 0.5F;
    config.noIds = GetParam();
    auto sut = PerceptionEmulator::create(scenario.value(), config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    auto accepted = std::make_unique<ObjectList>();
    ObjectListGate gate{ObjectListLimits{}};
    std::size_t emitted = 0;
    for (std::size_t step = 0; step < scenario->stepCount(); ++step) {
        if (sut->emit(step, *list) != EmitStatus::Emitted) {
            continue;
        }
        ++emitted;
        const Admission admission = gate.admit(*list, list->header.stamp_ns, *accepted);
        ASSERT_EQ(admission.reason, RejectReason::None) << "step " << step;
        EXPECT_EQ(admission.droppedObjects, 0U) << "step " << step;
    }
    EXPECT_GT(emitted, 0U);
    EXPECT_GT(sut->stats().objectsEmitted, 0U);
}

TEST(PerceptionEmulator, NoiseDropoutsAndIdSwitchesFollowTheConfiguredStatistics) {
    constexpr std::size_t OTHERS = 50;
    constexpr std::size_t STEPS = 400;  // 20,000 object draws
    const Scenario scenario = lineScenario(OTHERS, STEPS);
    const PerceptionConfig config = noisyConfig(11);
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    double sumX = 0.0, sumXX = 0.0, sumY = 0.0, sumYY = 0.0, sumH = 0.0, sumHH = 0.0, sumV = 0.0, sumVV = 0.0;
    std::size_t n = 0;
    std::set<std::uint32_t> falseIds;
    for (std::size_t step = 0; step < STEPS; ++step) {
        ASSERT_EQ(sut->emit(step, *list), EmitStatus::Emitted);
        for (std::uint32_t i = 0; i < list->objectCount; ++i) {
            const PerceivedObject& o = list->objects[i];
            const std::uint32_t trueId = sut->trueIdOf(o.id);
            ASSERT_GE(trueId, 2U);
            if (o.id >= FALSE_ID_BASE) {
                falseIds.insert(o.id);
            }
            const GroundTruthState* t = scenario.find(step, trueId);
            ASSERT_NE(t, nullptr);
            const double dx = o.x_m - t->x_m, dy = o.y_m - t->y_m, dh = o.heading_rad - t->heading_rad,
                         dv = o.speed_mps - t->speed_mps;
            sumX += dx, sumXX += dx * dx, sumY += dy, sumYY += dy * dy;
            sumH += dh, sumHH += dh * dh, sumV += dv, sumVV += dv * dv;
            EXPECT_FLOAT_EQ(o.stdX_m, config.stdPosition_m);
            ++n;
        }
    }
    const auto N = static_cast<double>(n);
    const auto checkNormal = [N](double sum, double sumSq, double sigma, const char* what) {
        const double mean = sum / N;
        const double sd = std::sqrt(sumSq / N - mean * mean);
        EXPECT_LT(std::abs(mean), 4.0 * sigma / std::sqrt(N)) << what;       // 4 standard errors
        EXPECT_NEAR(sd / sigma, 1.0, 4.0 / std::sqrt(2.0 * N)) << what;     // 4 standard errors of s/σ
    };
    checkNormal(sumX, sumXX, config.stdPosition_m, "x");
    checkNormal(sumY, sumYY, config.stdPosition_m, "y");
    checkNormal(sumH, sumHH, config.stdHeading_rad, "heading");
    checkNormal(sumV, sumVV, config.stdSpeed_mps, "speed");  // 8 m/s ≫ 0.3: clamping at 0 never acts

    const double draws = static_cast<double>(OTHERS * STEPS);
    const auto withinBinomial = [draws](double count, double p) {
        return std::abs(count / draws - p) < 4.0 * std::sqrt(p * (1.0 - p) / draws);
    };
    EXPECT_TRUE(withinBinomial(static_cast<double>(sut->stats().objectsDropped), config.dropoutProbability))
        << sut->stats().objectsDropped;
    EXPECT_TRUE(withinBinomial(static_cast<double>(sut->stats().idSwitches), config.falseIdProbability))
        << sut->stats().idSwitches;
    EXPECT_EQ(sut->stats().objectsEmitted + sut->stats().objectsDropped, OTHERS * STEPS);
    EXPECT_FALSE(falseIds.empty());
    EXPECT_EQ(sut->trueIdOf(FALSE_ID_BASE + 1'000'000U), 0U);  // never handed out
}

TEST(PerceptionEmulator, ClutterIsPoissonWithTheConfiguredMeanInsideTheRangeAndMapsToNoRoadUser) {
    constexpr std::size_t STEPS = 2000;
    constexpr float RATE = 2.0F;
    constexpr double MEAN_TOLERANCE = 0.1;  // 5 σ of the mean of 2000 Poisson(2) draws is 0.16
    const Scenario scenario = lineScenario(3, STEPS);
    PerceptionConfig config = exactConfig();
    config.clutterRate = RATE;
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    std::size_t clutter = 0;
    for (std::size_t step = 0; step < STEPS; ++step) {
        ASSERT_EQ(sut->emit(step, *list), EmitStatus::Emitted);
        std::set<std::uint32_t> ids;
        for (std::uint32_t i = 0; i < list->objectCount; ++i) {
            const PerceivedObject& o = list->objects[i];
            EXPECT_TRUE(ids.insert(o.id).second) << "ids unique within a list";
            if (sut->trueIdAt(step, o.id) == 0) {
                ++clutter;
                EXPECT_LE(std::hypot(o.x_m, o.y_m), config.range_m + 1e-3F);
                EXPECT_GE(o.id, FRESH_ID_BASE);
            }
        }
    }
    EXPECT_EQ(clutter, sut->stats().clutterEmitted);
    EXPECT_NEAR(static_cast<double>(clutter) / STEPS, RATE, MEAN_TOLERANCE);
}

TEST(PerceptionEmulator, WithoutIdsEveryListCarriesFreshIdsThatStillMapToTheirRoadUsers) {
    constexpr std::size_t STEPS = 20;
    const Scenario scenario = lineScenario(4, STEPS);
    PerceptionConfig config = exactConfig();
    config.noIds = true;
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    std::set<std::uint32_t> seen;
    for (std::size_t step = 0; step < STEPS; ++step) {
        ASSERT_EQ(sut->emit(step, *list), EmitStatus::Emitted);
        ASSERT_EQ(list->objectCount, 4U);
        for (std::uint32_t i = 0; i < list->objectCount; ++i) {
            EXPECT_TRUE(seen.insert(list->objects[i].id).second) << "an id seen before, step " << step;
            EXPECT_EQ(sut->trueIdAt(step, list->objects[i].id), i + 2);  // nearest first: ids 2, 3, 4, 5
        }
    }
}

TEST(PerceptionEmulator, ShuffledIdsArePermutedWithinTheListAndTrueIdAtFollowsThem) {
    const Scenario scenario = lineScenario(4, 1);
    PerceptionConfig config = exactConfig();
    config.idShuffleProbability = 1.0F;
    config.seed = 5;
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    ASSERT_EQ(sut->emit(0, *list), EmitStatus::Emitted);
    std::set<std::uint32_t> ids;
    std::uint32_t moved = 0;
    for (std::uint32_t i = 0; i < list->objectCount; ++i) {
        ids.insert(list->objects[i].id);
        moved += list->objects[i].id != i + 2 ? 1U : 0U;
        EXPECT_EQ(sut->trueIdAt(0, list->objects[i].id), i + 2);
    }
    EXPECT_EQ(ids, (std::set<std::uint32_t>{2, 3, 4, 5}));
    EXPECT_GT(moved, 0U);
    EXPECT_EQ(sut->stats().listsShuffled, 1U);
}

TEST(PerceptionEmulator, AnObjectBackAfterADropoutComesBackUnderAFreshId) {
    constexpr std::size_t STEPS = 200;
    const Scenario scenario = lineScenario(1, STEPS);
    PerceptionConfig config = exactConfig();
    config.dropoutProbability = 0.3F;
    config.newIdOnReappearance = true;
    auto sut = PerceptionEmulator::create(scenario, config);
    ASSERT_TRUE(sut);
    auto list = std::make_unique<ObjectList>();
    std::uint32_t previousId = 0;
    bool previousPresent = false;
    std::size_t reappearances = 0;
    for (std::size_t step = 0; step < STEPS; ++step) {
        ASSERT_EQ(sut->emit(step, *list), EmitStatus::Emitted);
        if (list->objectCount == 0) {
            previousPresent = false;
            continue;
        }
        const std::uint32_t id = list->objects[0].id;
        if (previousId != 0) {
            EXPECT_EQ(id != previousId, !previousPresent) << "step " << step;
            reappearances += previousPresent ? 0U : 1U;
        }
        EXPECT_EQ(sut->trueIdAt(step, id), 2U);
        EXPECT_EQ(sut->trueIdOf(id), 2U);
        previousId = id;
        previousPresent = true;
    }
    EXPECT_GT(reappearances, 10U);
    EXPECT_EQ(sut->stats().idSwitches, reappearances);
}

}  // namespace
}  // namespace augur::hil
