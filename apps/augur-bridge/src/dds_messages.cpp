#include "augur/bridge/dds_messages.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace augur::bridge {
namespace {

static_assert(augur_msg_dds__SCHEMA_VERSION == MESSAGE_SCHEMA_VERSION, "idl/augur/msg/augur.idl is out of date");
static_assert(augur_msg_dds__MAX_OBJECTS == MAX_OBJECTS);
static_assert(augur_msg_dds__MAX_TRACKS == MAX_TRACKS);
static_assert(augur_msg_dds__MAX_PREDICTED_VEHICLES == MAX_PREDICTED_VEHICLES);
static_assert(augur_msg_dds__MAX_CORRIDORS_PER_VEHICLE == MAX_CORRIDORS_PER_VEHICLE);
static_assert(augur_msg_dds__MAX_HORIZON_STEPS == MAX_HORIZON_STEPS);
static_assert(augur_msg_dds__STAGE_COUNT == STAGE_COUNT);
static_assert(augur_msg_dds__REJECT_REASON_COUNT == REJECT_REASON_COUNT);
static_assert(augur_msg_dds__MAX_GRID_SIDE_CELLS == MAX_GRID_SIDE_CELLS);
static_assert(augur_msg_dds__MAX_GRID_FRAMES == MAX_GRID_FRAMES);
static_assert(augur_msg_dds__MAX_GRID_CELLS == MAX_GRID_FRAMES * MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS);
static_assert(augur_msg_dds__MAX_PLATOONS == MAX_PLATOONS);
static_assert(augur_msg_dds__MAX_PLATOON_MEMBERS == MAX_PLATOON_MEMBERS);

constexpr auto U32(std::size_t n) noexcept { return static_cast<std::uint32_t>(n); }

template <typename Seq, typename T>
void bind(Seq& seq, T* buffer, std::size_t capacity) noexcept {
    seq._buffer = buffer;
    seq._maximum = U32(capacity);
    seq._release = false;
    seq._length = std::min(seq._length, seq._maximum);
}

void toDds(const MessageHeader& in, augur_msg_dds__Header_& out) noexcept {
    out.schema_version = in.schemaVersion;
    out.sequence_number = in.sequence;
    out.stamp_ns = in.stamp_ns;
}

bool fromDds(const augur_msg_dds__Header_& in, MessageHeader& out, ConversionError& error) noexcept {
    if (in.schema_version != MESSAGE_SCHEMA_VERSION) {
        error = ConversionError::SchemaVersion;
        return false;
    }
    out.schemaVersion = in.schema_version;
    out.reserved = 0;
    out.sequence = in.sequence_number;
    out.stamp_ns = in.stamp_ns;
    return true;
}

void toDds(const LatencyStats& in, augur_msg_dds__LatencyStats_& out) noexcept {
    out.p50_us = in.p50_us;
    out.p99_us = in.p99_us;
    out.max_us = in.max_us;
    out.last_us = in.last_us;
}

void fromDds(const augur_msg_dds__LatencyStats_& in, LatencyStats& out) noexcept {
    out.p50_us = in.p50_us;
    out.p99_us = in.p99_us;
    out.max_us = in.max_us;
    out.last_us = in.last_us;
}

template <typename Seq>
bool within(const Seq& seq, std::size_t capacity, ConversionError& error) noexcept {
    if (seq._length > capacity || (seq._length > 0 && seq._buffer == nullptr)) {
        error = ConversionError::OverCapacity;
        return false;
    }
    return true;
}

/// Cells of one grid frame; 0 for a grid whose sides exceed the compiled limit.
std::size_t frameCells(std::uint32_t width, std::uint32_t height) noexcept {
    return width <= MAX_GRID_SIDE_CELLS && height <= MAX_GRID_SIDE_CELLS ? std::size_t{width} * height : 0;
}

/// The frames travel one after the other, each height × width (the iceoryx grid keeps each frame in
/// its own MAX_GRID_SIDE_CELLS² block). A grid over the compiled limits travels without frames.
void toDds(const OccupancyGrid& in, augur_msg_dds__OccupancyGrid_& out) noexcept {
    out.origin_x_m = in.originX_m;
    out.origin_y_m = in.originY_m;
    out.resolution_m = in.resolution_m;
    out.frame_interval_s = in.frameInterval_s;
    const std::size_t cells = frameCells(in.widthCells, in.heightCells);
    const std::uint32_t frames = cells == 0 ? 0 : std::min(in.frameCount, U32(MAX_GRID_FRAMES));
    out.width_cells = in.widthCells;
    out.height_cells = in.heightCells;
    out.frame_count = frames;
    for (std::uint32_t f = 0; f < frames; ++f) {
        std::copy_n(in.cells[f], cells, out.cells._buffer + f * cells);
    }
    out.cells._length = U32(frames * cells);
}

bool fromDds(const augur_msg_dds__OccupancyGrid_& in, OccupancyGrid& out, ConversionError& error) noexcept {
    if (!within(in.cells, MAX_GRID_FRAMES * MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS, error)) {
        return false;
    }
    const std::size_t cells = frameCells(in.width_cells, in.height_cells);
    if (in.frame_count > MAX_GRID_FRAMES || (in.frame_count > 0 && cells == 0)) {
        error = ConversionError::OverCapacity;
        return false;
    }
    if (in.cells._length != in.frame_count * cells) {
        error = ConversionError::LengthMismatch;
        return false;
    }
    out.originX_m = in.origin_x_m;
    out.originY_m = in.origin_y_m;
    out.resolution_m = in.resolution_m;
    out.frameInterval_s = in.frame_interval_s;
    out.widthCells = in.width_cells;
    out.heightCells = in.height_cells;
    out.frameCount = in.frame_count;
    out.reserved = 0;
    for (std::uint32_t f = 0; f < in.frame_count; ++f) {
        std::copy_n(in.cells._buffer + f * cells, cells, out.cells[f]);
    }
    return true;
}

}  // namespace

