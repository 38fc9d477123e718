// Track management: birth on first sight, deletion after the configured missed cycles, fixed capacity
// with counted overflow, slot reuse, and the hash under churn.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>
#include <vector>

#include "augur/kernels/kf/track_table.hpp"

namespace augur::kernels::kf {
namespace {

constexpr std::size_t CAPACITY = 4;
constexpr std::uint32_t MAX_MISSED = 2;

TrackTable makeTable(std::size_t capacity = CAPACITY, std::uint32_t maxMissed = MAX_MISSED) {
    auto table = TrackTable::create({capacity, maxMissed});
    EXPECT_TRUE(table.hasValue());
    return std::move(table).value();
}

TEST(TrackTable, ZeroCapacityIsRejectedAtInit) {
    const auto sut = TrackTable::create({0, MAX_MISSED});
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), TrackTableError::ZeroCapacity);
}

TEST(TrackTable, EmptyCycleChangesNothing) {
    auto sut = makeTable();
    std::array<std::uint32_t, CAPACITY> deleted{};
    sut.beginCycle();
    EXPECT_EQ(sut.endCycle(deleted), 0U);
    EXPECT_EQ(sut.size(), 0U);
}

TEST(TrackTable, TrackIsBornOnFirstSightAndKeepsItsSlot) {
    constexpr std::uint32_t ID = 4711;
    auto sut = makeTable();
    std::array<std::uint32_t, CAPACITY> deleted{};
    sut.beginCycle();
    const Sighting first = sut.observe(ID);
    sut.endCycle(deleted);
    sut.beginCycle();
    const Sighting second = sut.observe(ID);
    sut.endCycle(deleted);

    EXPECT_TRUE(first.born);
    EXPECT_FALSE(second.born);
    EXPECT_EQ(first.slot, second.slot);
    EXPECT_EQ(sut.idOf(first.slot), ID);
    EXPECT_EQ(sut.find(ID), first.slot);
    EXPECT_EQ(sut.size(), 1U);
}

TEST(TrackTable, SecondSightingInOneCycleReturnsSameSlot) {
    auto sut = makeTable();
    sut.beginCycle();
    const Sighting a = sut.observe(7);
    const Sighting b = sut.observe(7);
    EXPECT_EQ(a.slot, b.slot);
    EXPECT_FALSE(b.born);
    EXPECT_EQ(sut.size(), 1U);
}

TEST(TrackTable, TrackIsDeletedAfterMaxMissedCycles) {
    constexpr std::uint32_t ID = 9;
    auto sut = makeTable();
    std::array<std::uint32_t, CAPACITY> deleted{};
    sut.beginCycle();
    const std::uint32_t slot = sut.observe(ID).slot;
    sut.endCycle(deleted);
    for (std::uint32_t missed = 1; missed <= MAX_MISSED; ++missed) {
        sut.beginCycle();
        ASSERT_EQ(sut.endCycle(deleted), 0U);
        EXPECT_TRUE(sut.isLive(slot));
        EXPECT_EQ(sut.missedCycles(slot), missed);
    }
    sut.beginCycle();
    const std::size_t removed = sut.endCycle(deleted);

    EXPECT_EQ(removed, 1U);
    EXPECT_EQ(deleted[0], slot);
    EXPECT_FALSE(sut.isLive(slot));
    EXPECT_EQ(sut.find(ID), TrackTable::NO_SLOT);
    EXPECT_EQ(sut.size(), 0U);
}

TEST(TrackTable, SightingResetsMissedCycles) {
    auto sut = makeTable();
    std::array<std::uint32_t, CAPACITY> deleted{};
    sut.beginCycle();
    const std::uint32_t slot = sut.observe(3).slot;
    sut.endCycle(deleted);
    sut.beginCycle();
    sut.endCycle(deleted);
    ASSERT_EQ(sut.missedCycles(slot), 1U);
    sut.beginCycle();
    static_cast<void>(sut.observe(3));
    sut.endCycle(deleted);
    EXPECT_EQ(sut.missedCycles(slot), 0U);
}

