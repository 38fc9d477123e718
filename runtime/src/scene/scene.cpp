// Per-cycle corridors and relations (see scene.hpp).
#include "augur/runtime/scene/scene.hpp"

#include <algorithm>
#include <cmath>

namespace augur::runtime::scene {

namespace {
constexpr float S_TOLERANCE_M = 1e-3F;
}  // namespace

Result<Scene, SceneError> Scene::create(const RoadMap& map, const SceneCapacities& capacities,
                                        const CorridorSearchParams& params) {
    if (capacities.maxVehicles == 0 || capacities.maxVehicles > MAX_PREDICTED_VEHICLES ||
        capacities.corridorsPerVehicle == 0 || capacities.corridorsPerVehicle > MAX_CORRIDORS_PER_VEHICLE ||
        capacities.relationsPerCorridor == 0 || capacities.relationsPerCorridor > MAX_RELATIONS_PER_CORRIDOR) {
        return fail(SceneError::CapacityOutOfRange);
    }
    auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    if (!positive(params.horizon_s) || !(params.margin_m >= 0.0) || !positive(params.minLength_m) ||
        !(params.gates.lateralMargin_m >= 0.0) || !positive(params.gates.maxHeading_rad)) {
        return fail(SceneError::BadParameter);
    }
    return Result<Scene, SceneError>(Scene(map, capacities, params));
}

Scene::Scene(const RoadMap& map, const SceneCapacities& capacities, const CorridorSearchParams& params)
    : m_map(&map),
      m_locator(map, params.gates.lateralMargin_m),
      m_laneMemory(capacities.maxVehicles),
      m_capacities(capacities),
      m_params(params) {
    const std::size_t corridors = static_cast<std::size_t>(capacities.maxVehicles) * capacities.corridorsPerVehicle;
    m_located.resize(capacities.maxVehicles);
    m_idUnique.resize(capacities.maxVehicles);
    m_corridors.resize(corridors);
    m_corridorCount.resize(capacities.maxVehicles);
    m_lateral.resize(capacities.maxVehicles);
    m_intersections.resize(corridors);
    m_relations.resize(corridors * capacities.relationsPerCorridor);
    m_relationCount.resize(corridors);
    m_influencer.resize(corridors);
    m_laneHead.resize(map.laneCount());
    m_entries.resize(corridors * MAX_SEGMENTS_PER_CORRIDOR);
}

SceneStats Scene::update(std::span<const SceneVehicle> vehicles) noexcept {
    m_stats = SceneStats{};
    const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(vehicles.size(), m_capacities.maxVehicles));
    m_stats.vehicles = n;
    m_stats.vehiclesDropped = static_cast<std::uint32_t>(vehicles.size() - n);
    m_vehicleCount = n;
    const std::uint32_t cap = m_capacities.corridorsPerVehicle;
    // The lane memory is keyed by the track id: an id on more than one vehicle says nothing of either.
    for (std::uint32_t v = 0; v < n; ++v) {
        m_idUnique[v] = 1;
        for (std::uint32_t w = 0; w < v; ++w) {
            if (vehicles[w].id == vehicles[v].id) {
                m_idUnique[v] = 0;
                m_idUnique[w] = 0;
            }
        }
    }
    m_laneMemory.beginUpdate();
    for (std::uint32_t v = 0; v < n; ++v) {
        const std::span<Corridor> out(m_corridors.data() + static_cast<std::size_t>(v) * cap, cap);
        LaneMatches matches;
        (void)m_laneMemory.match(m_locator, vehicles[v], m_idUnique[v] != 0, m_params.gates, matches);
        m_laneMemory.remember(vehicles[v], m_idUnique[v] != 0, matches);
        const CorridorSearchResult r = searchCorridors(m_locator, vehicles[v], v, m_params, matches, out);
        m_corridorCount[v] = r.count;
        m_located[v] = r.located;
        m_stats.corridors += r.count;
        m_stats.corridorsDropped += r.overflow;
        m_stats.unlocalised += r.located.lane == NO_INDEX ? 1U : 0U;
    }
    m_stats.laneMemory = m_laneMemory.counts();
    buildOccupancy();
    for (std::uint32_t v = 0; v < n; ++v) {
        for (std::uint32_t k = 0; k < m_corridorCount[v]; ++k) {
            const std::uint32_t global = corridorIndex(v, k);
            computeIntersections(global);
            computeCorridorRelations(global);
        }
    }
    for (std::uint32_t v = 0; v < n; ++v) {
        for (std::uint32_t k = 0; k < m_corridorCount[v]; ++k) {
            computeInfluencer(corridorIndex(v, k));
            m_stats.relations += m_relationCount[corridorIndex(v, k)];
        }
    }
    computeLateral(vehicles.first(n));
    return m_stats;
}

