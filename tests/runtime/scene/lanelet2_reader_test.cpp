#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "augur/runtime/scene/map_readers.hpp"
#include "scene_test_support.hpp"

namespace augur::runtime::scene {
namespace {

using testing::mapPath;
using testing::writeScratchFile;

constexpr double KMH = 1.0 / 3.6;
constexpr double TOLERANCE_M = 1e-6;
constexpr double LANE_WIDTH_M = 3.5;            // t_junction.osm: every lane is 3.5 m wide
constexpr double STEM_STOP_LINE_S_M = 44.0;     // stop line at y = −6 on the stem lane starting at y = −50
constexpr double EXAMPLE_ORIGIN_LAT_DEG = 49.0;  // the origin the Lanelet2 project uses for its example
constexpr double EXAMPLE_ORIGIN_LON_DEG = 8.4;

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

class TJunctionMap : public ::testing::Test {
protected:
    void SetUp() override {
        auto result = readLanelet2(mapPath("t_junction.osm"), Lanelet2Options{});
        ASSERT_TRUE(result.hasValue()) << result.error().describe();
        sut = std::move(result).value();
        for (const char* id : {"2001", "2002", "2003", "2004", "2005", "2006", "2007", "2008", "2009", "2010", "2011",
                               "2012", "2013"}) {
            const std::uint32_t lane = sut.findLane(id);
            ASSERT_NE(lane, NO_INDEX) << id;
            lanes[std::stoi(id) - 2001] = lane;
        }
    }
    std::uint32_t lane(int id) const { return lanes[id - 2001]; }
    std::vector<std::uint32_t> successors(int id) const {
        const auto s = sut.successors(lane(id));
        std::vector<std::uint32_t> out(s.begin(), s.end());
        std::sort(out.begin(), out.end());
        return out;
    }
    std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) const {
        std::sort(v.begin(), v.end());
        return v;
    }
    Priority priorityOf(int winner, int loser) const {
        const std::uint32_t c = sut.conflictBetween(lane(winner), lane(loser));
        EXPECT_NE(c, NO_INDEX) << winner << " vs " << loser;
        if (c == NO_INDEX) {
            return Priority::Unregulated;
        }
        if (sut.hasPriority(c, lane(winner))) {
            return lane(winner) == sut.conflicts()[c].first ? Priority::FirstHasPriority : Priority::SecondHasPriority;
        }
        return sut.conflicts()[c].priority;
    }
    bool wins(int winner, int loser) const {
        const std::uint32_t c = sut.conflictBetween(lane(winner), lane(loser));
        return c != NO_INDEX && sut.hasPriority(c, lane(winner));
    }
    RoadMap sut;
    std::uint32_t lanes[13]{};
};

TEST_F(TJunctionMap, ReadsEveryLaneletAsOneLaneWithCentrelineWidthAndSpeed) {
    EXPECT_EQ(sut.laneCount(), 13U);
    const Lane& eastbound = sut.lane(lane(2001));
    EXPECT_NEAR(eastbound.length_m, 40.0, TOLERANCE_M);
    EXPECT_NEAR(eastbound.width_m, LANE_WIDTH_M, TOLERANCE_M);
    EXPECT_NEAR(sut.centreline(lane(2001)).front().y_m, -1.75, TOLERANCE_M);
    EXPECT_NEAR(eastbound.speedLimit_mps, 50.0 * KMH, TOLERANCE_M);        // urban default
    EXPECT_NEAR(sut.lane(lane(2007)).speedLimit_mps, 30.0 * KMH, TOLERANCE_M);  // speed_limit tag
    // 2004 is drawn with bounds pointing east but its left bound (y = 0) lies left only when driving west.
    EXPECT_LT(sut.centreline(lane(2004)).back().x_m, sut.centreline(lane(2004)).front().x_m);
}

TEST_F(TJunctionMap, DerivesSuccessorsFromSharedBoundEndPoints) {
    EXPECT_EQ(successors(2007), sorted({lane(2009), lane(2010)}));
    EXPECT_EQ(successors(2001), sorted({lane(2002), lane(2011)}));
    EXPECT_EQ(successors(2004), sorted({lane(2005), lane(2012)}));
    EXPECT_EQ(successors(2009), std::vector<std::uint32_t>{lane(2003)});
    EXPECT_TRUE(successors(2013).empty());
    EXPECT_TRUE(successors(2003).empty());
    const auto preds = sut.predecessors(lane(2008));
    EXPECT_EQ(sorted({preds.begin(), preds.end()}), sorted({lane(2011), lane(2012)}));
}

TEST_F(TJunctionMap, NeighboursShareALineStringAndMayChangeOnlyAcrossDashedLines) {
    EXPECT_EQ(sut.lane(lane(2001)).right.lane, lane(2013));
    EXPECT_TRUE(sut.lane(lane(2001)).right.changeAllowed);
    EXPECT_EQ(sut.lane(lane(2013)).left.lane, lane(2001));
    EXPECT_TRUE(sut.lane(lane(2013)).left.changeAllowed);
    // The solid centre line separates opposite directions: no neighbour at all.
    EXPECT_EQ(sut.lane(lane(2001)).left.lane, NO_INDEX);
    EXPECT_EQ(sut.lane(lane(2006)).left.lane, NO_INDEX);
}

TEST(Lanelet2Reader, SolidLineForbidsAndSolidDashedAllowsOnlyFromTheDashedSide) {
    const std::string text = readFile(mapPath("t_junction.osm"));
    const std::string dashed = "<tag k='subtype' v='dashed' />";
    ASSERT_NE(text.find(dashed), std::string::npos);
    auto variant = [&](const std::string& subtype) {
        std::string t = text;
        t.replace(t.find(dashed), dashed.size(), "<tag k='subtype' v='" + subtype + "' />");
        return readLanelet2(writeScratchFile("t_" + subtype + ".osm", t), Lanelet2Options{});
    };
    auto solid = variant("solid");
    ASSERT_TRUE(solid.hasValue());
    EXPECT_FALSE(solid->lane(solid->findLane("2001")).right.changeAllowed);
    EXPECT_FALSE(solid->lane(solid->findLane("2013")).left.changeAllowed);
    // Way 1002 runs east; 2001 lies on its left (solid side), 2013 on its right (dashed side).
    auto solidDashed = variant("solid_dashed");
    ASSERT_TRUE(solidDashed.hasValue());
    EXPECT_FALSE(solidDashed->lane(solidDashed->findLane("2001")).right.changeAllowed);
    EXPECT_TRUE(solidDashed->lane(solidDashed->findLane("2013")).left.changeAllowed);
    auto dashedSolid = variant("dashed_solid");
    ASSERT_TRUE(dashedSolid.hasValue());
    EXPECT_TRUE(dashedSolid->lane(dashedSolid->findLane("2001")).right.changeAllowed);
    EXPECT_FALSE(dashedSolid->lane(dashedSolid->findLane("2013")).left.changeAllowed);
}

TEST_F(TJunctionMap, FindsCrossingsAndMergesAtTheJunction) {
    EXPECT_EQ(sut.conflicts().size(), 6U);
    const auto kindOf = [&](int a, int b) { return sut.conflicts()[sut.conflictBetween(lane(a), lane(b))].kind; };
    ASSERT_NE(sut.conflictBetween(lane(2010), lane(2002)), NO_INDEX);
    EXPECT_EQ(kindOf(2010, 2002), ConflictKind::Crossing);  // stem left turn over the eastbound lane
    EXPECT_EQ(kindOf(2012, 2002), ConflictKind::Crossing);  // westbound left turn over the eastbound lane
    EXPECT_EQ(kindOf(2012, 2010), ConflictKind::Crossing);  // the two left turns
    EXPECT_EQ(kindOf(2009, 2002), ConflictKind::Merge);     // into 2003
    EXPECT_EQ(kindOf(2010, 2005), ConflictKind::Merge);     // into 2006
    EXPECT_EQ(kindOf(2011, 2012), ConflictKind::Merge);     // into 2008
    // Diverging lanes (common start) never conflict.
    EXPECT_EQ(sut.conflictBetween(lane(2009), lane(2010)), NO_INDEX);
    EXPECT_EQ(sut.conflictBetween(lane(2002), lane(2011)), NO_INDEX);
}

TEST_F(TJunctionMap, RightOfWayRuleGivesTheMainRoadPriorityOverTheStem) {
    EXPECT_TRUE(wins(2002, 2010));  // governed through predecessors 2001 (right of way) and 2007 (yield)
    EXPECT_TRUE(wins(2002, 2009));
    EXPECT_TRUE(wins(2005, 2010));
    EXPECT_TRUE(wins(2012, 2010));
    EXPECT_FALSE(wins(2010, 2002));
    // Both from right-of-way approaches: the map says nothing.
    EXPECT_EQ(priorityOf(2012, 2002), Priority::Unregulated);
    EXPECT_EQ(priorityOf(2011, 2012), Priority::Unregulated);
}

TEST_F(TJunctionMap, PlacesTheRefLineOfTheRuleAsStopLineOnTheYieldingLane) {
    EXPECT_NEAR(sut.lane(lane(2007)).stopLine_s, STEM_STOP_LINE_S_M, 1e-3);
    EXPECT_LT(sut.lane(lane(2001)).stopLine_s, 0.0);  // right of way: no stop line
    EXPECT_EQ(sut.summary().stopLines, 1U);
    EXPECT_EQ(sut.summary().rightOfWayRules, 1U);
}

TEST_F(TJunctionMap, GroupsConflictingLanesIntoOneJunction) {
    ASSERT_EQ(sut.junctions().size(), 1U);
    const auto members = sut.junctionLanes(0);
    EXPECT_EQ(sorted({members.begin(), members.end()}),
              sorted({lane(2002), lane(2005), lane(2009), lane(2010), lane(2011), lane(2012)}));
    EXPECT_EQ(sut.lane(lane(2001)).junction, NO_INDEX);
}

class ExampleMap : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        auto result = readLanelet2(mapPath("lanelet2_mapping_example.osm"),
                                   Lanelet2Options{EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG});
        ASSERT_TRUE(result.hasValue()) << result.error().describe();
        s_map = new RoadMap(std::move(result).value());
    }
    static void TearDownTestSuite() {
        delete s_map;
        s_map = nullptr;
    }
    static RoadMap* s_map;
};
RoadMap* ExampleMap::s_map = nullptr;