TEST(TrackTable, ExactCapacityFitsAndOverflowIsCounted) {
    auto sut = makeTable();
    sut.beginCycle();
    for (std::uint32_t id = 0; id < CAPACITY; ++id) {
        EXPECT_NE(sut.observe(100 + id).slot, TrackTable::NO_SLOT);
    }
    const Sighting overflow = sut.observe(999);
    const Sighting overflowAgain = sut.observe(998);

    EXPECT_EQ(overflow.slot, TrackTable::NO_SLOT);
    EXPECT_FALSE(overflow.born);
    EXPECT_EQ(overflowAgain.slot, TrackTable::NO_SLOT);
    EXPECT_EQ(sut.overflowCount(), 2U);
    EXPECT_EQ(sut.size(), CAPACITY);
}

TEST(TrackTable, FreedSlotIsReusedByNewId) {
    auto sut = makeTable(1, 0);
    std::array<std::uint32_t, 1> deleted{};
    sut.beginCycle();
    const std::uint32_t slot = sut.observe(1).slot;
    sut.endCycle(deleted);
    sut.beginCycle();
    ASSERT_EQ(sut.endCycle(deleted), 1U);
    sut.beginCycle();
    const Sighting reborn = sut.observe(2);

    EXPECT_TRUE(reborn.born);
    EXPECT_EQ(reborn.slot, slot);
    EXPECT_EQ(sut.find(1), TrackTable::NO_SLOT);
}

TEST(TrackTable, DeletionsBeyondTheOutputSpanAreStillCounted) {
    auto sut = makeTable(CAPACITY, 0);
    std::array<std::uint32_t, 1> deleted{};
    sut.beginCycle();
    for (std::uint32_t id = 0; id < CAPACITY; ++id) {
        static_cast<void>(sut.observe(id));
    }
    sut.endCycle(deleted);
    sut.beginCycle();
    EXPECT_EQ(sut.endCycle(deleted), CAPACITY);
    EXPECT_EQ(sut.size(), 0U);
}

TEST(TrackTable, MatchesAReferenceMapUnderRandomChurn) {
    constexpr std::size_t BIG_CAPACITY = 256;
    constexpr std::uint32_t ID_RANGE = 600;
    constexpr int CYCLES = 400;
    constexpr std::uint32_t KEEP_MISSED = 1;
    auto sut = makeTable(BIG_CAPACITY, KEEP_MISSED);
    std::map<std::uint32_t, std::uint32_t> missedOf;  // reference: id → missed cycles
    std::uint64_t expectedOverflow = 0;
    std::mt19937 rng(42);
    std::uniform_int_distribution<std::uint32_t> idDist(0, ID_RANGE - 1);
    std::vector<std::uint32_t> deleted(BIG_CAPACITY);
    for (int cycle = 0; cycle < CYCLES; ++cycle) {
        sut.beginCycle();
        std::map<std::uint32_t, bool> seen;
        for (int i = 0; i < 150; ++i) {
            const std::uint32_t id = idDist(rng);
            const Sighting s = sut.observe(id);
            const bool known = missedOf.count(id) != 0;
            if (!known && missedOf.size() == BIG_CAPACITY) {
                ASSERT_EQ(s.slot, TrackTable::NO_SLOT);
                ++expectedOverflow;
                continue;
            }
            ASSERT_NE(s.slot, TrackTable::NO_SLOT);
            ASSERT_EQ(s.born, !known);
            ASSERT_EQ(sut.idOf(s.slot), id);
            missedOf[id] = 0;
            seen[id] = true;
        }
        sut.endCycle(deleted);
        for (auto it = missedOf.begin(); it != missedOf.end();) {
            if (!seen[it->first] && ++it->second > KEEP_MISSED) {
                it = missedOf.erase(it);
            } else {
                ++it;
            }
        }
        ASSERT_EQ(sut.size(), missedOf.size());
        for (const auto& [id, missed] : missedOf) {
            const std::uint32_t slot = sut.find(id);
            ASSERT_NE(slot, TrackTable::NO_SLOT) << id;
            ASSERT_EQ(sut.missedCycles(slot), missed);
        }
    }
    EXPECT_EQ(sut.overflowCount(), expectedOverflow);
    EXPECT_GT(expectedOverflow, 0U);  // the churn did reach the capacity
}

}  // namespace
}  // namespace augur::kernels::kf
