// A deployment: everything one YAML configuration file describes, as plain structs.
//
// The loader (loader.hpp) fills a Deployment from YAML and validates it against the schema
// (schema.hpp), which declares every key once: its type, default, range, unit and description.
// The default member initialisers below ARE the documented defaults (docs/configuration.md is
// generated from them), so a default-constructed Deployment is the configuration of a file that sets
// only the required keys (plus map.path). Names carry their units (`deadline_ms`, `radius_m`).
//
// Plain values only: no YAML type reaches this header. Init-phase data: copied into the runtime's
// components when they are built, never read per cycle through this struct.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "augur/core/messages.hpp"

namespace augur::config {

/// Version of the configuration file format (`schema_version`); a file with any other version is rejected.
inline constexpr std::int64_t CONFIG_SCHEMA_VERSION = 1;

/// What starts a cycle.
enum class Trigger : std::uint8_t { Periodic = 0, OnInput };
/// Which kernel implementation runs: Auto picks CUDA when compiled in and a device is present.
enum class Backend : std::uint8_t { Auto = 0, Cpu, Cuda };
/// What the runtime does when CPU affinity, SCHED_FIFO or mlockall cannot be applied at init.
enum class RtSetupFailurePolicy : std::uint8_t { Warn = 0, Fail };
/// Map file format.
enum class MapFormat : std::uint8_t { Lanelet2 = 0, Sumo };
/// Kalman filter motion model of the tracker.
enum class MotionModel : std::uint8_t { ConstantVelocity = 0, ConstantAcceleration };
/// Resampling scheme of the intention particle filter.
enum class Resampling : std::uint8_t { Systematic = 0, DifferentialEvolution };
/// Least severe message that is logged.
enum class LogLevel : std::uint8_t { Error = 0, Warn, Info, Debug };
/// Where the runtime's log lines go.
enum class LogSink : std::uint8_t { Stderr = 0, Journald };
/// Which side of a DDS link augur-bridge serves (docs/dds.md).
enum class BridgeRole : std::uint8_t { Target = 0, Bench };
/// DDS reliability of one bridged topic.
enum class DdsReliability : std::uint8_t { Reliable = 0, BestEffort };
/// The clock of the times augur-bridge puts on DDS (docs/dds.md, Stamps across hosts).
enum class WireClock : std::uint8_t { Realtime = 0, Tai, Monotonic };

/// The spelling of each enumerator in YAML, indexed by the enumerator's value (the schema's allowed values).
inline constexpr std::array<std::string_view, 2> TRIGGER_NAMES{"periodic", "on_input"};
inline constexpr std::array<std::string_view, 3> BACKEND_NAMES{"auto", "cpu", "cuda"};
inline constexpr std::array<std::string_view, 2> RT_SETUP_FAILURE_POLICY_NAMES{"warn", "fail"};
inline constexpr std::array<std::string_view, 2> MAP_FORMAT_NAMES{"lanelet2", "sumo"};
inline constexpr std::array<std::string_view, 2> MOTION_MODEL_NAMES{"constant_velocity", "constant_acceleration"};
inline constexpr std::array<std::string_view, 2> RESAMPLING_NAMES{"systematic", "differential_evolution"};
inline constexpr std::array<std::string_view, 4> LOG_LEVEL_NAMES{"error", "warn", "info", "debug"};
inline constexpr std::array<std::string_view, 2> LOG_SINK_NAMES{"stderr", "journald"};
inline constexpr std::array<std::string_view, 2> BRIDGE_ROLE_NAMES{"target", "bench"};
inline constexpr std::array<std::string_view, 2> DDS_RELIABILITY_NAMES{"reliable", "best_effort"};
inline constexpr std::array<std::string_view, 3> WIRE_CLOCK_NAMES{"realtime", "tai", "monotonic"};

[[nodiscard]] std::string_view toString(Trigger value) noexcept;
[[nodiscard]] std::string_view toString(Backend value) noexcept;
[[nodiscard]] std::string_view toString(RtSetupFailurePolicy value) noexcept;
[[nodiscard]] std::string_view toString(MapFormat value) noexcept;
[[nodiscard]] std::string_view toString(MotionModel value) noexcept;
[[nodiscard]] std::string_view toString(Resampling value) noexcept;
[[nodiscard]] std::string_view toString(LogLevel value) noexcept;
[[nodiscard]] std::string_view toString(LogSink value) noexcept;
[[nodiscard]] std::string_view toString(BridgeRole value) noexcept;
[[nodiscard]] std::string_view toString(DdsReliability value) noexcept;
[[nodiscard]] std::string_view toString(WireClock value) noexcept;

/// Consecutive-miss handling of the cycle watchdog (degradation ladder: augur::RuntimeMode).
struct WatchdogConfig {
    std::uint32_t missesToDegrade{2};           ///< consecutive deadline misses before stepping one mode down
    std::uint32_t recoverAfterGoodCycles{25};   ///< consecutive in-budget cycles before stepping one mode up
    std::uint32_t holdLastMaxAge_ms{1000};      ///< HoldLast serves the last prediction at most this long
    bool operator==(const WatchdogConfig&) const = default;
};

/// Cycle timing, real-time setup and health reporting.
struct RuntimeConfig {
    std::uint32_t cyclePeriod_ms{200};  ///< one prediction every cycle (paper 000: 200 ms, 5 Hz)
    std::uint32_t deadline_ms{200};     ///< a cycle finishing later counts as a deadline miss; ≤ cyclePeriod_ms
    Trigger trigger{Trigger::Periodic};
    Backend backend{Backend::Auto};
    std::vector<std::int32_t> cpuAffinity{};  ///< cores the cycle thread may run on; empty = unchanged
    std::int32_t rtPriority{0};               ///< SCHED_FIFO priority 1..99; 0 = scheduling unchanged
    bool lockMemory{false};                   ///< mlockall(MCL_CURRENT | MCL_FUTURE) at init
    RtSetupFailurePolicy onRtSetupFailure{RtSetupFailurePolicy::Warn};
    std::uint32_t maxInputAge_ms{400};  ///< object lists older than this are rejected as stale; 0 = no check
    /// Budget per pipeline stage, indexed by augur::Stage; their sum must not exceed deadline_ms.
    std::array<double, STAGE_COUNT> stageBudget_ms{5.0, 20.0, 15.0, 60.0, 60.0, 15.0, 5.0};
    WatchdogConfig watchdog{};
    std::uint32_t healthWindowCycles{50};  ///< latency percentiles in Health cover this many cycles
    bool operator==(const RuntimeConfig&) const = default;
};

/// Physically plausible ranges of the finite values in an object list; a value outside rejects its
/// object (or, for the ego state, the list) as implausible. Defaults from vehicle physics.
struct PlausibilityConfig {
    double maxAbsPosition_m{100'000.0};  ///< |x|, |y| in the map frame (float keeps 1 cm up to here)
    double maxSpeed_mps{100.0};
    double maxLength_m{60.0};
    double maxWidth_m{10.0};
    double maxStdPosition_m{100.0};
    double maxStdSpeed_mps{50.0};
    bool operator==(const PlausibilityConfig&) const = default;
};

/// The input contract beyond single messages: clock tolerance, resynchronisation, input loss.
struct InputConfig {
    std::uint32_t maxFuture_ms{100};          ///< lists stamped further ahead of the runtime's clock are rejected
    std::uint32_t resyncAfterRejections{3};   ///< fresh, valid, out-of-order lists in a row before following them
    std::uint32_t lossHoldLastCycles{2};      ///< cycles without an accepted list before hold_last; 0 = never
    std::uint32_t lossNoPredictionCycles{5};  ///< cycles without an accepted list before no_prediction; 0 = never
    PlausibilityConfig plausibility{};
    bool operator==(const InputConfig&) const = default;
};

/// Configured capacities; each ≤ its compiled limit in augur/core/messages.hpp where one exists.
struct Capacities {
    std::uint32_t maxObjects{static_cast<std::uint32_t>(MAX_OBJECTS)};
    std::uint32_t maxTracks{static_cast<std::uint32_t>(MAX_TRACKS)};
    std::uint32_t maxPredictedVehicles{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES)};
    std::uint32_t maxCorridorsPerVehicle{static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE)};
    std::uint32_t particles{1024};          ///< intention particles per predicted vehicle (nominal mode)
    std::uint32_t trackHistoryCycles{50};   ///< past states kept per track (retrodiction, flocks)
    bool operator==(const Capacities&) const = default;
};