const char* toString(ConversionError error) noexcept {
    switch (error) {
        case ConversionError::SchemaVersion: return "schema version";
        case ConversionError::OverCapacity: return "sequence over capacity";
        case ConversionError::LengthMismatch: return "sequence lengths differ";
    }
    return "invalid";
}

struct SampleSet::Buffers {
    std::array<augur_msg_dds__PerceivedObject_, MAX_OBJECTS> objects{};
    std::array<augur_msg_dds__Track_, MAX_TRACKS> tracks{};
    std::array<augur_msg_dds__IntentionEstimate_, MAX_PREDICTED_VEHICLES> intentions{};
    std::array<std::array<std::uint32_t, MAX_CORRIDORS_PER_VEHICLE>, MAX_PREDICTED_VEHICLES> intentionIds{};
    std::array<std::array<float, MAX_CORRIDORS_PER_VEHICLE>, MAX_PREDICTED_VEHICLES> intentionProbabilities{};
    std::array<augur_msg_dds__VehiclePrediction_, MAX_PREDICTED_VEHICLES> vehicles{};
    std::array<std::array<augur_msg_dds__CorridorPrediction_, MAX_CORRIDORS_PER_VEHICLE>, MAX_PREDICTED_VEHICLES>
        corridors{};
    /// Four columns (s_mean, s_std, x, y) of MAX_HORIZON_STEPS floats per corridor.
    std::vector<float> columns = std::vector<float>(4 * MAX_PREDICTED_VEHICLES * MAX_CORRIDORS_PER_VEHICLE * MAX_HORIZON_STEPS);
    /// The occupancy grid's frames, each height × width, one after the other.
    std::vector<std::uint16_t> gridCells = std::vector<std::uint16_t>(MAX_GRID_FRAMES * MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS);
    std::array<augur_msg_dds__Platoon_, MAX_PLATOONS> platoons{};
    std::array<std::array<std::uint32_t, MAX_PLATOON_MEMBERS>, MAX_PLATOONS> platoonMembers{};
};

SampleSet::SampleSet() : m_buffers(std::make_unique<Buffers>()) { rebind(); }

SampleSet::~SampleSet() = default;

