// The messages that cross process boundaries (iceoryx shared memory).
//
// Every message is a trivially copyable struct with fixed capacities, starts with a MessageHeader
// carrying MESSAGE_SCHEMA_VERSION, and has a size that is a multiple of 8 bytes so it fits an
// iceoryx chunk payload without padding surprises. Positions are in the map frame (metres, x east,
// y north, the local metric frame of the loaded map); headings in radians counter-clockwise from +x;
// times in nanoseconds of the sensor's / runtime's monotonic clock.
//
// Capacities here are the compiled limits; a deployment's configured capacities must not exceed them
// (config validation checks this).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace augur {

/// Bumped on every layout change; a reader rejects any other version.
inline constexpr std::uint32_t MESSAGE_SCHEMA_VERSION = 3;

inline constexpr std::size_t MAX_OBJECTS = 128;               ///< objects per perception list
inline constexpr std::size_t MAX_TRACKS = 128;                ///< tracks per track list
inline constexpr std::size_t MAX_PREDICTED_VEHICLES = 64;     ///< vehicles with intention / motion output
inline constexpr std::size_t MAX_CORRIDORS_PER_VEHICLE = 8;   ///< candidate corridors per vehicle
inline constexpr std::size_t MAX_HORIZON_STEPS = 40;          ///< predicted steps per corridor
inline constexpr std::size_t MAX_GRID_SIDE_CELLS = 128;       ///< occupancy grid width/height limit
inline constexpr std::size_t MAX_GRID_FRAMES = 8;             ///< occupancy grids per prediction
inline constexpr std::size_t STAGE_COUNT = 7;                 ///< pipeline stages (see Stage)
inline constexpr std::size_t MAX_PLATOONS = 32;               ///< platoons (maximal flocks) per list
inline constexpr std::size_t MAX_PLATOON_MEMBERS = 16;        ///< tracks per reported platoon

/// Why an incoming object list, or one object of it, was rejected. The first group rejects a whole
/// list; NonFinite, Implausible, InvalidField and DuplicateId also reject single objects of a list
/// that is otherwise good (Health::objectRejections), and the whole list only when no object is left.
enum class RejectReason : std::uint8_t {
    None = 0,               ///< accepted
    UnknownSchemaVersion,   ///< header.schemaVersion != MESSAGE_SCHEMA_VERSION
    CountOverCapacity,      ///< objectCount > configured (or compiled) maximum
    NonFinite,              ///< NaN or infinity in any numeric field
    InvalidField,           ///< a field out of its domain: std dev <= 0, negative size/speed, unknown class
    DuplicateId,            ///< two objects share an id
    SequenceNotIncreasing,  ///< sequence <= the last accepted one, and not a publisher restart
    TimestampBackwards,     ///< stamp earlier than the last accepted one
    Stale,                  ///< older than the configured maximum age when taken
    PayloadSize,            ///< the shared-memory payload is not the size of an ObjectList
    Implausible,            ///< finite but physically absurd (position, speed, size or std dev out of range)
    FutureStamp,            ///< stamped further ahead of the taking process's clock than the tolerance
    Count
};
inline constexpr std::size_t REJECT_REASON_COUNT = static_cast<std::size_t>(RejectReason::Count);

/// Pipeline stages in execution order.
enum class Stage : std::uint8_t { Ingest = 0, Track, Relations, Intention, Motion, Platoons, Publish, Count };
static_assert(static_cast<std::size_t>(Stage::Count) == STAGE_COUNT);

/// Degradation ladder, best first.
enum class RuntimeMode : std::uint8_t {
    Nominal = 0,        ///< full pipeline
    ReducedParticles,   ///< intention filter with fewer particles
    ConstantVelocity,   ///< Kalman tracks + constant-velocity prediction only
    HoldLast,           ///< last valid prediction, with its age
    NoPrediction,       ///< explicit "no prediction" state for the planner
    Count
};

/// Common prefix of every message.
struct MessageHeader {
    std::uint32_t schemaVersion{MESSAGE_SCHEMA_VERSION};
    std::uint32_t reserved{0};
    std::uint64_t sequence{0};  ///< strictly increasing per publisher
    std::int64_t stamp_ns{0};   ///< sensor time (object list) or cycle start (outputs)
};

enum class ObjectClass : std::uint8_t { Unknown = 0, Car, Truck, Bus, Motorcycle, Bicycle, Pedestrian, Count };

