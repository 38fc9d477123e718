// The runtime's track stage on the committed scenario under the perception faults of the emulator,
// list by list in simulated time (no transport, no clock): tracking quality with ids re-assigned in every
// list or missing altogether stays close to the clean run, and clutter confirms no lasting false track.
// Deterministic: the same scenario, seed and settings give the same figures on every run.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "augur/hil/identity_metrics.hpp"
#include "augur/hil/perception_emulator.hpp"
#include "augur/hil/scenario.hpp"
#include "augur/hil/tracking_metrics.hpp"
#include "augur/runtime/stages/track_stage.hpp"
#include "augur/testing/testing.hpp"

namespace augur::hil {
namespace {

constexpr double CUTOFF_M = 10.0;
constexpr double ORDER = 2.0;
constexpr double IDENTITY_GATE_M = 2.5;
constexpr float RANGE_M = 80.0F;

struct FaultRun {
    TrackingSummary tracking;
    IdentitySummary identity;
    double contestedShare{0.0};  ///< objects inside the gates of more than one track
};

/// The road user present in the most steps (lowest id on ties), as `augur-hil` picks the ego.
std::uint32_t longestPresent(const Scenario& scenario) {
    std::vector<std::size_t> steps;
    for (std::size_t s = 0; s < scenario.stepCount(); ++s) {
        for (const auto& state : scenario.frame(s)) {
            if (state.id >= steps.size()) {
                steps.resize(state.id + 1, 0);
            }
            ++steps[state.id];
        }
    }
    std::uint32_t best = 0;
    for (std::size_t id = 1; id < steps.size(); ++id) {
        if (steps[id] > steps[best]) {
            best = static_cast<std::uint32_t>(id);
        }
    }
    return best;
}

/// Every list of the scenario through the emulator (the bench's default noise and dropouts plus `faults`)
/// into a track stage with the shipped tracking settings, scored after each list.
FaultRun runWithFaults(const Scenario& scenario, PerceptionConfig faults) {
    faults.egoId = longestPresent(scenario);
    faults.range_m = RANGE_M;
    auto emulator = PerceptionEmulator::create(scenario, faults);
    AUGUR_ASSERT(emulator.hasValue(), "runWithFaults: emulator");
    auto state = runtime::makePipelineState();
    auto frame = runtime::makeSceneFrame();
    runtime::TrackHistory history(2);
    auto sut = runtime::TrackStage::create(runtime::TrackStageSettings{}, *state, *frame, history);
    AUGUR_ASSERT(sut.hasValue(), "runWithFaults: track stage");
    TrackingAccumulator tracking(CUTOFF_M, ORDER);
    IdentityAccumulator identity(IDENTITY_GATE_M, CUTOFF_M, ORDER);
    std::vector<KinematicState> truths;
    std::vector<KinematicState> tracks;
    std::vector<IdentifiedPosition> roadUsers;
    std::vector<IdentifiedPosition> trackIds;
    for (std::size_t step = 0; step < scenario.stepCount(); ++step) {
        ObjectList& list = state->inputs[0];
        if (emulator->emit(step, list) != EmitStatus::Emitted) {
            continue;
        }
        state->inputCount = 1;
        runtime::CycleContext context;
        (void)sut.value()->run(context);
        truths.clear();
        roadUsers.clear();
        for (const GroundTruthState& s : scenario.frame(step)) {
            if (s.id == faults.egoId) {
                continue;
            }
            const bool inRange = std::hypot(s.x_m - list.ego.x_m, s.y_m - list.ego.y_m) <= RANGE_M;
            if (inRange) {
                truths.push_back({s.x_m, s.y_m, s.speed_mps * std::cos(s.heading_rad), s.speed_mps * std::sin(s.heading_rad)});
            }
            roadUsers.push_back({s.id, s.x_m, s.y_m, inRange});
        }
        tracks.clear();
        trackIds.clear();
        for (std::uint32_t i = 0; i < state->tracks.trackCount; ++i) {
            const Track& t = state->tracks.tracks[i];
            tracks.push_back({t.x_m, t.y_m, t.vx_mps, t.vy_mps});
            trackIds.push_back({t.id, t.x_m, t.y_m, true});
        }
        tracking.addCycle(truths, tracks);
        identity.addCycle(static_cast<double>(step) * scenario.step_s(), roadUsers, trackIds);
    }
    const auto& stage = *sut.value();
    return {tracking.summary(), identity.summary(),
            static_cast<double>(stage.objectsContested()) / static_cast<double>(std::max<std::uint64_t>(stage.objectsAssociated(), 1))};
}

void print(const char* name, const FaultRun& r) {
    std::printf("%-14s OSPA %.3f m  GOSPA %.3f m  RMSE %.3f m  MOTA %.4f  IDSW %zu  FRAG %zu  false tracks %zu "
                "(longest %.1f s)  contested objects %.4f\n",
                name, r.tracking.meanOspa_m, r.tracking.meanGospa_m, r.tracking.positionRmse_m, r.identity.mota,
                r.identity.idSwitches, r.identity.fragmentations, r.identity.falseTrackIds, r.identity.longestFalseTrack_s,
                r.contestedShare);
}

class TrackingUnderFaults : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        auto loaded = Scenario::load(testing::sourcePath("data/scenarios/intersection-4way"));
        AUGUR_ASSERT(loaded.hasValue(), "the committed scenario");
        s_scenario = std::make_unique<Scenario>(std::move(loaded).value());
        s_clean = std::make_unique<FaultRun>(runWithFaults(*s_scenario, PerceptionConfig{}));
        print("clean", *s_clean);
    }
    static void TearDownTestSuite() {
        s_clean.reset();
        s_scenario.reset();
    }
    static std::unique_ptr<Scenario> s_scenario;
    static std::unique_ptr<FaultRun> s_clean;
};
std::unique_ptr<Scenario> TrackingUnderFaults::s_scenario;
std::unique_ptr<FaultRun> TrackingUnderFaults::s_clean;