TEST_F(ExampleMap, ReadsEveryVehicleLaneletOncePerDirection) {
    // 371 lanelets: 26 for pedestrians, bicycles or rail (skipped, counted); 345 for vehicles, of
    // which 77 are two-way (one_way=no) and give a second, reversed lane.
    constexpr std::uint32_t VEHICLE_LANELETS = 345;
    constexpr std::uint32_t TWO_WAY_LANELETS = 77;
    constexpr std::uint32_t NON_VEHICLE_LANELETS = 26;
    ASSERT_NE(s_map, nullptr);
    EXPECT_EQ(s_map->laneCount(), VEHICLE_LANELETS + TWO_WAY_LANELETS);
    EXPECT_EQ(s_map->summary().skippedNonVehicle, NON_VEHICLE_LANELETS);
    EXPECT_GT(s_map->summary().warnings, 0U);  // multipolygon areas: unsupported, counted
}

TEST_F(ExampleMap, ReadsTheRegulatoryElements) {
    ASSERT_NE(s_map, nullptr);
    const auto& s = s_map->summary();
    EXPECT_EQ(s.rightOfWayRules, 2U);
    EXPECT_EQ(s.trafficLights, 6U);
    EXPECT_EQ(s.speedLimits, 1U);  // sign de274_1 (30 km/h zone)
    EXPECT_EQ(s.regulatoryElements, 9U);
    EXPECT_GE(s_map->lane(s_map->findLane("45014")).stopLine_s, 0.0);  // yields under rule 45230
}

