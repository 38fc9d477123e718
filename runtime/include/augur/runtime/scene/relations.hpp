// The relations recomputed each cycle for all vehicles (seed paper §3.2): lateral (nearest vehicles
// ahead/behind on the same and adjacent lanes), corridor-to-intersection (distance along a corridor
// to each junction and stop line it passes) and corridor-to-corridor (shared lanes, crossings and
// merges with the map's priority). Plain fixed-size records; see scene.hpp for how they are computed.
#pragma once

#include <cstdint>

#include "augur/core/messages.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

inline constexpr std::size_t MAX_RELATIONS_PER_CORRIDOR = 32;       ///< compiled upper bound
inline constexpr std::size_t MAX_INTERSECTIONS_PER_CORRIDOR = 8;

enum class LateralSlot : std::uint8_t { SameAhead = 0, SameBehind, LeftAhead, LeftBehind, RightAhead, RightBehind, Count };

/// The nearest vehicle in one slot. `gap_m` is bumper to bumper along the lane (negative: overlapping).
struct LateralNeighbour {
    std::uint32_t vehicle{NO_INDEX};
    float gap_m{0.0F};
    float speed_mps{0.0F};
};

struct LateralRelations {
    LateralNeighbour slots[static_cast<std::size_t>(LateralSlot::Count)];
    [[nodiscard]] const LateralNeighbour& operator[](LateralSlot slot) const noexcept {
        return slots[static_cast<std::size_t>(slot)];
    }
};

/// A junction a corridor passes. Distances are corridor s (from the vehicle); entry < 0 when the
/// vehicle is already inside.
struct IntersectionRelation {
    std::uint32_t junction{NO_INDEX};
    float entry_m{0.0F};
    float exit_m{0.0F};
    float stopLine_m{-1.0F};      ///< the stop line before this junction on the corridor, < 0 when none
    float firstConflict_m{-1.0F}; ///< the first conflict point of the corridor inside it, < 0 when none
    /// The first conflict point inside it where the map gives the other lane priority (this corridor yields
    /// there, whoever comes), < 0 when none.
    float firstYield_m{-1.0F};
    std::uint32_t conflictCount{0};
};

enum class CorridorRelationKind : std::uint8_t { SharedLane = 0, Crossing, Merge };

/// Priority of this corridor relative to the other one at the relation point.
enum class RelativePriority : std::uint8_t { Unregulated = 0, ThisHasPriority, OtherHasPriority, Mutual };

/// How this corridor relates to corridors of another vehicle at one place. The corridors of one
/// vehicle usually share their first lanes, so one record covers all of the other vehicle's corridors
/// that meet this one at the same point (bit k of `otherCorridors`: its corridor k), which keeps the
/// count per corridor near the number of vehicles around rather than vehicles × corridors.
struct CorridorRelation {
    std::uint32_t otherVehicle{NO_INDEX};
    std::uint8_t otherCorridors{0};  ///< bit k set: corridor k of otherVehicle takes part
    CorridorRelationKind kind{CorridorRelationKind::SharedLane};
    RelativePriority priority{RelativePriority::Unregulated};
    std::uint8_t reserved{0};
    float s_m{0.0F};       ///< where on this corridor (shared lanes: start of the common part)
    float otherS_m{0.0F};  ///< … and on the other corridors
    std::uint32_t conflict{NO_INDEX};  ///< map conflict index (crossing/merge); the lane for SharedLane

    [[nodiscard]] bool involves(std::uint32_t otherCorridor) const noexcept {
        return otherCorridor < 8 && (otherCorridors & (1U << otherCorridor)) != 0;
    }
};

static_assert(MAX_CORRIDORS_PER_VEHICLE <= 8, "CorridorRelation::otherCorridors is an 8-bit mask");

}  // namespace augur::runtime::scene