/// The ego vehicle's state at the time of the object list.
struct EgoState {
    float x_m{0.0F};
    float y_m{0.0F};
    float heading_rad{0.0F};
    float speed_mps{0.0F};
};

/// One perceived road user with its standard deviations (all > 0).
struct PerceivedObject {
    std::uint32_t id{0};
    ObjectClass objectClass{ObjectClass::Unknown};
    std::uint8_t reserved[3]{};
    float x_m{0.0F};
    float y_m{0.0F};
    float heading_rad{0.0F};
    float speed_mps{0.0F};
    float length_m{0.0F};
    float width_m{0.0F};
    float stdX_m{0.0F};
    float stdY_m{0.0F};
    float stdHeading_rad{0.0F};
    float stdSpeed_mps{0.0F};
};

/// Perception → augur: the objects seen in one sensor cycle.
struct ObjectList {
    MessageHeader header;
    EgoState ego;
    std::uint32_t objectCount{0};
    std::uint32_t reserved{0};
    PerceivedObject objects[MAX_OBJECTS];
};

/// One tracked road user (Kalman bank output), state in the map frame.
struct Track {
    std::uint32_t id{0};  ///< augur's track id: fixed for the track's life, not the perception id
    ObjectClass objectClass{ObjectClass::Unknown};
    std::uint8_t reserved{0};
    std::uint16_t missedCycles{0};
    std::uint32_t ageCycles{0};
    float x_m{0.0F};
    float y_m{0.0F};
    float vx_mps{0.0F};
    float vy_mps{0.0F};
    float ax_mps2{0.0F};
    float ay_mps2{0.0F};
    float covXX_m2{0.0F};
    float covXY_m2{0.0F};
    float covYY_m2{0.0F};
    float covVxVx_m2ps2{0.0F};
    float covVyVy_m2ps2{0.0F};
    std::uint32_t perceptionId{0};  ///< the perception object id last associated (perception may re-assign it)
};

struct TrackList {
    MessageHeader header;
    std::uint32_t trackCount{0};
    std::uint32_t stale{0};  ///< 1 when published after a deadline miss
    Track tracks[MAX_TRACKS];
};

/// Intentions of one vehicle (intention particle filter output).
struct IntentionEstimate {
    std::uint32_t trackId{0};
    std::uint32_t corridorCount{0};
    std::uint32_t corridorIds[MAX_CORRIDORS_PER_VEHICLE]{};
    float corridorProbability[MAX_CORRIDORS_PER_VEHICLE]{};  ///< sums to 1 over corridorCount
    float stopProbability{0.0F};
    float laneChangeProbability{0.0F};
};

struct IntentionList {
    MessageHeader header;
    std::uint32_t vehicleCount{0};
    std::uint32_t stale{0};
    IntentionEstimate vehicles[MAX_PREDICTED_VEHICLES];
};

/// Distribution along a corridor at one horizon step.
struct CorridorPoint {
    float sMean_m{0.0F};  ///< arc length along the corridor from the vehicle's position at t0
    float sStd_m{0.0F};
    float x_m{0.0F};  ///< centreline position at sMean
    float y_m{0.0F};
};

struct CorridorPrediction {
    std::uint32_t corridorId{0};
    float probability{0.0F};
    CorridorPoint points[MAX_HORIZON_STEPS];
};

struct VehiclePrediction {
    std::uint32_t trackId{0};
    std::uint32_t corridorCount{0};
    CorridorPrediction corridors[MAX_CORRIDORS_PER_VEHICLE];
};

/// Ego-centred occupancy probability, one frame per output horizon step; cell (row, col) covers
/// x ∈ [originX + col·res, +res), y ∈ [originY + row·res, +res). Probability = cell / 65535.
struct OccupancyGrid {
    float originX_m{0.0F};
    float originY_m{0.0F};
    float resolution_m{0.0F};
    float frameInterval_s{0.0F};
    std::uint32_t widthCells{0};
    std::uint32_t heightCells{0};
    std::uint32_t frameCount{0};
    std::uint32_t reserved{0};
    std::uint16_t cells[MAX_GRID_FRAMES][MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS];
};

/// augur → planner: motion prediction of every vehicle.
struct MotionPrediction {
    MessageHeader header;
    float step_s{0.0F};
    std::uint32_t horizonSteps{0};
    std::uint32_t vehicleCount{0};
    std::uint32_t stale{0};  ///< 1 when published after a deadline miss
    RuntimeMode mode{RuntimeMode::Nominal};  ///< NoPrediction: vehicleCount is 0 and the planner must not rely on it
    std::uint8_t reserved[7]{};
    std::int64_t sourceStamp_ns{0};  ///< stamp of the newest object list the prediction is based on (age = header.stamp − this)
    VehiclePrediction vehicles[MAX_PREDICTED_VEHICLES];
    OccupancyGrid grid;
};

