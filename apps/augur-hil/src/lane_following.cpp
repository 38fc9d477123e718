#include "augur/hil/lane_following.hpp"

#include <algorithm>
#include <cmath>

#include "augur/hil/cv_baseline.hpp"
#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/localisation.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::hil {

namespace scene = augur::runtime::scene;

namespace {

constexpr double MINIMUM_DISTANCE = 1e-6;  // Autoware's floor of the Mahalanobis distance
constexpr double MIN_CORRIDOR_LENGTH_M = 30.0;
constexpr double CORRIDOR_MARGIN_M = 10.0;

/// Speed limit of the lane under corridor arc length s.
double speedLimitAt(const scene::RoadMap& map, const scene::Corridor& corridor, double s_m) {
    std::size_t k = 0;
    while (k + 1 < corridor.segments.size() && corridor.segments[k + 1].corridorS_m <= s_m) {
        ++k;
    }
    return map.lane(corridor.segments[k].lane).speedLimit_mps;
}

void straightMode(Point2 position, double heading_rad, double speed_mps, double step_s, std::size_t steps,
                  std::vector<LaneFollowingMode>& out) {
    LaneFollowingMode& mode = out.emplace_back();
    mode.points.resize(steps);
    mode.probability = 1.0;
    mode.onMap = false;
    predictConstantVelocity(position, heading_rad, speed_mps, step_s, mode.points);
}

}  // namespace

double lateralDecay(double t_s, double horizon_s) noexcept {
    if (!(horizon_s > 0.0) || t_s >= horizon_s) {
        return 0.0;
    }
    const double tau = std::max(0.0, t_s / horizon_s);
    const double tau3 = tau * tau * tau;
    return 1.0 - 10.0 * tau3 + 15.0 * tau3 * tau - 6.0 * tau3 * tau * tau;
}

LaneFollowingPredictor::LaneFollowingPredictor(std::shared_ptr<const scene::RoadMap> map, LaneFollowingParams params)
    : m_map(std::move(map)), m_locator(std::make_unique<scene::LaneLocator>(*m_map)), m_params(params) {}

LaneFollowingPredictor::~LaneFollowingPredictor() = default;
LaneFollowingPredictor::LaneFollowingPredictor(LaneFollowingPredictor&&) noexcept = default;
LaneFollowingPredictor& LaneFollowingPredictor::operator=(LaneFollowingPredictor&&) noexcept = default;

void LaneFollowingPredictor::predict(Point2 position, double heading_rad, double speed_mps, double step_s,
                                     std::size_t steps, std::vector<LaneFollowingMode>& out) const {
    out.clear();
    const double speed = std::max(0.0, speed_mps);
    if (speed < m_params.minSpeed_mps) {
        straightMode(position, heading_rad, speed, step_s, steps, out);
        return;
    }
    scene::SceneVehicle vehicle;
    vehicle.x_m = static_cast<float>(position.x_m);
    vehicle.y_m = static_cast<float>(position.y_m);
    vehicle.heading_rad = static_cast<float>(heading_rad);
    vehicle.speed_mps = static_cast<float>(speed);
    scene::CorridorSearchParams search;
    search.horizon_s = static_cast<double>(steps) * step_s;
    search.margin_m = CORRIDOR_MARGIN_M;
    search.minLength_m = MIN_CORRIDOR_LENGTH_M;
    search.laneChanges = false;
    search.gates.lateralMargin_m = m_params.lateralMargin_m;
    search.gates.maxHeading_rad = m_params.maxHeading_rad;
    std::vector<scene::Corridor> corridors(m_params.maxModes);
    const scene::CorridorSearchResult found = scene::searchCorridors(*m_locator, vehicle, 0, search, corridors);
    if (found.count == 0) {
        straightMode(position, heading_rad, speed, step_s, steps, out);
        return;
    }
    double total = 0.0;
    for (std::uint32_t c = 0; c < found.count; ++c) {
        const scene::Corridor& corridor = corridors[c];
        const std::uint32_t startLane = corridor.segments[0].lane;
        // Lateral offset and heading error against the starting lane (the projection the search used).
        double lateral_m = 0.0;
        double s_m = 0.0;
        m_locator->projectOnLane(startLane, position.x_m, position.y_m, s_m, lateral_m);
        scene::Point2 onLane;
        double laneHeading = 0.0;
        m_map->pointAt(startLane, s_m, onLane, laneHeading);
        const double yawError = scene::wrapAngle(heading_rad - laneHeading);
        const double d = lateral_m * lateral_m / (m_params.sigmaLateral_m * m_params.sigmaLateral_m) +
                         yawError * yawError / (m_params.sigmaYaw_rad * m_params.sigmaYaw_rad);
        LaneFollowingMode& mode = out.emplace_back();
        mode.probability = 1.0 / std::max(d, MINIMUM_DISTANCE);
        total += mode.probability;
        mode.points.resize(steps);
        double s = 0.0;
        for (std::size_t k = 0; k < steps; ++k) {
            const double v = std::min(speed, m_params.speedLimitFactor * speedLimitAt(*m_map, corridor, s));
            s += v * step_s;
            scene::Point2 centre;
            double heading = 0.0;
            scene::corridorPointAt(*m_map, corridor, s, centre, heading);
            const double offset = lateral_m * lateralDecay(static_cast<double>(k + 1) * step_s, m_params.lateralHorizon_s);
            mode.points[k] = Point2{centre.x_m - offset * std::sin(heading), centre.y_m + offset * std::cos(heading)};
        }
    }
    for (LaneFollowingMode& mode : out) {
        mode.probability /= total;
    }
}

}  // namespace augur::hil
