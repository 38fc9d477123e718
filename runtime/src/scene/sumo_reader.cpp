// SUMO network reader (see map_readers.hpp and docs/design/maps.md).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/road_map_builder.hpp"
#include "augur/runtime/scene/xml_document.hpp"

namespace augur::runtime::scene {

namespace {

constexpr double SUMO_DEFAULT_LANE_WIDTH_M = 3.2;  // SUMO's default lane width

bool parseNumber(const std::string& text, double& out) {
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0' && std::isfinite(out);
}

/// An integer in [0, max] (SUMO writes indices as integers; "1.5", "-1" or "1e9" are errors).
bool parseIndex(const std::string& text, int max, int& out) {
    double value = 0.0;
    if (!parseNumber(text, value) || value < 0.0 || value > static_cast<double>(max) || value != std::floor(value)) {
        return false;
    }
    out = static_cast<int>(value);
    return true;
}

/// Parses "x,y[,z] x,y[,z] …" into `out`; an empty string when it is a list of at least two points within
/// ±MAX_MAP_COORDINATE_M, else what is wrong.
std::string parseShape(const std::string& text, std::vector<Point2>& out) {
    std::istringstream in(text);
    std::string token;
    while (in >> token) {
        const std::size_t comma = token.find(',');
        if (comma == std::string::npos) {
            return "shape is not a list of at least two x,y points";
        }
        const std::size_t comma2 = token.find(',', comma + 1);  // optional z
        double x = 0.0;
        double y = 0.0;
        if (!parseNumber(token.substr(0, comma), x) ||
            !parseNumber(token.substr(comma + 1, comma2 == std::string::npos ? std::string::npos : comma2 - comma - 1), y)) {
            return "shape is not a list of at least two x,y points";
        }
        if (std::abs(x) > MAX_MAP_COORDINATE_M || std::abs(y) > MAX_MAP_COORDINATE_M) {
            return "shape point '" + token + "' is beyond the coordinate range [-2e7, 2e7] m";
        }
        out.push_back(Point2{x, y});
    }
    return out.size() >= 2 ? std::string() : std::string("shape is not a list of at least two x,y points");
}

std::vector<std::string> split(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    std::string token;
    while (in >> token) {
        out.push_back(token);
    }
    return out;
}

bool listsPassengerCars(const std::string& classes) {
    for (const auto& c : split(classes)) {
        if (c == "passenger" || c == "all" || c == "private") {
            return true;
        }
    }
    return false;
}

/// A lane-change attribute (changeLeft/changeRight) lists the classes that MAY change; absent → all.
bool laneChangePermitted(const std::string* attribute) { return attribute == nullptr || listsPassengerCars(*attribute); }

struct JunctionLogic {
    std::vector<std::string> response;  // per link index, SUMO order (rightmost char = link 0)
};

class SumoReader {
public:
    explicit SumoReader(const XmlDocument& doc) : m_doc(doc), m_builder(doc.fileName()) {}

    Result<RoadMap, MapError> run() {
        const std::uint32_t root = m_doc.root();
        if (m_doc.element(root).name != "net") {
            return fail(error(MapErrorCode::WrongFormat, root, "", "root element is <" + m_doc.element(root).name +
                                                                       ">, not <net>"));
        }
        for (std::uint32_t e = m_doc.element(root).firstChild; e != XmlDocument::NONE; e = m_doc.element(e).nextSibling) {
            const std::string& name = m_doc.element(e).name;
            if (name == "edge") {
                if (auto r = readEdge(e); r.hasError()) {
                    return fail(r.error());
                }
            }
        }
        for (std::uint32_t e = m_doc.element(root).firstChild; e != XmlDocument::NONE; e = m_doc.element(e).nextSibling) {
            const std::string& name = m_doc.element(e).name;
            if (name == "junction") {
                if (auto r = readJunction(e); r.hasError()) {
                    return fail(r.error());
                }
            } else if (name == "tlLogic") {
                ++m_builder.summary().trafficLights;
                ++m_builder.summary().regulatoryElements;
            } else if (name != "edge" && name != "connection" && name != "location" && name != "type" &&
                       name != "roundabout") {
                ++m_builder.summary().warnings;  // e.g. <prohibition>, <neigh>, <param>: not used
            }
        }
        for (std::uint32_t e = m_doc.element(root).firstChild; e != XmlDocument::NONE; e = m_doc.element(e).nextSibling) {
            if (m_doc.element(e).name == "connection") {
                if (auto r = readConnection(e); r.hasError()) {
                    return fail(r.error());
                }
            }
        }
        inheritLinkIndices();
        installPriorityRule();
        return m_builder.build();
    }

private:
    MapError error(MapErrorCode code, std::uint32_t element, const std::string& id, std::string message) const {
        return MapError{code, m_doc.fileName(), m_doc.element(element).line, id, std::move(message)};
    }

