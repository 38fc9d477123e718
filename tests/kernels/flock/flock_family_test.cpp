// Set-family operations and the Lemma-3 disk construction behind the flock stages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "augur/kernels/flock/flock_types.hpp"
#include "family.hpp"
#include "geometry.hpp"

namespace augur::kernels::flock::detail {
namespace {

constexpr int SETS = 64;
constexpr std::int64_t MEMBERS = 1024;

FamilyBuffer familyOf(const std::vector<std::vector<std::int32_t>>& sets) {
    FamilyBuffer family(SETS, MEMBERS);
    for (const auto& set : sets) {
        EXPECT_TRUE(family.push(set));
    }
    return family;
}

std::vector<std::vector<std::int32_t>> setsOf(const FamilyBuffer& family) {
    std::vector<std::vector<std::int32_t>> sets;
    const FamilyView view = family.view();
    for (int i = 0; i < view.count; ++i) {
        sets.emplace_back(view.set(i).begin(), view.set(i).end());
    }
    return sets;
}

TEST(FlockFamily, MaximalSetsDropSubsetsDuplicatesAndSmallSetsInLexicographicOrder) {
    constexpr int MIN_SIZE = 2;
    const FamilyBuffer in = familyOf({{3, 4}, {1, 2, 3}, {1, 2}, {5}, {3, 4}, {2, 3}, {0, 4, 9}});
    MaximalScratch scratch(SETS);
    FamilyBuffer sut(SETS, MEMBERS);
    Capacity overflow = Capacity::None;
    ASSERT_TRUE(maximalSets(in.view(), MIN_SIZE, scratch, sut, &overflow));
    const std::vector<std::vector<std::int32_t>> expected{{0, 4, 9}, {1, 2, 3}, {3, 4}};
    EXPECT_EQ(setsOf(sut), expected);
}

TEST(FlockFamily, MaximalSetsOfAnEmptyFamilyIsEmpty) {
    const FamilyBuffer in(SETS, MEMBERS);
    MaximalScratch scratch(SETS);
    FamilyBuffer sut(SETS, MEMBERS);
    Capacity overflow = Capacity::None;
    ASSERT_TRUE(maximalSets(in.view(), 2, scratch, sut, &overflow));
    EXPECT_EQ(sut.count(), 0);
}

/// pairwiseIntersections(first, second) into `out`, as sorted sets.
std::vector<std::vector<std::int32_t>> intersectionsOf(const FamilyBuffer& first, const FamilyBuffer& second, int minSize,
                                                       IntersectScratch& scratch, FamilyBuffer& out) {
    Capacity overflow = Capacity::None;
    EXPECT_TRUE(pairwiseIntersections(first.view(), second.view(), minSize, scratch, out, &overflow));
    auto sets = setsOf(out);
    std::sort(sets.begin(), sets.end());
    return sets;
}

TEST(FlockFamily, PairwiseIntersectionsKeepOnlyLargeEnoughOnes) {
    constexpr int MIN_SIZE = 2;
    const FamilyBuffer a = familyOf({{1, 2, 3, 4}, {7, 8}});
    const FamilyBuffer b = familyOf({{2, 3, 9}, {4, 7}, {1, 4}});
    FamilyBuffer sut(SETS, MEMBERS);
    IntersectScratch scratch(16, SETS, MEMBERS);
    const std::vector<std::vector<std::int32_t>> expected{{1, 4}, {2, 3}};
    EXPECT_EQ(intersectionsOf(a, b, MIN_SIZE, scratch, sut), expected);
    // The scratch is left clean: a second call gives the same result.
    EXPECT_EQ(intersectionsOf(a, b, MIN_SIZE, scratch, sut), expected);
}

// A partner that contains a set makes that set its row's only candidate: the row's other intersections
// are subsets of it (here {1, 2} and {2, 3}), and the maximal sets of first ⊗ second stay the same.
TEST(FlockFamily, PairwiseIntersectionsKeepAloneASetThatAPartnerContains) {
    constexpr int MIN_SIZE = 2;
    const FamilyBuffer a = familyOf({{1, 2, 3}, {5, 6, 7}});
    const FamilyBuffer b = familyOf({{1, 2, 9}, {2, 3}, {0, 1, 2, 3}, {5, 6}, {6, 7}});
    FamilyBuffer sut(SETS, MEMBERS);
    IntersectScratch scratch(16, SETS, MEMBERS);
    const std::vector<std::vector<std::int32_t>> expected{{1, 2, 3}, {5, 6}, {6, 7}};
    EXPECT_EQ(intersectionsOf(a, b, MIN_SIZE, scratch, sut), expected);
    MaximalScratch maximalScratch(SETS);
    FamilyBuffer maximal(SETS, MEMBERS);
    Capacity overflow = Capacity::None;
    ASSERT_TRUE(maximalSets(sut.view(), MIN_SIZE, maximalScratch, maximal, &overflow));
    EXPECT_EQ(setsOf(maximal), expected);
}

TEST(FlockFamily, FullBufferReportsOverflowInsteadOfGrowing) {
    FamilyBuffer sut(1, 2);
    EXPECT_TRUE(sut.push(std::vector<std::int32_t>{1, 2}));
    EXPECT_FALSE(sut.push(std::vector<std::int32_t>{3}));
    EXPECT_EQ(sut.count(), 1);
}

TEST(FlockList, AppendTakesFlocksBackToBackFromAnyOffsetBase) {
    // Two flocks stored at member offsets 10 … 15 of a larger array (as a batch's download is).
    std::vector<std::int32_t> members(16, -1);
    const std::vector<std::int32_t> first{3, 7};
    const std::vector<std::int32_t> second{1, 4, 9};
    std::copy(first.begin(), first.end(), members.begin() + 10);
    std::copy(second.begin(), second.end(), members.begin() + 12);
    const std::int64_t offsets[] = {10, 12, 15};
    const std::int32_t windows[] = {0, 2};
    constexpr std::int32_t WINDOW_BASE = 5;
    FlockList sut = FlockList::create(4, 8);
    ASSERT_TRUE(sut.append(WINDOW_BASE, windows, offsets, members.data(), 2));
    ASSERT_EQ(sut.size(), 2U);
    EXPECT_EQ(sut.flocks()[0].windowStart, WINDOW_BASE);
    EXPECT_EQ(sut.flocks()[1].windowStart, WINDOW_BASE + 2);
    const auto a = sut.members(sut.flocks()[0]);
    const auto b = sut.members(sut.flocks()[1]);
    EXPECT_EQ(std::vector<std::int32_t>(a.begin(), a.end()), first);
    EXPECT_EQ(std::vector<std::int32_t>(b.begin(), b.end()), second);
}

TEST(FlockList, AppendOverCapacityChangesNothing) {
    const std::int32_t members[] = {1, 2, 3, 4, 5};
    const int offsets[] = {0, 2, 5};
    const std::int32_t windows[] = {0, 0};
    FlockList tooFewFlocks = FlockList::create(1, 8);
    EXPECT_FALSE(tooFewFlocks.append(0, windows, offsets, members, 2));
    EXPECT_EQ(tooFewFlocks.size(), 0U);
    FlockList tooFewMembers = FlockList::create(4, 4);
    ASSERT_TRUE(tooFewMembers.append(0, windows, offsets, members, 1));
    EXPECT_FALSE(tooFewMembers.append(0, windows + 1, offsets + 1, members, 1));  // 3 more members, room for 2
    EXPECT_EQ(tooFewMembers.size(), 1U);
    EXPECT_TRUE(tooFewMembers.append(0, windows, offsets, members, 0));
}

TEST(FlockList, ProducersWriteIntoTheRoomAndCommit) {
    FlockList sut = FlockList::create(4, 8);
    ASSERT_EQ(sut.flockRoom().size(), 4U);
    ASSERT_EQ(sut.memberRoom().size(), 8U);
    const std::int32_t first[] = {2, 6, 7};
    std::copy(std::begin(first), std::end(first), sut.memberRoom().begin());
    sut.flockRoom()[0] = Flock{3, 0, 3};
    sut.commit(1, 3);
    EXPECT_EQ(sut.size(), 1U);
    EXPECT_EQ(sut.memberCount(), 3U);
    EXPECT_EQ(sut.flockRoom().size(), 3U);
    EXPECT_EQ(sut.memberRoom().size(), 5U);
    // A second producer's flock indexes its members from the list's start.
    sut.memberRoom()[0] = 4;
    sut.memberRoom()[1] = 5;
    sut.flockRoom()[0] = Flock{4, 3, 2};
    sut.commit(1, 2);
    const auto b = sut.members(sut.flocks()[1]);
    EXPECT_EQ(std::vector<std::int32_t>(b.begin(), b.end()), (std::vector<std::int32_t>{4, 5}));
    EXPECT_FALSE(sut.pinned());
}

TEST(FlockList, MovesKeepTheFlocksAndEmptyTheSource) {
    const std::int32_t members[] = {1, 2, 3};
    const int offsets[] = {0, 3};
    const std::int32_t windows[] = {7};
    FlockList source = FlockList::create(2, 4);
    ASSERT_TRUE(source.append(0, windows, offsets, members, 1));
    FlockList moved = std::move(source);
    ASSERT_EQ(moved.size(), 1U);
    EXPECT_EQ(moved.flocks()[0].windowStart, 7);
    const auto m = moved.members(moved.flocks()[0]);
    EXPECT_EQ(std::vector<std::int32_t>(m.begin(), m.end()), (std::vector<std::int32_t>{1, 2, 3}));
    EXPECT_EQ(source.size(), 0U);           // NOLINT(bugprone-use-after-move): the moved-from state is specified
    EXPECT_EQ(source.flockCapacity(), 0U);  // NOLINT(bugprone-use-after-move)
    EXPECT_FALSE(source.append(0, windows, offsets, members, 1));  // NOLINT(bugprone-use-after-move): no room left behind
}

TEST(FlockFamily, SubsetAndSignatureAgree) {
    const std::vector<std::int32_t> small{2, 5, 9};
    const std::vector<std::int32_t> big{1, 2, 5, 8, 9};
    EXPECT_TRUE(isSubset(small, big));
    EXPECT_FALSE(isSubset(big, small));
    EXPECT_EQ(setSignature(small) & ~setSignature(big), 0U);
}

TEST(FlockGeometry, RightDiskHasBothPointsOnItsBoundaryAndLiesRightOfThePair) {
    constexpr double RADIUS = 1.5;
    const Limits limits = makeLimits(RADIUS, 1e-9);
    constexpr double DX = 1.2;
    constexpr double DY = 0.7;
    const DiskOffset sut = rightDiskOffset(DX, DY, limits.radius2);
    EXPECT_NEAR(std::hypot(sut.dx, sut.dy), RADIUS, 1e-12);
    EXPECT_NEAR(std::hypot(sut.dx - DX, sut.dy - DY), RADIUS, 1e-12);
    EXPECT_LT(DX * sut.dy - DY * sut.dx, 0.0);  // cross(pair, centre) < 0: centre on the right
    EXPECT_TRUE(insideDisk(0.0, 0.0, sut, limits.member2));
    EXPECT_TRUE(insideDisk(DX, DY, sut, limits.member2));
}

TEST(FlockGeometry, PairAtTwiceTheRadiusGetsTheMidpointAndCoincidentPairTheAnchor) {
    const Limits limits = makeLimits(1.0, 1e-9);
    const DiskOffset diameter = rightDiskOffset(2.0, 0.0, limits.radius2);
    EXPECT_EQ(diameter.dx, 1.0);
    EXPECT_EQ(diameter.dy, 0.0);
    const DiskOffset coincident = rightDiskOffset(0.0, 0.0, limits.radius2);
    EXPECT_EQ(coincident.dx, 0.0);
    EXPECT_EQ(coincident.dy, 0.0);
}

TEST(FlockGeometry, GridCellsAreNeverNarrowerThanTheRadiusAndSideIsCapped) {
    const Limits limits = makeLimits(1.0, 1e-9);
    constexpr int SIDE_CAP = 8;
    const StepGrid fine = makeStepGrid(0.0, 5.0, 0.0, 2.0, limits.cellMin_m, SIDE_CAP);
    EXPECT_EQ(fine.side, 5);
    EXPECT_GE(fine.cell_m, 1.0);
    const StepGrid coarse = makeStepGrid(0.0, 1000.0, 0.0, 10.0, limits.cellMin_m, SIDE_CAP);
    EXPECT_EQ(coarse.side, SIDE_CAP);
    EXPECT_GE(coarse.cell_m * coarse.side, 1000.0);  // the whole extent is covered
    EXPECT_LE(cellCoordinate(1000.0, 0.0, coarse.inverseCell, coarse.side), SIDE_CAP - 1);
    const StepGrid empty = makeStepGrid(INFINITY, -INFINITY, INFINITY, -INFINITY, limits.cellMin_m, SIDE_CAP);
    EXPECT_EQ(empty.side, 1);
}

TEST(FlockGeometry, OnlyGridsCoarserThanTwiceTheRadiusSearchOneCellAround) {
    const Limits limits = makeLimits(1.0, 1e-9);
    constexpr int SIDE_CAP = 4;
    const StepGrid fine = makeStepGrid(0.0, 2.0, 0.0, 2.0, limits.cellMin_m, SIDE_CAP);  // cells of ε(1 + 1e-6)
    EXPECT_EQ(fine.reach, NEIGHBOUR_REACH);
    const StepGrid between = makeStepGrid(0.0, 4.5, 0.0, 1.0, limits.cellMin_m, SIDE_CAP);  // cells of about 1.5 ε
    EXPECT_LT(between.cell_m, 2.0 * limits.cellMin_m);
    EXPECT_EQ(between.reach, NEIGHBOUR_REACH);
    const StepGrid coarse = makeStepGrid(0.0, 30.0, 0.0, 1.0, limits.cellMin_m, SIDE_CAP);  // cells of about 10 ε
    EXPECT_GE(coarse.cell_m, 2.0 * limits.cellMin_m);
    EXPECT_EQ(coarse.reach, COARSE_NEIGHBOUR_REACH);
}

}  // namespace
}  // namespace augur::kernels::flock::detail
