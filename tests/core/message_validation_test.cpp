#include "augur/core/message_validation.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <memory>

namespace augur {
namespace {

constexpr std::int64_t NOW_NS = 10'000'000'000;
constexpr std::int64_t MAX_AGE_NS = 500'000'000;
constexpr std::uint64_t LAST_SEQUENCE = 41;
constexpr std::int64_t LAST_STAMP_NS = NOW_NS - 200'000'000;

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
std::unique_ptr<ObjectList> validList(std::uint32_t count) {
    auto list = std::make_unique<ObjectList>();
    list->header.sequence = LAST_SEQUENCE + 1;
    list->header.stamp_ns = NOW_NS - 50'000'000;
    list->objectCount = count;
    for (std::uint32_t i = 0; i < count; ++i) {
        list->objects[i] = validObject(i + 1);
    }
    return list;
}

class ObjectListValidation : public ::testing::Test {
protected:
    ObjectListLimits limits{16, MAX_AGE_NS};
    IngestHistory history{true, LAST_SEQUENCE, LAST_STAMP_NS};

    RejectReason validate(const ObjectList& list) const { return validateObjectList(list, limits, history, NOW_NS); }
};

TEST_F(ObjectListValidation, AcceptsValidList) { EXPECT_EQ(validate(*validList(5)), RejectReason::None); }

TEST_F(ObjectListValidation, AcceptsEmptyList) { EXPECT_EQ(validate(*validList(0)), RejectReason::None); }

TEST_F(ObjectListValidation, AcceptsListAtExactCapacity) { EXPECT_EQ(validate(*validList(16)), RejectReason::None); }

TEST_F(ObjectListValidation, AcceptsFirstListWithoutHistory) {
    history = IngestHistory{};
    auto list = validList(3);
    list->header.sequence = 0;
    EXPECT_EQ(validate(*list), RejectReason::None);
}

TEST_F(ObjectListValidation, RejectsUnknownSchemaVersion) {
    auto list = validList(3);
    list->header.schemaVersion = MESSAGE_SCHEMA_VERSION + 1;
    EXPECT_EQ(validate(*list), RejectReason::UnknownSchemaVersion);
}

TEST_F(ObjectListValidation, RejectsCountOverConfiguredCapacity) {
    EXPECT_EQ(validate(*validList(17)), RejectReason::CountOverCapacity);
}

TEST_F(ObjectListValidation, RejectsCountOverCompiledCapacity) {
    limits.maxObjects = 100000;
    auto list = validList(3);
    list->objectCount = static_cast<std::uint32_t>(MAX_OBJECTS) + 1;
    EXPECT_EQ(validate(*list), RejectReason::CountOverCapacity);
}

TEST_F(ObjectListValidation, RejectsNaNPosition) {
    auto list = validList(3);
    list->objects[2].x_m = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(validate(*list), RejectReason::NonFinite);
}

TEST_F(ObjectListValidation, RejectsInfiniteStandardDeviation) {
    auto list = validList(3);
    list->objects[0].stdSpeed_mps = std::numeric_limits<float>::infinity();
    EXPECT_EQ(validate(*list), RejectReason::NonFinite);
}

TEST_F(ObjectListValidation, RejectsNaNEgoState) {
    auto list = validList(1);
    list->ego.heading_rad = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(validate(*list), RejectReason::NonFinite);
}

TEST_F(ObjectListValidation, IgnoresGarbageBeyondObjectCount) {
    auto list = validList(2);
    list->objects[5].x_m = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(validate(*list), RejectReason::None);
}

TEST_F(ObjectListValidation, RejectsNonPositiveStandardDeviation) {
    auto list = validList(3);
    list->objects[1].stdX_m = 0.0F;
    EXPECT_EQ(validate(*list), RejectReason::InvalidField);
}

TEST_F(ObjectListValidation, RejectsUnknownClass) {
    auto list = validList(3);
    list->objects[1].objectClass = static_cast<ObjectClass>(200);
    EXPECT_EQ(validate(*list), RejectReason::InvalidField);
}

TEST_F(ObjectListValidation, RejectsDuplicateIds) {
    auto list = validList(4);
    list->objects[3].id = list->objects[0].id;
    EXPECT_EQ(validate(*list), RejectReason::DuplicateId);
}

TEST_F(ObjectListValidation, RejectsRepeatedSequence) {
    auto list = validList(2);
    list->header.sequence = LAST_SEQUENCE;
    EXPECT_EQ(validate(*list), RejectReason::SequenceNotIncreasing);
}

TEST_F(ObjectListValidation, RejectsTimestampGoingBackwards) {
    auto list = validList(2);
    list->header.stamp_ns = LAST_STAMP_NS - 1;
    EXPECT_EQ(validate(*list), RejectReason::TimestampBackwards);
}

TEST_F(ObjectListValidation, RejectsStaleList) {
    auto list = validList(2);
    list->header.stamp_ns = NOW_NS - MAX_AGE_NS - 1;
    history.lastStamp_ns = list->header.stamp_ns - 1;
    EXPECT_EQ(validate(*list), RejectReason::Stale);
}

TEST_F(ObjectListValidation, StalenessCheckDisabledByZeroMaxAge) {
    limits.maxAge_ns = 0;
    auto list = validList(2);
    list->header.stamp_ns = LAST_STAMP_NS;
    EXPECT_EQ(validate(*list), RejectReason::None);
}

TEST(IngestHistory, RecordAcceptedRemembersSequenceAndStamp) {
    IngestHistory sut;
    auto list = validList(1);
    recordAccepted(sut, *list);
    EXPECT_TRUE(sut.hasAccepted);
    EXPECT_EQ(sut.lastSequence, list->header.sequence);
    EXPECT_EQ(sut.lastStamp_ns, list->header.stamp_ns);
}

}  // namespace
}  // namespace augur