void SampleSet::rebind() noexcept {
    Buffers& b = *m_buffers;
    bind(objects.objects, b.objects.data(), MAX_OBJECTS);
    bind(tracks.tracks, b.tracks.data(), MAX_TRACKS);
    bind(intentions.vehicles, b.intentions.data(), MAX_PREDICTED_VEHICLES);
    for (std::size_t v = 0; v < MAX_PREDICTED_VEHICLES; ++v) {
        bind(b.intentions[v].corridor_ids, b.intentionIds[v].data(), MAX_CORRIDORS_PER_VEHICLE);
        bind(b.intentions[v].corridor_probability, b.intentionProbabilities[v].data(), MAX_CORRIDORS_PER_VEHICLE);
    }
    bind(prediction.vehicles, b.vehicles.data(), MAX_PREDICTED_VEHICLES);
    for (std::size_t v = 0; v < MAX_PREDICTED_VEHICLES; ++v) {
        bind(b.vehicles[v].corridors, b.corridors[v].data(), MAX_CORRIDORS_PER_VEHICLE);
        for (std::size_t c = 0; c < MAX_CORRIDORS_PER_VEHICLE; ++c) {
            float* column = &b.columns[4 * (v * MAX_CORRIDORS_PER_VEHICLE + c) * MAX_HORIZON_STEPS];
            augur_msg_dds__CorridorPrediction_& corridor = b.corridors[v][c];
            bind(corridor.s_mean_m, column, MAX_HORIZON_STEPS);
            bind(corridor.s_std_m, column + MAX_HORIZON_STEPS, MAX_HORIZON_STEPS);
            bind(corridor.x_m, column + 2 * MAX_HORIZON_STEPS, MAX_HORIZON_STEPS);
            bind(corridor.y_m, column + 3 * MAX_HORIZON_STEPS, MAX_HORIZON_STEPS);
        }
    }
    bind(prediction.grid.cells, b.gridCells.data(), b.gridCells.size());
    bind(platoons.platoons, b.platoons.data(), MAX_PLATOONS);
    for (std::size_t p = 0; p < MAX_PLATOONS; ++p) {
        bind(b.platoons[p].member_track_ids, b.platoonMembers[p].data(), MAX_PLATOON_MEMBERS);
    }
}

// ---- iceoryx → DDS ---------------------------------------------------------------------------------

void toDds(const ObjectList& in, augur_msg_dds__ObjectList_& out) noexcept {
    toDds(in.header, out.header);
    out.ego = {in.ego.x_m, in.ego.y_m, in.ego.heading_rad, in.ego.speed_mps};
    const std::uint32_t count = std::min(in.objectCount, out.objects._maximum);
    for (std::uint32_t i = 0; i < count; ++i) {
        const PerceivedObject& o = in.objects[i];
        out.objects._buffer[i] = {o.id,       static_cast<std::uint8_t>(o.objectClass),
                                  o.x_m,      o.y_m,
                                  o.heading_rad, o.speed_mps,
                                  o.length_m, o.width_m,
                                  o.stdX_m,   o.stdY_m,
                                  o.stdHeading_rad, o.stdSpeed_mps};
    }
    out.objects._length = count;
}

void toDds(const TrackList& in, augur_msg_dds__TrackList_& out) noexcept {
    toDds(in.header, out.header);
    out.stale = in.stale != 0;
    const std::uint32_t count = std::min(in.trackCount, out.tracks._maximum);
    for (std::uint32_t i = 0; i < count; ++i) {
        const Track& t = in.tracks[i];
        out.tracks._buffer[i] = {t.id,       static_cast<std::uint8_t>(t.objectClass),
                                 t.missedCycles, t.ageCycles,
                                 t.x_m,      t.y_m,
                                 t.vx_mps,   t.vy_mps,
                                 t.ax_mps2,  t.ay_mps2,
                                 t.covXX_m2, t.covXY_m2,
                                 t.covYY_m2, t.covVxVx_m2ps2,
                                 t.covVyVy_m2ps2, t.perceptionId};
    }
    out.tracks._length = count;
}

void toDds(const IntentionList& in, augur_msg_dds__IntentionList_& out) noexcept {
    toDds(in.header, out.header);
    out.stale = in.stale != 0;
    const std::uint32_t count = std::min(in.vehicleCount, out.vehicles._maximum);
    for (std::uint32_t i = 0; i < count; ++i) {
        const IntentionEstimate& e = in.vehicles[i];
        augur_msg_dds__IntentionEstimate_& o = out.vehicles._buffer[i];
        o.track_id = e.trackId;
        const std::uint32_t corridors = std::min(e.corridorCount, o.corridor_ids._maximum);
        std::copy_n(e.corridorIds, corridors, o.corridor_ids._buffer);
        std::copy_n(e.corridorProbability, corridors, o.corridor_probability._buffer);
        o.corridor_ids._length = corridors;
        o.corridor_probability._length = corridors;
        o.stop_probability = e.stopProbability;
        o.lane_change_probability = e.laneChangeProbability;
    }
    out.vehicles._length = count;
}