/// Default limit on the size of the map file, bytes (256 MiB: a city's Lanelet2 map is tens of MB).
inline constexpr std::uint64_t DEFAULT_MAP_MAX_BYTES = 256ULL << 20U;

/// The road map the scene is built from.
struct MapConfig {
    std::string path{};  ///< required; a relative path is resolved against the configuration file's folder
    MapFormat format{MapFormat::Lanelet2};
    double originLat_deg{0.0};  ///< projection origin, required for lanelet2
    double originLon_deg{0.0};
    std::uint64_t maxBytes{DEFAULT_MAP_MAX_BYTES};  ///< a larger map file is refused at init
    std::string sha256{};  ///< SHA-256 the map file must have (hex); empty = not checked
    bool operator==(const MapConfig&) const = default;
};

/// Measurement-to-track association gates.
struct TrackingGates {
    double mahalanobisSq{9.21};  ///< squared Mahalanobis distance gate (χ², 2 dof, 99 %)
    double distance_m{5.0};      ///< Euclidean pre-gate
    double idBonus{1.0};         ///< cost reduction of a pair whose perception id is the track's last one
    bool operator==(const TrackingGates&) const = default;
};

/// The batched Kalman tracker (paper 003).
struct TrackingConfig {
    MotionModel model{MotionModel::ConstantAcceleration};
    double accelNoiseDensity{2.0};  ///< white-noise spectral density: m²/s³ (CV) or m²/s⁵ (CA)
    std::uint32_t maxMissedCycles{5};   ///< a track is dropped after this many cycles without a measurement
    std::uint32_t confirmAfterHits{2};  ///< M: a track is confirmed after M associated lists …
    std::uint32_t confirmWindow{3};     ///< … among its last N lists (0: M lists ever)
    TrackingGates gates{};
    bool operator==(const TrackingConfig&) const = default;
};

