#include "augur/runtime/stages/relations_stage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "augur/kernels/markov/prediction.hpp"

namespace augur::runtime {

namespace {
constexpr double CURVATURE_BASE_M = 5.0;      ///< heading change over this arc length gives the curvature
constexpr float DEFAULT_SPEED_LIMIT_MPS = 13.9F;  ///< 50 km/h where the map has no limit
constexpr float NO_STOP_M = 1e9F;
constexpr float SPEED_LIMIT_RESOLUTION_MPS = 0.1F;  ///< lanes whose limits differ less share a stretch
constexpr double LANE_CHANGE_DURATION_S = 4.0;  ///< a lane change joins the target lane over v·4 s …
constexpr double LANE_CHANGE_MIN_M = 20.0;      ///< … and at least 20 m

void describeSpeedLimits(const scene::RoadMap& map, const scene::Corridor& corridor,
                         kernels::markov::CorridorConstraints& limits) noexcept {
    // The limit changes where a lane of another limit begins (a turn through a junction, a slower zone),
    // at most MAX_SPEED_LIMIT_CHANGES times; the rest of the corridor keeps the last limit.
    float current = limits.speedLimit_mps;
    int changes = 0;
    for (std::size_t i = 1; i < corridor.segments.size() && changes < kernels::markov::MAX_SPEED_LIMIT_CHANGES; ++i) {
        const double laneLimit = map.lane(corridor.segments[i].lane).speedLimit_mps;
        const float limit = laneLimit > 0.0 ? static_cast<float>(laneLimit) : DEFAULT_SPEED_LIMIT_MPS;
        if (std::fabs(limit - current) < SPEED_LIMIT_RESOLUTION_MPS) {
            continue;
        }
        limits.limitFrom_m[changes] = corridor.segments[i].corridorS_m;
        limits.limitAfter_mps[changes] = limit;
        current = limit;
        ++changes;
    }
}

/// Where a corridor's path moves over from a dropped lane to the lane it merges into.
struct PathMerge {
    double at_m{0.0};  ///< corridor s of the merge
    double over_m{0.0};
    scene::Point2 offset;  ///< from the dropped lane's end to the merged-into lane abreast of it
};

/// A corridor's path as a vehicle drives it. Neither a lane change nor a merge jumps. A lane change
/// leaves the vehicle's position and joins the target lane's centreline linearly over
/// LANE_CHANGE_DURATION_S of travel (the offset at s = 0 fades out). A merge at the end of a dropped
/// lane moves over linearly during the same travel before the end (or from the vehicle on, when it
/// is nearer): the offset to the merged-into lane fades in.
class CorridorPath {
public:
    CorridorPath(const scene::RoadMap& map, const scene::Corridor& corridor,
                 const scene::SceneVehicle& vehicle) noexcept
        : m_map(map),
          m_corridor(corridor),
          m_join_m(std::max(LANE_CHANGE_MIN_M, static_cast<double>(vehicle.speed_mps) * LANE_CHANGE_DURATION_S)) {
        if (corridor.laneChange) {
            scene::Point2 start;
            double heading = 0.0;
            scene::corridorPointAt(map, corridor, 0.0, start, heading);
            m_changeOffset = scene::Point2{vehicle.x_m - start.x_m, vehicle.y_m - start.y_m};
        }
        for (std::size_t i = 1; i < corridor.segments.size(); ++i) {
            const scene::CorridorSegment& seg = corridor.segments[i];
            if (!seg.merge) {
                continue;
            }
            const scene::CorridorSegment& dropped = corridor.segments[i - 1];
            scene::Point2 from;
            scene::Point2 to;
            double heading = 0.0;
            map.pointAt(dropped.lane, dropped.sEnd_m, from, heading);
            map.pointAt(seg.lane, seg.sBegin_m, to, heading);
            (void)m_merges.pushBack(PathMerge{seg.corridorS_m, std::min(m_join_m, static_cast<double>(seg.corridorS_m)),
                                          scene::Point2{to.x_m - from.x_m, to.y_m - from.y_m}});
        }
    }

