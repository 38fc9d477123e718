// FlockStream: after every push its flocks are FlockFinder's on the same window (entities in ascending
// key order), through churn of keys, gaps and key orders unrelated to positions; bad steps are rejected
// and empty the window; the run phase allocates nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/kernels/flock/flock_stream.hpp"
#include "augur/testing/allocation_counter.hpp"
#include "flock_test_support.hpp"

namespace augur::kernels::flock {
namespace {

using testing::Instance;

constexpr std::size_t LIST_FLOCKS = 1 << 12;
constexpr std::size_t LIST_MEMBERS = 1 << 15;

FlockStreamCapacities streamCapacities(int points) {
    FlockStreamCapacities c;
    c.maxPointsPerStep = points;
    return c;
}

FlockStream makeStream(const FlockParams& params, int points) {
    auto stream = FlockStream::create(params, streamCapacities(points));
    EXPECT_TRUE(stream.hasValue());
    return std::move(stream).value();
}

/// Flocks as sets of keys, in the list's order.
std::vector<std::vector<std::uint32_t>> keySets(const FlockList& list, const std::vector<std::uint32_t>& keyOfRank) {
    std::vector<std::vector<std::uint32_t>> sets;
    for (const Flock& f : list.flocks()) {
        std::vector<std::uint32_t> set;
        for (const std::int32_t m : list.members(f)) {
            set.push_back(keyOfRank[static_cast<std::size_t>(m)]);
        }
        sets.push_back(set);
    }
    return sets;
}

/// FlockFinder on steps [last - δ + 1, last] of `instance`, the entities present there numbered in
/// ascending key order.
std::vector<std::vector<std::uint32_t>> reference(const Instance& instance, const std::vector<std::uint32_t>& keys, int last,
                                                  const FlockParams& params) {
    const int delta = params.windowSteps;
    std::vector<int> entities;
    for (int e = 0; e < instance.entities; ++e) {
        for (int t = last - delta + 1; t <= last; ++t) {
            if (instance.present[instance.index(t, e)] != 0) {
                entities.push_back(e);
                break;
            }
        }
    }
    std::sort(entities.begin(), entities.end(), [&keys](int a, int b) { return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)]; });
    const int n = static_cast<int>(entities.size());
    Instance window(std::max(n, 1), delta);
    std::vector<std::uint32_t> keyOfRank;
    for (int r = 0; r < n; ++r) {
        const int e = entities[static_cast<std::size_t>(r)];
        keyOfRank.push_back(keys[static_cast<std::size_t>(e)]);
        for (int s = 0; s < delta; ++s) {
            const int t = last - delta + 1 + s;
            window.set(s, r, instance.x[instance.index(t, e)], instance.y[instance.index(t, e)]);
            window.present[window.index(s, r)] = instance.present[instance.index(t, e)];
        }
    }
    window.entities = n;
    auto finder = FlockFinder::create(params, testing::testCapacities(std::max(n, 1), 64, 1), Backend::Cpu);
    EXPECT_TRUE(finder.hasValue());
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    EXPECT_TRUE(finder->find(window.view(), list, nullptr).hasValue());
    return keySets(list, keyOfRank);
}

struct StreamCase {
    int entities;
    int minEntities;
    int windowSteps;
    double side_m;
    double missing;
};

void PrintTo(const StreamCase& c, std::ostream* os) {
    *os << "n" << c.entities << "_mu" << c.minEntities << "_delta" << c.windowSteps << "_side" << c.side_m << "_missing" << c.missing;
}

class FlockStreamMatchesFinder : public ::testing::TestWithParam<StreamCase> {};

TEST_P(FlockStreamMatchesFinder, AfterEveryStep) {
    const StreamCase c = GetParam();
    constexpr int STEPS = 40;
    const Instance instance = testing::randomInstance(c.entities, STEPS, c.side_m, c.missing, 7 + c.windowSteps);
    // Distinct keys, spread over the whole range and in an order unrelated to the entities'.
    std::mt19937 rng(11);
    std::vector<std::uint32_t> keys;
    std::uniform_int_distribution<std::uint32_t> anyKey(0, std::numeric_limits<std::uint32_t>::max());
    while (keys.size() < static_cast<std::size_t>(c.entities)) {
        const std::uint32_t k = anyKey(rng);
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
            keys.push_back(k);
        }
    }
    const FlockParams params{c.minEntities, c.windowSteps, 1.0};
    FlockStream sut = makeStream(params, c.entities);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    std::size_t flocksSeen = 0;
    for (int t = 0; t < STEPS; ++t) {
        std::vector<StreamPoint> points;
        for (int e = 0; e < c.entities; ++e) {
            if (instance.present[instance.index(t, e)] != 0) {
                points.push_back({keys[static_cast<std::size_t>(e)], instance.x[instance.index(t, e)], instance.y[instance.index(t, e)]});
            }
        }
        std::shuffle(points.begin(), points.end(), rng);
        ASSERT_TRUE(sut.push(points).hasValue()) << "step " << t;
        ASSERT_EQ(sut.steps(), std::min(t + 1, c.windowSteps));
        const auto found = sut.find(list);
        ASSERT_TRUE(found.hasValue()) << "step " << t;
        if (t + 1 < c.windowSteps) {
            EXPECT_EQ(list.size(), 0U);
            continue;
        }
        std::vector<std::uint32_t> keyOfRank;
        for (std::int32_t r = 0; r < c.entities; ++r) {
            keyOfRank.push_back(sut.key(r));
        }
        const auto expected = reference(instance, keys, t, params);
        EXPECT_EQ(keySets(list, keyOfRank), expected) << "step " << t;
        EXPECT_EQ(found->flocks, static_cast<std::int64_t>(expected.size()));
        flocksSeen += expected.size();
    }
    EXPECT_GT(flocksSeen, 0U) << "the case finds no flock: it tests nothing";
}