/// Differential-evolution resampling (papers 001, 004).
struct DifferentialEvolutionConfig {
    double crossover{0.6};             ///< CR
    std::uint32_t maxGenerations{10};  ///< G_max
    double scaleFactor{0.5};           ///< F, the differential weight
    double minSpread{0.01};            ///< stop early when the weighted population spread falls below this
    bool operator==(const DifferentialEvolutionConfig&) const = default;
};

/// Process noise of the intention particle filter's motion along a corridor.
struct IntentionNoise {
    double longitudinal_m{0.5};
    double lateral_m{0.3};
    double speed_mps{0.5};
    double accel_mps2{0.8};
    bool operator==(const IntentionNoise&) const = default;
};

/// How drivers slow for a slower stretch ahead (a junction's turn, a ramp): the deceleration it asks
/// for at which a driver starts braking varies between drivers, uniformly over [gentlest, hardest];
/// `unexplained`: the probability that a driver brakes for something the map does not show;
/// `readyToYield`: the probability that a driver whose corridor yields ahead by the map's right of way
/// slows as for a stop there, whoever is around.
struct IntentionBraking {
    double gentlest_mps2{1.0};
    double hardest_mps2{4.5};
    double unexplained{0.1};
    double readyToYield{0.5};
    bool operator==(const IntentionBraking&) const = default;
};

/// The intention particle filter (paper 000).
struct IntentionConfig {
    std::uint32_t particlesReduced{256};  ///< particles per vehicle in RuntimeMode::ReducedParticles
    Resampling resampling{Resampling::Systematic};
    double resampleThreshold{0.5};  ///< resample when N_eff < threshold · N
    std::uint64_t seed{1};          ///< key of the counter-based random number generator
    double laneChangePrior{0.1};    ///< prior probability that a vehicle that could change lanes does
    DifferentialEvolutionConfig de{};
    IntentionNoise noise{};
    IntentionBraking braking{};
    bool operator==(const IntentionConfig&) const = default;
};