void Scene::buildOccupancy() noexcept {
    std::fill(m_laneHead.begin(), m_laneHead.end(), NO_INDEX);
    m_entryCount = 0;
    for (std::uint32_t v = 0; v < m_vehicleCount; ++v) {
        for (std::uint32_t k = 0; k < m_corridorCount[v]; ++k) {
            const std::uint32_t global = corridorIndex(v, k);
            const Corridor& c = m_corridors[global];
            for (std::uint32_t s = 0; s < c.segments.size(); ++s) {
                const std::uint32_t lane = c.segments[s].lane;
                m_entries[m_entryCount] = OccupancyEntry{global, s, m_laneHead[lane]};
                m_laneHead[lane] = m_entryCount++;
            }
        }
    }
}

void Scene::computeIntersections(std::uint32_t global) noexcept {
    auto& out = m_intersections[global];
    out.clear();
    const Corridor& c = m_corridors[global];
    float pendingStop = -1.0F;
    for (std::size_t k = 0; k < c.segments.size(); ++k) {
        const CorridorSegment& seg = c.segments[k];
        const Lane& lane = m_map->lane(seg.lane);
        if (lane.stopLine_s >= 0.0 && lane.stopLine_s >= seg.sBegin_m - S_TOLERANCE_M &&
            lane.stopLine_s <= seg.sEnd_m + S_TOLERANCE_M) {
            pendingStop = static_cast<float>(seg.corridorS_m + lane.stopLine_s - seg.sBegin_m);
        }
        if (lane.junction == NO_INDEX) {
            continue;
        }
        const float segEnd = seg.corridorS_m + (seg.sEnd_m - seg.sBegin_m);
        float firstConflict = -1.0F;
        float firstYield = -1.0F;
        std::uint32_t conflicts = 0;
        for (const std::uint32_t x : m_map->laneConflicts(seg.lane)) {
            const Conflict& conflict = m_map->conflicts()[x];
            const bool isFirst = conflict.first == seg.lane;
            const double s = isFirst ? conflict.firstS_m : conflict.secondS_m;
            if (s < seg.sBegin_m - S_TOLERANCE_M || s > seg.sEnd_m + S_TOLERANCE_M) {
                continue;
            }
            ++conflicts;
            const float at = static_cast<float>(seg.corridorS_m + s - seg.sBegin_m);
            // The lane's conflicts are in order along it: the first found is the nearest.
            firstConflict = firstConflict < 0.0F ? at : firstConflict;
            if (firstYield < 0.0F && m_map->hasPriority(x, isFirst ? conflict.second : conflict.first)) {
                firstYield = at;
            }
        }
        if (!out.empty() && out[out.size() - 1].junction == lane.junction) {
            IntersectionRelation& last = out[out.size() - 1];
            last.exit_m = segEnd;
            last.conflictCount += conflicts;
            if (last.firstConflict_m < 0.0F) {
                last.firstConflict_m = firstConflict;
            }
            if (last.firstYield_m < 0.0F) {
                last.firstYield_m = firstYield;
            }
            continue;
        }
        IntersectionRelation relation;
        relation.junction = lane.junction;
        relation.entry_m = seg.corridorS_m - seg.sBegin_m;  // where the corridor would have entered the lane
        relation.exit_m = segEnd;
        relation.stopLine_m = pendingStop;
        relation.firstConflict_m = firstConflict;
        relation.firstYield_m = firstYield;
        relation.conflictCount = conflicts;
        pendingStop = -1.0F;
        if (!out.pushBack(relation)) {
            ++m_stats.intersectionsDropped;
        }
    }
    if (pendingStop >= 0.0F) {  // a stop line with no junction lane after it within the corridor
        IntersectionRelation relation;
        relation.entry_m = pendingStop;
        relation.exit_m = pendingStop;
        relation.stopLine_m = pendingStop;
        if (!out.pushBack(relation)) {
            ++m_stats.intersectionsDropped;
        }
    }
}

