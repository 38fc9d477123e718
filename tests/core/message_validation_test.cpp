#include "augur/core/message_validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

namespace augur {
namespace {

constexpr std::int64_t NOW_NS = 10'000'000'000;
constexpr std::int64_t MAX_AGE_NS = 500'000'000;
constexpr std::int64_t MAX_FUTURE_NS = 100'000'000;
constexpr std::uint32_t RESYNC_AFTER = 3;
constexpr std::uint64_t LAST_SEQUENCE = 41;
constexpr std::int64_t LAST_STAMP_NS = NOW_NS - 200'000'000;
constexpr std::int64_t STEP_NS = 10'000'000;
constexpr float NAN_F = std::numeric_limits<float>::quiet_NaN();

PerceivedObject validObject(std::uint32_t id) {
    PerceivedObject o;
    o.id = id;
    o.objectClass = ObjectClass::Car;
    o.x_m = 10.0F * static_cast<float>(id);
    o.y_m = 2.0F;
    o.heading_rad = 0.1F;
    o.speed_mps = 8.0F;
    o.length_m = 4.5F;
    o.width_m = 1.8F;
    o.stdX_m = 0.3F;
    o.stdY_m = 0.3F;
    o.stdHeading_rad = 0.05F;
    o.stdSpeed_mps = 0.5F;
    return o;
}

// ObjectList is ~6 KB: keep it on the heap in tests.
std::unique_ptr<ObjectList> validList(std::uint32_t count, std::uint64_t sequence = LAST_SEQUENCE + 1,
                                      std::int64_t stamp_ns = NOW_NS - 50'000'000) {
    auto list = std::make_unique<ObjectList>();
    list->header.sequence = sequence;
    list->header.stamp_ns = stamp_ns;
    list->objectCount = count;
    for (std::uint32_t i = 0; i < count; ++i) {
        list->objects[i] = validObject(i + 1);
    }
    return list;
}

ObjectListLimits testLimits() {
    ObjectListLimits limits;
    limits.maxObjects = 16;
    limits.maxAge_ns = MAX_AGE_NS;
    limits.maxFuture_ns = MAX_FUTURE_NS;
    limits.resyncAfterRejections = RESYNC_AFTER;
    return limits;
}

/// A gate that has accepted one list (sequence LAST_SEQUENCE at LAST_STAMP_NS), unless `fresh`.
class ObjectListGateTest : public ::testing::Test {
protected:
    void SetUp() override { prime(testLimits()); }

    void prime(const ObjectListLimits& limits) {
        sut = std::make_unique<ObjectListGate>(limits);
        ASSERT_EQ(admit(*validList(2, LAST_SEQUENCE, LAST_STAMP_NS)).reason, RejectReason::None);
    }

    Admission admit(const ObjectList& list, std::int64_t now_ns = NOW_NS) { return sut->admit(list, now_ns, *out); }
    RejectReason reason(const ObjectList& list) { return admit(list).reason; }