/// How the motion prediction is sized when the CPU propagates it (the CPU backend, or after a GPU error):
/// the vehicles nearest the ego take the CPU's full chain, the others a coarser one, both discretisations
/// of MotionConfig's chain in larger cells (docs/design/motion-prediction.md, "CPU sizing"). A count above
/// the one before it in the chain MotionConfig → full → coarse takes that one.
struct MotionCpuSizing {
    std::uint32_t fullPositionCells{100};  ///< the full chain's, over the same range
    std::uint32_t fullSpeedCells{10};      ///< the full chain's, up to the same speed
    std::uint32_t positionCells{50};       ///< the coarse chain's
    std::uint32_t speedCells{5};           ///< the coarse chain's
    std::uint32_t fullChainVehicles{4};    ///< nearest vehicles that take the full chain
    bool operator==(const MotionCpuSizing&) const = default;
};

/// Markov-chain motion prediction along corridors (paper 000).
struct MotionConfig {
    double horizon_s{4.0};
    double step_s{0.1};
    std::uint32_t positionCells{200};
    std::uint32_t speedCells{20};
    std::uint32_t inputCells{7};  ///< odd: the middle input is zero acceleration (holding the speed)
    double positionRange_m{200.0};  ///< corridor length covered by the position cells
    double maxSpeed_mps{40.0};
    double maxAccel_mps2{3.0};
    double maxDecel_mps2{8.0};
    std::uint32_t samplesPerCell{10};  ///< Monte-Carlo samples per cell when building the transition matrix
    double freeRoadExponent{4.0};      ///< δ of the drivers' tendency towards the speed limit (IDM); 0: off
    double pressReaction_s{0.5};       ///< how soon a driver with the full urge presses the accelerator; 0: off
    /// What a class of vehicles cannot exceed whatever the road allows (motion.top_speed_mps,
    /// motion.top_accel_mps2); 0: no bound.
    struct ClassBounds {
        double topSpeed_mps{0.0};   ///< a speed limiter
        double topAccel_mps2{0.0};  ///< the hardest the class speeds up
        bool operator==(const ClassBounds&) const = default;
    };
    ClassBounds truck{0.0, 1.5};
    ClassBounds bus{27.78, 1.5};
    MotionCpuSizing cpu{};
    bool operator==(const MotionConfig&) const = default;
};

/// Ego-centred occupancy grid of the motion prediction.
struct GridConfig {
    bool enabled{true};
    double resolution_m{0.5};
    std::uint32_t widthCells{static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS)};
    std::uint32_t heightCells{static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS)};
    double frameInterval_s{1.0};  ///< one grid frame per this much of the horizon
    bool operator==(const GridConfig&) const = default;
};

/// Maximal flock reporting f(δ, μ, ε) (paper 002).
struct FlocksConfig {
    bool enabled{true};
    std::uint32_t everyNCycles{5};
    std::uint32_t minMembers{3};    ///< μ
    std::uint32_t windowCycles{10}; ///< δ, ≤ capacities.trackHistoryCycles
    double radius_m{10.0};          ///< ε, the disk RADIUS
    bool operator==(const FlocksConfig&) const = default;
};

/// One iceoryx publish/subscribe channel.
struct Channel {
    std::string service{};
    std::string instance{};
    std::string event{};
    bool operator==(const Channel&) const = default;
};

/// Inter-process transport (iceoryx).
struct TransportConfig {
    std::string applicationName{"augur"};        ///< runtime name registered with RouDi
    std::uint32_t roudiConnectTimeout_ms{5000};
    Channel objects{"perception", "front", "objects"};  ///< subscribed
    Channel tracks{"augur", "main", "tracks"};          ///< published
    Channel intentions{"augur", "main", "intentions"};  ///< published
    Channel prediction{"augur", "main", "prediction"};  ///< published
    Channel health{"augur", "main", "health"};          ///< published
    Channel platoons{"augur", "main", "platoons"};      ///< published (every flocks.every_n_cycles)
    Channel monitorAlarm{"augur", "main", "monitor_alarm"};  ///< published by augur-monitor
    Channel linkStatus{"augur", "bridge", "link_status"};  ///< published by augur-bridge, read by the runtime
    bool operator==(const TransportConfig&) const = default;
};