void Scene::addRelation(std::uint32_t global, const CorridorRelation& relation, std::uint32_t otherK) noexcept {
    const std::size_t base = static_cast<std::size_t>(global) * m_capacities.relationsPerCorridor;
    std::uint32_t& count = m_relationCount[global];
    const auto bit = static_cast<std::uint8_t>(1U << otherK);
    // One relation per corridor pair and kind (the first along this corridor); relations with the
    // same vehicle at the same place share one record.
    CorridorRelation* samePlace = nullptr;
    for (std::uint32_t i = 0; i < count; ++i) {
        CorridorRelation& r = m_relations[base + i];
        if (r.otherVehicle != relation.otherVehicle || r.kind != relation.kind) {
            continue;
        }
        if ((r.otherCorridors & bit) != 0) {
            return;
        }
        if (samePlace == nullptr && r.conflict == relation.conflict && std::abs(r.s_m - relation.s_m) <= S_TOLERANCE_M &&
            std::abs(r.otherS_m - relation.otherS_m) <= S_TOLERANCE_M) {
            samePlace = &r;
        }
    }
    if (samePlace != nullptr) {
        samePlace->otherCorridors = static_cast<std::uint8_t>(samePlace->otherCorridors | bit);
        return;
    }
    if (count == m_capacities.relationsPerCorridor) {
        ++m_stats.relationsDropped;
        return;
    }
    m_relations[base + count] = relation;
    m_relations[base + count].otherCorridors = bit;
    ++count;
}

void Scene::computeCorridorRelations(std::uint32_t global) noexcept {
    m_relationCount[global] = 0;
    const Corridor& c = m_corridors[global];
    for (const CorridorSegment& seg : c.segments) {
        // Shared lanes: other vehicles' corridors over the same lane with overlapping s ranges.
        for (std::uint32_t e = m_laneHead[seg.lane]; e != NO_INDEX; e = m_entries[e].next) {
            const Corridor& other = m_corridors[m_entries[e].corridor];
            if (other.vehicle == c.vehicle) {
                continue;
            }
            const CorridorSegment& os = other.segments[m_entries[e].segment];
            const float from = std::max(seg.sBegin_m, os.sBegin_m);
            const float to = std::min(seg.sEnd_m, os.sEnd_m);
            if (from > to) {
                continue;
            }
            CorridorRelation r;
            r.otherVehicle = other.vehicle;
            r.kind = CorridorRelationKind::SharedLane;
            r.s_m = seg.corridorS_m + (from - seg.sBegin_m);
            r.otherS_m = os.corridorS_m + (from - os.sBegin_m);
            r.conflict = seg.lane;
            addRelation(global, r, m_entries[e].corridor % m_capacities.corridorsPerVehicle);
        }
        // Crossings and merges: the map's conflict points of this lane within the segment.
        for (const std::uint32_t x : m_map->laneConflicts(seg.lane)) {
            const Conflict& conflict = m_map->conflicts()[x];
            const bool first = conflict.first == seg.lane;
            const double s = first ? conflict.firstS_m : conflict.secondS_m;
            if (s < seg.sBegin_m - S_TOLERANCE_M || s > seg.sEnd_m + S_TOLERANCE_M) {
                continue;
            }
            const std::uint32_t otherLane = first ? conflict.second : conflict.first;
            const double otherS = first ? conflict.secondS_m : conflict.firstS_m;
            for (std::uint32_t e = m_laneHead[otherLane]; e != NO_INDEX; e = m_entries[e].next) {
                const Corridor& other = m_corridors[m_entries[e].corridor];
                const CorridorSegment& os = other.segments[m_entries[e].segment];
                if (other.vehicle == c.vehicle || otherS < os.sBegin_m - S_TOLERANCE_M ||
                    otherS > os.sEnd_m + S_TOLERANCE_M) {
                    continue;
                }
                CorridorRelation r;
                r.otherVehicle = other.vehicle;
                r.kind = conflict.kind == ConflictKind::Merge ? CorridorRelationKind::Merge : CorridorRelationKind::Crossing;
                r.s_m = static_cast<float>(seg.corridorS_m + s - seg.sBegin_m);
                r.otherS_m = static_cast<float>(os.corridorS_m + otherS - os.sBegin_m);
                r.conflict = x;
                switch (conflict.priority) {
                    case Priority::Unregulated: r.priority = RelativePriority::Unregulated; break;
                    case Priority::Mutual: r.priority = RelativePriority::Mutual; break;
                    case Priority::FirstHasPriority:
                        r.priority = first ? RelativePriority::ThisHasPriority : RelativePriority::OtherHasPriority;
                        break;
                    case Priority::SecondHasPriority:
                        r.priority = first ? RelativePriority::OtherHasPriority : RelativePriority::ThisHasPriority;
                        break;
                }
                addRelation(global, r, m_entries[e].corridor % m_capacities.corridorsPerVehicle);
            }
        }
    }
}

