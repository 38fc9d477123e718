// The schema table: every key of the deployment file, bound to its Deployment field.
#include "augur/config/schema.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "augur/config/deployment_file.hpp"
#include "augur/core/messages.hpp"
#include "augur/core/panic.hpp"
#include "augur/core/transport_name.hpp"

namespace augur::config {
namespace {

// ---- binding a key to its field -------------------------------------------------------------------
// A field is named by a captureless generic lambda returning a reference into the Deployment;
// assignField/readField convert between the schema's Value and the field's own type.

template <typename T>
inline constexpr bool IS_INTEGER_FIELD = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename Ref>
using FieldType = std::remove_cvref_t<decltype(Ref{}(std::declval<Deployment&>()))>;

template <typename Ref>
void assignField(Deployment& deployment, const Value& value) {
    using T = FieldType<Ref>;
    T& field = Ref{}(deployment);
    if constexpr (std::is_same_v<T, bool>) {
        const bool* v = std::get_if<bool>(&value);
        AUGUR_ASSERT(v != nullptr, "schema: boolean key bound to a value of another type");
        field = *v;
    } else if constexpr (IS_INTEGER_FIELD<T> || std::is_enum_v<T>) {
        const std::int64_t* v = std::get_if<std::int64_t>(&value);
        AUGUR_ASSERT(v != nullptr, "schema: integer key bound to a value of another type");
        field = static_cast<T>(*v);
    } else if constexpr (std::is_same_v<T, double>) {
        const double* v = std::get_if<double>(&value);
        AUGUR_ASSERT(v != nullptr, "schema: number key bound to a value of another type");
        field = *v;
    } else if constexpr (std::is_same_v<T, std::string>) {
        const std::string* v = std::get_if<std::string>(&value);
        AUGUR_ASSERT(v != nullptr, "schema: string key bound to a value of another type");
        field = *v;
    } else {
        static_assert(std::is_same_v<T, std::vector<std::int32_t>>, "unsupported field type");
        const std::vector<std::int64_t>* v = std::get_if<std::vector<std::int64_t>>(&value);
        AUGUR_ASSERT(v != nullptr, "schema: list key bound to a value of another type");
        field.clear();
        for (const std::int64_t element : *v) {
            field.push_back(static_cast<std::int32_t>(element));
        }
    }
}

template <typename Ref>
Value readField(const Deployment& deployment) {
    using T = FieldType<Ref>;
    const T& field = Ref{}(deployment);
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> || std::is_same_v<T, std::string>) {
        return Value(field);
    } else if constexpr (IS_INTEGER_FIELD<T> || std::is_enum_v<T>) {
        return Value(static_cast<std::int64_t>(field));
    } else {
        return Value(std::vector<std::int64_t>(field.begin(), field.end()));
    }
}

template <typename Ref>
KeySpec bound(KeySpec spec, Ref /*field*/) {
    spec.assign = &assignField<Ref>;
    spec.read = &readField<Ref>;
    return spec;
}

#define AUGUR_FIELD(member) [](auto& d) -> auto& { return d.member; }

struct NumberRange {
    double min;
    bool minOpen;
    double max;
    bool maxOpen;
};
constexpr NumberRange closed(double min, double max) { return {min, false, max, false}; }
constexpr NumberRange leftOpen(double min, double max) { return {min, true, max, false}; }

template <typename Ref>
KeySpec integer(std::string_view path, std::int64_t min, std::int64_t max, std::string_view unit,
                std::string_view description, Ref field) {
    static_assert(IS_INTEGER_FIELD<FieldType<Ref>>, "integer key bound to a non-integer field");
    static_assert(sizeof(FieldType<Ref>) <= sizeof(std::int64_t));
    KeySpec spec{};
    spec.path = path;
    spec.type = ValueType::Integer;
    spec.minInteger = min;
    spec.maxInteger = max;
    spec.unit = unit;
    spec.description = description;
    return bound(spec, field);
}

/// An integer whose maximum is a compiled capacity of augur/core/messages.hpp.
template <typename Ref>
KeySpec capacity(std::string_view path, std::size_t limit, std::string_view limitName, std::string_view description,
                 Ref field) {
    KeySpec spec = integer(path, 1, static_cast<std::int64_t>(limit), "", description, field);
    spec.compiledLimit = limitName;
    return spec;
}

template <typename Ref>
KeySpec number(std::string_view path, NumberRange range, std::string_view unit, std::string_view description,
               Ref field) {
    static_assert(std::is_same_v<FieldType<Ref>, double>, "number key bound to a non-double field");
    KeySpec spec{};
    spec.path = path;
    spec.type = ValueType::Number;
    spec.minNumber = range.min;
    spec.minOpen = range.minOpen;
    spec.maxNumber = range.max;
    spec.maxOpen = range.maxOpen;
    spec.unit = unit;
    spec.description = description;
    return bound(spec, field);
}

template <typename Ref>
KeySpec boolean(std::string_view path, std::string_view description, Ref field) {
    static_assert(std::is_same_v<FieldType<Ref>, bool>, "boolean key bound to a non-bool field");
    KeySpec spec{};
    spec.path = path;
    spec.type = ValueType::Boolean;
    spec.description = description;
    return bound(spec, field);
}

template <typename Ref>
KeySpec string(std::string_view path, std::int64_t minLength, std::int64_t maxLength, std::string_view description,
               Ref field) {
    static_assert(std::is_same_v<FieldType<Ref>, std::string>, "string key bound to a non-string field");
    KeySpec spec{};
    spec.path = path;
    spec.type = ValueType::String;
    spec.minInteger = minLength;
    spec.maxInteger = maxLength;
    spec.description = description;
    return bound(spec, field);
}

/// A string of the given form (TextRule).
template <typename Ref>
KeySpec text(std::string_view path, std::int64_t minLength, std::int64_t maxLength, TextRule rule,
             std::string_view description, Ref field) {
    KeySpec spec = string(path, minLength, maxLength, description, field);
    spec.text = rule;
    return spec;
}

/// A name handed to iceoryx: at most TRANSPORT_NAME_MAX_CHARS characters of augur/core/transport_name.hpp.
template <typename Ref>
KeySpec transportName(std::string_view path, std::string_view description, Ref field) {
    return text(path, 1, static_cast<std::int64_t>(TRANSPORT_NAME_MAX_CHARS), TextRule::TransportName, description,
                field);
}

template <typename Ref, std::size_t N>
KeySpec enumeration(std::string_view path, const std::array<std::string_view, N>& names,
                    std::string_view description, Ref field) {
    static_assert(std::is_enum_v<FieldType<Ref>>, "enum key bound to a non-enum field");
    KeySpec spec{};
    spec.path = path;
    spec.type = ValueType::Enumeration;
    spec.allowed = std::span<const std::string_view>(names.data(), names.size());
    spec.description = description;
    return bound(spec, field);
}

template <typename Ref>
KeySpec integerList(std::string_view path, std::int64_t min, std::int64_t max, std::string_view description,
                    Ref field) {
    static_assert(std::is_same_v<FieldType<Ref>, std::vector<std::int32_t>>, "list key bound to another field");
    KeySpec spec{};
    spec.path = path;
    spec.type = ValueType::IntegerList;
    spec.minInteger = min;
    spec.maxInteger = max;
    spec.description = description;
    return bound(spec, field);
}

constexpr std::size_t stageIndex(Stage stage) { return static_cast<std::size_t>(stage); }

KeySpec required(KeySpec spec) {
    spec.required = true;
    return spec;
}

constexpr std::int64_t MAX_PERIOD_MS = 10'000;
constexpr std::int64_t MAX_DURATION_MS = 600'000;
constexpr std::int64_t MAX_COUNT = 1'000'000;
constexpr std::int64_t PATH_MAX_CHARS = 4096;
/// Largest map.max_bytes: 16 GiB, far above any road map, below what a 64-bit size can express.
constexpr std::int64_t MAX_MAP_BYTES = std::int64_t{1} << 34;
constexpr std::int64_t MAX_CPU_INDEX = 1023;
constexpr std::int64_t MAX_PARTICLES = 1 << 20;
/// Largest DDS domain id a participant can join (the RTPS port mapping of DDSI-RTPS 2.3, 9.6.1.1).
constexpr std::int64_t MAX_DDS_DOMAIN_ID = 232;
/// Longest topic name the bridge accepts (ROS 2's limit on a fully qualified topic name is 255).
constexpr std::int64_t DDS_TOPIC_MAX_CHARS = 200;

std::vector<KeySpec> buildSchema() {
    using S = Stage;
    std::vector<KeySpec> keys{
        required(integer("schema_version", CONFIG_SCHEMA_VERSION, CONFIG_SCHEMA_VERSION, "",
                         "Version of this file format; the only version this build reads is 1.",
                         AUGUR_FIELD(schemaVersion))),

        // runtime
        integer("runtime.cycle_period_ms", 1, MAX_PERIOD_MS, "ms",
                "Period of the prediction cycle (trigger periodic), or the expected input period (on_input).",
                AUGUR_FIELD(runtime.cyclePeriod_ms)),
        integer("runtime.deadline_ms", 1, MAX_PERIOD_MS, "ms",
                "A cycle that has not published by this time after its start is a deadline miss; "
                "at most cycle_period_ms.",
                AUGUR_FIELD(runtime.deadline_ms)),
        enumeration("runtime.trigger", TRIGGER_NAMES,
                    "What starts a cycle: the periodic timer, or the arrival of an object list.",
                    AUGUR_FIELD(runtime.trigger)),
        enumeration("runtime.backend", BACKEND_NAMES,
                    "Kernel implementation: auto picks cuda when compiled in and a device is present, else cpu; "
                    "cuda fails at init without a device.",
                    AUGUR_FIELD(runtime.backend)),
        integerList("runtime.cpu_affinity", 0, MAX_CPU_INDEX,
                    "CPU cores the cycle thread is pinned to; empty leaves the affinity unchanged. "
                    "No core may appear twice.",
                    AUGUR_FIELD(runtime.cpuAffinity)),
        integer("runtime.rt_priority", 0, 99, "",
                "SCHED_FIFO priority of the cycle thread (1..99), and of augur-bridge's threads; 0 leaves the "
                "scheduling policy unchanged.",
                AUGUR_FIELD(runtime.rtPriority)),
        boolean("runtime.lock_memory",
                "Lock all current and future pages in RAM (mlockall) at init; augur-bridge does the same.",
                AUGUR_FIELD(runtime.lockMemory)),
        enumeration("runtime.on_rt_setup_failure", RT_SETUP_FAILURE_POLICY_NAMES,
                    "When affinity, priority or memory locking cannot be applied: warn and go on, or fail init.",
                    AUGUR_FIELD(runtime.onRtSetupFailure)),
        integer("runtime.max_input_age_ms", 0, MAX_DURATION_MS, "ms",
                "Object lists older than this when taken are rejected as stale; 0 disables the check.",
                AUGUR_FIELD(runtime.maxInputAge_ms)),
        number("runtime.stage_budgets_ms.ingest", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the ingest stage (take and validate the object list).",
               AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Ingest)])),
        number("runtime.stage_budgets_ms.track", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the tracking stage (Kalman bank).", AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Track)])),
        number("runtime.stage_budgets_ms.relations", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the relations stage (vehicles to corridors).",
               AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Relations)])),
        number("runtime.stage_budgets_ms.intention", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the intention stage (particle filter).",
               AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Intention)])),
        number("runtime.stage_budgets_ms.motion", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the motion stage (Markov chains, occupancy grid).",
               AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Motion)])),
        number("runtime.stage_budgets_ms.platoons", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the platoons stage (flock reporting).",
               AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Platoons)])),
        number("runtime.stage_budgets_ms.publish", closed(0.0, MAX_PERIOD_MS), "ms",
               "Budget of the publish stage (loan, fill, publish the outputs).",
               AUGUR_FIELD(runtime.stageBudget_ms[stageIndex(S::Publish)])),
        integer("runtime.watchdog.misses_to_degrade", 1, MAX_COUNT, "cycles",
                "Consecutive deadline misses before the runtime steps one mode down the degradation ladder.",
                AUGUR_FIELD(runtime.watchdog.missesToDegrade)),
        integer("runtime.watchdog.recover_after_good_cycles", 1, MAX_COUNT, "cycles",
                "Consecutive cycles within budget before the runtime steps one mode back up.",
                AUGUR_FIELD(runtime.watchdog.recoverAfterGoodCycles)),
        integer("runtime.watchdog.hold_last_max_age_ms", 0, MAX_DURATION_MS, "ms",
                "In hold_last mode the last prediction is republished (with its age) at most this long, "
                "then no_prediction is published.",
                AUGUR_FIELD(runtime.watchdog.holdLastMaxAge_ms)),
        integer("runtime.health_window_cycles", 1, MAX_COUNT, "cycles",
                "Latency percentiles in the health message cover this many recent cycles.",
                AUGUR_FIELD(runtime.healthWindowCycles)),

        // input
        integer("input.max_future_ms", 0, MAX_PERIOD_MS, "ms",
                "Object lists stamped further ahead of the runtime's clock than this are rejected (future_stamp); "
                "the clock offset a deployment's hosts may have.",
                AUGUR_FIELD(input.maxFuture_ms)),
        integer("input.resync_after_rejections", 1, MAX_COUNT, "lists",
                "Fresh, valid object lists rejected in a row for their order (sequence or stamp behind the last "
                "accepted one) before the runtime follows them as the new stream. A list whose sequence goes "
                "back while its stamp moves on (a restarted publisher) is followed at once.",
                AUGUR_FIELD(input.resyncAfterRejections)),
        integer("input.loss.hold_last_after_cycles", 0, MAX_COUNT, "cycles",
                "Consecutive cycles without an accepted object list after which health reports input_lost and "
                "the runtime holds the last prediction (hold_last) until input returns; 0 disables.",
                AUGUR_FIELD(input.lossHoldLastCycles)),
        integer("input.loss.no_prediction_after_cycles", 0, MAX_COUNT, "cycles",
                "Consecutive cycles without an accepted object list after which the runtime publishes "
                "no_prediction until input returns; 0 disables.",
                AUGUR_FIELD(input.lossNoPredictionCycles)),
        number("input.plausibility.max_abs_position_m", leftOpen(0.0, 1e7), "m",
               "Largest |x| or |y| of an object or the ego vehicle in the map frame.",
               AUGUR_FIELD(input.plausibility.maxAbsPosition_m)),
        number("input.plausibility.max_speed_mps", leftOpen(0.0, 1000.0), "m/s",
               "Largest speed of an object or the ego vehicle.", AUGUR_FIELD(input.plausibility.maxSpeed_mps)),
        number("input.plausibility.max_length_m", leftOpen(0.0, 1000.0), "m", "Largest object length.",
               AUGUR_FIELD(input.plausibility.maxLength_m)),
        number("input.plausibility.max_width_m", leftOpen(0.0, 1000.0), "m", "Largest object width.",
               AUGUR_FIELD(input.plausibility.maxWidth_m)),
        number("input.plausibility.max_std_position_m", leftOpen(0.0, 1e4), "m",
               "Largest standard deviation of an object's x or y (the smallest accepted is 1 mm).",
               AUGUR_FIELD(input.plausibility.maxStdPosition_m)),
        number("input.plausibility.max_std_speed_mps", leftOpen(0.0, 1e3), "m/s",
               "Largest standard deviation of an object's speed (the smallest accepted is 1 mm/s).",
               AUGUR_FIELD(input.plausibility.maxStdSpeed_mps)),

        // capacities
        capacity("capacities.max_objects", MAX_OBJECTS, "MAX_OBJECTS",
                 "Objects accepted per perception list; a longer list is rejected (count_over_capacity).",
                 AUGUR_FIELD(capacities.maxObjects)),
        capacity("capacities.max_tracks", MAX_TRACKS, "MAX_TRACKS", "Tracks kept at once.",
                 AUGUR_FIELD(capacities.maxTracks)),
        capacity("capacities.max_predicted_vehicles", MAX_PREDICTED_VEHICLES, "MAX_PREDICTED_VEHICLES",
                 "Vehicles that get intention and motion predictions (nearest first); at most max_tracks.",
                 AUGUR_FIELD(capacities.maxPredictedVehicles)),
        capacity("capacities.max_corridors_per_vehicle", MAX_CORRIDORS_PER_VEHICLE, "MAX_CORRIDORS_PER_VEHICLE",
                 "Candidate corridors (possible paths through the map) considered per vehicle.",
                 AUGUR_FIELD(capacities.maxCorridorsPerVehicle)),
        integer("capacities.particles", 1, MAX_PARTICLES, "per vehicle",
                "Intention particles per predicted vehicle in nominal mode.", AUGUR_FIELD(capacities.particles)),
        integer("capacities.track_history_cycles", 2, 10'000, "cycles",
                "Past states kept per track (retrodiction, flock windows).",
                AUGUR_FIELD(capacities.trackHistoryCycles)),

        // map
        required(text("map.path", 1, PATH_MAX_CHARS, TextRule::Path,
                      "Map file; a relative path is resolved against the folder of the configuration file. "
                      "Opened by the runtime at init, not by the configuration loader. Must be a regular file.",
                      AUGUR_FIELD(map.path))),
        enumeration("map.format", MAP_FORMAT_NAMES, "Map file format: Lanelet2 OSM or SUMO net.xml.",
                    AUGUR_FIELD(map.format)),
        number("map.origin_lat_deg", closed(-90.0, 90.0), "deg",
               "Latitude of the local projection origin; required when format is lanelet2, ignored for sumo.",
               AUGUR_FIELD(map.originLat_deg)),
        number("map.origin_lon_deg", closed(-180.0, 180.0), "deg",
               "Longitude of the local projection origin; required when format is lanelet2, ignored for sumo.",
               AUGUR_FIELD(map.originLon_deg)),
        integer("map.max_bytes", 1, MAX_MAP_BYTES, "bytes",
                "A larger map file is refused at init (and by --check) instead of being read.",
                AUGUR_FIELD(map.maxBytes)),
        text("map.sha256", 0, static_cast<std::int64_t>(SHA256_HEX_CHARS), TextRule::Sha256,
             "SHA-256 the map file must have (as printed by augur-runtime --check); init fails on any other "
             "content. Empty: not checked.",
             AUGUR_FIELD(map.sha256)),

        // tracking
        enumeration("tracking.model", MOTION_MODEL_NAMES, "Motion model of the Kalman filter bank.",
                    AUGUR_FIELD(tracking.model)),
        number("tracking.accel_noise_density", leftOpen(0.0, 1000.0), "m²/s³ (CV), m²/s⁵ (CA)",
               "Spectral density of the white process noise: acceleration for constant_velocity, "
               "jerk for constant_acceleration.",
               AUGUR_FIELD(tracking.accelNoiseDensity)),
        integer("tracking.max_missed_cycles", 0, 1000, "lists",
                "A track coasts on its prediction through this many consecutive object lists without an "
                "associated object and is dropped on the next; a track associated in fewer lists than this "
                "coasts through as many lists as it was associated in.",
                AUGUR_FIELD(tracking.maxMissedCycles)),
        integer("tracking.confirm_after_hits", 1, 1000, "lists",
                "M of the M-of-N confirmation: a tentative track is confirmed (and published) once objects "
                "were associated with it in M of its last N object lists (N = tracking.confirm_window).",
                AUGUR_FIELD(tracking.confirmAfterHits)),
        integer("tracking.confirm_window", 0, 64, "lists",
                "N of the M-of-N confirmation; a tentative track that is not confirmed within its first N "
                "lists is deleted. 0: no window (confirmed after M associated lists, however long it "
                "takes). At least tracking.confirm_after_hits when not 0.",
                AUGUR_FIELD(tracking.confirmWindow)),
        number("tracking.gates.mahalanobis_sq", leftOpen(0.0, 1000.0), "",
               "Association gate on the squared Mahalanobis distance of the position innovation "
               "(9.21: 99 % of a 2-dof χ²).",
               AUGUR_FIELD(tracking.gates.mahalanobisSq)),
        number("tracking.gates.distance_m", leftOpen(0.0, 1000.0), "m",
               "Euclidean pre-gate between a track's predicted position and an object.",
               AUGUR_FIELD(tracking.gates.distance_m)),
        number("tracking.gates.id_bonus", closed(0.0, 9.0), "",
               "Cost reduction (in squared Mahalanobis units) of an object-track pair whose perception id is "
               "the id last associated with the track: the id is a hint that breaks near-ties, never a key. "
               "Below tracking.gates.mahalanobis_sq.",
               AUGUR_FIELD(tracking.gates.idBonus)),

        // intention
        integer("intention.particles_reduced", 1, MAX_PARTICLES, "per vehicle",
                "Intention particles per vehicle in the reduced_particles degraded mode; at most "
                "capacities.particles.",
                AUGUR_FIELD(intention.particlesReduced)),
        enumeration("intention.resampling", RESAMPLING_NAMES,
                    "Resampling scheme: systematic (low variance) or differential evolution.",
                    AUGUR_FIELD(intention.resampling)),
        number("intention.resample_threshold", closed(0.0, 1.0), "",
               "Resample when the effective sample size N_eff falls below this fraction of the particle count.",
               AUGUR_FIELD(intention.resampleThreshold)),
        integer("intention.seed", 0, std::numeric_limits<std::int64_t>::max(), "",
                "Key of the counter-based random number generator: same input and seed, same output.",
                AUGUR_FIELD(intention.seed)),
        number("intention.lane_change_prior", closed(0.0, 1.0), "",
               "Prior probability that a vehicle with corridors into a neighbouring lane is changing lanes: the "
               "lane-change corridors share it, the corridors that keep a lane the rest; the measurements "
               "move it from there.",
               AUGUR_FIELD(intention.laneChangePrior)),
        number("intention.de.crossover", closed(0.0, 1.0), "", "Differential evolution crossover rate CR.",
               AUGUR_FIELD(intention.de.crossover)),
        integer("intention.de.max_generations", 1, 1000, "",
                "Differential evolution generations per resampling, G_max.",
                AUGUR_FIELD(intention.de.maxGenerations)),
        number("intention.de.scale_factor", leftOpen(0.0, 2.0), "", "Differential weight F of the mutation.",
               AUGUR_FIELD(intention.de.scaleFactor)),
        number("intention.de.min_spread", closed(0.0, 1000.0), "",
               "Stop the generations early once the weighted spread of the population falls below this.",
               AUGUR_FIELD(intention.de.minSpread)),
        number("intention.noise.longitudinal_m", leftOpen(0.0, 100.0), "m",
               "Process noise standard deviation along the corridor per step.",
               AUGUR_FIELD(intention.noise.longitudinal_m)),
        number("intention.noise.lateral_m", leftOpen(0.0, 100.0), "m",
               "Process noise standard deviation across the corridor per step.",
               AUGUR_FIELD(intention.noise.lateral_m)),
        number("intention.noise.speed_mps", leftOpen(0.0, 100.0), "m/s",
               "Process noise standard deviation of the speed per step.", AUGUR_FIELD(intention.noise.speed_mps)),
        number("intention.noise.accel_mps2", leftOpen(0.0, 100.0), "m/s²",
               "Process noise standard deviation of the acceleration per step.",
               AUGUR_FIELD(intention.noise.accel_mps2)),
        number("intention.braking.gentlest_mps2", leftOpen(0.0, 30.0), "m/s²",
               "The smallest deceleration a slower stretch ahead (a turn, a ramp) asks for at which drivers start "
               "braking for it: the earliest, gentlest brakers. Corridors that coincide up to a fork split by "
               "how well their braking explains the vehicle's tracked acceleration.",
               AUGUR_FIELD(intention.braking.gentlest_mps2)),
        number("intention.braking.hardest_mps2", leftOpen(0.0, 30.0), "m/s²",
               "The largest such deceleration: the latest, firmest brakers. Drivers are spread evenly between "
               "the two.",
               AUGUR_FIELD(intention.braking.hardest_mps2)),
        number("intention.braking.unexplained", closed(0.0, 1.0), "",
               "Probability that a driver is braking for something the map does not show (traffic, a "
               "pedestrian): braking is then weaker evidence for a turn.",
               AUGUR_FIELD(intention.braking.unexplained)),
        number("intention.braking.ready_to_yield", closed(0.0, 1.0), "",
               "Probability that a driver whose corridor yields at a conflict ahead by the map's right of way "
               "(a left turn across oncoming traffic, a minor road) slows as for a stop there, whoever is "
               "around: they cannot tell it is clear until they see it. Braking is then evidence for that "
               "corridor too.",
               AUGUR_FIELD(intention.braking.readyToYield)),

        // motion
        number("motion.horizon_s", leftOpen(0.0, 60.0), "s",
               "Prediction horizon; a whole multiple of step_s, with horizon_s / step_s ≤ MAX_HORIZON_STEPS.",
               AUGUR_FIELD(motion.horizon_s)),
        number("motion.step_s", leftOpen(0.0, 10.0), "s", "Time step of the Markov chains.",
               AUGUR_FIELD(motion.step_s)),
        integer("motion.position_cells", 2, 100'000, "",
                "Cells of the position along a corridor (default: 1 m cells over 200 m). The GPU propagates every "
                "vehicle with this chain; the CPU takes the larger cells of motion.cpu, with which two cores meet "
                "the deadline at 64 vehicles (docs/benchmarks.md).",
                AUGUR_FIELD(motion.positionCells)),
        integer("motion.speed_cells", 2, 10'000, "",
                "Cells of the speed (default: 2.1 m/s cells up to 40 m/s; see position_cells).",
                AUGUR_FIELD(motion.speedCells)),
        integer("motion.input_cells", 1, 1000, "",
                "Cells of the acceleration input, spread evenly over ±max(max_accel_mps2, max_decel_mps2); odd, so "
                "that the middle one is zero acceleration (holding the speed).",
                AUGUR_FIELD(motion.inputCells)),
        number("motion.position_range_m", leftOpen(0.0, 10'000.0), "m",
               "Corridor length covered by the position cells; at least max_speed_mps · horizon_s.",
               AUGUR_FIELD(motion.positionRange_m)),
        number("motion.max_speed_mps", leftOpen(0.0, 150.0), "m/s", "Upper end of the speed cells.",
               AUGUR_FIELD(motion.maxSpeed_mps)),
        number("motion.max_accel_mps2", leftOpen(0.0, 30.0), "m/s²",
               "Largest acceleration of the intention model; the motion chain's inputs span "
               "±max(max_accel_mps2, max_decel_mps2).",
               AUGUR_FIELD(motion.maxAccel_mps2)),
        number("motion.top_speed_mps.truck", closed(0.0, 100.0), "m/s",
               "The speed trucks keep below whatever the road allows, as a speed limiter holds them (EU: 25 m/s, "
               "90 km/h): the motion prediction and the intention filter take the lower of it and each "
               "stretch's limit. 0: none, trucks drive to the road's limit.",
               AUGUR_FIELD(motion.truck.topSpeed_mps)),
        number("motion.top_speed_mps.bus", closed(0.0, 100.0), "m/s",
               "The same for buses (EU speed limiters and SUMO's bus type: 27.78 m/s, 100 km/h). 0: none.",
               AUGUR_FIELD(motion.bus.topSpeed_mps)),
        number("motion.top_accel_mps2.truck", closed(0.0, 10.0), "m/s²",
               "The hardest trucks speed up: the motion prediction puts a truck no faster at t than its speed "
               "now plus this times t (a loaded truck manages well under 1 m/s²). 0: no bound, a car's.",
               AUGUR_FIELD(motion.truck.topAccel_mps2)),
        number("motion.top_accel_mps2.bus", closed(0.0, 10.0), "m/s²",
               "The same for buses (about 1.5 m/s², what standing passengers are asked to bear). 0: no bound.",
               AUGUR_FIELD(motion.bus.topAccel_mps2)),
        number("motion.max_decel_mps2", leftOpen(0.0, 30.0), "m/s²",
               "Largest deceleration (positive) of the intention model; with max_accel_mps2 it sets the "
               "chain's symmetric input range.",
               AUGUR_FIELD(motion.maxDecel_mps2)),
        integer("motion.samples_per_cell", 1, 100'000, "",
                "Monte-Carlo samples per cell when the transition matrices are built at init.",
                AUGUR_FIELD(motion.samplesPerCell)),
        number("motion.free_road_exponent", closed(0.0, 16.0), "",
               "How drivers below their desired speed (the fraction of the limit they drive at now, carried to "
               "the limit ahead) want to speed up, after a turn or onto a faster road: the exponent δ of the "
               "Intelligent Driver Model's free-road term 1 − (v/v0)^δ (4 in the model); 0 predicts that they "
               "hold their speed.",
               AUGUR_FIELD(motion.freeRoadExponent)),
        number("motion.press_reaction_s", closed(0.0, 10.0), "s",
               "How soon a driver with the full urge to speed up (motion.free_road_exponent) presses the "
               "accelerator: each step a share 1 − exp(−urge·step/press_reaction_s) of the mass that does not "
               "accelerate moves to the gentlest accelerating input. 0: no press; the urge then only re-weights "
               "the rare departures from cruise (about one per 30 s), and a vehicle leaving a turn speeds up "
               "seconds late.",
               AUGUR_FIELD(motion.pressReaction_s)),
        integer("motion.cpu.full_position_cells", 2, 100'000, "",
                "Position cells of the CPU's full chain, which the CPU propagates the "
                "motion.cpu.full_chain_vehicles nearest vehicles with whenever it carries the motion prediction "
                "(backend cpu, or after a GPU error): the same corridor length, inputs and rules as motion's chain "
                "in larger cells. A count above motion.position_cells takes motion.position_cells.",
                AUGUR_FIELD(motion.cpu.fullPositionCells)),
        integer("motion.cpu.full_speed_cells", 2, 10'000, "",
                "Speed cells of the CPU's full chain (up to the same motion.max_speed_mps); a count above "
                "motion.speed_cells takes motion.speed_cells.",
                AUGUR_FIELD(motion.cpu.fullSpeedCells)),
        integer("motion.cpu.position_cells", 2, 100'000, "",
                "Position cells of the coarser chain the CPU propagates the vehicles beyond "
                "motion.cpu.full_chain_vehicles with. A count above the full chain's takes the full chain's; when "
                "both counts come out as the full chain's, every vehicle takes the full chain on the CPU.",
                AUGUR_FIELD(motion.cpu.positionCells)),
        integer("motion.cpu.speed_cells", 2, 10'000, "",
                "Speed cells of the CPU's coarser chain; a count above the full chain's takes the full chain's.",
                AUGUR_FIELD(motion.cpu.speedCells)),
        integer("motion.cpu.full_chain_vehicles", 0, static_cast<std::int64_t>(MAX_PREDICTED_VEHICLES), "vehicles",
                "Vehicles nearest the ego (at most MAX_PREDICTED_VEHICLES) that the CPU propagates with its full "
                "chain; the others take the coarser one. 0: every vehicle takes the coarser chain on the CPU.",
                AUGUR_FIELD(motion.cpu.fullChainVehicles)),

        // grid
        boolean("grid.enabled", "Publish the ego-centred occupancy grid with the motion prediction.",
                AUGUR_FIELD(grid.enabled)),
        number("grid.resolution_m", leftOpen(0.0, 100.0), "m", "Side of one grid cell.",
               AUGUR_FIELD(grid.resolution_m)),
        capacity("grid.width_cells", MAX_GRID_SIDE_CELLS, "MAX_GRID_SIDE_CELLS", "Cells along x.",
                 AUGUR_FIELD(grid.widthCells)),
        capacity("grid.height_cells", MAX_GRID_SIDE_CELLS, "MAX_GRID_SIDE_CELLS", "Cells along y.",
                 AUGUR_FIELD(grid.heightCells)),
        number("grid.frame_interval_s", leftOpen(0.0, 60.0), "s",
               "One grid frame per this much of the horizon; a whole multiple of motion.step_s, with "
               "motion.horizon_s / frame_interval_s ≤ MAX_GRID_FRAMES.",
               AUGUR_FIELD(grid.frameInterval_s)),

        // flocks
        boolean("flocks.enabled", "Report maximal flocks (platoons) of tracks.", AUGUR_FIELD(flocks.enabled)),
        integer("flocks.every_n_cycles", 1, 1000, "cycles", "Flocks are computed every n-th cycle.",
                AUGUR_FIELD(flocks.everyNCycles)),
        integer("flocks.min_members", 2, static_cast<std::int64_t>(MAX_TRACKS), "tracks",
                "μ: least number of tracks in a flock.", AUGUR_FIELD(flocks.minMembers)),
        integer("flocks.window_cycles", 1, 10'000, "cycles",
                "δ: cycles the members must stay together; at most capacities.track_history_cycles.",
                AUGUR_FIELD(flocks.windowCycles)),
        number("flocks.radius_m", leftOpen(0.0, 1000.0), "m",
               "ε: RADIUS of the disk that holds the members in every cycle of the window.",
               AUGUR_FIELD(flocks.radius_m)),

        // transport
        transportName("transport.application_name",
                      "Name this process registers with the iceoryx daemon (RouDi); iceoryx makes it the socket "
                      "/tmp/<name>.",
                      AUGUR_FIELD(transport.applicationName)),
        integer("transport.roudi_connect_timeout_ms", 0, MAX_DURATION_MS, "ms",
                "Init fails when RouDi has not answered within this time.",
                AUGUR_FIELD(transport.roudiConnectTimeout_ms)),
        transportName("transport.objects.service", "Object list input: iceoryx service.",
                      AUGUR_FIELD(transport.objects.service)),
        transportName("transport.objects.instance", "Object list input: iceoryx instance.",
                      AUGUR_FIELD(transport.objects.instance)),
        transportName("transport.objects.event", "Object list input: iceoryx event.",
                      AUGUR_FIELD(transport.objects.event)),
        transportName("transport.tracks.service", "Track list output: iceoryx service.",
                      AUGUR_FIELD(transport.tracks.service)),
        transportName("transport.tracks.instance", "Track list output: iceoryx instance.",
                      AUGUR_FIELD(transport.tracks.instance)),
        transportName("transport.tracks.event", "Track list output: iceoryx event.",
                      AUGUR_FIELD(transport.tracks.event)),
        transportName("transport.intentions.service", "Intention output: iceoryx service.",
                      AUGUR_FIELD(transport.intentions.service)),
        transportName("transport.intentions.instance", "Intention output: iceoryx instance.",
                      AUGUR_FIELD(transport.intentions.instance)),
        transportName("transport.intentions.event", "Intention output: iceoryx event.",
                      AUGUR_FIELD(transport.intentions.event)),
        transportName("transport.prediction.service", "Motion prediction output: iceoryx service.",
                      AUGUR_FIELD(transport.prediction.service)),
        transportName("transport.prediction.instance", "Motion prediction output: iceoryx instance.",
                      AUGUR_FIELD(transport.prediction.instance)),
        transportName("transport.prediction.event", "Motion prediction output: iceoryx event.",
                      AUGUR_FIELD(transport.prediction.event)),
        transportName("transport.health.service", "Health output: iceoryx service.",
                      AUGUR_FIELD(transport.health.service)),
        transportName("transport.health.instance", "Health output: iceoryx instance.",
                      AUGUR_FIELD(transport.health.instance)),
        transportName("transport.health.event", "Health output: iceoryx event.",
                      AUGUR_FIELD(transport.health.event)),
        transportName("transport.platoons.service", "Platoon output: iceoryx service.",
                      AUGUR_FIELD(transport.platoons.service)),
        transportName("transport.platoons.instance", "Platoon output: iceoryx instance.",
                      AUGUR_FIELD(transport.platoons.instance)),
        transportName("transport.platoons.event", "Platoon output: iceoryx event.",
                      AUGUR_FIELD(transport.platoons.event)),
        transportName("transport.monitor_alarm.service", "augur-monitor's alarm output: iceoryx service.",
                      AUGUR_FIELD(transport.monitorAlarm.service)),
        transportName("transport.monitor_alarm.instance", "augur-monitor's alarm output: iceoryx instance.",
                      AUGUR_FIELD(transport.monitorAlarm.instance)),
        transportName("transport.monitor_alarm.event", "augur-monitor's alarm output: iceoryx event.",
                      AUGUR_FIELD(transport.monitorAlarm.event)),
        transportName("transport.link_status.service",
                      "augur-bridge's link status (read by the runtime into its health): iceoryx service.",
                      AUGUR_FIELD(transport.linkStatus.service)),
        transportName("transport.link_status.instance", "augur-bridge's link status: iceoryx instance.",
                      AUGUR_FIELD(transport.linkStatus.instance)),
        transportName("transport.link_status.event", "augur-bridge's link status: iceoryx event.",
                      AUGUR_FIELD(transport.linkStatus.event)),

        // output
        text("output.trace_path", 0, PATH_MAX_CHARS, TextRule::Path,
             "File the runtime writes its trace to as it runs (Chrome trace-event JSON for ui.perfetto.dev or "
             "chrome://tracing; relative to the working directory; augur-runtime --trace overrides it); empty: no trace.",
             AUGUR_FIELD(output.tracePath)),
        integer("output.trace_buffer_records", 2, 1 << 20, "",
                "Records each of the trace's rings (the cycle thread's, the watchdog's) holds until the trace's "
                "writer thread drains them, every 10 ms (rounded up to a power of two); about a dozen records a "
                "cycle. A record that finds its "
                "ring full is dropped and counted: Health's trace_records_dropped and the fault trace_dropped.",
                AUGUR_FIELD(output.traceBufferRecords)),
        enumeration("output.log_level", LOG_LEVEL_NAMES, "Least severe log message that is written.",
                    AUGUR_FIELD(output.logLevel)),
        enumeration("output.log_sink", LOG_SINK_NAMES,
                    "Where the runtime's log lines go: stderr, or the systemd journal with their priority "
                    "(sd_journal_print; needs a build with libsystemd, else stderr). Run-phase lines are "
                    "formatted on the stack either way.",
                    AUGUR_FIELD(output.logSink)),

        // bridge
        enumeration("bridge.role", BRIDGE_ROLE_NAMES,
                    "target: next to augur-runtime, object lists from DDS to iceoryx and the runtime's outputs from "
                    "iceoryx to DDS; bench: the mirror image, next to a perception or a HIL bench on another host.",
                    AUGUR_FIELD(bridge.role)),
        transportName("bridge.application_name", "Name augur-bridge registers with RouDi.",
                      AUGUR_FIELD(bridge.applicationName)),
        integer("bridge.domain_id", 0, MAX_DDS_DOMAIN_ID, "", "DDS domain (ROS_DOMAIN_ID of ROS 2 peers).",
                AUGUR_FIELD(bridge.domainId)),
        text("bridge.topic_prefix", 1, DDS_TOPIC_MAX_CHARS, TextRule::DdsTopic,
             "Topics are <prefix>/objects, /tracks, /intentions, /prediction, /health and /bridge_status; "
             "rt/ makes them the ROS 2 topics /augur/... .",
             AUGUR_FIELD(bridge.topicPrefix)),
        integer("bridge.deadline_ms", 0, MAX_PERIOD_MS, "ms",
                "DDS deadline of every topic: a reader that gets no sample for this long counts a missed deadline "
                "(deadline_missed in the bridge status); above runtime.cycle_period_ms by the cycle's jitter, as the "
                "runtime publishes once per cycle; 0: none.",
                AUGUR_FIELD(bridge.deadline_ms)),
        integer("bridge.liveliness_lease_ms", 1, MAX_PERIOD_MS, "ms",
                "Automatic liveliness lease of every writer: a peer that stops asserting it for this long is "
                "reported lost (peer_lost in the bridge status); below deadline_ms.",
                AUGUR_FIELD(bridge.livelinessLease_ms)),
        integer("bridge.history_depth", 1, 64, "samples", "KEEP_LAST depth of every writer and reader.",
                AUGUR_FIELD(bridge.historyDepth)),
        integer("bridge.poll_period_us", 10, 100'000, "µs",
                "Period of the bridge's loop over its iceoryx subscribers and DDS readers (the most it adds to "
                "a message's latency).",
                AUGUR_FIELD(bridge.pollPeriod_us)),
        enumeration("bridge.wire_clock", WIRE_CLOCK_NAMES,
                    "The clock of the times on DDS (stamps, loss times). augur's processes stamp with the host's "
                    "monotonic clock, which another host does not share; the bridge turns them into this clock on "
                    "the way out and back on the way in. realtime (UTC, what ROS 2 stamps carry) or tai: shared by "
                    "hosts whose clocks PTP (or NTP) keeps together, so input age checks hold across hosts; "
                    "monotonic: unchanged, for peers on the same host only.",
                    AUGUR_FIELD(bridge.wireClock)),
        enumeration("bridge.qos.objects", DDS_RELIABILITY_NAMES, "Reliability of the object list topic.",
                    AUGUR_FIELD(bridge.qos.objects)),
        enumeration("bridge.qos.tracks", DDS_RELIABILITY_NAMES, "Reliability of the track list topic.",
                    AUGUR_FIELD(bridge.qos.tracks)),
        enumeration("bridge.qos.intentions", DDS_RELIABILITY_NAMES, "Reliability of the intention topic.",
                    AUGUR_FIELD(bridge.qos.intentions)),
        enumeration("bridge.qos.prediction", DDS_RELIABILITY_NAMES,
                    "Reliability of the motion prediction topic (and the Autoware topic).",
                    AUGUR_FIELD(bridge.qos.prediction)),
        enumeration("bridge.qos.health", DDS_RELIABILITY_NAMES, "Reliability of the health and bridge status topics.",
                    AUGUR_FIELD(bridge.qos.health)),
        enumeration("bridge.qos.platoons", DDS_RELIABILITY_NAMES, "Reliability of the platoon list topic.",
                    AUGUR_FIELD(bridge.qos.platoons)),
        boolean("bridge.autoware.enabled",
                "Target role: also publish each prediction as autoware_perception_msgs/PredictedObjects.",
                AUGUR_FIELD(bridge.autoware.enabled)),
        text("bridge.autoware.topic", 1, DDS_TOPIC_MAX_CHARS, TextRule::DdsTopic,
             "DDS topic of the Autoware-shaped predictions (rt/ + the ROS 2 topic).",
             AUGUR_FIELD(bridge.autoware.topic)),
        text("bridge.autoware.frame_id", 1, 64, TextRule::Any, "header.frame_id of the Autoware-shaped predictions.",
             AUGUR_FIELD(bridge.autoware.frameId)),
    };
    return keys;
}

