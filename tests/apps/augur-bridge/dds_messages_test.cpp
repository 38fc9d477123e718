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
    health->linkFaults = bit(LinkFault::PeerLost);
    health->linkAlivePeers = 1;
    health->linkPeerLosses = 2;
    health->linkLastPeerLoss_ns = 41;
    health->linkStatusAge_ns = 120'000'000;
    health->linkUpdate = 1;
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

/// `frames` frames of `width` × `height` cells, each cell a value that names its frame, row and column.
void fillGrid(OccupancyGrid& grid, std::uint32_t width, std::uint32_t height, std::uint32_t frames) {
    grid.originX_m = -64.0F;
    grid.originY_m = -32.5F;
    grid.resolution_m = 0.5F;
    grid.frameInterval_s = 0.5F;
    grid.widthCells = width;
    grid.heightCells = height;
    grid.frameCount = frames;
    for (std::uint32_t f = 0; f < frames; ++f) {
        for (std::uint32_t i = 0; i < width * height; ++i) {
            grid.cells[f][i] = static_cast<std::uint16_t>(f * 7919U + i);
        }
    }
}

void expectSameGrid(const OccupancyGrid& a, const OccupancyGrid& b) {
    EXPECT_EQ(a.originX_m, b.originX_m);
    EXPECT_EQ(a.originY_m, b.originY_m);
    EXPECT_EQ(a.resolution_m, b.resolution_m);
    EXPECT_EQ(a.frameInterval_s, b.frameInterval_s);
    EXPECT_EQ(a.widthCells, b.widthCells);
    EXPECT_EQ(a.heightCells, b.heightCells);
    ASSERT_EQ(a.frameCount, b.frameCount);
    for (std::uint32_t f = 0; f < a.frameCount; ++f) {
        EXPECT_EQ(0, std::memcmp(a.cells[f], b.cells[f], sizeof(std::uint16_t) * a.widthCells * a.heightCells))
            << "frame " << f;
    }
}

TEST(DdsMessages, GridFramesTravelOneAfterTheOtherAndSurviveTheRoundTrip) {
    constexpr std::uint32_t WIDTH = 100;
    constexpr std::uint32_t HEIGHT = 60;
    constexpr std::uint32_t FRAMES = 3;
    auto input = makePrediction(2, 2, 4);
    fillGrid(input->grid, WIDTH, HEIGHT, FRAMES);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};

    toDds(*input, sut.prediction);
    ASSERT_TRUE(fromDds(sut.prediction, *output, error)) << toString(error);

    EXPECT_EQ(sut.prediction.grid.cells._length, FRAMES * WIDTH * HEIGHT);
    EXPECT_EQ(sut.prediction.grid.cells._buffer[WIDTH * HEIGHT], input->grid.cells[1][0]);
    expectSamePrediction(*input, *output);
    expectSameGrid(input->grid, output->grid);
}

TEST(DdsMessages, GridAtTheCompiledLimitsSurvivesTheRoundTrip) {
    constexpr auto SIDE = static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS);
    auto input = makePrediction(MAX_PREDICTED_VEHICLES, MAX_CORRIDORS_PER_VEHICLE, FULL_HORIZON);
    fillGrid(input->grid, SIDE, SIDE, static_cast<std::uint32_t>(MAX_GRID_FRAMES));
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};

    toDds(*input, sut.prediction);
    ASSERT_TRUE(fromDds(sut.prediction, *output, error)) << toString(error);

    EXPECT_EQ(sut.prediction.grid.cells._length, MAX_GRID_FRAMES * SIDE * SIDE);
    expectSameGrid(input->grid, output->grid);
}

TEST(DdsMessages, GridOverTheCompiledSideTravelsWithoutFrames) {
    auto input = makePrediction(1, 1, 1);
    fillGrid(input->grid, 4, 4, 2);
    input->grid.widthCells = static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS) + 1;
    SampleSet sut;

    toDds(*input, sut.prediction);

    EXPECT_EQ(sut.prediction.grid.frame_count, 0U);
    EXPECT_EQ(sut.prediction.grid.cells._length, 0U);
}

TEST(DdsMessages, GridCellsOtherThanFramesTimesSidesAreRefused) {
    auto input = makePrediction(1, 1, 1);
    fillGrid(input->grid, 8, 8, 2);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};
    toDds(*input, sut.prediction);
    sut.prediction.grid.cells._length -= 1;

    EXPECT_FALSE(fromDds(sut.prediction, *output, error));
    EXPECT_EQ(error, ConversionError::LengthMismatch);
}

TEST(DdsMessages, GridWithMoreFramesThanCompiledIsRefused) {
    auto input = makePrediction(1, 1, 1);
    fillGrid(input->grid, 2, 2, 1);
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};
    toDds(*input, sut.prediction);
    sut.prediction.grid.frame_count = static_cast<std::uint32_t>(MAX_GRID_FRAMES) + 1;

    EXPECT_FALSE(fromDds(sut.prediction, *output, error));
    EXPECT_EQ(error, ConversionError::OverCapacity);
}

std::unique_ptr<PlatoonList> makePlatoons(std::uint32_t platoons, std::uint32_t members) {
    auto list = std::make_unique<PlatoonList>();
    list->header = {MESSAGE_SCHEMA_VERSION, 0, 17, 5'000'000};
    list->windowCycles = 10;
    list->platoonCount = platoons;
    list->truncated = 3;
    list->stale = 1;
    for (std::uint32_t p = 0; p < platoons; ++p) {
        list->platoons[p].memberCount = members;
        for (std::uint32_t m = 0; m < members; ++m) {
            list->platoons[p].memberTrackIds[m] = 100 * p + m;
        }
    }
    return list;
}