    std::unique_ptr<ObjectListGate> sut;
    std::unique_ptr<ObjectList> out = std::make_unique<ObjectList>();
};

// ---- single lists ---------------------------------------------------------------------------------

TEST_F(ObjectListGateTest, AcceptsValidListAndCopiesIt) {
    const auto list = validList(5);
    const Admission a = admit(*list);
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_FALSE(a.resynchronised);
    EXPECT_EQ(a.droppedObjects, 0U);
    ASSERT_EQ(out->objectCount, 5U);
    EXPECT_EQ(out->header.sequence, list->header.sequence);
    EXPECT_EQ(out->objects[4].id, 5U);
}

TEST_F(ObjectListGateTest, AcceptsEmptyList) { EXPECT_EQ(reason(*validList(0)), RejectReason::None); }

TEST_F(ObjectListGateTest, AcceptsListAtExactCapacity) { EXPECT_EQ(reason(*validList(16)), RejectReason::None); }

TEST_F(ObjectListGateTest, AcceptsFirstListWithAnySequence) {
    ObjectListGate fresh(testLimits());
    const auto list = validList(3, 0);
    EXPECT_EQ(fresh.admit(*list, NOW_NS, *out).reason, RejectReason::None);
}

TEST_F(ObjectListGateTest, RejectsUnknownSchemaVersion) {
    auto list = validList(3);
    list->header.schemaVersion = MESSAGE_SCHEMA_VERSION + 1;
    EXPECT_EQ(reason(*list), RejectReason::UnknownSchemaVersion);
}

TEST_F(ObjectListGateTest, RejectsCountOverConfiguredCapacity) {
    EXPECT_EQ(reason(*validList(17)), RejectReason::CountOverCapacity);
}

TEST_F(ObjectListGateTest, RejectsCountOverCompiledCapacity) {
    ObjectListLimits limits = testLimits();
    limits.maxObjects = 100000;
    prime(limits);
    auto list = validList(3);
    list->objectCount = static_cast<std::uint32_t>(MAX_OBJECTS) + 1;
    EXPECT_EQ(reason(*list), RejectReason::CountOverCapacity);
}

TEST_F(ObjectListGateTest, RejectsNaNEgoState) {
    auto list = validList(1);
    list->ego.heading_rad = NAN_F;
    EXPECT_EQ(reason(*list), RejectReason::NonFinite);
}

TEST_F(ObjectListGateTest, RejectsImplausibleEgoState) {
    auto list = validList(1);
    list->ego.x_m = 3e38F;
    EXPECT_EQ(reason(*list), RejectReason::Implausible);
}

TEST_F(ObjectListGateTest, IgnoresGarbageBeyondObjectCount) {
    auto list = validList(2);
    list->objects[5].x_m = NAN_F;
    EXPECT_EQ(reason(*list), RejectReason::None);
}

// ---- single objects -------------------------------------------------------------------------------

TEST_F(ObjectListGateTest, DropsNonFiniteObjectAndKeepsTheRest) {
    auto list = validList(3);
    list->objects[2].x_m = NAN_F;
    list->objects[0].stdSpeed_mps = std::numeric_limits<float>::infinity();
    const Admission a = admit(*list);
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_EQ(a.droppedObjects, 2U);
    EXPECT_EQ(a.objectReasons[static_cast<std::size_t>(RejectReason::NonFinite)], 2U);
    ASSERT_EQ(out->objectCount, 1U);
    EXPECT_EQ(out->objects[0].id, 2U);
}

TEST_F(ObjectListGateTest, DropsObjectsWithAbsurdFiniteValues) {
    auto list = validList(5);
    list->objects[0].speed_mps = 1e30F;
    list->objects[1].x_m = 3e38F;
    list->objects[2].stdX_m = 3e38F;
    list->objects[3].stdY_m = 1e-30F;  // positive, but its variance underflows
    const Admission a = admit(*list);
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_EQ(a.objectReasons[static_cast<std::size_t>(RejectReason::Implausible)], 4U);
    ASSERT_EQ(out->objectCount, 1U);
    EXPECT_EQ(out->objects[0].id, 5U);
}

TEST_F(ObjectListGateTest, DropsObjectWithFieldOutOfItsDomain) {
    auto list = validList(3);
    list->objects[1].stdX_m = 0.0F;
    list->objects[2].objectClass = static_cast<ObjectClass>(200);
    const Admission a = admit(*list);
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_EQ(a.objectReasons[static_cast<std::size_t>(RejectReason::InvalidField)], 2U);
    EXPECT_EQ(out->objectCount, 1U);
}

TEST_F(ObjectListGateTest, KeepsTheFirstOfRepeatedIds) {
    auto list = validList(4);
    list->objects[3].id = list->objects[0].id;
    const Admission a = admit(*list);
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_EQ(a.objectReasons[static_cast<std::size_t>(RejectReason::DuplicateId)], 1U);
    ASSERT_EQ(out->objectCount, 3U);
    EXPECT_EQ(out->objects[0].x_m, list->objects[0].x_m);
}

TEST_F(ObjectListGateTest, RejectsListWhenNoObjectIsLeft) {
    auto list = validList(2);
    list->objects[0].stdX_m = -1.0F;
    list->objects[1].y_m = NAN_F;
    const Admission a = admit(*list);
    EXPECT_EQ(a.reason, RejectReason::InvalidField);  // the first object's reason
    EXPECT_EQ(a.droppedObjects, 0U);  // counted once, as a list
    EXPECT_EQ(sut->history().lastSequence, LAST_SEQUENCE);  // not recorded
}

TEST(CheckObject, BoundaryValuesAreAccepted) {
    const PlausibilityLimits limits;
    PerceivedObject o = validObject(1);
    o.x_m = -limits.maxAbsPosition_m;
    o.speed_mps = limits.maxSpeed_mps;
    o.length_m = limits.maxLength_m;
    o.stdX_m = MIN_STD_POSITION_M;
    o.heading_rad = -MAX_ABS_HEADING_RAD;
    EXPECT_EQ(checkObject(o, limits), RejectReason::None);
    o.speed_mps = std::nextafter(limits.maxSpeed_mps, 1e9F);
    EXPECT_EQ(checkObject(o, limits), RejectReason::Implausible);
}

// ---- the clock ------------------------------------------------------------------------------------

TEST_F(ObjectListGateTest, RejectsStaleList) {
    EXPECT_EQ(reason(*validList(2, LAST_SEQUENCE + 1, NOW_NS - MAX_AGE_NS - 1)), RejectReason::Stale);
}

TEST_F(ObjectListGateTest, StalenessCheckDisabledByZeroMaxAge) {
    ObjectListLimits limits = testLimits();
    limits.maxAge_ns = 0;
    prime(limits);
    EXPECT_EQ(reason(*validList(2, LAST_SEQUENCE + 1, LAST_STAMP_NS)), RejectReason::None);
}

TEST_F(ObjectListGateTest, AcceptsStampWithinTheFutureToleranceAndRejectsBeyond) {
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 1, NOW_NS + MAX_FUTURE_NS)), RejectReason::None);
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 2, NOW_NS + MAX_FUTURE_NS + 1)), RejectReason::FutureStamp);
}