TEST_F(ExampleMap, HasConsistentTopologyAndGeometry) {
    ASSERT_NE(s_map, nullptr);
    constexpr double MAX_GAP_M = 0.5;
    std::vector<double> widths;
    for (std::uint32_t l = 0; l < s_map->laneCount(); ++l) {
        const Lane& lane = s_map->lane(l);
        EXPECT_GT(lane.length_m, 0.0);
        EXPECT_GT(lane.width_m, 1.0) << s_map->laneId(l);
        widths.push_back(lane.width_m);
        for (const std::uint32_t next : s_map->successors(l)) {
            const Point2 end = s_map->centreline(l).back();
            const Point2 start = s_map->centreline(next).front();
            EXPECT_LT(std::hypot(end.x_m - start.x_m, end.y_m - start.y_m), MAX_GAP_M) << s_map->laneId(l);
        }
        if (lane.left.lane != NO_INDEX) {
            EXPECT_EQ(s_map->lane(lane.left.lane).right.lane, l) << s_map->laneId(l);
        }
    }
    // A few lanelets of the example are far from a plain lane (one's right bound runs 100 m past its
    // left bound); the typical lane is an urban lane, or a two-way lanelet spanning a narrow street.
    std::nth_element(widths.begin(), widths.begin() + static_cast<std::ptrdiff_t>(widths.size() / 2), widths.end());
    EXPECT_GT(widths[widths.size() / 2], 2.5);
    EXPECT_LT(widths[widths.size() / 2], 6.0);
}

