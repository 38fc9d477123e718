// Perception emulation: turns a scenario's ground truth into the object lists a real perception stack
// on one ego vehicle would publish (augur::ObjectList, core/include/augur/core/messages.hpp).
//
// Model, per scenario step (one object list per step, stamped with the step's time):
//   * field of view: every other road user whose footprint centre lies within range_m of the ego's
//     centre (all around, no occlusion); the nearest `maxObjects` are sent, the rest counted;
//   * dropouts: each visible object is missing from a list with probability dropoutProbability;
//   * false ids: each visible object switches to a fresh, never used id with probability
//     falseIdProbability per list (an id switch of the upstream tracker); it keeps the new id after
//     (falseIdProbability 1: every id switched in every list);
//   * ids re-assigned on re-appearance (newIdOnReappearance): an object missing from the previous list
//     (a dropout, or out of range) comes back under a fresh id, as after an occlusion or a hand-over;
//   * ids shuffled (idShuffleProbability, per list): the ids of the list's objects are permuted among
//     them for that list;
//   * no ids (noIds): every object of every list gets a fresh id, unique in the list and meaningless
//     across lists (the runtime's input gate drops repeated ids in a list, so not all 0);
//   * clutter: a Poisson number (mean clutterRate) of false objects per list, uniform in the disc of
//     range_m around the ego, random heading, speed uniform in [0, CLUTTER_MAX_SPEED_MPS), car-sized,
//     each under a fresh id; truncated first when the list is full;
//   * noise: x, y + N(0, stdPosition_m²) each, heading + N(0, stdHeading_rad²) (wrapped), speed +
//     N(0, stdSpeed_mps²) clamped at 0; length and width exact;
//   * reported standard deviations: the configured ones, floored at MIN_REPORTED_STD so that noise-free
//     runs still pass the runtime's validation (which requires std devs > 0).
// Randomness is counter-based (a hash of seed, step, true id and channel), so a list depends only on the
// seed, the step and the id history, never on the order or number of other draws; runs are bit-identical
// on one platform (the normal draws go through the C library's log and cos).
// The ego state in each list is the ego's true state (localisation is not emulated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"
#include "augur/hil/scenario.hpp"

namespace augur::hil {

/// Smallest standard deviation written into a message (validation requires > 0).
inline constexpr float MIN_REPORTED_STD = 0.01F;
/// Perceived ids from id switches start here; the true ids of a scenario are far below it.
inline constexpr std::uint32_t FALSE_ID_BASE = 1'000'000U;
/// Ids of clutter and of lists without ids are drawn at or above this; they map to no road user by
/// themselves (trueIdAt knows the object behind each id of each list).
inline constexpr std::uint32_t FRESH_ID_BASE = 0x4000'0000U;
/// Clutter objects move at a speed uniform in [0, this).
inline constexpr float CLUTTER_MAX_SPEED_MPS = 10.0F;

struct PerceptionConfig {
    std::uint32_t egoId{0};              ///< the scenario id of the ego vehicle
    float range_m{80.0F};                ///< sensor range, > 0
    float stdPosition_m{0.3F};           ///< per axis, >= 0
    float stdHeading_rad{0.05F};         ///< >= 0
    float stdSpeed_mps{0.3F};            ///< >= 0
    float dropoutProbability{0.05F};     ///< [0, 1]
    float falseIdProbability{0.01F};     ///< [0, 1]
    bool newIdOnReappearance{false};     ///< fresh id for an object missing from the previous list
    float idShuffleProbability{0.0F};    ///< [0, 1], per list
    bool noIds{false};                   ///< a fresh id for every object of every list
    float clutterRate{0.0F};             ///< mean false objects per list, [0, MAX_OBJECTS]
    std::uint64_t seed{1};
    std::int64_t startStamp_ns{0};       ///< stamp of scenario step 0
    std::uint32_t maxObjects{static_cast<std::uint32_t>(MAX_OBJECTS)};  ///< per list, 1..MAX_OBJECTS
};

enum class PerceptionConfigError : std::uint8_t {
    EgoNotInScenario,   ///< egoId never appears in the scenario
    InvalidRange,       ///< range_m not finite or <= 0
    InvalidNoise,       ///< a standard deviation negative or not finite
    InvalidProbability, ///< a probability outside [0, 1]
    InvalidCapacity,    ///< maxObjects 0 or > MAX_OBJECTS
    InvalidClutter,     ///< clutterRate not finite, negative or > MAX_OBJECTS
};

const char* toString(PerceptionConfigError error) noexcept;

/// Counters over all lists emitted so far.
struct PerceptionStats {
    std::uint64_t listsEmitted{0};
    std::uint64_t objectsEmitted{0};
    std::uint64_t objectsDropped{0};     ///< visible but dropped (dropouts)
    std::uint64_t objectsTruncated{0};   ///< visible but beyond maxObjects
    std::uint64_t idSwitches{0};         ///< false-id switches and re-appearance switches
    std::uint64_t listsShuffled{0};
    std::uint64_t clutterEmitted{0};
};

enum class EmitStatus : std::uint8_t {
    Emitted,       ///< `out` holds the step's list
    EgoAbsent,     ///< the ego is not in the scenario at this step; `out` untouched, no sequence used
    StepOutOfRange ///< step >= scenario.stepCount(); `out` untouched
};

class PerceptionEmulator {
public:
    /// Init phase: validates `config` against `scenario` (which must outlive the emulator) and allocates
    /// all scratch, sized by the scenario. Fails with the first invalid setting.
    static Result<PerceptionEmulator, PerceptionConfigError> create(const Scenario& scenario, const PerceptionConfig& config);