INSTANTIATE_TEST_SUITE_P(Windows, FlockStreamMatchesFinder,
                         ::testing::Values(StreamCase{24, 3, 1, 3.0, 0.0}, StreamCase{24, 3, 4, 3.0, 0.1},
                                           StreamCase{40, 3, 6, 4.0, 0.2}, StreamCase{40, 4, 10, 3.0, 0.05},
                                           StreamCase{16, 2, 3, 2.5, 0.3}));

TEST(FlockStream, KeysThatChangeEveryStepNeverRunOutOfSlotsAndFormNoFlock) {
    constexpr int POINTS = 8;
    FlockStream sut = makeStream(FlockParams{2, 4, 5.0}, POINTS);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    std::uint32_t next = 0;
    for (int t = 0; t < 100; ++t) {
        std::vector<StreamPoint> points;
        for (int i = 0; i < POINTS; ++i) {
            points.push_back({next++, 0.1 * i, 0.0});  // all within one disk, all new
        }
        ASSERT_TRUE(sut.push(points).hasValue());
        ASSERT_TRUE(sut.find(list).hasValue());
        EXPECT_EQ(list.size(), 0U);
    }
}

TEST(FlockStream, ABadStepIsRejectedAndTheWindowFillsAgain) {
    FlockStream sut = makeStream(FlockParams{2, 3, 5.0}, 4);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const std::vector<StreamPoint> pair{{7, 0.0, 0.0}, {9, 1.0, 0.0}};
    const auto fill = [&] {
        for (int t = 0; t < 3; ++t) {
            ASSERT_TRUE(sut.push(pair).hasValue());
        }
        ASSERT_TRUE(sut.find(list).hasValue());
        ASSERT_EQ(list.size(), 1U);
        EXPECT_EQ(sut.key(list.members(list.flocks()[0])[0]), 7U);
        EXPECT_EQ(sut.key(list.members(list.flocks()[0])[1]), 9U);
    };
    fill();
    const std::vector<StreamPoint> repeated{{7, 0.0, 0.0}, {7, 1.0, 0.0}};
    const std::vector<StreamPoint> notFinite{{7, std::nan(""), 0.0}, {9, 1.0, 0.0}};
    const std::vector<StreamPoint> tooMany{{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}, {5, 0, 0}};
    for (const auto* bad : {&repeated, &notFinite, &tooMany}) {
        const auto pushed = sut.push(*bad);
        ASSERT_TRUE(pushed.hasError());
        EXPECT_EQ(pushed.error().error, bad == &tooMany ? FlockError::CapacityExceeded : FlockError::InvalidInput);
        EXPECT_EQ(sut.steps(), 0);
        ASSERT_TRUE(sut.find(list).hasValue());
        EXPECT_EQ(list.size(), 0U);
        fill();
    }
    EXPECT_EQ(sut.push(tooMany).error().capacity, Capacity::Entities);
}

TEST(FlockStream, InvalidParametersAreRefused) {
    EXPECT_EQ(FlockStream::create(FlockParams{1, 3, 1.0}, streamCapacities(4)).error().error, FlockError::InvalidParams);
    EXPECT_EQ(FlockStream::create(FlockParams{2, 0, 1.0}, streamCapacities(4)).error().error, FlockError::InvalidParams);
    EXPECT_EQ(FlockStream::create(FlockParams{2, 3, std::nan("")}, streamCapacities(4)).error().error, FlockError::InvalidParams);
    EXPECT_EQ(FlockStream::create(FlockParams{2, 3, 1.0}, streamCapacities(0)).error().error, FlockError::InvalidParams);
}

TEST(FlockStream, PushAndFindAllocateNothing) {
    constexpr int ENTITIES = 40;
    const Instance instance = testing::randomInstance(ENTITIES, 20, 4.0, 0.1, 3);
    FlockStream sut = makeStream(FlockParams{3, 5, 1.0}, ENTITIES);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    std::vector<StreamPoint> points;
    points.reserve(ENTITIES);
    std::size_t flocks = 0;
    for (int t = 0; t < instance.steps; ++t) {
        points.clear();
        for (int e = 0; e < ENTITIES; ++e) {
            if (instance.present[instance.index(t, e)] != 0) {
                points.push_back({static_cast<std::uint32_t>(1000 - e), instance.x[instance.index(t, e)], instance.y[instance.index(t, e)]});
            }
        }
        bool ok = false;
        const auto allocations = augur::testing::allocationsDuring([&] { ok = sut.push(points).hasValue() && sut.find(list).hasValue(); });
        ASSERT_TRUE(ok);
        EXPECT_EQ(allocations, 0U) << "step " << t;
        flocks += list.size();
    }
    EXPECT_GT(flocks, 0U);
}

}  // namespace
}  // namespace augur::kernels::flock