TEST_F(ExampleMap, EveryRegulatedConflictHasTheYieldingLaneBehindAYieldLanelet) {
    ASSERT_NE(s_map, nullptr);
    const std::vector<std::string> yieldLanelets = {"45014", "45016", "45134", "45136"};  // rules 45230, 45236
    std::uint32_t regulated = 0;
    for (std::uint32_t c = 0; c < s_map->conflicts().size(); ++c) {
        const Conflict& conflict = s_map->conflicts()[c];
        if (conflict.priority != Priority::FirstHasPriority && conflict.priority != Priority::SecondHasPriority) {
            continue;
        }
        ++regulated;
        const std::uint32_t loser = conflict.priority == Priority::FirstHasPriority ? conflict.second : conflict.first;
        std::vector<std::uint32_t> frontier{loser};
        bool found = false;
        for (int hop = 0; hop <= 3 && !found; ++hop) {
            std::vector<std::uint32_t> next;
            for (const std::uint32_t l : frontier) {
                found = found || std::find(yieldLanelets.begin(), yieldLanelets.end(), s_map->laneId(l)) != yieldLanelets.end();
                const auto preds = s_map->predecessors(l);
                next.insert(next.end(), preds.begin(), preds.end());
            }
            frontier = next;
        }
        EXPECT_TRUE(found) << s_map->laneId(loser);
    }
    EXPECT_GT(regulated, 0U);
}

TEST(Lanelet2Reader, WithoutOriginTheFirstNodeIsTheOrigin) {
    auto result = readLanelet2(mapPath("lanelet2_mapping_example.osm"), Lanelet2Options{});
    ASSERT_TRUE(result.hasValue());
    auto shifted = readLanelet2(mapPath("lanelet2_mapping_example.osm"),
                                Lanelet2Options{EXAMPLE_ORIGIN_LAT_DEG, EXAMPLE_ORIGIN_LON_DEG});
    ASSERT_TRUE(shifted.hasValue());
    // Same geometry, different offset: lane lengths agree to the projection's accuracy.
    for (std::uint32_t l = 0; l < result->laneCount(); l += 37) {
        EXPECT_NEAR(result->lane(l).length_m, shifted->lane(l).length_m, 0.01 * result->lane(l).length_m + 0.01);
    }
    EXPECT_GT(std::abs(result->minCorner().x_m - shifted->minCorner().x_m), 100.0);
}

struct MalformedCase {
    const char* name;
    const char* body;  // inside <osm>
    MapErrorCode code;
    const char* elementId;
    std::uint32_t line;
};