    /// The path's point at corridor arc length s and the lane's heading there.
    void pointAt(double s, scene::Point2& p, double& laneHeading) const noexcept {
        scene::corridorPointAt(m_map, m_corridor, s, p, laneHeading);
        if (m_corridor.laneChange && s < m_join_m) {
            const double w = 1.0 - s / m_join_m;
            p.x_m += w * m_changeOffset.x_m;
            p.y_m += w * m_changeOffset.y_m;
        }
        for (const PathMerge& m : m_merges) {
            if (s < m.at_m && s > m.at_m - m.over_m) {
                const double w = 1.0 - (m.at_m - s) / m.over_m;
                p.x_m += w * m.offset.x_m;
                p.y_m += w * m.offset.y_m;
            }
        }
    }

private:
    const scene::RoadMap& m_map;
    const scene::Corridor& m_corridor;
    double m_join_m;
    scene::Point2 m_changeOffset;
    FixedVector<PathMerge, scene::MAX_SEGMENTS_PER_CORRIDOR> m_merges;
};

/// The road at the vehicle: the direction (the lane's, or for a lane change the path's towards the
/// target lane), the curvature over CURVATURE_BASE_M and, as the go intention's speed until the
/// intention stage knows the driver's, the first lane's speed limit.
void describeRoad(const scene::RoadMap& map, const scene::Corridor& corridor, const CorridorPath& path,
                  kernels::pf::SceneCorridor& road) noexcept {
    scene::Point2 p0;
    scene::Point2 p1;
    double heading0 = 0.0;
    double heading1 = 0.0;
    path.pointAt(0.0, p0, heading0);
    path.pointAt(CURVATURE_BASE_M, p1, heading1);
    const double pathHeading = corridor.laneChange ? std::atan2(p1.y_m - p0.y_m, p1.x_m - p0.x_m) : heading0;
    road.heading_rad = static_cast<float>(pathHeading);
    road.curvature_1pm = static_cast<float>(scene::wrapAngle(heading1 - heading0) / CURVATURE_BASE_M);
    const double limit = corridor.segments.empty() ? 0.0 : map.lane(corridor.segments[0].lane).speedLimit_mps;
    road.goSpeed_mps = limit > 0.0 ? static_cast<float>(limit) : DEFAULT_SPEED_LIMIT_MPS;
}

}  // namespace

bool isPredictedClass(ObjectClass objectClass) noexcept {
    return objectClass == ObjectClass::Car || objectClass == ObjectClass::Truck || objectClass == ObjectClass::Bus ||
           objectClass == ObjectClass::Motorcycle;
}

RelationsStage::RelationsStage(scene::Scene& scene, const PipelineState& state, SceneFrame& frame,
                               std::uint32_t maxVehicles, std::uint32_t maxCorridors, ClassBounds classBounds) noexcept
    : m_scene(scene),
      m_state(state),
      m_frame(frame),
      m_maxVehicles(std::min<std::uint32_t>(maxVehicles, MAX_PREDICTED_VEHICLES)),
      m_maxCorridors(std::min<std::uint32_t>(maxCorridors, MAX_CORRIDORS_PER_VEHICLE)),
      m_classBounds(classBounds) {}

void RelationsStage::describeCorridor(std::uint32_t v, std::uint32_t k) noexcept {
    const scene::RoadMap& map = m_scene.map();
    const std::uint32_t global = m_scene.corridorIndex(v, k);
    const scene::Corridor& corridor = m_scene.corridor(global);
    FrameCorridor& out = m_frame.vehicles[v].corridors[k];
    out = FrameCorridor{};
    out.id = global;
    out.length_m = corridor.length_m;
    out.laneChange = corridor.laneChange;

    out.routeLanes = static_cast<std::uint32_t>(std::min<std::size_t>(corridor.segments.size(), FRAME_ROUTE_LANES));
    for (std::uint32_t i = 0; i < out.routeLanes; ++i) {
        out.route[i] = corridor.segments[i].lane;
    }

    // Centreline, resampled evenly over the corridor.
    const CorridorPath path(map, corridor, m_vehicles[v]);
    const std::size_t base = polylineOffset(v, k);
    const auto points = static_cast<std::int32_t>(FRAME_POLYLINE_POINTS);
    const double spacing = corridor.length_m > 0.0F ? corridor.length_m / static_cast<double>(points - 1) : 0.0;
    for (std::int32_t i = 0; i < points; ++i) {
        scene::Point2 p;
        double heading = 0.0;
        const double s = spacing * static_cast<double>(i);
        path.pointAt(s, p, heading);
        m_frame.polyX_m[base + static_cast<std::size_t>(i)] = static_cast<float>(p.x_m);
        m_frame.polyY_m[base + static_cast<std::size_t>(i)] = static_cast<float>(p.y_m);
        m_frame.polyS_m[base + static_cast<std::size_t>(i)] = static_cast<float>(s);
    }
    out.polylinePoints = points;

    describeRoad(map, corridor, path, out.road);
    describeYielding(v, global, out);
    out.limits.speedLimit_mps = out.road.goSpeed_mps;  // the first lane's limit (describeRoad)
    describeSpeedLimits(map, corridor, out.limits);
    const ClassBound bound = m_classBounds.of(m_state.tracks.tracks[m_frame.vehicles[v].trackIndex].objectClass);
    out.limits.topAccel_mps2 = bound.topAccel_mps2;
    const float top = bound.topSpeed_mps;
    if (top > 0.0F) {
        out.road.goSpeed_mps = std::min(out.road.goSpeed_mps, top);
        out.limits.speedLimit_mps = std::min(out.limits.speedLimit_mps, top);
        for (int i = 0; i < kernels::markov::MAX_SPEED_LIMIT_CHANGES; ++i) {
            if (out.limits.limitFrom_m[i] < kernels::markov::NO_LIMIT) {
                out.limits.limitAfter_mps[i] = std::min(out.limits.limitAfter_mps[i], top);
            }
        }
    }
}

void RelationsStage::describeYielding(std::uint32_t v, std::uint32_t global, FrameCorridor& out) const noexcept {
    const scene::Corridor& corridor = m_scene.corridor(global);
    // The next stop point: a stop line before a junction, else the point where a vehicle with priority crosses.
    float stop = NO_STOP_M;
    out.yield_m = kernels::markov::NO_LIMIT;
    for (const scene::IntersectionRelation& junction : m_scene.intersections(global)) {
        if (junction.stopLine_m >= 0.0F) {
            stop = std::min(stop, junction.stopLine_m);
        }
        if (junction.firstYield_m >= 0.0F) {
            out.yield_m = std::min(out.yield_m, junction.firstYield_m);
        }
    }
    out.road.mustGiveWay = 0;
    out.road.giveWayTo = -1;
    const std::uint32_t influencer = m_scene.influencer(global);
    const auto relations = m_scene.relations(global);
    float leadGap = kernels::markov::NO_LIMIT;
    float leadSpeed = 0.0F;
    float leadAccel = 0.0F;
    if (influencer != scene::NO_INDEX && influencer < relations.size()) {
        const scene::CorridorRelation& r = relations[influencer];
        const bool yields = r.priority == scene::RelativePriority::OtherHasPriority ||
                            r.priority == scene::RelativePriority::Mutual;
        if (r.kind != scene::CorridorRelationKind::SharedLane && yields && r.s_m >= 0.0F) {
            out.road.mustGiveWay = 1;
            out.road.giveWayTo = static_cast<std::int32_t>(r.otherVehicle);
            stop = std::min(stop, r.s_m);
        }
    }
    if (!corridor.laneChange) {
        const scene::LateralNeighbour& ahead = m_scene.lateral(v)[scene::LateralSlot::SameAhead];
        if (ahead.vehicle != scene::NO_INDEX) {
            leadGap = std::max(ahead.gap_m, 0.0F);
            leadSpeed = ahead.speed_mps;
            // The evidence in the lead's tracked acceleration, as for the vehicle itself (motion stage).
            const TrackMeasurement& lead = m_frame.measurements[m_frame.vehicles[ahead.vehicle].trackIndex];
            leadAccel = kernels::markov::evidentAcceleration(lead.trackAccel_mps2, lead.trackAccelStd_mps2);
        }
    }
    if (out.road.mustGiveWay == 0 && stop < NO_STOP_M) {
        out.road.mustGiveWay = 1;  // a stop line with nobody in particular to yield to (a sign)
    }
    out.road.distanceToStop_m = stop;
    out.limits.stopDistance_m = stop < NO_STOP_M ? stop : kernels::markov::NO_LIMIT;
    out.limits.leadGap_m = leadGap;
    out.limits.leadSpeed_mps = leadSpeed;
    out.limits.leadAccel_mps2 = leadAccel;
}

StageStatus RelationsStage::run(CycleContext& context) noexcept {
    if (context.mode >= RuntimeMode::ConstantVelocity) {
        m_frame.vehicleCount = 0;  // the degraded modes predict from the tracks alone
        m_scene.forgetLanes();     // the next update's memory would not be of the update before it
        return StageStatus::Skipped;
    }
    const TrackList& tracks = m_state.tracks;
    std::uint32_t count = 0;
    for (std::uint32_t i = 0; i < tracks.trackCount && count < m_maxVehicles; ++i) {
        const Track& t = tracks.tracks[i];
        if (!isPredictedClass(t.objectClass)) {
            continue;
        }
        const TrackMeasurement& m = m_frame.measurements[i];
        const float speed = std::hypot(t.vx_mps, t.vy_mps);
        scene::SceneVehicle& sv = m_vehicles[count];
        sv = scene::SceneVehicle{t.id, t.x_m, t.y_m, m.heading_rad, speed, m.length_m, m.width_m};
        FrameVehicle& fv = m_frame.vehicles[count];
        fv.trackIndex = i;
        fv.trackId = t.id;
        fv.x_m = t.x_m;
        fv.y_m = t.y_m;
        fv.heading_rad = m.heading_rad;
        fv.speed_mps = speed;
        ++count;
    }
    m_frame.vehicleCount = count;
    (void)m_scene.update(std::span<const scene::SceneVehicle>(m_vehicles.data(), count));
    for (std::uint32_t v = 0; v < count; ++v) {
        FrameVehicle& fv = m_frame.vehicles[v];
        const auto corridors = m_scene.corridors(v);
        fv.corridorCount = std::min<std::uint32_t>(static_cast<std::uint32_t>(corridors.size()), m_maxCorridors);
        for (std::uint32_t k = 0; k < fv.corridorCount; ++k) {
            describeCorridor(v, k);
        }
        const float uniform = fv.corridorCount > 0 ? 1.0F / static_cast<float>(fv.corridorCount) : 0.0F;
        for (std::uint32_t k = 0; k < MAX_CORRIDORS_PER_VEHICLE; ++k) {
            fv.corridorProbability[k] = k < fv.corridorCount ? uniform : 0.0F;
        }
        fv.stopProbability = 0.0F;
    }
    return StageStatus::Ok;
}

}  // namespace augur::runtime