void toDds(const MotionPrediction& in, augur_msg_dds__MotionPrediction_& out) noexcept {
    toDds(in.header, out.header);
    out.step_s = in.step_s;
    const std::uint32_t steps = std::min(in.horizonSteps, U32(MAX_HORIZON_STEPS));
    out.horizon_steps = steps;
    out.stale = in.stale != 0;
    out.mode = static_cast<std::uint8_t>(in.mode);
    out.source_stamp_ns = in.sourceStamp_ns;
    const std::uint32_t count = std::min(in.vehicleCount, out.vehicles._maximum);
    for (std::uint32_t i = 0; i < count; ++i) {
        const VehiclePrediction& v = in.vehicles[i];
        augur_msg_dds__VehiclePrediction_& o = out.vehicles._buffer[i];
        o.track_id = v.trackId;
        const std::uint32_t corridors = std::min(v.corridorCount, o.corridors._maximum);
        for (std::uint32_t c = 0; c < corridors; ++c) {
            const CorridorPrediction& src = v.corridors[c];
            augur_msg_dds__CorridorPrediction_& dst = o.corridors._buffer[c];
            dst.corridor_id = src.corridorId;
            dst.probability = src.probability;
            for (std::uint32_t k = 0; k < steps; ++k) {
                const CorridorPoint& p = src.points[k];
                dst.s_mean_m._buffer[k] = p.sMean_m;
                dst.s_std_m._buffer[k] = p.sStd_m;
                dst.x_m._buffer[k] = p.x_m;
                dst.y_m._buffer[k] = p.y_m;
            }
            dst.s_mean_m._length = steps;
            dst.s_std_m._length = steps;
            dst.x_m._length = steps;
            dst.y_m._length = steps;
        }
        o.corridors._length = corridors;
    }
    out.vehicles._length = count;
    toDds(in.grid, out.grid);
}

void toDds(const PlatoonList& in, augur_msg_dds__PlatoonList_& out) noexcept {
    toDds(in.header, out.header);
    out.window_cycles = in.windowCycles;
    out.truncated = in.truncated;
    out.stale = in.stale != 0;
    const std::uint32_t count = std::min(in.platoonCount, out.platoons._maximum);
    for (std::uint32_t i = 0; i < count; ++i) {
        const Platoon& p = in.platoons[i];
        augur_msg_dds__Platoon_& o = out.platoons._buffer[i];
        const std::uint32_t members = std::min(p.memberCount, o.member_track_ids._maximum);
        std::copy_n(p.memberTrackIds, members, o.member_track_ids._buffer);
        o.member_track_ids._length = members;
    }
    out.platoons._length = count;
}

void toDds(const Health& in, augur_msg_dds__Health_& out) noexcept {
    toDds(in.header, out.header);
    out.cycle = in.cycle;
    out.mode = static_cast<std::uint8_t>(in.mode);
    out.backend_is_cuda = in.backendIsCuda != 0;
    out.last_cycle_had_input = in.lastCycleHadInput != 0;
    out.consecutive_misses = in.consecutiveMisses;
    out.deadline_misses = in.deadlineMisses;
    out.mode_changes = in.modeChanges;
    out.loan_failures = in.loanFailures;
    out.gpu_errors = in.gpuErrors;
    out.accepted_inputs = in.acceptedInputs;
    out.input_queue_overflows = in.inputQueueOverflows;
    out.stage_failures = in.stageFailures;
    std::copy_n(in.rejections, REJECT_REASON_COUNT, out.rejections);
    std::copy_n(in.objectRejections, REJECT_REASON_COUNT, out.object_rejections);
    out.sequence_resets = in.sequenceResets;
    out.non_finite_dropped = in.nonFiniteDropped;
    out.faults = in.faults;
    out.cycles_without_input = in.cyclesWithoutInput;
    out.newest_input_stamp_ns = in.newestInputStamp_ns;
    toDds(in.cycleLatency, out.cycle_latency);
    for (std::size_t s = 0; s < STAGE_COUNT; ++s) {
        toDds(in.stageLatency[s], out.stage_latency[s]);
    }
    out.overrun_alarm = in.overrunAlarm != 0;
    out.overrun_stage = static_cast<std::uint8_t>(in.overrunStage);
    out.overrun_elapsed_ns = in.overrunElapsed_ns;
    out.link_faults = in.linkFaults;
    out.link_alive_peers = in.linkAlivePeers;
    out.link_peer_losses = in.linkPeerLosses;
    out.link_last_peer_loss_ns = in.linkLastPeerLoss_ns;
    out.link_status_age_ns = in.linkStatusAge_ns;
    out.link_update = in.linkUpdate != 0;
    out.trace_records_dropped = in.traceRecordsDropped;
}