    /// Writes the object list of `step` into `out`: header (schema version, sequence = 1, 2, ... per
    /// emitted list, stamp = startStamp_ns + step · step_s), ego state, objects nearest first.
    /// Call with increasing steps (id switches persist from one call to the next).
    /// noexcept, allocation-free; O(n log n) in the states of the step.
    EmitStatus emit(std::size_t step, ObjectList& out) noexcept;

    /// The scenario id behind a perceived id (identity for ids below FALSE_ID_BASE), 0 when unknown.
    /// Exact unless ids were shuffled or drawn fresh (no ids, clutter): use trueIdAt. O(1), allocation-free.
    [[nodiscard]] std::uint32_t trueIdOf(std::uint32_t perceivedId) const noexcept;

    /// The scenario id of the object that carried `perceivedId` in the list of `step`; 0 for clutter or
    /// when no object of that list had the id. Exact under every fault. O(objects of the list).
    [[nodiscard]] std::uint32_t trueIdAt(std::size_t step, std::uint32_t perceivedId) const noexcept;

    [[nodiscard]] const PerceptionStats& stats() const noexcept { return m_stats; }
    [[nodiscard]] const PerceptionConfig& config() const noexcept { return m_config; }

private:
    struct Candidate {
        float distance_m;
        std::uint32_t stateIndex;
    };

    PerceptionEmulator(const Scenario& scenario, const PerceptionConfig& config);

    // The steps of emit(), in order.
    std::size_t gatherCandidates(const GroundTruthState& ego, std::span<const GroundTruthState> states) noexcept;
    std::uint32_t emitTracked(std::size_t step, std::span<const GroundTruthState> states, std::size_t candidateCount,
                              ObjectList& out) noexcept;
    void shuffleIds(std::size_t step, std::uint32_t realCount, ObjectList& out) noexcept;
    std::uint32_t addClutter(std::size_t step, const GroundTruthState& ego, std::uint32_t count,
                             ObjectList& out) noexcept;

    const Scenario* m_scenario;
    PerceptionConfig m_config;
    PerceptionStats m_stats;
    std::uint64_t m_nextSequence{1};
    std::vector<std::uint32_t> m_currentId;     // indexed by true id: the id perception uses now
    std::vector<std::uint32_t> m_falseIdOwner;  // indexed by perceived id − FALSE_ID_BASE: the true id
    std::size_t m_falseIdCount{0};              // used entries of m_falseIdOwner (capacity: one per state)
    std::vector<Candidate> m_candidates;        // scratch, capacity maxStatesPerStep
    std::vector<std::size_t> m_lastEmittedStep; // indexed by true id: the step it was last in a list
    struct EmittedId {
        std::uint32_t perceivedId;
        std::uint32_t trueId;  // 0: clutter
    };
    std::vector<EmittedId> m_emitted;           // maxObjects per step: the ids of each emitted list
    std::vector<std::uint32_t> m_emittedCount;  // per step
};

}  // namespace augur::hil
