// Latitude/longitude to the metric frame of Lanelet2's default projector (lanelet2_projection's
// UtmProjector with an origin and its offset): the UTM coordinates of the origin's zone and hemisphere
// (GeographicLib::UTMUPS, WGS84), minus the origin's own UTM coordinates. A point in a neighbouring zone
// is transferred into the origin's zone, as far as the zone's padding reaches; beyond it the projection
// fails. Maps read this way line up with the frames Lanelet2 and Autoware compute from the same origin.
//
// Init-phase only (map reading); GeographicLib's exceptions are caught and become errors.
#pragma once

#include <string>

#include "augur/core/result.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

class UtmProjector {
public:
    /// The projector around `originLat_deg` (in [-90, 90]) and `originLon_deg` (in [-180, 180]).
    /// Errors: a message when GeographicLib cannot project the origin (e.g. a latitude out of range).
    [[nodiscard]] static Result<UtmProjector, std::string> create(double originLat_deg, double originLon_deg);

    /// The local position of a point, metres east (x) and north (y, grid north of the origin's zone)
    /// of the origin. Errors: a message when the point lies beyond the padding of the origin's zone or
    /// cannot be projected.
    [[nodiscard]] Result<Point2, std::string> forward(double lat_deg, double lon_deg) const;

    /// The origin's UTM zone (1..60; 0 for the polar UPS projection) and hemisphere.
    [[nodiscard]] int zone() const noexcept { return m_zone; }
    [[nodiscard]] bool northernHemisphere() const noexcept { return m_north; }

private:
    UtmProjector() = default;

    int m_zone{0};
    bool m_north{true};
    double m_offsetX_m{0.0};
    double m_offsetY_m{0.0};
};

}  // namespace augur::runtime::scene