// ---- DDS → iceoryx ---------------------------------------------------------------------------------

bool fromDds(const augur_msg_dds__ObjectList_& in, ObjectList& out, ConversionError& error) noexcept {
    if (!fromDds(in.header, out.header, error) || !within(in.objects, MAX_OBJECTS, error)) {
        return false;
    }
    out.ego = {in.ego.x_m, in.ego.y_m, in.ego.heading_rad, in.ego.speed_mps};
    out.objectCount = in.objects._length;
    out.reserved = 0;
    for (std::uint32_t i = 0; i < in.objects._length; ++i) {
        const augur_msg_dds__PerceivedObject_& o = in.objects._buffer[i];
        PerceivedObject& p = out.objects[i];
        p = PerceivedObject{};
        p.id = o.id;
        // An unknown class number passes through: the runtime's input validation rejects it (InvalidField).
        p.objectClass = static_cast<ObjectClass>(o.object_class);
        p.x_m = o.x_m;
        p.y_m = o.y_m;
        p.heading_rad = o.heading_rad;
        p.speed_mps = o.speed_mps;
        p.length_m = o.length_m;
        p.width_m = o.width_m;
        p.stdX_m = o.std_x_m;
        p.stdY_m = o.std_y_m;
        p.stdHeading_rad = o.std_heading_rad;
        p.stdSpeed_mps = o.std_speed_mps;
    }
    return true;
}

bool fromDds(const augur_msg_dds__TrackList_& in, TrackList& out, ConversionError& error) noexcept {
    if (!fromDds(in.header, out.header, error) || !within(in.tracks, MAX_TRACKS, error)) {
        return false;
    }
    out.trackCount = in.tracks._length;
    out.stale = in.stale ? 1U : 0U;
    for (std::uint32_t i = 0; i < in.tracks._length; ++i) {
        const augur_msg_dds__Track_& t = in.tracks._buffer[i];
        Track& o = out.tracks[i];
        o = Track{};
        o.id = t.id;
        o.objectClass = static_cast<ObjectClass>(t.object_class);
        o.missedCycles = t.missed_cycles;
        o.ageCycles = t.age_cycles;
        o.x_m = t.x_m;
        o.y_m = t.y_m;
        o.vx_mps = t.vx_mps;
        o.vy_mps = t.vy_mps;
        o.ax_mps2 = t.ax_mps2;
        o.ay_mps2 = t.ay_mps2;
        o.covXX_m2 = t.cov_xx_m2;
        o.covXY_m2 = t.cov_xy_m2;
        o.covYY_m2 = t.cov_yy_m2;
        o.covVxVx_m2ps2 = t.cov_vxvx_m2ps2;
        o.covVyVy_m2ps2 = t.cov_vyvy_m2ps2;
        o.perceptionId = t.perception_id;
    }
    return true;
}

