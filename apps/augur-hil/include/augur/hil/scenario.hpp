// A HIL scenario: ground-truth states of every road user at every simulation step, plus the map.
//
// The on-disk format (a directory with scenario.csv, vehicles.csv and map.net.xml) is specified in
// docs/scenario-format.md; scripts/scenarios/ writes it from SUMO runs. This is the offline side of the
// bench: loading parses text and allocates (init phase); lookups afterwards are allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"

namespace augur::hil {

/// Version of the scenario format this build reads (the `# augur-scenario N` line).
inline constexpr int SCENARIO_FORMAT_VERSION = 1;

/// Steps a scenario may span (rows with a larger step are bad rows): the reader keeps one offset per
/// step, so a stray huge step would otherwise allocate gigabytes. 10^7 steps are 11.6 days at 0.1 s.
inline constexpr std::size_t MAX_SCENARIO_STEPS = 10'000'000;

/// The true state of one road user at one step, in the map's metric frame (x east, y north, metres).
/// Position is the centre of the footprint; heading counter-clockwise from +x.
struct GroundTruthState {
    std::uint32_t id{0};
    ObjectClass objectClass{ObjectClass::Unknown};
    float x_m{0.0F};
    float y_m{0.0F};
    float heading_rad{0.0F};
    float speed_mps{0.0F};
    float length_m{0.0F};
    float width_m{0.0F};
};

/// One road user's entry in vehicles.csv: its numeric id and where it came from in the simulation.
struct ScenarioVehicle {
    std::uint32_t id{0};
    std::string sumoId;
    std::string vehicleType;
    std::size_t firstStep{0};
    std::size_t lastStep{0};
};

enum class ScenarioErrorCode : std::uint8_t {
    CannotOpen,          ///< a file of the scenario is missing or unreadable
    BadHeader,           ///< missing or malformed `# key value` line or column header
    UnsupportedVersion,  ///< `# augur-scenario N` with N != SCENARIO_FORMAT_VERSION
    BadRow,              ///< a row with the wrong field count, a non-number or an out-of-domain value
    StepsOutOfOrder,     ///< a row's step is smaller than the previous row's
    DuplicateState,      ///< one id twice in one step
    UnknownVehicle,      ///< an id in scenario.csv missing from vehicles.csv
};

struct ScenarioError {
    ScenarioErrorCode code;
    std::string detail;  ///< file and line, and what was wrong
};

const char* toString(ScenarioErrorCode code) noexcept;

/// Parses an object class name as written by toString(ObjectClass) ("car", "truck", ...).
/// Returns false for an unknown name.
bool parseObjectClass(std::string_view name, ObjectClass& out) noexcept;

class Scenario {
public:
    /// Loads the scenario in `directory` (init phase: reads files, allocates). O(rows · log rows).
    static Result<Scenario, ScenarioError> load(const std::string& directory);

    /// Builds a scenario from states already in memory (tests, synthetic data). `states` may be in any
    /// order; steps are 0-based. Fails (DuplicateState) when one id appears twice in a step.
    static Result<Scenario, ScenarioError> fromStates(std::string name, double step_s, std::vector<GroundTruthState> states,
                                                      const std::vector<std::size_t>& stepOfState);

    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    [[nodiscard]] double step_s() const noexcept { return m_step_s; }
    /// Absolute path of the map (SUMO network) file; empty for scenarios built in memory.
    [[nodiscard]] const std::string& mapPath() const noexcept { return m_mapPath; }
    [[nodiscard]] const std::string& seed() const noexcept { return m_seed; }
    /// Number of steps, i.e. last step + 1 (a step may hold no states).
    [[nodiscard]] std::size_t stepCount() const noexcept { return m_frameOffsets.empty() ? 0 : m_frameOffsets.size() - 1; }
    /// Largest number of states in any one step.
    [[nodiscard]] std::size_t maxStatesPerStep() const noexcept { return m_maxStatesPerStep; }
    [[nodiscard]] std::size_t stateCount() const noexcept { return m_states.size(); }

    /// States of `step` (< stepCount()), sorted by id. O(1), allocation-free.
    [[nodiscard]] std::span<const GroundTruthState> frame(std::size_t step) const noexcept;
    /// The state of `id` at `step`, or nullptr when absent (or step out of range). O(log n), allocation-free.
    [[nodiscard]] const GroundTruthState* find(std::size_t step, std::uint32_t id) const noexcept;

    /// vehicles.csv entries, sorted by id (empty for scenarios built in memory).
    [[nodiscard]] const std::vector<ScenarioVehicle>& vehicles() const noexcept { return m_vehicles; }
    /// Numeric id of the vehicle SUMO called `sumoId`, or 0 when there is none.
    [[nodiscard]] std::uint32_t idOfSumoVehicle(std::string_view sumoId) const noexcept;

private:
    std::string m_name;
    double m_step_s{0.0};
    std::string m_mapPath;
    std::string m_seed;
    std::vector<GroundTruthState> m_states;      // sorted by (step, id)
    std::vector<std::size_t> m_frameOffsets;     // states of step s: [offsets[s], offsets[s + 1])
    std::size_t m_maxStatesPerStep{0};
    std::vector<ScenarioVehicle> m_vehicles;
};

}  // namespace augur::hil
