// The scene: corridors of every vehicle and the relations between them, recomputed each cycle
// (seed paper §3.1–3.2) — the inputs of the intention filter's expectation model and of the motion
// prediction's priority vector λ.
//
// Per update: match each vehicle to lanes with the memory of its track (lane_memory.hpp: the lanes it
// was matched to in the previous update keep it on the lane sequence it entered) and search its corridors
// from them (corridors.hpp); index which corridor segments cover which lane; then, through that index,
//   * lateral relations: for each vehicle, the nearest vehicle ahead/behind on its own lane sequence
//     and on the neighbouring lanes (bumper-to-bumper gap along the lane, other's speed);
//   * corridor-to-intersection: for each corridor, the junctions it passes (entry/exit s, stop line,
//     first conflict point) — "the intersections each corridor goes through are determined by
//     intersecting the lanelet's identifiers";
//   * corridor-to-corridor: for each pair of corridors of different vehicles, shared lanes and the
//     map's conflict points both pass (crossing/merge), with the map's priority (one record per other
//     vehicle and place, listing which of its corridors take part); the map's conflicts
//     are the pairwise centreline intersections computed once at load, so the per-cycle work is a
//     look-up, not a geometric intersection;
//   * the influencer of each corridor: the nearest relation through which another vehicle constrains
//     it (a leader on a shared lane, or a conflict where the other corridor has priority).
//
// Capacities (vehicles, corridors per vehicle, relations per corridor) are fixed at create(); what
// does not fit is counted in SceneStats. update() is noexcept and allocation-free; not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "augur/core/fixed_vector.hpp"
#include "augur/core/result.hpp"
#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/lane_memory.hpp"
#include "augur/runtime/scene/localisation.hpp"
#include "augur/runtime/scene/relations.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

struct SceneCapacities {
    std::uint32_t maxVehicles{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES)};
    std::uint32_t corridorsPerVehicle{static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE)};
    std::uint32_t relationsPerCorridor{static_cast<std::uint32_t>(MAX_RELATIONS_PER_CORRIDOR)};
};

enum class SceneError : std::uint8_t {
    CapacityOutOfRange,  ///< zero, or above MAX_PREDICTED_VEHICLES / MAX_CORRIDORS_PER_VEHICLE / MAX_RELATIONS_PER_CORRIDOR
    BadParameter,        ///< horizon, margins or gates not positive/finite
};

/// Counts of one update; every *Dropped counter is content that did not fit a capacity.
struct SceneStats {
    std::uint32_t vehicles{0};
    std::uint32_t vehiclesDropped{0};
    std::uint32_t unlocalised{0};
    std::uint32_t corridors{0};
    std::uint32_t corridorsDropped{0};
    std::uint32_t relations{0};
    std::uint32_t relationsDropped{0};
    std::uint32_t intersectionsDropped{0};
    LaneMemoryCounts laneMemory;  ///< how the vehicles' lanes were matched (lane_memory.hpp)
};

class Scene {
public:
    /// Init phase: sizes every buffer. `map` must outlive the scene.
    [[nodiscard]] static Result<Scene, SceneError> create(const RoadMap& map, const SceneCapacities& capacities,
                                                          const CorridorSearchParams& params);

    /// Run phase: recomputes corridors and relations for `vehicles` (the first maxVehicles of them), each
    /// matched to lanes with the memory of its track from the previous update (SceneVehicle::id: the
    /// tracker's track id; a vehicle absent from an update is forgotten).
    /// noexcept, allocation-free. Cost: O(V·(lane matching + corridor search) + V² id comparisons +
    /// Σ lane occupancy · conflicts per lane).
    SceneStats update(std::span<const SceneVehicle> vehicles) noexcept;

    /// Run phase: clears the lane memory of every track; the next update matches without it (after
    /// updates were skipped, the lanes remembered are no longer last update's).
    void forgetLanes() noexcept { m_laneMemory.forget(); }