/// A group of road users that stayed together (a maximal flock f(δ, μ, ε), seeds/002) over the last
/// `windowCycles` cycles.
struct Platoon {
    std::uint32_t memberCount{0};
    std::uint32_t reserved{0};
    std::uint32_t memberTrackIds[MAX_PLATOON_MEMBERS]{};  ///< ascending track ids
};

/// augur → planner: platoons over the newest window of track positions, every n-th cycle.
struct PlatoonList {
    MessageHeader header;
    std::uint32_t windowCycles{0};   ///< δ: cycles the members stayed within the disk
    std::uint32_t platoonCount{0};
    std::uint32_t truncated{0};      ///< platoons (or members) that did not fit the message
    std::uint32_t stale{0};
    Platoon platoons[MAX_PLATOONS];
};

/// Latency statistics over the health window, microseconds.
struct LatencyStats {
    float p50_us{0.0F};
    float p99_us{0.0F};
    float max_us{0.0F};
    float last_us{0.0F};
};

/// Conditions reported in Health::faults, one bit each (HealthFault values are bit masks). A bit is
/// set in the health message of every cycle the condition holds.
enum class HealthFault : std::uint32_t {
    InputLost = 1U << 0,            ///< no object list accepted for runtime.input.loss_hold_last_cycles or more
    InputRejected = 1U << 1,        ///< this cycle rejected a list or dropped an object (see the counters)
    InputResynchronised = 1U << 2,  ///< this cycle accepted a restarted publisher's list (sequenceResets)
    NonFiniteOutput = 1U << 3,      ///< this cycle dropped a track or prediction that went non-finite
    TransportLost = 1U << 4,        ///< RouDi (the iceoryx daemon) does not answer
    OutputBlocked = 1U << 5,        ///< output loans failed on consecutive cycles (a peer hoards chunks)
    GpuFallback = 1U << 6,          ///< a GPU error moved the pipeline to the CPU backend
    InputQueueOverflow = 1U << 7,   ///< this cycle found object lists discarded unread by the queue
    LinkLost = 1U << 8,             ///< the DDS bridge reports a lost peer (LinkFault::PeerLost), or its
                                    ///< link status stopped arriving (see Health::link*)
    TraceDropped = 1U << 9,         ///< this cycle's trace records did not all fit the trace's rings: the
                                    ///< trace file has a gap (Health::traceRecordsDropped)
};

[[nodiscard]] constexpr std::uint32_t bit(HealthFault fault) noexcept { return static_cast<std::uint32_t>(fault); }

