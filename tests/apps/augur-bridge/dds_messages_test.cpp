// The one conversion between augur's iceoryx messages and their DDS types: every field survives the
// round trip, counts become sequence lengths, broken samples are refused, nothing is allocated.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "augur/bridge/dds_messages.hpp"
#include "augur/testing/allocation_counter.hpp"

namespace augur::bridge {
namespace {

constexpr std::uint32_t FULL_HORIZON = static_cast<std::uint32_t>(MAX_HORIZON_STEPS);

std::unique_ptr<MotionPrediction> makePrediction(std::uint32_t vehicles, std::uint32_t corridors, std::uint32_t steps) {
    auto p = std::make_unique<MotionPrediction>();
    p->header = {MESSAGE_SCHEMA_VERSION, 0, 42, 1'000'000'123};
    p->step_s = 0.1F;
    p->horizonSteps = steps;
    p->vehicleCount = vehicles;
    p->stale = 1;
    p->mode = RuntimeMode::ConstantVelocity;
    p->sourceStamp_ns = 999'000'000;
    for (std::uint32_t v = 0; v < vehicles; ++v) {
        p->vehicles[v].trackId = 100 + v;
        p->vehicles[v].corridorCount = corridors;
        for (std::uint32_t c = 0; c < corridors; ++c) {
            p->vehicles[v].corridors[c].corridorId = 7 * c + v;
            p->vehicles[v].corridors[c].probability = 0.25F * static_cast<float>(c + 1);
            for (std::uint32_t k = 0; k < steps; ++k) {
                const auto s = static_cast<float>(k + v + c);
                p->vehicles[v].corridors[c].points[k] = {s, 0.5F * s, -s, 2.0F * s};
            }
        }
    }
    return p;
}

void expectSamePrediction(const MotionPrediction& a, const MotionPrediction& b) {
    EXPECT_EQ(a.header.sequence, b.header.sequence);
    EXPECT_EQ(a.header.stamp_ns, b.header.stamp_ns);
    EXPECT_EQ(a.step_s, b.step_s);
    EXPECT_EQ(a.horizonSteps, b.horizonSteps);
    EXPECT_EQ(a.vehicleCount, b.vehicleCount);
    EXPECT_EQ(a.stale, b.stale);
    EXPECT_EQ(a.mode, b.mode);
    EXPECT_EQ(a.sourceStamp_ns, b.sourceStamp_ns);
    for (std::uint32_t v = 0; v < a.vehicleCount; ++v) {
        ASSERT_EQ(a.vehicles[v].trackId, b.vehicles[v].trackId);
        ASSERT_EQ(a.vehicles[v].corridorCount, b.vehicles[v].corridorCount);
        for (std::uint32_t c = 0; c < a.vehicles[v].corridorCount; ++c) {
            ASSERT_EQ(a.vehicles[v].corridors[c].corridorId, b.vehicles[v].corridors[c].corridorId);
            ASSERT_EQ(a.vehicles[v].corridors[c].probability, b.vehicles[v].corridors[c].probability);
            ASSERT_EQ(0, std::memcmp(a.vehicles[v].corridors[c].points, b.vehicles[v].corridors[c].points,
                                     sizeof(CorridorPoint) * a.horizonSteps));
        }
    }
}

TEST(DdsMessages, PredictionAtFullCapacitySurvivesTheRoundTrip) {
    const auto input = makePrediction(MAX_PREDICTED_VEHICLES, MAX_CORRIDORS_PER_VEHICLE, FULL_HORIZON);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};

    toDds(*input, sut.prediction);
    ASSERT_TRUE(fromDds(sut.prediction, *output, error)) << toString(error);

    EXPECT_EQ(sut.prediction.vehicles._length, MAX_PREDICTED_VEHICLES);
    EXPECT_EQ(sut.prediction.vehicles._buffer[0].corridors._buffer[0].x_m._length, FULL_HORIZON);
    expectSamePrediction(*input, *output);
    EXPECT_EQ(output->grid.frameCount, 0U);
}

TEST(DdsMessages, EmptyPredictionHasEmptySequences) {
    const auto input = makePrediction(0, 0, FULL_HORIZON);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};

    toDds(*input, sut.prediction);
    ASSERT_TRUE(fromDds(sut.prediction, *output, error));

    EXPECT_EQ(sut.prediction.vehicles._length, 0U);
    EXPECT_EQ(output->vehicleCount, 0U);
}

TEST(DdsMessages, OneVehicleOneCorridorOneStep) {
    const auto input = makePrediction(1, 1, 1);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};

    toDds(*input, sut.prediction);
    ASSERT_TRUE(fromDds(sut.prediction, *output, error));

    expectSamePrediction(*input, *output);
}

TEST(DdsMessages, CountsOverTheCompiledCapacityAreClampedOnTheWayOut) {
    auto input = makePrediction(MAX_PREDICTED_VEHICLES, 1, FULL_HORIZON);
    input->vehicleCount = MAX_PREDICTED_VEHICLES + 5;
    SampleSet sut;

    toDds(*input, sut.prediction);

    EXPECT_EQ(sut.prediction.vehicles._length, MAX_PREDICTED_VEHICLES);
}

TEST(DdsMessages, WrongSchemaVersionIsRefused) {
    const auto input = makePrediction(2, 2, 4);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};
    toDds(*input, sut.prediction);
    sut.prediction.header.schema_version = MESSAGE_SCHEMA_VERSION + 1;

    EXPECT_FALSE(fromDds(sut.prediction, *output, error));
    EXPECT_EQ(error, ConversionError::SchemaVersion);
}