    /// An edge's drivable lanes as readEdge adds them, for pairing the neighbours.
    struct EdgeLanes {
        std::vector<std::pair<int, std::uint32_t>> byIndex;  // (SUMO index, lane)
        std::vector<bool> changeLeft;
        std::vector<bool> changeRight;
    };

    Result<void, MapError> readEdge(std::uint32_t e) {
        const std::string* id = m_doc.attribute(e, "id");
        if (id == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, e, "edge", "edge without id"));
        }
        const std::string* function = m_doc.attribute(e, "function");
        const bool internal = function != nullptr && *function == "internal";
        if (function != nullptr && *function != "internal" && *function != "normal") {
            skipLanesOf(e);
            return {};
        }
        EdgeLanes lanes;
        for (std::uint32_t c = m_doc.element(e).firstChild; c != XmlDocument::NONE; c = m_doc.element(c).nextSibling) {
            if (m_doc.element(c).name != "lane") {
                continue;
            }
            if (auto lane = readLane(c, *id, internal, lanes); lane.hasError()) {
                return lane;
            }
        }
        pairNeighbours(lanes);
        return {};
    }

    /// The lanes of an edge that is not for vehicles (crossings, walking areas, connectors): counted
    /// and remembered as skipped.
    void skipLanesOf(std::uint32_t e) {
        for (std::uint32_t c = m_doc.element(e).firstChild; c != XmlDocument::NONE; c = m_doc.element(c).nextSibling) {
            if (m_doc.element(c).name == "lane") {
                ++m_builder.summary().skippedNonVehicle;
                if (const std::string* laneId = m_doc.attribute(c, "id")) {
                    m_skippedLanes.insert(*laneId);
                }
            }
        }
    }