/// augur → monitoring: health, every cycle.
struct Health {
    MessageHeader header;
    std::uint64_t cycle{0};
    RuntimeMode mode{RuntimeMode::Nominal};
    std::uint8_t backendIsCuda{0};
    std::uint8_t lastCycleHadInput{0};
    std::uint8_t reserved[1]{};
    std::uint32_t consecutiveMisses{0};
    std::uint64_t deadlineMisses{0};
    std::uint64_t modeChanges{0};
    std::uint64_t loanFailures{0};
    std::uint64_t gpuErrors{0};
    std::uint64_t acceptedInputs{0};
    std::uint64_t inputQueueOverflows{0};  ///< times the input queue discarded unread object lists
    std::uint64_t stageFailures{0};  ///< stage runs that failed (the cycle went on without their result)
    std::uint64_t rejections[REJECT_REASON_COUNT]{};  ///< whole lists rejected, by reason
    std::uint64_t objectRejections[REJECT_REASON_COUNT]{};  ///< objects dropped from accepted lists, by reason
    std::uint64_t sequenceResets{0};    ///< restarted publishers the input resynchronised to
    std::uint64_t nonFiniteDropped{0};  ///< tracks and predicted vehicles dropped because they went non-finite
    std::uint32_t faults{0};            ///< HealthFault bits of this cycle
    std::uint32_t cyclesWithoutInput{0};  ///< consecutive cycles (this one included) without an accepted list
    std::int64_t newestInputStamp_ns{0};  ///< stamp of the newest accepted object list (0: none yet)
    LatencyStats cycleLatency;
    LatencyStats stageLatency[STAGE_COUNT];
    /// 1 in a watchdog alarm: a health message the watchdog publishes from its own thread as soon as it
    /// sees the running cycle pass its deadline, before (and whether or not) the cycle ends. An alarm
    /// fills header, cycle (the late one), mode, backendIsCuda, deadlineMisses (this miss included) and
    /// the two fields below; its other counters and latencies are 0. The cycle's own health follows
    /// with overrunAlarm = 0.
    std::uint8_t overrunAlarm{0};
    Stage overrunStage{Stage::Count};  ///< alarm: the stage running at detection
    /// Bit i set: stage i (augur::Stage) ran in this cycle, so stageLatency[i].last_us is this cycle's
    /// time of that stage. 0 in an alarm.
    std::uint8_t stagesRun{0};
    /// 1 in a link update: a health message the runtime's link thread publishes as soon as link_lost
    /// changes (a DDS peer lost or back, augur-bridge's status stale), between two cycles' health. A link
    /// update fills header, cycle (the last one that ended), mode, backendIsCuda, faults (the last
    /// cycle's, with LinkLost as it is now) and the link fields; its other counters and latencies are 0.
    /// The next cycle's own health carries the same link state with linkUpdate = 0.
    std::uint8_t linkUpdate{0};
    /// The stages of this cycle in the order they ran, for logical supervision: nibble k (bits 4k..4k+3)
    /// holds 1 + the Stage of the k-th stage run, 0 after the last (see stageTrailEntry). 0 in an alarm.
    std::uint32_t stageTrail{0};
    std::int64_t overrunElapsed_ns{0};  ///< alarm: time since the cycle started, at detection
    // The DDS link (augur-bridge's newest LinkStatus on transport.link_status; all 0 while none arrived).
    std::uint32_t linkFaults{0};         ///< LinkFault bits of the newest link status
    std::uint32_t linkAlivePeers{0};     ///< alive DDS writers the bridge reads from
    std::uint64_t linkPeerLosses{0};     ///< peers the bridge saw vanish since it started
    std::int64_t linkLastPeerLoss_ns{0}; ///< monotonic time the bridge noticed the last loss (0: none)
    std::int64_t linkStatusAge_ns{0};    ///< time since the newest link status arrived (-1: none yet)
    /// Trace records dropped since start because the trace's rings were full (output.trace_path; 0
    /// without a trace). The file then lacks those records: a slow disk, or a writer starved of CPU.
    std::uint64_t traceRecordsDropped{0};
};

/// The `k`-th stage recorded in Health::stageTrail, or Stage::Count past the last. Precondition: k < 8.
[[nodiscard]] constexpr Stage stageTrailEntry(std::uint32_t trail, std::uint32_t k) noexcept {
    const std::uint32_t nibble = (trail >> (4U * k)) & 0xFU;
    return nibble == 0 || nibble > STAGE_COUNT ? Stage::Count : static_cast<Stage>(nibble - 1);
}

/// Conditions of a DDS link, one bit each (LinkStatus::faults; augur-bridge's BRIDGE_FAULT_* on DDS).
enum class LinkFault : std::uint32_t {
    PeerLost = 1U << 0,         ///< a DDS writer the bridge reads from lost its liveliness and none of that topic is back
    DeadlineMissed = 1U << 1,   ///< a subscribed DDS topic missed its deadline since the previous status
    TransportLost = 1U << 2,    ///< the bridge's RouDi does not answer
    ForwardFailed = 1U << 3,    ///< a sample could not be forwarded since the previous status
    PayloadRejected = 1U << 4,  ///< a received DDS sample broke its schema since the previous status
};

[[nodiscard]] constexpr std::uint32_t bit(LinkFault fault) noexcept { return static_cast<std::uint32_t>(fault); }

/// augur-bridge → the runtime on its host: the state of the DDS link, published when it changes and at
/// least once per bridge.deadline_ms (the same content as <prefix>/bridge_status on DDS).
struct LinkStatus {
    MessageHeader header;                 ///< stamp_ns: the bridge's monotonic clock at publication
    std::uint8_t role{0};                 ///< config::BridgeRole: 0 target, 1 bench
    std::uint8_t reserved[3]{};
    std::uint32_t faults{0};              ///< LinkFault bits
    std::uint32_t alivePeers{0};          ///< alive DDS writers over all subscribed topics
    std::uint32_t matchedReaders{0};      ///< DDS readers matched with the bridge's data writers now
    std::uint64_t peerLosses{0};          ///< alive → lost transitions of those writers
    std::int64_t lastPeerLoss_ns{0};      ///< monotonic time the last loss was noticed (0: none)
    std::uint64_t deadlineMisses{0};
    std::uint64_t forwardedToDds{0};
    std::uint64_t forwardedToIceoryx{0};
    std::uint64_t forwardFailures{0};
    std::uint64_t rejected{0};
    std::uint64_t readerLosses{0};        ///< matched DDS readers that went away (left, or their lease expired)
    std::int64_t lastReaderLoss_ns{0};    ///< monotonic time the last reader loss was noticed (0: none)
};