/// Logging and tracing.
struct OutputConfig {
    std::string tracePath{};  ///< per-cycle trace file; empty = no trace
    std::uint32_t traceBufferRecords{4096};  ///< records each trace ring holds between two writes
    LogLevel logLevel{LogLevel::Info};
    LogSink logSink{LogSink::Stderr};
    bool operator==(const OutputConfig&) const = default;
};

/// Reliability per bridged topic.
struct BridgeQos {
    DdsReliability objects{DdsReliability::Reliable};
    DdsReliability tracks{DdsReliability::Reliable};
    DdsReliability intentions{DdsReliability::Reliable};
    DdsReliability prediction{DdsReliability::Reliable};
    DdsReliability health{DdsReliability::BestEffort};
    DdsReliability platoons{DdsReliability::Reliable};
    bool operator==(const BridgeQos&) const = default;
};

/// The Autoware-shaped prediction topic (autoware_perception_msgs/PredictedObjects).
struct AutowareTopicConfig {
    bool enabled{false};
    std::string topic{"rt/perception/object_recognition/objects"};
    std::string frameId{"map"};
    bool operator==(const AutowareTopicConfig&) const = default;
};

/// augur-bridge: iceoryx <-> Eclipse Cyclone DDS, topics in ROS 2's naming (docs/dds.md).
struct BridgeConfig {
    BridgeRole role{BridgeRole::Target};
    std::string applicationName{"augur-bridge"};  ///< iceoryx runtime name of the bridge
    std::uint32_t domainId{0};
    std::string topicPrefix{"rt/augur"};  ///< topics are <prefix>/objects, <prefix>/prediction, ...
    std::uint32_t deadline_ms{250};        ///< DDS deadline QoS of every topic (> cycle period); 0 = none
    std::uint32_t livelinessLease_ms{100}; ///< automatic liveliness lease of every writer
    std::uint32_t historyDepth{4};         ///< KEEP_LAST depth of writers and readers
    std::uint32_t pollPeriod_us{200};      ///< the bridge's loop period
    WireClock wireClock{WireClock::Realtime};  ///< the clock of the times on DDS
    BridgeQos qos{};
    AutowareTopicConfig autoware{};
    bool operator==(const BridgeConfig&) const = default;
};

/// A whole deployment.
struct Deployment {
    std::int64_t schemaVersion{CONFIG_SCHEMA_VERSION};
    RuntimeConfig runtime{};
    InputConfig input{};
    Capacities capacities{};
    MapConfig map{};
    TrackingConfig tracking{};
    IntentionConfig intention{};
    MotionConfig motion{};
    GridConfig grid{};
    FlocksConfig flocks{};
    TransportConfig transport{};
    OutputConfig output{};
    BridgeConfig bridge{};
    bool operator==(const Deployment&) const = default;
};

/// Number of motion-prediction steps, horizon_s / step_s rounded to the nearest integer (validated
/// to be a whole number ≤ MAX_HORIZON_STEPS by the loader).
[[nodiscard]] std::uint32_t horizonSteps(const MotionConfig& motion) noexcept;

/// Number of occupancy-grid frames, horizon_s / frameInterval_s rounded to the nearest integer
/// (validated ≤ MAX_GRID_FRAMES by the loader); 0 when the grid is disabled.
[[nodiscard]] std::uint32_t gridFrames(const GridConfig& grid, const MotionConfig& motion) noexcept;

/// The cells the CPU propagates with (motion.cpu): its full chain has at most the chain's cells, its
/// coarse chain at most the full chain's; equal counts mean that step of the sizing is left out.
struct CpuChainCells {
    std::uint32_t fullPosition{0};
    std::uint32_t fullSpeed{0};
    std::uint32_t coarsePosition{0};
    std::uint32_t coarseSpeed{0};
};
[[nodiscard]] CpuChainCells cpuChainCells(const MotionConfig& motion) noexcept;

/// Sum of the per-stage budgets, milliseconds.
[[nodiscard]] double stageBudgetSum_ms(const RuntimeConfig& runtime) noexcept;

}  // namespace augur::config