#undef AUGUR_FIELD

constexpr SectionSpec SECTIONS[] = {
    {"runtime", "Cycle timing, real-time setup of the cycle thread, the watchdog and health reporting."},
    {"runtime.stage_budgets_ms", "Time budget per pipeline stage (augur::Stage); the sum must fit the deadline."},
    {"runtime.watchdog", "Deadline-miss handling: stepping down and up the degradation ladder "
                         "(nominal, reduced_particles, constant_velocity, hold_last, no_prediction)."},
    {"input", "The input contract beyond single messages: clock tolerance, following a restarted publisher, "
              "input loss (core/include/augur/core/message_validation.hpp)."},
    {"input.loss", "Input loss: the degradation ladder's floor while no object list is accepted."},
    {"input.plausibility", "Physically plausible ranges; an object outside is dropped from its list "
                           "(implausible), an ego state outside rejects the list."},
    {"capacities", "Configured capacities, fixed at init. Where a compiled limit exists "
                   "(core/include/augur/core/messages.hpp) the value may not exceed it."},
    {"map", "The road map the scene (lanes, corridors) is built from."},
    {"tracking", "The batched Kalman filter tracker."},
    {"tracking.gates", "Gates for associating objects with tracks."},
    {"intention", "The intention particle filter (corridor, stop and lane-change probabilities)."},
    {"intention.de", "Differential-evolution resampling (used when resampling is differential_evolution)."},
    {"intention.noise", "Process noise of the particles' motion along their corridor."},
    {"intention.braking", "How drivers brake for a slower stretch ahead (a turn, a ramp): the evidence that splits "
                          "corridors which coincide up to a fork."},
    {"motion", "Markov-chain motion prediction along each vehicle's corridors."},
    {"motion.top_speed_mps", "Top speeds by vehicle class: below the road's limit where a class is held lower."},
    {"motion.top_accel_mps2", "Top accelerations by vehicle class: heavy vehicles speed up more slowly than the motion "
                              "chain's gentlest accelerating input."},
    {"motion.cpu", "The motion prediction's sizing whenever the CPU propagates it (backend cpu, or after a GPU error): "
                   "the vehicles nearest the ego take the CPU's full chain, the others a coarser one; both are "
                   "discretisations of the same chain in larger cells (docs/design/motion-prediction.md, \"CPU "
                   "sizing\")."},
    {"grid", "The ego-centred occupancy grid published with the motion prediction."},
    {"flocks", "Maximal flock (platoon) reporting f(δ, μ, ε)."},
    {"transport", "iceoryx transport: RouDi connection and the channels' service / instance / event names."},
    {"transport.objects", "Subscribed: perception object lists."},
    {"transport.tracks", "Published: track lists."},
    {"transport.intentions", "Published: intention estimates."},
    {"transport.prediction", "Published: motion predictions."},
    {"transport.health", "Published: health, every cycle."},
    {"transport.platoons", "Published: platoons (maximal flocks), every flocks.every_n_cycles cycles."},
    {"transport.monitor_alarm", "Published by augur-monitor (not the runtime): its supervision state "
                                "(augur::MonitorAlarm), every cycle period and at once on a change."},
    {"transport.link_status", "Published by augur-bridge (not the runtime): the DDS link's state (augur::LinkStatus), "
                              "when it changes and at least once per bridge.deadline_ms; the runtime reads it into "
                              "its health (link_lost)."},
    {"output", "Logging and tracing."},
    {"bridge", "augur-bridge: iceoryx to Eclipse Cyclone DDS and back, with ROS 2 topic and type names (docs/dds.md). "
               "Of this section the runtime reads only bridge.deadline_ms: two of them without a link status "
               "from the bridge count as link_lost."},
    {"bridge.qos", "DDS reliability per topic: reliable (lost samples are sent again) or best_effort."},
    {"bridge.autoware", "The optional Autoware-shaped prediction topic."},
};

}  // namespace

bool ExplicitKeys::contains(std::string_view path) const noexcept {
    return std::binary_search(paths.begin(), paths.end(), path,
                              [](std::string_view a, std::string_view b) { return a < b; });
}

std::span<const KeySpec> schema() noexcept {
    static const std::vector<KeySpec> KEYS = buildSchema();
    return KEYS;
}

std::span<const SectionSpec> sections() noexcept { return SECTIONS; }

const KeySpec* findKey(std::string_view path) noexcept {
    for (const KeySpec& key : schema()) {
        if (key.path == path) {
            return &key;
        }
    }
    return nullptr;
}

bool isSection(std::string_view path) noexcept {
    return std::any_of(std::begin(SECTIONS), std::end(SECTIONS),
                       [path](const SectionSpec& section) { return section.path == path; });
}

std::string_view toString(ValueType type) noexcept {
    switch (type) {
        case ValueType::Boolean: return "boolean";
        case ValueType::Integer: return "integer";
        case ValueType::Number: return "number";
        case ValueType::String: return "string";
        case ValueType::Enumeration: return "enum";
        case ValueType::IntegerList: return "list of integers";
    }
    return "invalid";
}

}  // namespace augur::config
