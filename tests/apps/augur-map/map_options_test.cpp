// augur-map's command line: every option parsed, and each out-of-range value named with its range.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "map_options.hpp"

namespace augur::tools {
namespace {

constexpr double DEG = 3.14159265358979323846 / 180.0;

std::string parseError(const std::vector<std::string>& args) {
    auto result = parseMapOptions(args);
    EXPECT_TRUE(result.hasError());
    return result.hasError() ? result.error() : "";
}

TEST(MapToolOptions, ParsesEveryOption) {
    const auto sut = parseMapOptions({"m.osm", "--origin", "49,8.4", "--pose", "10,-20,90,8", "--horizon", "5", "--svg",
                                      "out.svg", "--window", "-1,-2,3,4"});
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    EXPECT_EQ(sut->mapPath, "m.osm");
    EXPECT_EQ(sut->lanelet2.originLat_deg, 49.0);
    EXPECT_EQ(sut->lanelet2.originLon_deg, 8.4);
    ASSERT_TRUE(sut->havePose);
    EXPECT_EQ(sut->pose.x_m, 10.0F);
    EXPECT_EQ(sut->pose.y_m, -20.0F);
    EXPECT_FLOAT_EQ(sut->pose.heading_rad, static_cast<float>(90.0 * DEG));
    EXPECT_EQ(sut->pose.speed_mps, 8.0F);
    EXPECT_EQ(sut->horizon_s, 5.0);
    EXPECT_EQ(sut->svgPath, "out.svg");
    ASSERT_TRUE(sut->haveWindow);
    EXPECT_EQ(sut->window.max.y_m, 4.0);
}

TEST(MapToolOptions, DefaultsLeaveTheOriginToTheFileAndThePoseAtTenMetresPerSecond) {
    const auto plain = parseMapOptions({"m.net.xml"});
    ASSERT_TRUE(plain.hasValue());
    EXPECT_TRUE(std::isnan(plain->lanelet2.originLat_deg));
    EXPECT_FALSE(plain->havePose);
    EXPECT_FALSE(plain->haveWindow);
    const auto pose = parseMapOptions({"m.net.xml", "--pose", "1,2,3"});
    ASSERT_TRUE(pose.hasValue());
    EXPECT_EQ(pose->pose.speed_mps, 10.0F);
}

TEST(MapToolOptions, OutOfRangeValuesAreNamedWithTheirRanges) {
    struct Case {
        std::vector<std::string> args;
        const char* message;
    };
    const Case cases[] = {
        {{"m.osm", "--origin", "1e300,8"}, "--origin: '1e300,8' is not LAT,LON with LAT in [-90, 90] and LON in [-180, 180]"},
        {{"m.osm", "--origin", "49"}, "--origin: '49' is not LAT,LON"},
        {{"m.osm", "--pose", "1e300,0,0"}, "--pose: '1e300,0,0' is not X,Y,HEADING_DEG[,SPEED_MPS] with X, Y in [-2e7, 2e7] m"},
        {{"m.osm", "--pose", "0,0,720"}, "HEADING_DEG in [-360, 360]"},
        {{"m.osm", "--pose", "0,0,0,-1"}, "SPEED_MPS in [0, 100]"},
        {{"m.osm", "--pose", "0,nan,0"}, "--pose: '0,nan,0' is not"},
        {{"m.osm", "--horizon", "0"}, "--horizon: '0' is not a number in (0, 600]"},
        {{"m.osm", "--window", "0,0,1e300,1"}, "--window: '0,0,1e300,1' is not X0,Y0,X1,Y1"},
        {{"m.osm", "--window", "5,0,1,1"}, "X0 < X1 and Y0 < Y1"},
        {{"--pose", "0,0,0"}, "map is required"},
        {{"m.osm", "--frobnicate"}, "--frobnicate"},
    };
    for (const Case& c : cases) {
        const std::string error = parseError(c.args);
        EXPECT_NE(error.find(c.message), std::string::npos) << error;
    }
}

TEST(MapToolOptions, CoordinatesAtTheRangeLimitAreAccepted) {
    const auto sut = parseMapOptions({"m.net.xml", "--window", "-2e7,-2e7,2e7,2e7"});
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    EXPECT_EQ(sut->window.min.x_m, -runtime::scene::MAX_MAP_COORDINATE_M);
}

TEST(MapToolOptions, HelpNeedsNoMap) {
    const auto sut = parseMapOptions({"--help"});
    ASSERT_TRUE(sut.hasValue()) << sut.error();
    EXPECT_TRUE(sut->help);
    EXPECT_NE(mapUsage().find("--window"), std::string::npos);
}

}  // namespace
}  // namespace augur::tools