constexpr double OSPA_RATIO_LIMIT = 1.3;

TEST_F(TrackingUnderFaults, EveryIdSwitchedInEveryListKeepsOspaWithinLimitOfTheCleanRun) {
    PerceptionConfig faults;
    faults.falseIdProbability = 1.0F;
    const FaultRun sut = runWithFaults(*s_scenario, faults);
    print("false-id 1", sut);
    EXPECT_LE(sut.tracking.meanOspa_m, OSPA_RATIO_LIMIT * s_clean->tracking.meanOspa_m);
}

TEST_F(TrackingUnderFaults, ListsWithoutIdsKeepOspaWithinLimitOfTheCleanRun) {
    PerceptionConfig faults;
    faults.noIds = true;
    const FaultRun sut = runWithFaults(*s_scenario, faults);
    print("no ids", sut);
    EXPECT_LE(sut.tracking.meanOspa_m, OSPA_RATIO_LIMIT * s_clean->tracking.meanOspa_m);
}

TEST_F(TrackingUnderFaults, ShuffledAndReassignedIdsKeepOspaWithinLimitOfTheCleanRun) {
    PerceptionConfig faults;
    faults.idShuffleProbability = 0.5F;
    faults.newIdOnReappearance = true;
    const FaultRun sut = runWithFaults(*s_scenario, faults);
    print("shuffle+reid", sut);
    EXPECT_LE(sut.tracking.meanOspa_m, OSPA_RATIO_LIMIT * s_clean->tracking.meanOspa_m);
}

TEST_F(TrackingUnderFaults, ClutterOfTwoObjectsPerListConfirmsNoFalseTrackLongerThanASecond) {
    constexpr double MAX_FALSE_TRACK_S = 1.0;
    PerceptionConfig faults;
    faults.clutterRate = 2.0F;
    const FaultRun sut = runWithFaults(*s_scenario, faults);
    print("clutter 2", sut);
    EXPECT_LE(sut.identity.longestFalseTrack_s, MAX_FALSE_TRACK_S);
    EXPECT_LE(sut.tracking.meanOspa_m, OSPA_RATIO_LIMIT * s_clean->tracking.meanOspa_m);
}

// docs/design/tracking.md's case against a soft (JPDA-style) update: it differs from the hard assignment
// only for objects inside more than one track's gate, and on the committed scenario there are none at the
// default noise (0.3 m) and few at 1 m. The runs with heavy clutter print the figures the note quotes
// for where a soft update could pay off.
TEST_F(TrackingUnderFaults, FewObjectsFallInTwoTracksGatesEvenAtOneMetreOfNoise) {
    constexpr double MAX_CONTESTED_AT_DEFAULT_NOISE = 0.001;
    constexpr double MAX_CONTESTED_AT_ONE_METRE = 0.05;
    constexpr float HEAVY_CLUTTER = 10.0F;
    EXPECT_LE(s_clean->contestedShare, MAX_CONTESTED_AT_DEFAULT_NOISE);
    PerceptionConfig faults;
    faults.stdPosition_m = 1.0F;
    const FaultRun noisy = runWithFaults(*s_scenario, faults);
    print("noise 1 m", noisy);
    EXPECT_LE(noisy.contestedShare, MAX_CONTESTED_AT_ONE_METRE);
    faults.clutterRate = HEAVY_CLUTTER;
    print("noise 1 m +clutter 10", runWithFaults(*s_scenario, faults));
}

}  // namespace
}  // namespace augur::hil