bool fromDds(const augur_msg_dds__IntentionList_& in, IntentionList& out, ConversionError& error) noexcept {
    if (!fromDds(in.header, out.header, error) || !within(in.vehicles, MAX_PREDICTED_VEHICLES, error)) {
        return false;
    }
    out.vehicleCount = in.vehicles._length;
    out.stale = in.stale ? 1U : 0U;
    for (std::uint32_t i = 0; i < in.vehicles._length; ++i) {
        const augur_msg_dds__IntentionEstimate_& e = in.vehicles._buffer[i];
        if (!within(e.corridor_ids, MAX_CORRIDORS_PER_VEHICLE, error) ||
            !within(e.corridor_probability, MAX_CORRIDORS_PER_VEHICLE, error)) {
            return false;
        }
        if (e.corridor_ids._length != e.corridor_probability._length) {
            error = ConversionError::LengthMismatch;
            return false;
        }
        IntentionEstimate& o = out.vehicles[i];
        o = IntentionEstimate{};
        o.trackId = e.track_id;
        o.corridorCount = e.corridor_ids._length;
        std::copy_n(e.corridor_ids._buffer, e.corridor_ids._length, o.corridorIds);
        std::copy_n(e.corridor_probability._buffer, e.corridor_probability._length, o.corridorProbability);
        o.stopProbability = e.stop_probability;
        o.laneChangeProbability = e.lane_change_probability;
    }
    return true;
}

bool fromDds(const augur_msg_dds__MotionPrediction_& in, MotionPrediction& out, ConversionError& error) noexcept {
    if (!fromDds(in.header, out.header, error) || !within(in.vehicles, MAX_PREDICTED_VEHICLES, error)) {
        return false;
    }
    if (in.horizon_steps > MAX_HORIZON_STEPS) {
        error = ConversionError::OverCapacity;
        return false;
    }
    out.step_s = in.step_s;
    out.horizonSteps = in.horizon_steps;
    out.vehicleCount = in.vehicles._length;
    out.stale = in.stale ? 1U : 0U;
    out.mode = static_cast<RuntimeMode>(in.mode);
    std::fill(std::begin(out.reserved), std::end(out.reserved), std::uint8_t{0});
    out.sourceStamp_ns = in.source_stamp_ns;
    for (std::uint32_t i = 0; i < in.vehicles._length; ++i) {
        const augur_msg_dds__VehiclePrediction_& v = in.vehicles._buffer[i];
        if (!within(v.corridors, MAX_CORRIDORS_PER_VEHICLE, error)) {
            return false;
        }
        VehiclePrediction& o = out.vehicles[i];
        o.trackId = v.track_id;
        o.corridorCount = v.corridors._length;
        for (std::uint32_t c = 0; c < v.corridors._length; ++c) {
            const augur_msg_dds__CorridorPrediction_& src = v.corridors._buffer[c];
            const std::uint32_t steps = in.horizon_steps;
            if (!within(src.s_mean_m, MAX_HORIZON_STEPS, error) || !within(src.s_std_m, MAX_HORIZON_STEPS, error) ||
                !within(src.x_m, MAX_HORIZON_STEPS, error) || !within(src.y_m, MAX_HORIZON_STEPS, error)) {
                return false;
            }
            if (src.s_mean_m._length != steps || src.s_std_m._length != steps || src.x_m._length != steps ||
                src.y_m._length != steps) {
                error = ConversionError::LengthMismatch;
                return false;
            }
            CorridorPrediction& dst = o.corridors[c];
            dst.corridorId = src.corridor_id;
            dst.probability = src.probability;
            for (std::uint32_t k = 0; k < steps; ++k) {
                dst.points[k] = {src.s_mean_m._buffer[k], src.s_std_m._buffer[k], src.x_m._buffer[k], src.y_m._buffer[k]};
            }
        }
    }
    return fromDds(in.grid, out.grid, error);
}

bool fromDds(const augur_msg_dds__PlatoonList_& in, PlatoonList& out, ConversionError& error) noexcept {
    if (!fromDds(in.header, out.header, error) || !within(in.platoons, MAX_PLATOONS, error)) {
        return false;
    }
    out.windowCycles = in.window_cycles;
    out.platoonCount = in.platoons._length;
    out.truncated = in.truncated;
    out.stale = in.stale ? 1U : 0U;
    for (std::uint32_t i = 0; i < in.platoons._length; ++i) {
        const augur_msg_dds__Platoon_& p = in.platoons._buffer[i];
        if (!within(p.member_track_ids, MAX_PLATOON_MEMBERS, error)) {
            return false;
        }
        Platoon& o = out.platoons[i];
        o.memberCount = p.member_track_ids._length;
        o.reserved = 0;
        std::copy_n(p.member_track_ids._buffer, p.member_track_ids._length, o.memberTrackIds);
    }
    return true;
}

