#include "augur/core/messages.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace augur {
namespace {

TEST(Messages, EveryRejectReasonHasADistinctName) {
    for (std::size_t i = 0; i < REJECT_REASON_COUNT; ++i) {
        for (std::size_t j = i + 1; j < REJECT_REASON_COUNT; ++j) {
            EXPECT_STRNE(toString(static_cast<RejectReason>(i)), toString(static_cast<RejectReason>(j)));
        }
        EXPECT_STRNE(toString(static_cast<RejectReason>(i)), "invalid");
    }
}

TEST(Messages, EveryStageAndModeIsNamed) {
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        EXPECT_STRNE(toString(static_cast<Stage>(i)), "invalid");
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(RuntimeMode::Count); ++i) {
        EXPECT_STRNE(toString(static_cast<RuntimeMode>(i)), "invalid");
    }
}

TEST(Messages, DefaultHeaderCarriesCurrentSchemaVersion) {
    const MessageHeader sut;
    EXPECT_EQ(sut.schemaVersion, MESSAGE_SCHEMA_VERSION);
}

TEST(Messages, ObjectListSurvivesByteCopy) {
    // Wire messages are copied byte-wise through shared memory.
    auto original = std::make_unique<ObjectList>();
    original->header.sequence = 7;
    original->objectCount = 1;
    original->objects[0].id = 99;
    original->objects[0].x_m = 1.5F;
    auto copy = std::make_unique<ObjectList>();
    std::memcpy(copy.get(), original.get(), sizeof(ObjectList));
    EXPECT_EQ(copy->header.sequence, 7U);
    EXPECT_EQ(copy->objects[0].id, 99U);
    EXPECT_FLOAT_EQ(copy->objects[0].x_m, 1.5F);
}

}  // namespace
}  // namespace augur
