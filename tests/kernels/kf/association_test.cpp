// Measurement-to-track association: the gates, the global (not greedy) optimum, the id as a hint and
// never a key, empty and full inputs, and the assignment against brute force on random small problems
// and against a dense reference solver on pile-ups where every pair is a candidate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "augur/kernels/kf/association.hpp"
#include "augur/kernels/kf/dense_assignment.hpp"

namespace augur::kernels::kf {
namespace {

constexpr float GATE_SQ = 9.21F;
constexpr float DISTANCE_GATE_M = 5.0F;
constexpr float ID_BONUS = 1.0F;
constexpr float TRACK_VAR_M2 = 0.25F;
constexpr float OBJECT_VAR_M2 = 0.25F;

/// Tracks and objects held in vectors, viewed as the associator's structures of arrays.
struct Scene {
    std::vector<float> tx, ty, txx, txy, tyy;
    std::vector<std::uint8_t> live;
    std::vector<std::uint32_t> trackIds;
    std::vector<float> ox, oy, ovx, ovy;
    std::vector<std::uint32_t> objectIds;

    void addTrack(float x, float y, std::uint32_t id = 0, float var = TRACK_VAR_M2) {
        tx.push_back(x);
        ty.push_back(y);
        txx.push_back(var);
        txy.push_back(0.0F);
        tyy.push_back(var);
        live.push_back(1);
        trackIds.push_back(id);
    }
    void addObject(float x, float y, std::uint32_t id = 0, float var = OBJECT_VAR_M2) {
        ox.push_back(x);
        oy.push_back(y);
        ovx.push_back(var);
        ovy.push_back(var);
        objectIds.push_back(id);
    }
    [[nodiscard]] PredictedTracks tracks() const {
        return {tx.data(), ty.data(), txx.data(), txy.data(), tyy.data(), live.data(), trackIds.data(), tx.size()};
    }
    [[nodiscard]] Detections objects() const {
        return {ox.data(), oy.data(), ovx.data(), ovy.data(), objectIds.data(), ox.size()};
    }
};

Associator makeAssociator(std::size_t objects = 16, std::size_t tracks = 16, float idBonus = ID_BONUS) {
    auto sut = Associator::create({objects, tracks, GATE_SQ, DISTANCE_GATE_M, idBonus});
    EXPECT_TRUE(sut.hasValue());
    return std::move(sut).value();
}

struct Outcome {
    std::vector<std::uint32_t> track;
    std::vector<std::uint8_t> gated;
    AssociationStats stats;
};

Outcome run(Associator& sut, const Scene& scene) {
    Outcome out;
    out.track.assign(std::max<std::size_t>(scene.ox.size(), 1), 0);
    out.gated.assign(std::max<std::size_t>(scene.ox.size(), 1), 0);
    out.stats = sut.associate(scene.tracks(), scene.objects(), out.track, out.gated);
    return out;
}

TEST(Association, InvalidSettingsAreRejectedAtInit) {
    EXPECT_EQ(Associator::create({0, 4, GATE_SQ, DISTANCE_GATE_M, ID_BONUS}).error(), AssociationError::ZeroCapacity);
    EXPECT_EQ(Associator::create({MAX_ASSOCIATION_SIDE + 1, 4, GATE_SQ, DISTANCE_GATE_M, ID_BONUS}).error(),
              AssociationError::CapacityTooLarge);
    EXPECT_EQ(Associator::create({4, 4, 0.0F, DISTANCE_GATE_M, ID_BONUS}).error(), AssociationError::InvalidGate);
    EXPECT_EQ(Associator::create({4, 4, GATE_SQ, DISTANCE_GATE_M, GATE_SQ}).error(), AssociationError::InvalidGate);
}

TEST(Association, NoObjectsOrNoTracksAssignNothing) {
    auto sut = makeAssociator();
    Scene onlyTracks;
    onlyTracks.addTrack(0.0F, 0.0F);
    EXPECT_EQ(run(sut, onlyTracks).stats.assigned, 0U);
    Scene onlyObjects;
    onlyObjects.addObject(0.0F, 0.0F);
    const Outcome out = run(sut, onlyObjects);
    EXPECT_EQ(out.track[0], Associator::NO_TRACK);
    EXPECT_EQ(out.gated[0], 0U);
}

TEST(Association, AnObjectInsideBothGatesIsAssignedToItsTrack) {
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(10.0F, 0.0F);
    scene.addObject(10.5F, 0.2F);
    const Outcome out = run(sut, scene);
    EXPECT_EQ(out.track[0], 0U);
    EXPECT_EQ(out.gated[0], 1U);
}

TEST(Association, AnObjectOutsideTheMahalanobisGateStaysUnassigned) {
    // ‖ν‖ = 2.5 m is inside the 5 m pre-gate, but with S = 0.5 m² per axis d² = 6.25 / 0.5 = 12.5 > 9.21.
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(0.0F, 0.0F);
    scene.addObject(2.5F, 0.0F);
    const Outcome out = run(sut, scene);
    EXPECT_EQ(out.track[0], Associator::NO_TRACK);
    EXPECT_EQ(out.gated[0], 0U);
}

TEST(Association, TheEuclideanPreGateHoldsEvenForAVeryUncertainTrack) {
    constexpr float HUGE_VAR_M2 = 1e4F;
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(0.0F, 0.0F, 0, HUGE_VAR_M2);
    scene.addObject(DISTANCE_GATE_M + 0.1F, 0.0F);
    EXPECT_EQ(run(sut, scene).track[0], Associator::NO_TRACK);
}

TEST(Association, TheGlobalOptimumBeatsTheGreedyChoice) {
    // S = 0.5 m² per axis. Greedy would give object 0 to track 1 (0.9 m, d² 1.62) and leave object 1
    // without a track inside its gate (cost 9.21); the global optimum pairs 0–0 and 1–1 (1.0 m each): 2 + 2.
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(0.0F, 0.0F);
    scene.addTrack(1.9F, 0.0F);
    scene.addObject(1.0F, 0.0F);
    scene.addObject(2.9F, 0.0F);
    const Outcome out = run(sut, scene);
    EXPECT_EQ(out.track[0], 0U);
    EXPECT_EQ(out.track[1], 1U);
    EXPECT_EQ(out.stats.components, 1U);
}

TEST(Association, TheIdBreaksATieButNeverOverridesTheGate) {
    auto sut = makeAssociator();
    Scene tie;
    tie.addTrack(-0.5F, 0.0F, 7);
    tie.addTrack(0.5F, 0.0F, 8);
    tie.addObject(0.0F, 0.0F, 8);
    EXPECT_EQ(run(sut, tie).track[0], 1U);

    Scene far;
    far.addTrack(0.0F, 0.0F, 8);
    far.addObject(20.0F, 0.0F, 8);
    EXPECT_EQ(run(sut, far).track[0], Associator::NO_TRACK);
}

TEST(Association, AWrongIdDoesNotPullAnObjectToAWorseTrack) {
    // Object at the first track's position carries the second track's id: the 1.0 bonus cannot pay for
    // the 1.5 m (d² 4.5) detour.
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(0.0F, 0.0F, 1);
    scene.addTrack(1.5F, 0.0F, 2);
    scene.addObject(0.0F, 0.0F, 2);
    EXPECT_EQ(run(sut, scene).track[0], 0U);
}

TEST(Association, ASecondObjectOfOneTrackIsGatedButUnassigned) {
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(0.0F, 0.0F);
    scene.addObject(0.1F, 0.0F);
    scene.addObject(0.6F, 0.0F);
    const Outcome out = run(sut, scene);
    EXPECT_EQ(out.track[0], 0U);
    EXPECT_EQ(out.track[1], Associator::NO_TRACK);
    EXPECT_EQ(out.gated[1], 1U);
}

TEST(Association, FreeSlotsAreNeverAssigned) {
    auto sut = makeAssociator();
    Scene scene;
    scene.addTrack(0.0F, 0.0F);
    scene.live[0] = 0;
    scene.addObject(0.0F, 0.0F);
    EXPECT_EQ(run(sut, scene).track[0], Associator::NO_TRACK);
}

TEST(Association, AFullSceneAtCapacityAssignsEveryObjectToItsTrack) {
    constexpr std::size_t SIDE = 128;
    auto sut = makeAssociator(SIDE, SIDE);
    Scene scene;
    std::mt19937 rng(3);
    std::normal_distribution<float> noise(0.0F, 0.3F);
    for (std::size_t i = 0; i < SIDE; ++i) {
        const float x = 8.0F * static_cast<float>(i % 16);
        const float y = 4.0F * static_cast<float>(i / 16);
        scene.addTrack(x, y);
    }
    for (std::size_t i = SIDE; i-- > 0;) {  // reversed order: the assignment must not follow the index
        scene.addObject(scene.tx[i] + noise(rng), scene.ty[i] + noise(rng));
    }
    const Outcome out = run(sut, scene);
    for (std::size_t j = 0; j < SIDE; ++j) {
        EXPECT_EQ(out.track[j], SIDE - 1 - j);
    }
}

/// Minimum summed cost over all partial matchings (an unassigned object costs the gate), by enumeration.
double bruteForce(const std::vector<std::vector<double>>& cost, std::size_t object, std::vector<std::uint8_t>& usedTrack) {
    if (object == cost.size()) {
        return 0.0;
    }
    double best = GATE_SQ + bruteForce(cost, object + 1, usedTrack);
    for (std::size_t t = 0; t < usedTrack.size(); ++t) {
        if (usedTrack[t] == 0 && std::isfinite(cost[object][t])) {
            usedTrack[t] = 1;
            best = std::min(best, cost[object][t] + bruteForce(cost, object + 1, usedTrack));
            usedTrack[t] = 0;
        }
    }
    return best;
}

TEST(Association, RandomSmallProblemsReachTheBruteForceOptimum) {
    constexpr int PROBLEMS = 300;
    constexpr double TOLERANCE = 1e-3;
    auto sut = makeAssociator(6, 6);
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> size(0, 6);
    std::uniform_real_distribution<float> position(0.0F, 4.0F);
    std::uniform_int_distribution<std::uint32_t> id(0, 3);
    for (int p = 0; p < PROBLEMS; ++p) {
        Scene scene;
        const int tracks = size(rng);
        const int objects = size(rng);
        for (int t = 0; t < tracks; ++t) {
            scene.addTrack(position(rng), position(rng), id(rng));
        }
        for (int j = 0; j < objects; ++j) {
            scene.addObject(position(rng), position(rng), id(rng));
        }
        std::vector<std::vector<double>> cost(static_cast<std::size_t>(objects),
                                              std::vector<double>(static_cast<std::size_t>(tracks)));
        for (std::size_t j = 0; j < cost.size(); ++j) {
            for (std::size_t t = 0; t < cost[j].size(); ++t) {
                const float dx = scene.ox[j] - scene.tx[t];
                const float dy = scene.oy[j] - scene.ty[t];
                const float d2 = Associator::mahalanobisSq(dx, dy, TRACK_VAR_M2 + OBJECT_VAR_M2, 0.0F,
                                                           TRACK_VAR_M2 + OBJECT_VAR_M2);
                const bool inside = d2 <= GATE_SQ && dx * dx + dy * dy <= DISTANCE_GATE_M * DISTANCE_GATE_M;
                const bool sameId = scene.objectIds[j] != 0 && scene.objectIds[j] == scene.trackIds[t];
                cost[j][t] = inside ? d2 - (sameId ? ID_BONUS : 0.0F) : std::numeric_limits<double>::infinity();
            }
        }
        std::vector<std::uint8_t> used(static_cast<std::size_t>(tracks), 0);
        const double expected = bruteForce(cost, 0, used);
        const Outcome out = run(sut, scene);
        double achieved = 0.0;
        std::vector<int> taken(static_cast<std::size_t>(tracks), 0);
        for (std::size_t j = 0; j < cost.size(); ++j) {
            if (out.track[j] == Associator::NO_TRACK) {
                achieved += GATE_SQ;
            } else {
                ASSERT_TRUE(std::isfinite(cost[j][out.track[j]])) << "problem " << p << ": a pair outside the gates";
                ASSERT_EQ(taken[out.track[j]]++, 0) << "problem " << p << ": a track taken twice";
                achieved += cost[j][out.track[j]];
            }
        }
        EXPECT_NEAR(achieved, expected, TOLERANCE) << "problem " << p;
    }
}

/// The pairs' costs as the associator defines them (+∞ outside the gates), objects × tracks.
std::vector<std::vector<double>> pairCosts(const Scene& scene) {
    std::vector<std::vector<double>> cost(scene.ox.size(), std::vector<double>(scene.tx.size()));
    for (std::size_t j = 0; j < cost.size(); ++j) {
        for (std::size_t t = 0; t < cost[j].size(); ++t) {
            const float dx = scene.ox[j] - scene.tx[t];
            const float dy = scene.oy[j] - scene.ty[t];
            const float d2 = Associator::mahalanobisSq(dx, dy, scene.txx[t] + scene.ovx[j], 0.0F, scene.tyy[t] + scene.ovy[j]);
            const bool inside = d2 <= GATE_SQ && dx * dx + dy * dy <= DISTANCE_GATE_M * DISTANCE_GATE_M;
            const bool sameId = scene.objectIds[j] != 0 && scene.objectIds[j] == scene.trackIds[t];
            cost[j][t] = inside ? d2 - (sameId ? ID_BONUS : 0.0F) : std::numeric_limits<double>::infinity();
        }
    }
    return cost;
}

/// The summed cost of an outcome (an unassigned object costs the gate); fails on an invalid assignment.
double summedCost(const std::vector<std::vector<double>>& cost, const Outcome& out, std::size_t tracks) {
    double sum = 0.0;
    std::vector<int> taken(tracks, 0);
    for (std::size_t j = 0; j < cost.size(); ++j) {
        if (out.track[j] == Associator::NO_TRACK) {
            sum += GATE_SQ;
            continue;
        }
        EXPECT_TRUE(std::isfinite(cost[j][out.track[j]])) << "object " << j << ": a pair outside the gates";
        EXPECT_EQ(taken[out.track[j]]++, 0) << "track " << out.track[j] << " taken twice";
        sum += cost[j][out.track[j]];
    }
    return sum;
}

/// Reference optimum of the same problem: the dense Kuhn–Munkres (dense_assignment.hpp, no gates, no
/// components) on the objects × (tracks + objects) matrix whose last columns leave an object unassigned
/// at the gate's cost. A pair outside the gates costs more there than leaving every
/// object unassigned, so the optimum never takes one.
double denseHungarian(const std::vector<std::vector<double>>& cost, std::size_t tracks) {
    const std::size_t n = cost.size();
    const std::size_t m = tracks + n;
    const double outside = 1e3 * static_cast<double>(GATE_SQ) * static_cast<double>(n + 1);
    std::vector<double> matrix(n * m, outside);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < tracks; ++j) {
            if (std::isfinite(cost[i][j])) {
                matrix[i * m + j] = cost[i][j];
            }
        }
        matrix[i * m + tracks + i] = GATE_SQ;
    }
    const std::vector<int> column = minimumCostAssignment(matrix, n, m);
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double c = matrix[i * m + static_cast<std::size_t>(column[i])];
        EXPECT_LT(c, outside) << "object " << i << ": the reference took a pair outside the gates";
        sum += c;
    }
    return sum;
}