bool fromDds(const augur_msg_dds__Health_& in, Health& out, ConversionError& error) noexcept {
    if (!fromDds(in.header, out.header, error)) {
        return false;
    }
    out.cycle = in.cycle;
    out.mode = static_cast<RuntimeMode>(in.mode);
    out.backendIsCuda = in.backend_is_cuda ? 1U : 0U;
    out.lastCycleHadInput = in.last_cycle_had_input ? 1U : 0U;
    out.reserved[0] = 0;
    out.consecutiveMisses = in.consecutive_misses;
    out.deadlineMisses = in.deadline_misses;
    out.modeChanges = in.mode_changes;
    out.loanFailures = in.loan_failures;
    out.gpuErrors = in.gpu_errors;
    out.acceptedInputs = in.accepted_inputs;
    out.inputQueueOverflows = in.input_queue_overflows;
    out.stageFailures = in.stage_failures;
    std::copy_n(in.rejections, REJECT_REASON_COUNT, out.rejections);
    std::copy_n(in.object_rejections, REJECT_REASON_COUNT, out.objectRejections);
    out.sequenceResets = in.sequence_resets;
    out.nonFiniteDropped = in.non_finite_dropped;
    out.faults = in.faults;
    out.cyclesWithoutInput = in.cycles_without_input;
    out.newestInputStamp_ns = in.newest_input_stamp_ns;
    fromDds(in.cycle_latency, out.cycleLatency);
    for (std::size_t s = 0; s < STAGE_COUNT; ++s) {
        fromDds(in.stage_latency[s], out.stageLatency[s]);
    }
    out.overrunAlarm = in.overrun_alarm ? 1U : 0U;
    out.overrunStage = static_cast<Stage>(in.overrun_stage);
    out.overrunElapsed_ns = in.overrun_elapsed_ns;
    out.linkFaults = in.link_faults;
    out.linkAlivePeers = in.link_alive_peers;
    out.linkPeerLosses = in.link_peer_losses;
    out.linkLastPeerLoss_ns = in.link_last_peer_loss_ns;
    out.linkStatusAge_ns = in.link_status_age_ns;
    out.linkUpdate = in.link_update ? 1U : 0U;
    out.traceRecordsDropped = in.trace_records_dropped;
    return true;
}

namespace {
/// A point in time moved by `delta_ns`; 0 ("none") stays 0.
void shift(std::int64_t& time_ns, std::int64_t delta_ns) noexcept {
    if (time_ns != 0) {
        time_ns += delta_ns;
    }
}
}  // namespace

void shiftTimes(augur_msg_dds__ObjectList_& sample, std::int64_t delta_ns) noexcept { shift(sample.header.stamp_ns, delta_ns); }
void shiftTimes(augur_msg_dds__TrackList_& sample, std::int64_t delta_ns) noexcept { shift(sample.header.stamp_ns, delta_ns); }
void shiftTimes(augur_msg_dds__IntentionList_& sample, std::int64_t delta_ns) noexcept { shift(sample.header.stamp_ns, delta_ns); }
void shiftTimes(augur_msg_dds__PlatoonList_& sample, std::int64_t delta_ns) noexcept { shift(sample.header.stamp_ns, delta_ns); }

void shiftTimes(augur_msg_dds__MotionPrediction_& sample, std::int64_t delta_ns) noexcept {
    shift(sample.header.stamp_ns, delta_ns);
    shift(sample.source_stamp_ns, delta_ns);
}

void shiftTimes(augur_msg_dds__Health_& sample, std::int64_t delta_ns) noexcept {
    shift(sample.header.stamp_ns, delta_ns);
    shift(sample.newest_input_stamp_ns, delta_ns);
    shift(sample.link_last_peer_loss_ns, delta_ns);
}

void shiftTimes(augur_msg_dds__BridgeStatus_& sample, std::int64_t delta_ns) noexcept {
    shift(sample.header.stamp_ns, delta_ns);
    shift(sample.last_peer_loss_ns, delta_ns);
    shift(sample.last_reader_loss_ns, delta_ns);
}

}  // namespace augur::bridge