constexpr const char* NODES =
    "<node id='1' lat='49.0' lon='8.4'/>\n<node id='2' lat='49.0' lon='8.4001'/>\n"
    "<node id='3' lat='49.00003' lon='8.4'/>\n<node id='4' lat='49.00003' lon='8.4001'/>\n"
    "<way id='10'><nd ref='1'/><nd ref='2'/></way>\n<way id='11'><nd ref='3'/><nd ref='4'/></way>\n";

TEST(Lanelet2Reader, MalformedContentNamesFileLineAndElement) {
    const MalformedCase cases[] = {
        {"dangling_node", "<node id='1' lat='49' lon='8'/>\n<way id='7'><nd ref='1'/><nd ref='99'/></way>\n",
         MapErrorCode::DanglingReference, "way 7", 3},
        {"one_bound",
         "<relation id='9'><member type='way' ref='10' role='left'/><tag k='type' v='lanelet'/></relation>\n",
         MapErrorCode::MissingAttribute, "relation 9", 8},
        {"missing_way",
         "<relation id='9'><member type='way' ref='10' role='left'/><member type='way' ref='55' role='right'/>"
         "<tag k='type' v='lanelet'/></relation>\n",
         MapErrorCode::DanglingReference, "relation 9", 8},
        {"bad_speed",
         "<relation id='9'><member type='way' ref='11' role='left'/><member type='way' ref='10' role='right'/>"
         "<tag k='type' v='lanelet'/><tag k='speed_limit' v='fast'/></relation>\n",
         MapErrorCode::BadValue, "relation 9", 8},
        {"infinite_speed",  // found by the fuzz test
         "<relation id='9'><member type='way' ref='11' role='left'/><member type='way' ref='10' role='right'/>"
         "<tag k='type' v='lanelet'/><tag k='speed_limit' v='infinity'/></relation>\n",
         MapErrorCode::BadValue, "relation 9", 8},
        {"bound_over_100_km",  // found by the fuzz test: a point per 5 m of a 4000 km bound took gigabytes
         "<node id='21' lat='49.0' lon='8.4'/>\n<node id='22' lat='50.0' lon='8.4'/>\n"
         "<node id='23' lat='49.0' lon='8.4001'/>\n<node id='24' lat='50.0' lon='8.4001'/>\n"
         "<way id='30'><nd ref='21'/><nd ref='22'/></way>\n<way id='31'><nd ref='23'/><nd ref='24'/></way>\n"
         "<relation id='9'><member type='way' ref='30' role='left'/><member type='way' ref='31' role='right'/>"
         "<tag k='type' v='lanelet'/></relation>\n",
         MapErrorCode::BadGeometry, "relation 9", 14},
        {"no_latlon", "<node id='5'/>\n", MapErrorCode::MissingAttribute, "node 5", 2},
        {"bad_lat", "<node id='5' lat='north' lon='8'/>\n", MapErrorCode::BadValue, "node 5", 2},
        {"duplicate", "<node id='5' lat='49' lon='8'/>\n<node id='5' lat='49' lon='8'/>\n", MapErrorCode::DuplicateId,
         "node 5", 3},
        {"mixed_frames",
         "<node id='5' lat='49' lon='8'/>\n<node id='6'><tag k='local_x' v='1'/><tag k='local_y' v='2'/></node>\n",
         MapErrorCode::BadValue, "node 6", 3},
        {"absurd_local_x", "<node id='5'><tag k='local_x' v='1e300'/><tag k='local_y' v='0'/></node>\n",
         MapErrorCode::BadValue, "node 5", 2},
        {"absurd_latitude", "<node id='5' lat='1e300' lon='8'/>\n", MapErrorCode::BadValue, "node 5", 2},
    };
    for (const MalformedCase& c : cases) {
        const bool needsNodes = std::string(c.body).find("relation") != std::string::npos;
        const std::string text = std::string("<osm version='0.6'>\n") + (needsNodes ? NODES : "") + c.body + "</osm>\n";
        const std::string path = writeScratchFile(std::string(c.name) + ".osm", text);
        auto result = readLanelet2(path, Lanelet2Options{});
        ASSERT_TRUE(result.hasError()) << c.name;
        EXPECT_EQ(result.error().code, c.code) << c.name << ": " << result.error().describe();
        EXPECT_EQ(result.error().elementId, c.elementId) << c.name;
        EXPECT_EQ(result.error().line, c.line) << c.name;
        EXPECT_EQ(result.error().file, path);
        EXPECT_NE(result.error().describe().find(c.elementId), std::string::npos);
    }
}