/// Tracks and objects uniform in a disc of `radius_m` around the origin, half the objects under the id
/// of a track.
Scene pileUp(std::size_t tracks, std::size_t objects, float radius_m, std::mt19937& rng) {
    std::uniform_real_distribution<float> unit(0.0F, 1.0F);
    const auto point = [&] {
        const float r = radius_m * std::sqrt(unit(rng));
        const float a = 6.2831853F * unit(rng);
        return std::pair{r * std::cos(a), r * std::sin(a)};
    };
    Scene scene;
    for (std::size_t t = 0; t < tracks; ++t) {
        const auto [x, y] = point();
        scene.addTrack(x, y, static_cast<std::uint32_t>(t + 1));
    }
    for (std::size_t j = 0; j < objects; ++j) {
        const auto [x, y] = point();
        scene.addObject(x, y, j % 2 == 0 ? static_cast<std::uint32_t>(j + 1) : 0U);
    }
    return scene;
}

// One component in which every pair is a candidate: the row reduction evicts and re-bids, and the
// augmenting paths finish what it leaves; the result is the exact optimum, not an approximation.
TEST(Association, DenseComponentsReachTheBruteForceOptimum) {
    constexpr int PROBLEMS = 200;
    constexpr double TOLERANCE = 1e-3;
    constexpr float DISC_M = 0.8F;
    auto sut = makeAssociator(7, 7);
    std::mt19937 rng(23);
    std::uniform_int_distribution<std::size_t> size(2, 7);
    for (int p = 0; p < PROBLEMS; ++p) {
        const Scene scene = pileUp(size(rng), size(rng), DISC_M, rng);
        const auto cost = pairCosts(scene);
        std::vector<std::uint8_t> used(scene.tx.size(), 0);
        const double expected = bruteForce(cost, 0, used);
        const Outcome out = run(sut, scene);
        EXPECT_EQ(out.stats.components, 1U) << "problem " << p;
        EXPECT_NEAR(summedCost(cost, out, scene.tx.size()), expected, TOLERANCE) << "problem " << p;
    }
}