TEST(DdsMessages, CorridorShorterThanTheHorizonIsRefused) {
    const auto input = makePrediction(2, 2, 4);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};
    toDds(*input, sut.prediction);
    sut.prediction.vehicles._buffer[1].corridors._buffer[1].y_m._length = 3;

    EXPECT_FALSE(fromDds(sut.prediction, *output, error));
    EXPECT_EQ(error, ConversionError::LengthMismatch);
}

TEST(DdsMessages, ObjectListOverCapacityIsRefused) {
    SampleSet sut;
    auto output = std::make_unique<ObjectList>();
    ConversionError error{};
    sut.objects.header.schema_version = MESSAGE_SCHEMA_VERSION;
    sut.objects.objects._length = MAX_OBJECTS + 1;

    EXPECT_FALSE(fromDds(sut.objects, *output, error));
    EXPECT_EQ(error, ConversionError::OverCapacity);
}

TEST(DdsMessages, ObjectListSurvivesTheRoundTrip) {
    auto input = std::make_unique<ObjectList>();
    input->header = {MESSAGE_SCHEMA_VERSION, 0, 9, 123};
    input->ego = {1.0F, 2.0F, 0.5F, 7.0F};
    input->objectCount = MAX_OBJECTS;
    for (std::uint32_t i = 0; i < MAX_OBJECTS; ++i) {
        PerceivedObject& o = input->objects[i];
        o.id = i + 1;
        o.objectClass = static_cast<ObjectClass>(i % static_cast<std::uint32_t>(ObjectClass::Count));
        o.x_m = static_cast<float>(i);
        o.y_m = -static_cast<float>(i);
        o.heading_rad = 0.1F;
        o.speed_mps = 3.0F;
        o.length_m = 4.0F;
        o.width_m = 2.0F;
        o.stdX_m = o.stdY_m = 0.2F;
        o.stdHeading_rad = 0.05F;
        o.stdSpeed_mps = 0.3F;
    }
    SampleSet sut;
    auto output = std::make_unique<ObjectList>();
    ConversionError error{};

    toDds(*input, sut.objects);
    ASSERT_TRUE(fromDds(sut.objects, *output, error));

    EXPECT_EQ(0, std::memcmp(input.get(), output.get(), sizeof(ObjectList)));
}

TEST(DdsMessages, TrackIntentionAndHealthSurviveTheRoundTrip) {
    auto tracks = std::make_unique<TrackList>();
    tracks->header = {MESSAGE_SCHEMA_VERSION, 0, 3, 44};
    tracks->trackCount = 2;
    tracks->tracks[1].id = 8;
    tracks->tracks[1].objectClass = ObjectClass::Motorcycle;
    tracks->tracks[1].covVyVy_m2ps2 = 0.7F;
    tracks->tracks[1].perceptionId = 77;
    auto intentions = std::make_unique<IntentionList>();
    intentions->header = {MESSAGE_SCHEMA_VERSION, 0, 3, 44};
    intentions->vehicleCount = 1;
    intentions->vehicles[0].trackId = 8;
    intentions->vehicles[0].corridorCount = 2;
    intentions->vehicles[0].corridorIds[1] = 12;
    intentions->vehicles[0].corridorProbability[1] = 0.6F;
    intentions->vehicles[0].stopProbability = 0.2F;
    auto health = std::make_unique<Health>();
    health->header = {MESSAGE_SCHEMA_VERSION, 0, 3, 44};
    health->faults = bit(HealthFault::InputLost);
    health->rejections[static_cast<std::size_t>(RejectReason::Stale)] = 5;
    health->stageLatency[static_cast<std::size_t>(Stage::Motion)].p99_us = 812.0F;
    health->overrunStage = Stage::Intention;
    SampleSet sut;
    auto tracksOut = std::make_unique<TrackList>();
    auto intentionsOut = std::make_unique<IntentionList>();
    auto healthOut = std::make_unique<Health>();
    ConversionError error{};

    toDds(*tracks, sut.tracks);
    toDds(*intentions, sut.intentions);
    toDds(*health, sut.health);
    ASSERT_TRUE(fromDds(sut.tracks, *tracksOut, error));
    ASSERT_TRUE(fromDds(sut.intentions, *intentionsOut, error));
    ASSERT_TRUE(fromDds(sut.health, *healthOut, error));

    EXPECT_EQ(0, std::memcmp(&tracks->tracks[1], &tracksOut->tracks[1], sizeof(Track)));
    EXPECT_EQ(intentionsOut->vehicles[0].corridorCount, 2U);
    EXPECT_EQ(intentionsOut->vehicles[0].corridorIds[1], 12U);
    EXPECT_EQ(intentionsOut->vehicles[0].corridorProbability[1], 0.6F);
    EXPECT_EQ(intentionsOut->vehicles[0].stopProbability, 0.2F);
    EXPECT_EQ(0, std::memcmp(health.get(), healthOut.get(), sizeof(Health)));
}

TEST(DdsMessages, ConversionsAllocateNothing) {
    const auto input = makePrediction(MAX_PREDICTED_VEHICLES, MAX_CORRIDORS_PER_VEHICLE, FULL_HORIZON);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};

    const std::uint64_t allocations = testing::allocationsDuring([&] {
        toDds(*input, sut.prediction);
        (void)fromDds(sut.prediction, *output, error);
        sut.rebind();
    });

    EXPECT_EQ(allocations, 0U);
}

}  // namespace
}  // namespace augur::bridge
