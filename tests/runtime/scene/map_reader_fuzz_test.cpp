// Fuzzing the XML reader and the Lanelet2 and SUMO map readers with mutations of committed maps:
// every input gives either a map whose tables are consistent (indices in range, at least two points per
// lane, finite coordinates, lengths and speeds) or an error naming the file, and nothing crashes or hangs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/xml_document.hpp"
#include "augur/testing/fuzz_loop.hpp"

namespace augur::runtime::scene {
namespace {

using augur::testing::FuzzBudget;
using augur::testing::FuzzCorpus;

const std::vector<std::string> XML_TOKENS = {
    "<", ">", "/>", "</", "=\"", "\"", "'", "&amp;", "&lt;", "&#0;", "&#x10FFFF;", "&#xD800;", "&#99999999999;",
    "&bogus;", "<!--", "-->", "<![CDATA[", "]]>", "<?xml version=\"1.0\"?>", "<!DOCTYPE x>", "\n", " ",
    "<tag k=\"type\" v=\"lanelet\"/>", "<tag k=\"subtype\" v=\"road\"/>", "<member type=\"way\" ref=\"1\" role=\"left\"/>",
    "<nd ref=\"1\"/>", "<node id=\"1\" lat=\"0\" lon=\"0\"/>", "shape=\"", "0,0 1,1", " 1e308,1e308", ",",
    "<lane id=\"x\" index=\"0\" speed=\"13\" length=\"1\" shape=\"0,0 1,0\"/>", "<connection from=\"", "via=\"",
    "response=\"", "foes=\"", "111", "000",
};

/// A scratch file of this process (tests of other build trees may run at the same time).
std::string scratchPath(const std::string& fileName) {
    return ::testing::TempDir() + std::to_string(::getpid()) + "-" + fileName;
}

const std::string& writeInput(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
    return path;
}

bool finite(Point2 p) { return std::isfinite(p.x_m) && std::isfinite(p.y_m); }

/// The tables of a successfully read map agree with each other and hold finite numbers.
void expectConsistent(const RoadMap& map) {
    const std::size_t lanes = map.laneCount();
    ASSERT_GT(lanes, 0U);
    for (std::uint32_t l = 0; l < lanes; ++l) {
        const Lane& lane = map.lane(l);
        ASSERT_GE(lane.pointCount, 2U) << "lane " << l;
        ASSERT_LE(std::size_t{lane.firstPoint} + lane.pointCount, map.points().size()) << "lane " << l;
        for (const Point2& p : map.centreline(l)) {
            ASSERT_TRUE(finite(p)) << "lane " << l;
        }
        const auto s = map.centrelineS(l);
        for (std::size_t k = 1; k < s.size(); ++k) {
            ASSERT_TRUE(std::isfinite(s[k]) && s[k] >= s[k - 1]) << "lane " << l << " point " << k;
        }
        EXPECT_TRUE(std::isfinite(lane.length_m) && lane.length_m > 0.0) << "lane " << l << ": " << lane.length_m;
        EXPECT_TRUE(std::isfinite(lane.width_m) && lane.width_m >= 0.0) << "lane " << l << ": " << lane.width_m;
        EXPECT_TRUE(std::isfinite(lane.speedLimit_mps) && lane.speedLimit_mps >= 0.0)
            << "lane " << l << ": " << lane.speedLimit_mps;
        EXPECT_TRUE(std::isfinite(lane.stopLine_s)) << "lane " << l;
        for (const std::uint32_t next : map.successors(l)) {
            ASSERT_LT(next, lanes) << "lane " << l;
        }
        for (const std::uint32_t previous : map.predecessors(l)) {
            ASSERT_LT(previous, lanes) << "lane " << l;
        }
        for (const Neighbour n : {lane.left, lane.right}) {
            ASSERT_TRUE(n.lane == NO_INDEX || n.lane < lanes) << "lane " << l;
        }
        ASSERT_TRUE(lane.junction == NO_INDEX || lane.junction < map.junctions().size()) << "lane " << l;
        for (const std::uint32_t c : map.laneConflicts(l)) {
            ASSERT_LT(c, map.conflicts().size()) << "lane " << l;
        }
        for (const double at : {0.0, 0.5 * lane.length_m, lane.length_m}) {
            Point2 p;
            double heading_rad = 0.0;
            map.pointAt(l, at, p, heading_rad);
            EXPECT_TRUE(finite(p) && std::isfinite(heading_rad)) << "lane " << l << " s " << at;
        }
    }
    for (const Conflict& c : map.conflicts()) {
        ASSERT_TRUE(c.first < lanes && c.second < lanes);
        EXPECT_TRUE(std::isfinite(c.firstS_m) && std::isfinite(c.secondS_m) && finite(c.point));
    }
    for (std::uint32_t j = 0; j < map.junctions().size(); ++j) {
        EXPECT_TRUE(finite(map.junctions()[j].centre));
        for (const std::uint32_t lane : map.junctionLanes(j)) {
            ASSERT_LT(lane, lanes);
        }
    }
    EXPECT_TRUE(finite(map.minCorner()) && finite(map.maxCorner()));
}

void expectMapOrError(const Result<RoadMap, MapError>& read) {
    if (read.hasError()) {
        EXPECT_FALSE(read.error().message.empty());
        EXPECT_FALSE(read.error().describe().empty());
        return;
    }
    expectConsistent(read.value());
}

TEST(XmlDocumentFuzz, MutatedMapsParseOrFailWithALine) {
    const FuzzCorpus corpus = FuzzCorpus::fromFiles(
        {"tests/data/maps/t_junction.osm", "data/scenarios/intersection-4way/map.net.xml"});
    FuzzBudget budget;
    budget.iterations = 4000;
    const auto report = augur::testing::fuzzText("xml", corpus, budget, XML_TOKENS, [](const std::string& input) {
        const auto parsed = XmlDocument::parse(input, "fuzz.xml");
        if (parsed.hasError()) {
            EXPECT_FALSE(parsed.error().message.empty());
            return;
        }
        const XmlDocument& document = parsed.value();
        ASSERT_GT(document.elementCount(), 0U);
        for (std::uint32_t i = 0; i < document.elementCount(); ++i) {
            const auto& element = document.element(i);
            EXPECT_FALSE(element.name.empty());
            ASSERT_TRUE(element.parent == XmlDocument::NONE || element.parent < i);
            ASSERT_TRUE(element.firstChild == XmlDocument::NONE || element.firstChild > i);
            ASSERT_TRUE(element.nextSibling == XmlDocument::NONE || element.nextSibling > i);
            ASSERT_LE(document.attributesBegin(i), document.attributesEnd(i));
        }
    });
    EXPECT_GT(report.iterations, 0U);
}

TEST(Lanelet2ReaderFuzz, MutatedMapsGiveAConsistentMapOrAnError) {
    const FuzzCorpus corpus = FuzzCorpus::fromFiles({"tests/data/maps/t_junction.osm"});
    FuzzBudget budget;
    budget.iterations = 2000;
    const std::string path = scratchPath("fuzz-map.osm");
    const auto report = augur::testing::fuzzText("lanelet2", corpus, budget, XML_TOKENS, [&](const std::string& input) {
        expectMapOrError(readLanelet2(writeInput(path, input), Lanelet2Options{}));
    });
    std::filesystem::remove(path);
    EXPECT_GT(report.iterations, 0U);
}

TEST(SumoReaderFuzz, MutatedNetsGiveAConsistentMapOrAnError) {
    const FuzzCorpus corpus = FuzzCorpus::fromFiles({"data/scenarios/intersection-4way/map.net.xml"});
    FuzzBudget budget;
    budget.iterations = 2000;
    const std::string path = scratchPath("fuzz-map.net.xml");
    const auto report = augur::testing::fuzzText("sumo", corpus, budget, XML_TOKENS, [&](const std::string& input) {
        expectMapOrError(readSumoNet(writeInput(path, input)));
    });
    std::filesystem::remove(path);
    EXPECT_GT(report.iterations, 0U);
}

}  // namespace
}  // namespace augur::runtime::scene