TEST(Lanelet2Reader, OriginOutsideLatitudeAndLongitudeRangesIsABadValue) {
    const std::string path = writeScratchFile("origin.osm", std::string("<osm version='0.6'>\n") + NODES + "</osm>\n");
    for (const Lanelet2Options origin : {Lanelet2Options{1e300, 8.0}, Lanelet2Options{49.0, -180.5},
                                         Lanelet2Options{std::nan(""), std::numeric_limits<double>::infinity()}}) {
        auto result = readLanelet2(path, origin);
        ASSERT_TRUE(result.hasError());
        EXPECT_EQ(result.error().code, MapErrorCode::BadValue);
        EXPECT_EQ(result.error().elementId, "origin");
        EXPECT_NE(result.error().message.find("[-90, 90]"), std::string::npos) << result.error().message;
    }
}

TEST(Lanelet2Reader, RejectsNonOsmXmlErrorsAndMapsWithoutLanes) {
    auto wrongRoot = readLanelet2(writeScratchFile("root.osm", "<net/>"), Lanelet2Options{});
    ASSERT_TRUE(wrongRoot.hasError());
    EXPECT_EQ(wrongRoot.error().code, MapErrorCode::WrongFormat);
    auto broken = readLanelet2(writeScratchFile("broken.osm", "<osm>\n<node id='1'>\n</osm>"), Lanelet2Options{});
    ASSERT_TRUE(broken.hasError());
    EXPECT_EQ(broken.error().code, MapErrorCode::Xml);
    EXPECT_EQ(broken.error().line, 3U);
    auto empty = readLanelet2(writeScratchFile("empty.osm", "<osm version='0.6'/>"), Lanelet2Options{});
    ASSERT_TRUE(empty.hasError());
    EXPECT_EQ(empty.error().code, MapErrorCode::Empty);
    auto missing = readLanelet2("/nonexistent/map.osm", Lanelet2Options{});
    ASSERT_TRUE(missing.hasError());
    EXPECT_EQ(missing.error().code, MapErrorCode::Io);
}

TEST(Lanelet2Reader, CountsUnsupportedRegulatoryElementsAsWarnings) {
    const std::string text = std::string("<osm version='0.6'>\n") + NODES +
                             "<relation id='9'><member type='way' ref='11' role='left'/>"
                             "<member type='way' ref='10' role='right'/><tag k='type' v='lanelet'/></relation>\n"
                             "<relation id='20'><tag k='type' v='regulatory_element'/><tag k='subtype' v='roundabout_sign'/></relation>\n"
                             "</osm>\n";
    auto result = readLanelet2(writeScratchFile("unsupported.osm", text), Lanelet2Options{});
    ASSERT_TRUE(result.hasValue()) << result.error().describe();
    EXPECT_EQ(result->laneCount(), 1U);
    EXPECT_EQ(result->summary().warnings, 1U);
    EXPECT_EQ(result->summary().regulatoryElements, 0U);
}

TEST(MapReader, ChoosesTheReaderByExtension) {
    auto lanelet = readMap(mapPath("t_junction.osm"), Lanelet2Options{});
    ASSERT_TRUE(lanelet.hasValue());
    EXPECT_EQ(lanelet->laneCount(), 13U);
    auto unknown = readMap("map.geojson", Lanelet2Options{});
    ASSERT_TRUE(unknown.hasError());
    EXPECT_EQ(unknown.error().code, MapErrorCode::WrongFormat);
}

}  // namespace
}  // namespace augur::runtime::scene