    /// Lane element c of edge `edgeId`: added to the builder and to `lanes` unless passenger cars may
    /// not use it (then counted and remembered as skipped).
    Result<void, MapError> readLane(std::uint32_t c, const std::string& edgeId, bool internal, EdgeLanes& lanes) {
        const std::string* laneId = m_doc.attribute(c, "id");
        const std::string* index = m_doc.attribute(c, "index");
        const std::string* speed = m_doc.attribute(c, "speed");
        const std::string* shape = m_doc.attribute(c, "shape");
        const std::string where = "lane " + (laneId != nullptr ? *laneId : "of edge " + edgeId);
        if (laneId == nullptr || index == nullptr || speed == nullptr || shape == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, c, where, "lane needs id, index, speed and shape"));
        }
        const std::string* allow = m_doc.attribute(c, "allow");
        const std::string* disallow = m_doc.attribute(c, "disallow");
        if ((allow != nullptr && !listsPassengerCars(*allow)) ||
            (disallow != nullptr && (listsPassengerCars(*disallow)))) {
            ++m_builder.summary().skippedNonVehicle;
            m_skippedLanes.insert(*laneId);
            return {};
        }
        LaneSpec spec;
        spec.id = *laneId;
        spec.sourceLine = m_doc.element(c).line;
        int laneIndex = 0;
        if (!parseIndex(*index, MAX_SUMO_LANE_INDEX, laneIndex)) {
            return fail(error(MapErrorCode::BadValue, c, where,
                              "index '" + *index + "' is not an integer in [0, " + std::to_string(MAX_SUMO_LANE_INDEX) + "]"));
        }
        if (!parseNumber(*speed, spec.speedLimit_mps) || !(spec.speedLimit_mps > 0.0)) {
            return fail(error(MapErrorCode::BadValue, c, where, "speed '" + *speed + "' is not a positive number"));
        }
        spec.width_m = SUMO_DEFAULT_LANE_WIDTH_M;
        if (const std::string* width = m_doc.attribute(c, "width")) {
            if (!parseNumber(*width, spec.width_m) || !(spec.width_m > 0.0)) {
                return fail(error(MapErrorCode::BadValue, c, where, "width '" + *width + "' is not a positive number"));
            }
        }
        for (const auto& [otherIndex, otherLane] : lanes.byIndex) {
            if (otherIndex == laneIndex) {
                return fail(error(MapErrorCode::DuplicateId, c, where,
                                  "index " + *index + " is also the index of lane " + m_builder.spec(otherLane).id +
                                      " of this edge"));
            }
        }
        if (std::string problem = parseShape(*shape, spec.centreline); !problem.empty()) {
            return fail(error(MapErrorCode::BadValue, c, where, std::move(problem)));
        }
        const std::uint32_t lane = m_builder.addLane(std::move(spec));
        if (!m_laneIndex.emplace(*laneId, lane).second) {
            return fail(error(MapErrorCode::DuplicateId, c, where, "lane id used twice"));
        }
        m_internal.push_back(internal);
        m_linkIndex.push_back(-1);
        lanes.byIndex.emplace_back(laneIndex, lane);
        lanes.changeLeft.push_back(!internal && laneChangePermitted(m_doc.attribute(c, "changeLeft")));
        lanes.changeRight.push_back(!internal && laneChangePermitted(m_doc.attribute(c, "changeRight")));
        return {};
    }

    /// SUMO numbers lanes from the right (index 0); index + 1 is the left neighbour. The indices of an
    /// edge are distinct and at most MAX_SUMO_LANE_INDEX, so this pairing is bounded.
    void pairNeighbours(const EdgeLanes& lanes) {
        const auto& byIndex = lanes.byIndex;
        for (std::size_t i = 0; i < byIndex.size(); ++i) {
            for (std::size_t j = 0; j < byIndex.size(); ++j) {
                if (byIndex[j].first == byIndex[i].first + 1) {
                    m_builder.setNeighbour(byIndex[i].second, Side::Left, byIndex[j].second, lanes.changeLeft[i]);
                    m_builder.setNeighbour(byIndex[j].second, Side::Right, byIndex[i].second, lanes.changeRight[j]);
                }
            }
        }
    }

    Result<void, MapError> readJunction(std::uint32_t e) {
        const std::string* id = m_doc.attribute(e, "id");
        const std::string* type = m_doc.attribute(e, "type");
        if (id == nullptr || type == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, e, "junction", "junction needs id and type"));
        }
        const std::string* intLanes = m_doc.attribute(e, "intLanes");
        if (*type == "internal" || intLanes == nullptr || intLanes->empty()) {
            return {};  // internal junctions are waiting points inside a junction; dead ends have no lanes
        }
        const std::uint32_t junction = m_builder.addJunction(*id);
        const auto lanes = split(*intLanes);
        for (std::size_t i = 0; i < lanes.size(); ++i) {
            auto it = m_laneIndex.find(lanes[i]);
            if (it == m_laneIndex.end()) {
                if (m_skippedLanes.count(lanes[i]) != 0) {
                    continue;
                }
                return fail(error(MapErrorCode::DanglingReference, e, "junction " + *id, "intLanes names missing lane " + lanes[i]));
            }
            m_builder.setJunction(it->second, junction);
            m_linkIndex[it->second] = static_cast<int>(i);
        }
        JunctionLogic logic;
        for (std::uint32_t c = m_doc.element(e).firstChild; c != XmlDocument::NONE; c = m_doc.element(c).nextSibling) {
            if (m_doc.element(c).name != "request") {
                continue;
            }
            const std::string* index = m_doc.attribute(c, "index");
            const std::string* response = m_doc.attribute(c, "response");
            if (index == nullptr || response == nullptr) {
                return fail(error(MapErrorCode::MissingAttribute, c, "junction " + *id, "request needs index and response"));
            }
            int value = 0;
            if (!parseIndex(*index, MAX_SUMO_REQUEST_INDEX, value)) {
                return fail(error(MapErrorCode::BadValue, c, "junction " + *id,
                                  "request index '" + *index + "' is not an integer in [0, " +
                                      std::to_string(MAX_SUMO_REQUEST_INDEX) + "]"));
            }
            const auto k = static_cast<std::size_t>(value);
            if (logic.response.size() <= k) {
                logic.response.resize(k + 1);
            }
            logic.response[k] = *response;
        }
        if (!logic.response.empty()) {
            ++m_builder.summary().rightOfWayRules;
            ++m_builder.summary().regulatoryElements;
        }
        m_logic.emplace(junction, std::move(logic));
        return {};
    }

    Result<void, MapError> readConnection(std::uint32_t e) {
        const std::string* from = m_doc.attribute(e, "from");
        const std::string* to = m_doc.attribute(e, "to");
        const std::string* fromLane = m_doc.attribute(e, "fromLane");
        const std::string* toLane = m_doc.attribute(e, "toLane");
        if (from == nullptr || to == nullptr || fromLane == nullptr || toLane == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, e, "connection", "connection needs from, to, fromLane, toLane"));
        }
        const std::string fromId = *from + "_" + *fromLane;
        const std::string* via = m_doc.attribute(e, "via");
        const std::string toId = via != nullptr ? *via : *to + "_" + *toLane;
        const std::string where = "connection " + fromId + " -> " + toId;
        const auto a = m_laneIndex.find(fromId);
        const auto b = m_laneIndex.find(toId);
        if (a == m_laneIndex.end() || b == m_laneIndex.end()) {
            if (m_skippedLanes.count(fromId) != 0 || m_skippedLanes.count(toId) != 0) {
                return {};  // a connection of a lane we do not model (pedestrians, bicycles)
            }
            return fail(error(MapErrorCode::DanglingReference, e, where, "refers to a lane that does not exist"));
        }
        m_builder.addSuccessor(a->second, b->second);
        const std::string* state = m_doc.attribute(e, "state");
        const bool stops = state != nullptr && (*state == "s" || *state == "w" || *state == "=");
        if ((stops || m_doc.attribute(e, "tl") != nullptr) && !m_internal[a->second] && !m_stopLineSet.count(a->second)) {
            m_builder.setStopLine(a->second, 1e300);  // clamped to the lane end by the builder
            m_stopLineSet.insert(a->second);
            ++m_builder.summary().stopLines;
        }
        return {};
    }

    /// The first part of a split internal lane (before an internal junction) takes the link index of
    /// the internal lane it leads to.
    void inheritLinkIndices() {
        for (int pass = 0; pass < 4; ++pass) {
            for (std::uint32_t l = 0; l < m_linkIndex.size(); ++l) {
                if (!m_internal[l] || m_linkIndex[l] >= 0) {
                    continue;
                }
                for (const std::uint32_t s : m_builder.successorsOf(l)) {
                    if (m_internal[s] && m_linkIndex[s] >= 0) {
                        m_linkIndex[l] = m_linkIndex[s];
                        m_builder.setJunction(l, m_builder.junctionOf(s));
                        break;
                    }
                }
            }
        }
    }

    void installPriorityRule() {
        std::vector<std::uint32_t> junctionOf(m_linkIndex.size());
        for (std::uint32_t l = 0; l < junctionOf.size(); ++l) {
            junctionOf[l] = m_builder.junctionOf(l);
        }
        m_builder.setPriorityRule([linkIndex = m_linkIndex, junctionOf = std::move(junctionOf),
                                   logic = m_logic](std::uint32_t a, std::uint32_t b, ConflictKind) {
            if (junctionOf[a] == NO_INDEX || junctionOf[a] != junctionOf[b] || linkIndex[a] < 0 || linkIndex[b] < 0) {
                return Priority::Unregulated;
            }
            const auto it = logic.find(junctionOf[a]);
            if (it == logic.end()) {
                return Priority::Unregulated;
            }
            const auto& response = it->second.response;
            auto mustYield = [&](int link, int foe) {
                const auto k = static_cast<std::size_t>(link);
                if (k >= response.size()) {
                    return false;
                }
                const std::string& bits = response[k];
                const auto f = static_cast<std::size_t>(foe);
                return f < bits.size() && bits[bits.size() - 1 - f] == '1';
            };
            const bool aYields = mustYield(linkIndex[a], linkIndex[b]);
            const bool bYields = mustYield(linkIndex[b], linkIndex[a]);
            if (aYields && bYields) {
                return Priority::Mutual;
            }
            if (aYields) {
                return Priority::SecondHasPriority;
            }
            if (bYields) {
                return Priority::FirstHasPriority;
            }
            return Priority::Unregulated;
        });
    }

    const XmlDocument& m_doc;
    RoadMapBuilder m_builder;
    std::unordered_map<std::string, std::uint32_t> m_laneIndex;
    std::unordered_set<std::string> m_skippedLanes;
    std::unordered_set<std::uint32_t> m_stopLineSet;
    std::vector<bool> m_internal;
    std::vector<int> m_linkIndex;
    std::unordered_map<std::uint32_t, JunctionLogic> m_logic;
};

}  // namespace

Result<RoadMap, MapError> readSumoNet(const std::string& path, const MapFileCheck& check) {
    auto file = readMapFile(path, check);
    if (file.hasError()) {
        return fail(std::move(file).error());
    }
    auto doc = XmlDocument::parse(file.value().text, path);
    if (doc.hasError()) {
        const XmlError& e = doc.error();
        return fail(MapError{e.line == 0 ? MapErrorCode::Io : MapErrorCode::Xml, e.file, e.line, "", e.message});
    }
    SumoReader reader(*doc);
    return reader.run();
}

Result<RoadMap, MapError> readMap(const std::string& path, const Lanelet2Options& options,
                                  const MapFileCheck& check) {
    auto endsWith = [&](const std::string& suffix) {
        return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (endsWith(".osm")) {
        return readLanelet2(path, options, check);
    }
    if (endsWith(".net.xml")) {
        return readSumoNet(path, check);
    }
    return fail(MapError{MapErrorCode::WrongFormat, path, 0, "", "unknown map format (expected .osm or .net.xml)"});
}

}  // namespace augur::runtime::scene