    [[nodiscard]] std::uint32_t vehicleCount() const noexcept { return m_vehicleCount; }
    /// The vehicle's best lane match; lane == NO_INDEX when it is not on the map.
    [[nodiscard]] const LaneMatch& located(std::uint32_t vehicle) const noexcept { return m_located[vehicle]; }
    [[nodiscard]] std::span<const Corridor> corridors(std::uint32_t vehicle) const noexcept {
        return {m_corridors.data() + static_cast<std::size_t>(vehicle) * m_capacities.corridorsPerVehicle,
                m_corridorCount[vehicle]};
    }
    /// Global index of corridor k of `vehicle`.
    [[nodiscard]] std::uint32_t corridorIndex(std::uint32_t vehicle, std::uint32_t k) const noexcept {
        return vehicle * m_capacities.corridorsPerVehicle + k;
    }
    [[nodiscard]] const Corridor& corridor(std::uint32_t global) const noexcept { return m_corridors[global]; }
    [[nodiscard]] const LateralRelations& lateral(std::uint32_t vehicle) const noexcept { return m_lateral[vehicle]; }
    [[nodiscard]] std::span<const IntersectionRelation> intersections(std::uint32_t global) const noexcept {
        return {m_intersections[global].data(), m_intersections[global].size()};
    }
    [[nodiscard]] std::span<const CorridorRelation> relations(std::uint32_t global) const noexcept {
        return {m_relations.data() + static_cast<std::size_t>(global) * m_capacities.relationsPerCorridor,
                m_relationCount[global]};
    }
    /// Index into relations(global) of the relation that constrains this corridor most closely, or NO_INDEX.
    [[nodiscard]] std::uint32_t influencer(std::uint32_t global) const noexcept { return m_influencer[global]; }
    [[nodiscard]] const SceneStats& stats() const noexcept { return m_stats; }
    [[nodiscard]] const LaneLocator& locator() const noexcept { return m_locator; }
    [[nodiscard]] const RoadMap& map() const noexcept { return *m_map; }

private:
    Scene(const RoadMap& map, const SceneCapacities& capacities, const CorridorSearchParams& params);

    struct OccupancyEntry {
        std::uint32_t corridor;
        std::uint32_t segment;
        std::uint32_t next;
    };

    void buildOccupancy() noexcept;
    void computeIntersections(std::uint32_t global) noexcept;
    void computeCorridorRelations(std::uint32_t global) noexcept;
    void addRelation(std::uint32_t global, const CorridorRelation& relation, std::uint32_t otherK) noexcept;
    void computeLateral(std::span<const SceneVehicle> vehicles) noexcept;
    void offerLateral(std::uint32_t vehicle, LateralSlot slot, std::uint32_t other, float gap_m, float speed_mps) noexcept;
    void computeInfluencer(std::uint32_t global) noexcept;

    const RoadMap* m_map;
    LaneLocator m_locator;
    LaneMemory m_laneMemory;
    SceneCapacities m_capacities;
    CorridorSearchParams m_params;
    std::uint32_t m_vehicleCount{0};
    SceneStats m_stats;
    std::vector<LaneMatch> m_located;
    std::vector<std::uint8_t> m_idUnique;  ///< per vehicle of the update: no other vehicle has its id
    std::vector<Corridor> m_corridors;
    std::vector<std::uint32_t> m_corridorCount;
    std::vector<LateralRelations> m_lateral;
    std::vector<FixedVector<IntersectionRelation, MAX_INTERSECTIONS_PER_CORRIDOR>> m_intersections;
    std::vector<CorridorRelation> m_relations;
    std::vector<std::uint32_t> m_relationCount;
    std::vector<std::uint32_t> m_influencer;
    std::vector<std::uint32_t> m_laneHead;
    std::vector<OccupancyEntry> m_entries;
    std::uint32_t m_entryCount{0};
};

}  // namespace augur::runtime::scene