void Scene::computeInfluencer(std::uint32_t global) noexcept {
    m_influencer[global] = NO_INDEX;
    float best = 0.0F;
    const auto relations = this->relations(global);
    for (std::uint32_t i = 0; i < relations.size(); ++i) {
        const CorridorRelation& r = relations[i];
        // A leader: the other vehicle is already on the common part, ahead of this one. (Corridors
        // that only come together further on meet at a merge, which carries the priority.)
        const bool constrains = r.kind == CorridorRelationKind::SharedLane
                                    ? r.otherS_m <= S_TOLERANCE_M && r.s_m > S_TOLERANCE_M
                                    : r.priority == RelativePriority::OtherHasPriority;
        if (constrains && (m_influencer[global] == NO_INDEX || r.s_m < best)) {
            m_influencer[global] = i;
            best = r.s_m;
        }
    }
}

void Scene::offerLateral(std::uint32_t vehicle, LateralSlot slot, std::uint32_t other, float gap_m,
                         float speed_mps) noexcept {
    LateralNeighbour& n = m_lateral[vehicle].slots[static_cast<std::size_t>(slot)];
    if (n.vehicle == NO_INDEX || gap_m < n.gap_m || (gap_m == n.gap_m && other < n.vehicle)) {
        n = LateralNeighbour{other, gap_m, speed_mps};
    }
}

void Scene::computeLateral(std::span<const SceneVehicle> vehicles) noexcept {
    for (std::uint32_t v = 0; v < m_vehicleCount; ++v) {
        m_lateral[v] = LateralRelations{};
    }
    for (std::uint32_t j = 0; j < m_vehicleCount; ++j) {
        const LaneMatch& at = m_located[j];
        if (at.lane == NO_INDEX) {
            continue;
        }
        const Lane& lane = m_map->lane(at.lane);
        // (lane the other vehicle's corridor must cover, where j is relative to it, slot pair)
        struct Probe {
            std::uint32_t lane;
            LateralSlot ahead;   // slot of the corridor's vehicle that j fills
            LateralSlot behind;  // slot of j that the corridor's vehicle fills
        };
        const Probe probes[3] = {
            {at.lane, LateralSlot::SameAhead, LateralSlot::SameBehind},
            {lane.right.lane, LateralSlot::LeftAhead, LateralSlot::RightBehind},  // j is left of that lane
            {lane.left.lane, LateralSlot::RightAhead, LateralSlot::LeftBehind},
        };
        for (const Probe& probe : probes) {
            if (probe.lane == NO_INDEX) {
                continue;
            }
            const double s = at.s_m * (m_map->lane(probe.lane).length_m / lane.length_m);
            for (std::uint32_t e = m_laneHead[probe.lane]; e != NO_INDEX; e = m_entries[e].next) {
                const Corridor& c = m_corridors[m_entries[e].corridor];
                if (c.vehicle == j || c.laneChange) {
                    continue;
                }
                const CorridorSegment& seg = c.segments[m_entries[e].segment];
                if (s < seg.sBegin_m - S_TOLERANCE_M || s > seg.sEnd_m + S_TOLERANCE_M) {
                    continue;
                }
                const double along = seg.corridorS_m + s - seg.sBegin_m;
                const SceneVehicle& me = vehicles[c.vehicle];
                const SceneVehicle& them = vehicles[j];
                const auto gap = static_cast<float>(along - 0.5 * (me.length_m + them.length_m));
                if (probe.ahead == LateralSlot::SameAhead && gap < 0.0F) {
                    // Two road users on one lane do not overlap: this is one object seen twice (an id
                    // switch leaves the old track coasting for a few cycles), not a vehicle ahead.
                    continue;
                }
                offerLateral(c.vehicle, probe.ahead, j, gap, them.speed_mps);
                offerLateral(j, probe.behind, c.vehicle, gap, me.speed_mps);
            }
        }
    }
}

}  // namespace augur::runtime::scene