/// Conditions augur-monitor supervises, one bit each (MonitorAlarm::active and ::raised).
enum class MonitorCondition : std::uint32_t {
    HealthMissing = 1U << 0,    ///< alive supervision: no health message for the configured number of periods
    RuntimeGone = 1U << 1,      ///< the supervised runtime process no longer exists
    DeadlineMiss = 1U << 2,     ///< the latest cycle missed its deadline (or the watchdog raised an alarm)
    StageOverBudget = 1U << 3,  ///< a stage of the latest cycle took longer than its budget
    StageOrder = 1U << 4,       ///< logical supervision: the latest cycle's stages did not run in pipeline order
    SequenceGap = 1U << 5,      ///< cycles whose health never arrived (cycle numbers skipped)
    InputStale = 1U << 6,       ///< the newest accepted input is older than runtime.max_input_age_ms, or input is lost
    Degraded = 1U << 7,         ///< the runtime runs in a mode other than nominal
    InputRejected = 1U << 8,    ///< rejected object lists or objects since the previous health
    TransportFault = 1U << 9,   ///< the runtime reports transport_lost, output_blocked or new loan failures
    RouDiLost = 1U << 10,       ///< the monitor's own RouDi is gone: it can no longer see the runtime
    LinkLost = 1U << 11,        ///< the runtime reports link_lost: a DDS peer of its bridge vanished
};
inline constexpr std::size_t MONITOR_CONDITION_COUNT = 12;

[[nodiscard]] constexpr std::uint32_t bit(MonitorCondition condition) noexcept {
    return static_cast<std::uint32_t>(condition);
}

/// augur-monitor → a vehicle's safety manager: the supervision state, published once per cycle period
/// and at once when a condition is raised or cleared.
struct MonitorAlarm {
    MessageHeader header;                ///< stamp_ns: the monitor's monotonic clock at publication
    std::uint32_t active{0};             ///< MonitorCondition bits that hold now
    std::uint32_t raised{0};             ///< MonitorCondition bits that became active since the previous message
    std::uint64_t lastHealthCycle{0};    ///< cycle of the newest health message (0: none yet)
    std::int64_t lastHealthAge_ns{0};    ///< time since the newest health message arrived (-1: none yet)
    std::uint64_t deadlineMisses{0};     ///< deadline misses seen since the monitor started
    std::uint64_t stageOverruns{0};      ///< stage runs over their budget seen since the monitor started
    std::uint64_t orderViolations{0};    ///< cycles whose stages ran out of order
    std::uint64_t missingHealth{0};      ///< cycles whose health never arrived
    RuntimeMode mode{RuntimeMode::Nominal};  ///< mode of the newest health message
    Stage overBudgetStage{Stage::Count};     ///< the stage over budget in the latest cycle (Count: none)
    std::uint8_t reserved[6]{};
};

const char* toString(ObjectClass value) noexcept;
const char* toString(RejectReason value) noexcept;
const char* toString(Stage value) noexcept;
const char* toString(RuntimeMode value) noexcept;
const char* toString(HealthFault value) noexcept;
const char* toString(MonitorCondition value) noexcept;

namespace detail {
template <typename T>
inline constexpr bool IS_WIRE_MESSAGE =
    std::is_trivially_copyable_v<T> && std::is_standard_layout_v<T> && sizeof(T) % 8 == 0 && alignof(T) <= 8;
}  // namespace detail

static_assert(detail::IS_WIRE_MESSAGE<ObjectList>);
static_assert(detail::IS_WIRE_MESSAGE<TrackList>);
static_assert(detail::IS_WIRE_MESSAGE<IntentionList>);
static_assert(detail::IS_WIRE_MESSAGE<MotionPrediction>);
static_assert(detail::IS_WIRE_MESSAGE<Health>);
static_assert(detail::IS_WIRE_MESSAGE<PlatoonList>);
static_assert(detail::IS_WIRE_MESSAGE<MonitorAlarm>);
static_assert(detail::IS_WIRE_MESSAGE<LinkStatus>);

}  // namespace augur