TEST_F(ObjectListGateTest, ExtremeStampsAreRejectedWithoutOverflow) {
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 1, std::numeric_limits<std::int64_t>::min())), RejectReason::Stale);
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 1, std::numeric_limits<std::int64_t>::max())),
              RejectReason::FutureStamp);
}

TEST_F(ObjectListGateTest, ListFromAnHourAheadDoesNotLockInputOut) {
    constexpr std::int64_t HOUR_NS = 3'600'000'000'000;
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 1, NOW_NS + HOUR_NS)), RejectReason::FutureStamp);
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 2, NOW_NS - STEP_NS)), RejectReason::None);
}

// ---- order across lists ---------------------------------------------------------------------------

TEST_F(ObjectListGateTest, RejectsRepeatedSequence) {
    EXPECT_EQ(reason(*validList(2, LAST_SEQUENCE, LAST_STAMP_NS)), RejectReason::SequenceNotIncreasing);
}

TEST_F(ObjectListGateTest, RejectsTimestampGoingBackwards) {
    EXPECT_EQ(reason(*validList(2, LAST_SEQUENCE + 1, LAST_STAMP_NS - 1)), RejectReason::TimestampBackwards);
}

TEST_F(ObjectListGateTest, RestartedPublisherIsFollowedAtOnce) {
    const Admission a = admit(*validList(2, 1, LAST_STAMP_NS + STEP_NS));
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_TRUE(a.resynchronised);
    EXPECT_EQ(reason(*validList(2, 2, LAST_STAMP_NS + 2 * STEP_NS)), RejectReason::None);
}

TEST_F(ObjectListGateTest, MaximalSequenceDoesNotLockInputOut) {
    ASSERT_EQ(reason(*validList(1, std::numeric_limits<std::uint64_t>::max(), LAST_STAMP_NS + STEP_NS)),
              RejectReason::None);
    const Admission a = admit(*validList(1, LAST_SEQUENCE + 2, LAST_STAMP_NS + 2 * STEP_NS));
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_TRUE(a.resynchronised);
}

TEST_F(ObjectListGateTest, DuplicateDeliveryIsRejectedWithoutResynchronising) {
    const auto list = validList(2, LAST_SEQUENCE + 1, LAST_STAMP_NS + STEP_NS);
    ASSERT_EQ(reason(*list), RejectReason::None);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(reason(*validList(2, LAST_SEQUENCE + 2 + i, LAST_STAMP_NS + (2 + i) * STEP_NS)), RejectReason::None);
        EXPECT_EQ(reason(*validList(2, LAST_SEQUENCE + 2 + i, LAST_STAMP_NS + (2 + i) * STEP_NS)),
                  RejectReason::SequenceNotIncreasing);
    }
}

TEST_F(ObjectListGateTest, StreamBehindTheReferenceIsFollowedAfterTheConfiguredRejections) {
    // The reference came from a clock running ahead (within the tolerance); the real stream is behind it.
    ASSERT_EQ(reason(*validList(1, LAST_SEQUENCE + 1, NOW_NS + MAX_FUTURE_NS)), RejectReason::None);
    for (std::uint32_t i = 1; i < RESYNC_AFTER; ++i) {
        EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE + 1 + i, NOW_NS - STEP_NS)), RejectReason::TimestampBackwards);
    }
    const Admission a = admit(*validList(1, LAST_SEQUENCE + 1 + RESYNC_AFTER, NOW_NS - STEP_NS));
    EXPECT_EQ(a.reason, RejectReason::None);
    EXPECT_TRUE(a.resynchronised);
}

TEST_F(ObjectListGateTest, InvalidListsDoNotCountTowardsResynchronisation) {
    auto bad = validList(1, LAST_SEQUENCE, LAST_STAMP_NS);
    bad->header.schemaVersion = 0;
    for (std::uint32_t i = 0; i < 2 * RESYNC_AFTER; ++i) {
        EXPECT_EQ(reason(*bad), RejectReason::UnknownSchemaVersion);
    }
    EXPECT_EQ(reason(*validList(1, LAST_SEQUENCE, LAST_STAMP_NS)), RejectReason::SequenceNotIncreasing);
}

}  // namespace
}  // namespace augur