TEST(Association, APileUpAtFullCapacityReachesTheOptimumOfADenseReference) {
    constexpr std::size_t SIDE = 128;
    constexpr int SCENES = 8;
    constexpr double TOLERANCE = 1e-3;
    constexpr float DISC_M = 1.0F;
    auto sut = makeAssociator(SIDE, SIDE);
    std::mt19937 rng(29);
    for (int k = 0; k < SCENES; ++k) {
        const Scene scene = pileUp(SIDE, SIDE, DISC_M, rng);
        const auto cost = pairCosts(scene);
        const Outcome out = run(sut, scene);
        EXPECT_EQ(out.stats.components, 1U) << "scene " << k;
        EXPECT_NEAR(summedCost(cost, out, SIDE), denseHungarian(cost, SIDE), TOLERANCE) << "scene " << k;
    }
}

TEST(Association, EqualCostsEverywhereStillAssignEveryObjectOnce) {
    // Every pair costs the same: the row reduction meets ties in every bid and must neither cycle nor
    // give a track twice. More objects than tracks: the rest stay unassigned.
    constexpr std::size_t TRACKS = 32;
    constexpr std::size_t OBJECTS = 40;
    auto sut = makeAssociator(OBJECTS, TRACKS);
    Scene scene;
    for (std::size_t t = 0; t < TRACKS; ++t) {
        scene.addTrack(0.0F, 0.0F);
    }
    for (std::size_t j = 0; j < OBJECTS; ++j) {
        scene.addObject(0.5F, 0.0F);
    }
    const auto cost = pairCosts(scene);
    const Outcome out = run(sut, scene);
    EXPECT_EQ(out.stats.assigned, TRACKS);
    EXPECT_NEAR(summedCost(cost, out, TRACKS), denseHungarian(cost, TRACKS), 1e-3);
}

}  // namespace
}  // namespace augur::kernels::kf
