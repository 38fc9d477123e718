#include "augur/runtime/scene/utm_projector.hpp"

#include <GeographicLib/Constants.hpp>
#include <GeographicLib/UTMUPS.hpp>

namespace augur::runtime::scene {

Result<UtmProjector, std::string> UtmProjector::create(double originLat_deg, double originLon_deg) {
    UtmProjector projector;
    try {
        GeographicLib::UTMUPS::Forward(originLat_deg, originLon_deg, projector.m_zone, projector.m_north,
                                       projector.m_offsetX_m, projector.m_offsetY_m);
    } catch (const GeographicLib::GeographicErr& e) {
        return fail("the origin cannot be projected to UTM: " + std::string(e.what()));
    }
    return projector;
}

Result<Point2, std::string> UtmProjector::forward(double lat_deg, double lon_deg) const {
    int zone = 0;
    bool north = true;
    double x = 0.0;
    double y = 0.0;
    try {
        GeographicLib::UTMUPS::Forward(lat_deg, lon_deg, zone, north, x, y);
        if (zone != m_zone || north != m_north) {
            // Into the origin's zone, as far as its padding reaches (UTMUPS::Transfer keeps the zone
            // asked for only where the point lies inside that zone's padding).
            int zoneAfter = 0;
            GeographicLib::UTMUPS::Transfer(zone, north, x, y, m_zone, m_north, x, y, zoneAfter);
            if (zoneAfter != m_zone) {
                return fail(std::string("beyond the padding of the origin's UTM zone"));
            }
        }
    } catch (const GeographicLib::GeographicErr& e) {
        return fail("cannot be projected to UTM: " + std::string(e.what()));
    }
    return Point2{x - m_offsetX_m, y - m_offsetY_m};
}

}  // namespace augur::runtime::scene
