// The Lanelet2 UTM projection against expected values computed independently of GeographicLib:
// Krüger's series to order n^6 (Karney, "Transverse Mercator with an accuracy of a few nanometers",
// J. Geodesy 85, 2011, eqs. 7-9 and 35), WGS-84, k0 = 0.9996, in the origin's zone, minus the origin.
#include "augur/runtime/scene/utm_projector.hpp"

#include <gtest/gtest.h>

namespace augur::runtime::scene {
namespace {

constexpr double TOLERANCE_M = 1e-3;
constexpr double EXAMPLE_ORIGIN_LAT_DEG = 49.0;  // the origin of Lanelet2's example map
constexpr double EXAMPLE_ORIGIN_LON_DEG = 8.4;

struct Case {
    const char* what;
    double originLat_deg;
    double originLon_deg;
    double lat_deg;
    double lon_deg;
    double x_m;
    double y_m;
};

TEST(UtmProjector, MatchesTheTransverseMercatorSeriesRelativeToTheOrigin) {
    const Case cases[] = {
        {"the origin itself", EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG, 49.0, 8.4, 0.0, 0.0},
        {"north-east of the origin", EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG, 49.01, 8.42, 1471.333541,
         1100.276664},
        {"south-west of the origin", EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG, 48.99, 8.38, -1471.917221,
         -1099.888215},
        {"in the next zone, transferred into the origin's", 49.0, 11.9, 49.0, 12.3, 29251.061615, 1195.605068},
        {"southern hemisphere", -33.9, 151.2, -33.95, 151.25, 4718.189270, -5464.899731},
        {"across the equator, in the origin's hemisphere", 0.001, 8.4, -0.001, 8.4, 0.0, -221.072295},
    };
    for (const Case& c : cases) {
        auto sut = UtmProjector::create(c.originLat_deg, c.originLon_deg);
        ASSERT_TRUE(sut.hasValue()) << c.what << ": " << sut.error();
        const auto point = sut->forward(c.lat_deg, c.lon_deg);
        ASSERT_TRUE(point.hasValue()) << c.what << ": " << point.error();
        EXPECT_NEAR(point->x_m, c.x_m, TOLERANCE_M) << c.what;
        EXPECT_NEAR(point->y_m, c.y_m, TOLERANCE_M) << c.what;
    }
}

TEST(UtmProjector, TheOriginsZoneAndHemisphereAreKept) {
    constexpr int ZONE_OF_8_4_EAST = 32;  // 6° to 12° east
    auto sut = UtmProjector::create(EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG);
    ASSERT_TRUE(sut.hasValue());
    EXPECT_EQ(sut->zone(), ZONE_OF_8_4_EAST);
    EXPECT_TRUE(sut->northernHemisphere());
}

TEST(UtmProjector, APointFarBeyondTheOriginsZoneIsAnError) {
    auto sut = UtmProjector::create(EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG);
    ASSERT_TRUE(sut.hasValue());
    const auto point = sut->forward(EXAMPLE_ORIGIN_LAT_DEG, 40.0);  // about 2,300 km east of the zone's edge
    ASSERT_TRUE(point.hasError());
    EXPECT_FALSE(point.error().empty());
}

TEST(UtmProjector, AnOriginOutsideTheLatitudeRangeIsAnError) {
    EXPECT_TRUE(UtmProjector::create(91.0, 0.0).hasError());
}

}  // namespace
}  // namespace augur::runtime::scene