TEST(DdsMessages, PlatoonListAtFullCapacitySurvivesTheRoundTrip) {
    const auto input = makePlatoons(static_cast<std::uint32_t>(MAX_PLATOONS), static_cast<std::uint32_t>(MAX_PLATOON_MEMBERS));
    SampleSet sut;
    auto output = std::make_unique<PlatoonList>();
    ConversionError error{};

    toDds(*input, sut.platoons);
    ASSERT_TRUE(fromDds(sut.platoons, *output, error)) << toString(error);

    EXPECT_EQ(sut.platoons.platoons._length, MAX_PLATOONS);
    EXPECT_EQ(0, std::memcmp(input.get(), output.get(), sizeof(PlatoonList)));
}

TEST(DdsMessages, EmptyPlatoonListAndOnePlatoonOfOne) {
    const auto empty = makePlatoons(0, 0);
    const auto one = makePlatoons(1, 1);
    SampleSet sut;
    auto emptyOut = std::make_unique<PlatoonList>();
    auto oneOut = std::make_unique<PlatoonList>();
    ConversionError error{};

    toDds(*empty, sut.platoons);
    ASSERT_TRUE(fromDds(sut.platoons, *emptyOut, error));
    toDds(*one, sut.platoons);
    ASSERT_TRUE(fromDds(sut.platoons, *oneOut, error));

    EXPECT_EQ(0, std::memcmp(empty.get(), emptyOut.get(), sizeof(PlatoonList)));
    EXPECT_EQ(0, std::memcmp(one.get(), oneOut.get(), sizeof(PlatoonList)));
}

TEST(DdsMessages, PlatoonWithMoreMembersThanCompiledIsRefused) {
    const auto input = makePlatoons(2, 2);
    SampleSet sut;
    auto output = std::make_unique<PlatoonList>();
    ConversionError error{};
    toDds(*input, sut.platoons);
    sut.platoons.platoons._buffer[1].member_track_ids._length = static_cast<std::uint32_t>(MAX_PLATOON_MEMBERS) + 1;

    EXPECT_FALSE(fromDds(sut.platoons, *output, error));
    EXPECT_EQ(error, ConversionError::OverCapacity);
}

TEST(DdsMessages, ShiftingTimesMovesEveryPointInTimeAndKeepsNoneAndDurations) {
    constexpr std::int64_t DELTA_NS = 1'800'000'000'000'000'000;  // about a realtime clock's distance from a monotonic one
    SampleSet sut;
    auto prediction = makePrediction(1, 1, 1);
    toDds(*prediction, sut.prediction);
    shiftTimes(sut.prediction, DELTA_NS);
    EXPECT_EQ(sut.prediction.header.stamp_ns, prediction->header.stamp_ns + DELTA_NS);
    EXPECT_EQ(sut.prediction.source_stamp_ns, prediction->sourceStamp_ns + DELTA_NS);
    auto health = std::make_unique<Health>();
    health->header = {MESSAGE_SCHEMA_VERSION, 0, 3, 44};
    health->newestInputStamp_ns = 0;  // none yet
    health->linkLastPeerLoss_ns = 41;
    health->linkStatusAge_ns = 120'000'000;
    health->overrunElapsed_ns = 9;
    toDds(*health, sut.health);
    shiftTimes(sut.health, DELTA_NS);
    EXPECT_EQ(sut.health.header.stamp_ns, 44 + DELTA_NS);
    EXPECT_EQ(sut.health.newest_input_stamp_ns, 0);
    EXPECT_EQ(sut.health.link_last_peer_loss_ns, 41 + DELTA_NS);
    EXPECT_EQ(sut.health.link_status_age_ns, 120'000'000);
    EXPECT_EQ(sut.health.overrun_elapsed_ns, 9);
    augur_msg_dds__BridgeStatus_ status{};
    status.header.stamp_ns = 5;
    status.last_reader_loss_ns = 3;
    shiftTimes(status, -4);
    EXPECT_EQ(status.header.stamp_ns, 1);
    EXPECT_EQ(status.last_peer_loss_ns, 0);
    EXPECT_EQ(status.last_reader_loss_ns, -1);
    // Out and back: the iceoryx message's times come back as they were.
    shiftTimes(sut.prediction, -DELTA_NS);
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};
    ASSERT_TRUE(fromDds(sut.prediction, *output, error));
    expectSamePrediction(*prediction, *output);
}

TEST(DdsMessages, ConversionsAllocateNothing) {
    auto input = makePrediction(MAX_PREDICTED_VEHICLES, MAX_CORRIDORS_PER_VEHICLE, FULL_HORIZON);
    fillGrid(input->grid, static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS), static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS),
             static_cast<std::uint32_t>(MAX_GRID_FRAMES));
    const auto platoons = makePlatoons(static_cast<std::uint32_t>(MAX_PLATOONS), static_cast<std::uint32_t>(MAX_PLATOON_MEMBERS));
    SampleSet sut;
    auto output = std::make_unique<MotionPrediction>();
    auto platoonsOut = std::make_unique<PlatoonList>();
    ConversionError error{};

    const std::uint64_t allocations = testing::allocationsDuring([&] {
        toDds(*input, sut.prediction);
        (void)fromDds(sut.prediction, *output, error);
        toDds(*platoons, sut.platoons);
        (void)fromDds(sut.platoons, *platoonsOut, error);
        sut.rebind();
    });

    EXPECT_EQ(allocations, 0U);
}

}  // namespace
}  // namespace augur::bridge
