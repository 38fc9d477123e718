// Lanelet2 OSM reader (see map_readers.hpp and docs/design/maps.md).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/road_map_builder.hpp"
#include "augur/runtime/scene/utm_projector.hpp"
#include "augur/runtime/scene/xml_document.hpp"

namespace augur::runtime::scene {

namespace {

constexpr double KMH_TO_MPS = 1.0 / 3.6;
constexpr double MPH_TO_MPS = 0.44704;
constexpr double URBAN_SPEED_KMH = 50.0;      // German rules: built-up areas (StVO §3)
constexpr double NONURBAN_SPEED_KMH = 100.0;  // outside built-up areas
constexpr double HIGHWAY_SPEED_KMH = 130.0;   // advisory speed on motorways
constexpr double PLAY_STREET_SPEED_KMH = 7.0;
constexpr double ZONE30_SPEED_KMH = 30.0;     // sign 274.1
constexpr double CENTRELINE_SPACING_M = 5.0;  // at least one centreline point per this distance
// Longest lanelet bound accepted: the centreline gets a point per CENTRELINE_SPACING_M, so a bound
// thousands of kilometres long (a wrong coordinate) would take gigabytes; real lanelets are far shorter.
constexpr double MAX_BOUND_LENGTH_M = 100'000.0;
constexpr int PRIORITY_SEARCH_HOPS = 3;       // predecessors searched for a governing right-of-way rule
constexpr double STOP_LINE_MAX_OFFSET_M = 10.0;

enum class Role : std::uint8_t { RightOfWay, Yield };
enum class ChangeType : std::uint8_t { None, Both, ToLeft, ToRight };

struct Way {
    std::string id;
    std::uint32_t line{0};
    std::vector<std::uint32_t> nodes;
    std::string type;
    std::string subtype;
    std::string laneChange;  // lane_change tag: "yes", "no" or empty
};

struct Member {
    std::string type;
    std::string ref;
    std::string role;
};

struct Relation {
    std::string id;
    std::uint32_t line{0};
    std::unordered_map<std::string, std::string> tags;
    std::vector<Member> members;
    [[nodiscard]] std::string tag(const std::string& k) const {
        auto it = tags.find(k);
        return it == tags.end() ? std::string() : it->second;
    }
};

struct BoundRef {
    std::uint32_t way{0};
    bool inverted{false};
};

struct LaneRecord {
    std::uint32_t relation{0};
    bool reversed{false};
    BoundRef left;
    BoundRef right;
    std::uint32_t startLeft{0}, startRight{0}, endLeft{0}, endRight{0};  // node indices
};

struct RegElement {
    std::uint32_t relation{0};
    std::string subtype;
    std::vector<std::uint32_t> refLines;  // way indices
    std::vector<std::string> rowLanelets;
    std::vector<std::string> yieldLanelets;
    double speed_mps{-1.0};
};

std::uint64_t key(std::uint32_t a, std::uint32_t b) { return (static_cast<std::uint64_t>(a) << 32U) | b; }

bool parseDouble(const std::string& text, double& out) {
    if (text.empty()) {
        return false;
    }
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0' && std::isfinite(out);
}

/// "50", "50 km/h", "50kmh", "30 mph" → m/s; false when not a speed.
bool parseSpeed(const std::string& text, double& out_mps) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !(value > 0.0) || !std::isfinite(value)) {
        return false;
    }
    std::string unit(end);
    unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
    if (unit.empty() || unit == "km/h" || unit == "kmh" || unit == "kph") {
        out_mps = value * KMH_TO_MPS;
        return true;
    }
    if (unit == "mph") {
        out_mps = value * MPH_TO_MPS;
        return true;
    }
    if (unit == "m/s" || unit == "mps") {
        out_mps = value;
        return true;
    }
    return false;
}

/// Lanelet2's lane-change table for lane boundary line strings (GenericTrafficRules).
ChangeType changeTypeOf(const Way& way) {
    if (way.laneChange == "yes") {
        return ChangeType::Both;
    }
    if (way.laneChange == "no") {
        return ChangeType::None;
    }
    if (way.type != "line_thin" && way.type != "line_thick") {
        return ChangeType::None;
    }
    if (way.subtype == "dashed") {
        return ChangeType::Both;
    }
    if (way.subtype == "solid_dashed") {
        return ChangeType::ToLeft;  // solid on the line's left, dashed on its right
    }
    if (way.subtype == "dashed_solid") {
        return ChangeType::ToRight;
    }
    return ChangeType::None;
}

/// May a lane whose bound is `bound` cross it towards `side`?
bool changeAllowed(const Way& way, const BoundRef& bound, Side side) {
    const ChangeType type = changeTypeOf(way);
    if (type == ChangeType::Both || type == ChangeType::None) {
        return type == ChangeType::Both;
    }
    // In the way's own direction, the lane lies right of its left bound (not inverted) and left of its
    // right bound. Crossing the left bound is then a right-to-left move in the way's frame.
    const bool rightToLeftInWayFrame = (side == Side::Left) != bound.inverted;
    return rightToLeftInWayFrame ? type == ChangeType::ToLeft : type == ChangeType::ToRight;
}

double polylineLength(const std::vector<Point2>& p) {
    double s = 0.0;
    for (std::size_t i = 1; i < p.size(); ++i) {
        s += std::hypot(p[i].x_m - p[i - 1].x_m, p[i].y_m - p[i - 1].y_m);
    }
    return s;
}

/// `count` points evenly spaced by arc length along `p` (p.size() ≥ 2, length > 0).
std::vector<Point2> resample(const std::vector<Point2>& p, std::size_t count) {
    std::vector<double> s(p.size(), 0.0);
    for (std::size_t i = 1; i < p.size(); ++i) {
        s[i] = s[i - 1] + std::hypot(p[i].x_m - p[i - 1].x_m, p[i].y_m - p[i - 1].y_m);
    }
    std::vector<Point2> out;
    out.reserve(count);
    std::size_t k = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const double target = s.back() * static_cast<double>(i) / static_cast<double>(count - 1);
        while (k + 2 < p.size() && s[k + 1] < target) {
            ++k;
        }
        const double len = s[k + 1] - s[k];
        const double t = len > 0.0 ? std::clamp((target - s[k]) / len, 0.0, 1.0) : 0.0;
        out.push_back(Point2{p[k].x_m + t * (p[k + 1].x_m - p[k].x_m), p[k].y_m + t * (p[k + 1].y_m - p[k].y_m)});
    }
    return out;
}

/// Arc length of the projection of `q` on polyline `p`, and the distance to it.
void projectOnPolyline(const std::vector<Point2>& p, Point2 q, double& s_m, double& distance_m) {
    double s = 0.0;
    distance_m = 1e300;
    s_m = 0.0;
    for (std::size_t i = 0; i + 1 < p.size(); ++i) {
        const double dx = p[i + 1].x_m - p[i].x_m;
        const double dy = p[i + 1].y_m - p[i].y_m;
        const double len2 = dx * dx + dy * dy;
        const double t = len2 > 0.0 ? std::clamp(((q.x_m - p[i].x_m) * dx + (q.y_m - p[i].y_m) * dy) / len2, 0.0, 1.0) : 0.0;
        const double d = std::hypot(p[i].x_m + t * dx - q.x_m, p[i].y_m + t * dy - q.y_m);
        if (d < distance_m) {
            distance_m = d;
            s_m = s + t * std::sqrt(len2);
        }
        s += std::sqrt(len2);
    }
}

class Lanelet2Reader {
public:
    Lanelet2Reader(const XmlDocument& doc, const Lanelet2Options& options)
        : m_doc(doc), m_options(options), m_builder(doc.fileName()) {}

    Result<RoadMap, MapError> run() {
        if (m_doc.element(m_doc.root()).name != "osm") {
            return fail(error(MapErrorCode::WrongFormat, m_doc.root(), "", "root element is <" +
                                                                             m_doc.element(m_doc.root()).name + ">, not <osm>"));
        }
        if (auto r = readPrimitives(); r.hasError()) {
            return fail(r.error());
        }
        if (auto r = readRegulatoryElements(); r.hasError()) {
            return fail(r.error());
        }
        if (auto r = readLanelets(); r.hasError()) {
            return fail(r.error());
        }
        linkLanes();
        assignStopLines();
        installPriorityRule();
        m_builder.deriveJunctions(true);
        return m_builder.build();
    }

private:
    MapError error(MapErrorCode code, std::uint32_t element, const std::string& id, std::string message) const {
        return MapError{code, m_doc.fileName(), m_doc.element(element).line, id, std::move(message)};
    }

    /// Nodes first (ways may precede nodes in hand-written files), then ways and relations.
    Result<void, MapError> readPrimitives() {
        if (auto nodes = readNodes(); nodes.hasError()) {
            return nodes;
        }
        return readWaysAndRelations();
    }

    /// Every <node>: its id and position; a map's nodes are all local (local_x/local_y) or all geodetic.
    Result<void, MapError> readNodes() {
        const std::uint32_t root = m_doc.root();
        bool anyLocal = false;
        bool anyGeodetic = false;
        for (std::uint32_t e = m_doc.element(root).firstChild; e != XmlDocument::NONE; e = m_doc.element(e).nextSibling) {
            const auto& el = m_doc.element(e);
            if (el.name != "node") {
                continue;
            }
            const std::string* id = m_doc.attribute(e, "id");
            if (id == nullptr) {
                return fail(error(MapErrorCode::MissingAttribute, e, "node", "node without id"));
            }
            bool local = false;
            auto position = nodePosition(e, *id, local);
            if (position.hasError()) {
                return fail(std::move(position).error());
            }
            (local ? anyLocal : anyGeodetic) = true;
            if (anyLocal && anyGeodetic) {
                return fail(error(MapErrorCode::BadValue, e, "node " + *id,
                                  "mixes nodes with and without local_x/local_y tags"));
            }
            if (!m_nodeIndex.emplace(*id, static_cast<std::uint32_t>(m_nodes.size())).second) {
                return fail(error(MapErrorCode::DuplicateId, e, "node " + *id, "node id used twice"));
            }
            m_nodes.push_back(*position);
        }
        return {};
    }

    /// Node e's position: its local_x/local_y tags when it has both (local = true), else its lat/lon
    /// projected (project).
    Result<Point2, MapError> nodePosition(std::uint32_t e, const std::string& id, bool& local) {
        double localX = 0.0;
        double localY = 0.0;
        bool hasLocalX = false;
        bool hasLocalY = false;
        for (std::uint32_t t = m_doc.element(e).firstChild; t != XmlDocument::NONE; t = m_doc.element(t).nextSibling) {
            const std::string* k = m_doc.attribute(t, "k");
            const std::string* v = m_doc.attribute(t, "v");
            if (m_doc.element(t).name != "tag" || k == nullptr || v == nullptr) {
                continue;
            }
            if (*k == "local_x") {
                hasLocalX = parseDouble(*v, localX);
                if (!hasLocalX) {
                    return fail(error(MapErrorCode::BadValue, t, "node " + id, "local_x '" + *v + "' is not a number"));
                }
            } else if (*k == "local_y") {
                hasLocalY = parseDouble(*v, localY);
                if (!hasLocalY) {
                    return fail(error(MapErrorCode::BadValue, t, "node " + id, "local_y '" + *v + "' is not a number"));
                }
            }
        }
        if (hasLocalX && hasLocalY) {
            if (std::abs(localX) > MAX_MAP_COORDINATE_M || std::abs(localY) > MAX_MAP_COORDINATE_M) {
                return fail(error(MapErrorCode::BadValue, e, "node " + id,
                                  "local_x/local_y beyond the coordinate range [-2e7, 2e7] m"));
            }
            local = true;
            return Point2{localX, localY};
        }
        local = false;
        const std::string* lat = m_doc.attribute(e, "lat");
        const std::string* lon = m_doc.attribute(e, "lon");
        if (lat == nullptr || lon == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, e, "node " + id, "node without lat/lon"));
        }
        double latDeg = 0.0;
        double lonDeg = 0.0;
        if (!parseDouble(*lat, latDeg) || !parseDouble(*lon, lonDeg) || std::abs(latDeg) > 90.0 ||
            std::abs(lonDeg) > 180.0) {
            return fail(error(MapErrorCode::BadValue, e, "node " + id,
                              "lat/lon not numbers in [-90, 90] and [-180, 180] degrees"));
        }
        auto projected = project(latDeg, lonDeg);
        if (projected.hasError()) {
            return fail(error(MapErrorCode::BadValue, e, "node " + id, "lat/lon " + projected.error()));
        }
        return *projected;
    }

    /// The <way> and <relation> elements (after the nodes they refer to); other elements but <bounds>
    /// count as warnings.
    Result<void, MapError> readWaysAndRelations() {
        const std::uint32_t root = m_doc.root();
        for (std::uint32_t e = m_doc.element(root).firstChild; e != XmlDocument::NONE; e = m_doc.element(e).nextSibling) {
            const auto& el = m_doc.element(e);
            if (el.name == "node") {
                continue;
            }
            if (el.name == "way") {
                if (auto r = readWay(e); r.hasError()) {
                    return r;
                }
            } else if (el.name == "relation") {
                if (auto r = readRelation(e); r.hasError()) {
                    return r;
                }
            } else if (el.name != "bounds") {
                ++m_builder.summary().warnings;  // e.g. <changeset>: not map content we use
            }
        }
        return {};
    }

    /// The node's position in the frame of Lanelet2's UTM projector around the origin (the options' or,
    /// without one, the first geodetic node's).
    Result<Point2, std::string> project(double latDeg, double lonDeg) {
        if (!m_projector) {
            auto projector = UtmProjector::create(std::isnan(m_options.originLat_deg) ? latDeg : m_options.originLat_deg,
                                                  std::isnan(m_options.originLon_deg) ? lonDeg : m_options.originLon_deg);
            if (projector.hasError()) {
                return fail(std::move(projector).error());
            }
            m_projector = std::move(projector).value();
        }
        return m_projector->forward(latDeg, lonDeg);
    }

    Result<void, MapError> readWay(std::uint32_t e) {
        const std::string* id = m_doc.attribute(e, "id");
        if (id == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, e, "way", "way without id"));
        }
        Way way;
        way.id = *id;
        way.line = m_doc.element(e).line;
        for (std::uint32_t c = m_doc.element(e).firstChild; c != XmlDocument::NONE; c = m_doc.element(c).nextSibling) {
            const auto& child = m_doc.element(c);
            if (child.name == "nd") {
                const std::string* ref = m_doc.attribute(c, "ref");
                if (ref == nullptr) {
                    return fail(error(MapErrorCode::MissingAttribute, c, "way " + *id, "<nd> without ref"));
                }
                auto it = m_nodeIndex.find(*ref);
                if (it == m_nodeIndex.end()) {
                    return fail(error(MapErrorCode::DanglingReference, c, "way " + *id, "refers to missing node " + *ref));
                }
                way.nodes.push_back(it->second);
            } else if (child.name == "tag") {
                const std::string* k = m_doc.attribute(c, "k");
                const std::string* v = m_doc.attribute(c, "v");
                if (k == nullptr || v == nullptr) {
                    return fail(error(MapErrorCode::MissingAttribute, c, "way " + *id, "<tag> without k or v"));
                }
                if (*k == "type") {
                    way.type = *v;
                } else if (*k == "subtype") {
                    way.subtype = *v;
                } else if (*k == "lane_change") {
                    way.laneChange = *v;
                }
            }
        }
        if (!m_wayIndex.emplace(*id, static_cast<std::uint32_t>(m_ways.size())).second) {
            return fail(error(MapErrorCode::DuplicateId, e, "way " + *id, "way id used twice"));
        }
        m_ways.push_back(std::move(way));
        return {};
    }

    Result<void, MapError> readRelation(std::uint32_t e) {
        const std::string* id = m_doc.attribute(e, "id");
        if (id == nullptr) {
            return fail(error(MapErrorCode::MissingAttribute, e, "relation", "relation without id"));
        }
        Relation rel;
        rel.id = *id;
        rel.line = m_doc.element(e).line;
        for (std::uint32_t c = m_doc.element(e).firstChild; c != XmlDocument::NONE; c = m_doc.element(c).nextSibling) {
            const auto& child = m_doc.element(c);
            if (child.name == "member") {
                const std::string* type = m_doc.attribute(c, "type");
                const std::string* ref = m_doc.attribute(c, "ref");
                const std::string* role = m_doc.attribute(c, "role");
                if (type == nullptr || ref == nullptr || role == nullptr) {
                    return fail(error(MapErrorCode::MissingAttribute, c, "relation " + *id,
                                      "<member> needs type, ref and role"));
                }
                rel.members.push_back(Member{*type, *ref, *role});
            } else if (child.name == "tag") {
                const std::string* k = m_doc.attribute(c, "k");
                const std::string* v = m_doc.attribute(c, "v");
                if (k == nullptr || v == nullptr) {
                    return fail(error(MapErrorCode::MissingAttribute, c, "relation " + *id, "<tag> without k or v"));
                }
                rel.tags[*k] = *v;
            }
        }
        if (!m_relationIndex.emplace(*id, static_cast<std::uint32_t>(m_relations.size())).second) {
            return fail(error(MapErrorCode::DuplicateId, e, "relation " + *id, "relation id used twice"));
        }
        m_relations.push_back(std::move(rel));
        return {};
    }

    MapError relError(MapErrorCode code, const Relation& rel, std::string message) const {
        return MapError{code, m_doc.fileName(), rel.line, "relation " + rel.id, std::move(message)};
    }

    Result<void, MapError> readRegulatoryElements() {
        for (std::uint32_t r = 0; r < m_relations.size(); ++r) {
            const Relation& rel = m_relations[r];
            if (rel.tag("type") != "regulatory_element") {
                continue;
            }
            RegElement reg;
            reg.relation = r;
            reg.subtype = rel.tag("subtype");
            for (const Member& m : rel.members) {
                if (m.role == "ref_line" && m.type == "way") {
                    auto it = m_wayIndex.find(m.ref);
                    if (it == m_wayIndex.end()) {
                        return fail(relError(MapErrorCode::DanglingReference, rel, "ref_line refers to missing way " + m.ref));
                    }
                    reg.refLines.push_back(it->second);
                } else if (m.role == "right_of_way" && m.type == "relation") {
                    reg.rowLanelets.push_back(m.ref);
                } else if (m.role == "yield" && m.type == "relation") {
                    reg.yieldLanelets.push_back(m.ref);
                }
            }
            auto& summary = m_builder.summary();
            if (reg.subtype == "right_of_way" || reg.subtype == "all_way_stop") {
                ++summary.rightOfWayRules;
            } else if (reg.subtype == "traffic_light") {
                ++summary.trafficLights;
            } else if (reg.subtype == "speed_limit") {
                if (!speedOfRegulatoryElement(rel, reg.speed_mps)) {
                    ++summary.warnings;  // a sign type we cannot translate into a speed
                    continue;
                }
                ++summary.speedLimits;
            } else {
                ++summary.warnings;  // unsupported regulatory element
                continue;
            }
            ++summary.regulatoryElements;
            m_regIndex.emplace(rel.id, static_cast<std::uint32_t>(m_regs.size()));
            m_regs.push_back(std::move(reg));
        }
        return {};
    }

    bool speedOfRegulatoryElement(const Relation& rel, double& speed_mps) const {
        if (const std::string v = rel.tag("speed_limit"); !v.empty()) {
            return parseSpeed(v, speed_mps);
        }
        for (const Member& m : rel.members) {
            auto it = m_wayIndex.find(m.ref);
            if (m.role != "refers" || m.type != "way" || it == m_wayIndex.end()) {
                continue;
            }
            const std::string& sign = m_ways[it->second].subtype;
            if (sign == "de274_1" || sign == "de274.1") {  // start of a 30 km/h zone
                speed_mps = ZONE30_SPEED_KMH * KMH_TO_MPS;
                return true;
            }
            if (sign.rfind("de274-", 0) == 0 || sign.rfind("usspeedlimit-", 0) == 0) {
                const std::string value = sign.substr(sign.find('-') + 1);
                return parseSpeed(value + (sign[0] == 'u' ? " mph" : ""), speed_mps);
            }
        }
        return false;
    }

    static bool isVehicleLanelet(const Relation& rel) {
        const std::string vehicle = rel.tag("participant:vehicle");
        if (!vehicle.empty()) {
            return vehicle == "yes";
        }
        const std::string sub = rel.tag("subtype");
        return sub.empty() || sub == "road" || sub == "highway" || sub == "play_street" || sub == "emergency_lane" ||
               sub == "exit";
    }

    double defaultSpeed(const Relation& rel) const {
        const std::string sub = rel.tag("subtype");
        if (sub == "highway") {
            return HIGHWAY_SPEED_KMH * KMH_TO_MPS;
        }
        if (sub == "play_street") {
            return PLAY_STREET_SPEED_KMH * KMH_TO_MPS;
        }
        return (rel.tag("location") == "nonurban" ? NONURBAN_SPEED_KMH : URBAN_SPEED_KMH) * KMH_TO_MPS;
    }

    Result<void, MapError> readLanelets() {
        for (std::uint32_t r = 0; r < m_relations.size(); ++r) {
            const Relation& rel = m_relations[r];
            const std::string type = rel.tag("type");
            if (type != "lanelet") {
                if (type != "regulatory_element") {
                    ++m_builder.summary().warnings;  // areas, multipolygons, routes: not used
                }
                continue;
            }
            if (!isVehicleLanelet(rel)) {
                ++m_builder.summary().skippedNonVehicle;
                continue;
            }
            BoundRef left{};
            BoundRef right{};
            if (auto bounds = laneletBounds(rel, left, right); bounds.hasError()) {
                return bounds;
            }
            std::vector<std::uint32_t> l = m_ways[left.way].nodes;
            std::vector<std::uint32_t> rt = m_ways[right.way].nodes;
            orientBounds(l, rt, left, right);
            auto speed = laneletSpeed(rel);
            if (speed.hasError()) {
                return fail(std::move(speed).error());
            }
            if (auto res = addLane(r, false, l, rt, left, right, *speed); res.hasError()) {
                return res;
            }
            const std::string oneWay = rel.tag("one_way");
            if (oneWay == "no" || oneWay == "false") {
                std::reverse(l.begin(), l.end());
                std::reverse(rt.begin(), rt.end());
                const auto forward = static_cast<std::uint32_t>(m_records.size() - 1);
                if (auto res = addLane(r, true, rt, l, BoundRef{right.way, !right.inverted},
                                       BoundRef{left.way, !left.inverted}, *speed);
                    res.hasError()) {
                    return res;
                }
                m_builder.setTwins(forward, forward + 1);
            }
        }
        return {};
    }

    /// The lanelet's left and right bound: exactly one way each, of at least two nodes.
    Result<void, MapError> laneletBounds(const Relation& rel, BoundRef& left, BoundRef& right) const {
        int leftCount = 0;
        int rightCount = 0;
        for (const Member& m : rel.members) {
            if (m.role != "left" && m.role != "right") {
                continue;
            }
            auto it = m_wayIndex.find(m.ref);
            if (m.type != "way" || it == m_wayIndex.end()) {
                return fail(relError(MapErrorCode::DanglingReference, rel,
                                     m.role + " bound refers to missing way " + m.ref));
            }
            (m.role == "left" ? left : right).way = it->second;
            ++(m.role == "left" ? leftCount : rightCount);
        }
        if (leftCount != 1 || rightCount != 1) {
            return fail(relError(MapErrorCode::MissingAttribute, rel, "lanelet needs exactly one left and one right bound"));
        }
        if (m_ways[left.way].nodes.size() < 2 || m_ways[right.way].nodes.size() < 2) {
            return fail(relError(MapErrorCode::BadGeometry, rel, "lanelet bound with fewer than two nodes"));
        }
        return {};
    }

    /// Turns the bounds' node lists `l` and `rt` to run side by side in the driving direction: `rt`
    /// the way `l` runs, then both the way that puts `left` on the left (the roles fix the sides).
    void orientBounds(std::vector<std::uint32_t>& l, std::vector<std::uint32_t>& rt, BoundRef& left,
                      BoundRef& right) const {
        auto d = [&](std::uint32_t a, std::uint32_t b) {
            return std::hypot(m_nodes[a].x_m - m_nodes[b].x_m, m_nodes[a].y_m - m_nodes[b].y_m);
        };
        if (d(l.front(), rt.front()) + d(l.back(), rt.back()) > d(l.front(), rt.back()) + d(l.back(), rt.front())) {
            std::reverse(rt.begin(), rt.end());
            right.inverted = true;
        }
        const Point2 a{0.5 * (m_nodes[l.front()].x_m + m_nodes[rt.front()].x_m),
                       0.5 * (m_nodes[l.front()].y_m + m_nodes[rt.front()].y_m)};
        const Point2 b{0.5 * (m_nodes[l.back()].x_m + m_nodes[rt.back()].x_m),
                       0.5 * (m_nodes[l.back()].y_m + m_nodes[rt.back()].y_m)};
        const double ox = m_nodes[l.front()].x_m + m_nodes[l.back()].x_m - m_nodes[rt.front()].x_m - m_nodes[rt.back()].x_m;
        const double oy = m_nodes[l.front()].y_m + m_nodes[l.back()].y_m - m_nodes[rt.front()].y_m - m_nodes[rt.back()].y_m;
        if ((b.x_m - a.x_m) * oy - (b.y_m - a.y_m) * ox < 0.0) {
            std::reverse(l.begin(), l.end());
            std::reverse(rt.begin(), rt.end());
            left.inverted = !left.inverted;
            right.inverted = !right.inverted;
        }
    }

    /// The lanelet's speed limit: its speed_limit tag, else a speed-limit regulatory element's, else
    /// the default of its location (defaultSpeed).
    Result<double, MapError> laneletSpeed(const Relation& rel) const {
        double speed = defaultSpeed(rel);
        if (const std::string v = rel.tag("speed_limit"); !v.empty()) {
            if (!parseSpeed(v, speed)) {
                return fail(relError(MapErrorCode::BadValue, rel, "speed_limit '" + v + "' is not a speed"));
            }
        } else {
            for (const Member& m : rel.members) {
                auto it = m_regIndex.find(m.ref);
                if (m.role == "regulatory_element" && it != m_regIndex.end() && m_regs[it->second].speed_mps > 0.0) {
                    speed = m_regs[it->second].speed_mps;
                }
            }
        }
        return speed;
    }

    Result<void, MapError> addLane(std::uint32_t r, bool reversed, const std::vector<std::uint32_t>& l,
                                   const std::vector<std::uint32_t>& rt, BoundRef left, BoundRef right, double speed) {
        const Relation& rel = m_relations[r];
        std::vector<Point2> lp;
        std::vector<Point2> rp;
        for (const std::uint32_t n : l) {
            lp.push_back(m_nodes[n]);
        }
        for (const std::uint32_t n : rt) {
            rp.push_back(m_nodes[n]);
        }
        const double lenL = polylineLength(lp);
        const double lenR = polylineLength(rp);
        if (!(lenL > 0.0) || !(lenR > 0.0)) {
            return fail(relError(MapErrorCode::BadGeometry, rel, "lanelet bound of zero length"));
        }
        if (!(lenL <= MAX_BOUND_LENGTH_M) || !(lenR <= MAX_BOUND_LENGTH_M)) {
            return fail(relError(MapErrorCode::BadGeometry, rel, "lanelet bound longer than 100 km"));
        }
        const std::size_t count = std::max({lp.size(), rp.size(),
                                            static_cast<std::size_t>(std::ceil(std::max(lenL, lenR) / CENTRELINE_SPACING_M)) + 1});
        const auto ls = resample(lp, count);
        const auto rs = resample(rp, count);
        LaneSpec spec;
        spec.id = reversed ? rel.id + ":reverse" : rel.id;
        spec.sourceLine = rel.line;
        spec.speedLimit_mps = speed;
        double width = 0.0;
        for (std::size_t i = 0; i < count; ++i) {
            spec.centreline.push_back(Point2{0.5 * (ls[i].x_m + rs[i].x_m), 0.5 * (ls[i].y_m + rs[i].y_m)});
            width += std::hypot(ls[i].x_m - rs[i].x_m, ls[i].y_m - rs[i].y_m);
        }
        spec.width_m = width / static_cast<double>(count);
        if (!(spec.width_m > 0.0)) {
            return fail(relError(MapErrorCode::BadGeometry, rel, "lanelet bounds coincide (zero width)"));
        }
        m_builder.addLane(std::move(spec));
        LaneRecord rec;
        rec.relation = r;
        rec.reversed = reversed;
        rec.left = left;
        rec.right = right;
        rec.startLeft = l.front();
        rec.startRight = rt.front();
        rec.endLeft = l.back();
        rec.endRight = rt.back();
        m_records.push_back(rec);
        return {};
    }

    void linkLanes() {
        std::unordered_multimap<std::uint64_t, std::uint32_t> byStart;
        std::unordered_map<std::uint64_t, std::uint32_t> byRightBound;
        std::unordered_map<std::uint64_t, std::uint32_t> byLeftBound;
        for (std::uint32_t i = 0; i < m_records.size(); ++i) {
            const LaneRecord& rec = m_records[i];
            byStart.emplace(key(rec.startLeft, rec.startRight), i);
            byRightBound.emplace(key(rec.right.way, rec.right.inverted ? 1U : 0U), i);
            byLeftBound.emplace(key(rec.left.way, rec.left.inverted ? 1U : 0U), i);
        }
        m_predecessors.assign(m_records.size(), {});
        for (std::uint32_t i = 0; i < m_records.size(); ++i) {
            const LaneRecord& rec = m_records[i];
            auto range = byStart.equal_range(key(rec.endLeft, rec.endRight));
            for (auto it = range.first; it != range.second; ++it) {
                if (m_records[it->second].relation != rec.relation) {
                    m_builder.addSuccessor(i, it->second);
                    m_predecessors[it->second].push_back(i);
                }
            }
            if (auto it = byRightBound.find(key(rec.left.way, rec.left.inverted ? 1U : 0U)); it != byRightBound.end()) {
                m_builder.setNeighbour(i, Side::Left, it->second, changeAllowed(m_ways[rec.left.way], rec.left, Side::Left));
            }
            if (auto it = byLeftBound.find(key(rec.right.way, rec.right.inverted ? 1U : 0U)); it != byLeftBound.end()) {
                m_builder.setNeighbour(i, Side::Right, it->second,
                                       changeAllowed(m_ways[rec.right.way], rec.right, Side::Right));
            }
        }
    }

    /// Which regulatory elements (and roles) govern each forward lane directly.
    void assignStopLines() {
        m_roles.assign(m_records.size(), {});
        std::unordered_map<std::string, std::uint32_t> forwardLane;
        for (std::uint32_t i = 0; i < m_records.size(); ++i) {
            if (!m_records[i].reversed) {
                forwardLane.emplace(m_relations[m_records[i].relation].id, i);
            }
        }
        for (std::uint32_t g = 0; g < m_regs.size(); ++g) {
            const RegElement& reg = m_regs[g];
            for (const auto& id : reg.rowLanelets) {
                if (auto it = forwardLane.find(id); it != forwardLane.end()) {
                    m_roles[it->second].emplace_back(g, Role::RightOfWay);
                }
            }
            for (const auto& id : reg.yieldLanelets) {
                if (auto it = forwardLane.find(id); it != forwardLane.end()) {
                    m_roles[it->second].emplace_back(g, Role::Yield);
                }
            }
        }
        for (std::uint32_t i = 0; i < m_records.size(); ++i) {
            const LaneRecord& rec = m_records[i];
            if (rec.reversed) {
                continue;
            }
            const Relation& rel = m_relations[rec.relation];
            for (const Member& m : rel.members) {
                auto it = m_regIndex.find(m.ref);
                if (m.role != "regulatory_element" || it == m_regIndex.end()) {
                    continue;
                }
                const RegElement& reg = m_regs[it->second];
                const bool yields = std::find(reg.yieldLanelets.begin(), reg.yieldLanelets.end(), rel.id) !=
                                    reg.yieldLanelets.end();
                if (reg.subtype != "traffic_light" && !yields) {
                    continue;  // right-of-way lanes do not stop
                }
                for (const std::uint32_t w : reg.refLines) {
                    placeStopLine(i, w);
                }
            }
        }
    }

    void placeStopLine(std::uint32_t lane, std::uint32_t way) {
        const auto& nodes = m_ways[way].nodes;
        Point2 mid{};
        for (const std::uint32_t n : nodes) {
            mid.x_m += m_nodes[n].x_m / static_cast<double>(nodes.size());
            mid.y_m += m_nodes[n].y_m / static_cast<double>(nodes.size());
        }
        double s = 0.0;
        double distance = 0.0;
        projectOnPolyline(m_builder.spec(lane).centreline, mid, s, distance);
        if (distance > STOP_LINE_MAX_OFFSET_M) {
            ++m_builder.summary().warnings;  // stop line far from the lanelet that refers to it
            return;
        }
        m_builder.setStopLine(lane, s);
        ++m_builder.summary().stopLines;
    }

    void installPriorityRule() {
        // Roles reachable from a lane by walking back at most PRIORITY_SEARCH_HOPS predecessors: the
        // right-of-way rule of the approach governs the junction lanelets after it.
        std::vector<std::vector<std::pair<std::uint32_t, Role>>> governing(m_records.size());
        for (std::uint32_t i = 0; i < m_records.size(); ++i) {
            std::vector<std::uint32_t> frontier{i};
            std::vector<std::uint32_t> seen{i};
            for (int hop = 0; hop <= PRIORITY_SEARCH_HOPS && !frontier.empty(); ++hop) {
                std::vector<std::uint32_t> next;
                for (const std::uint32_t l : frontier) {
                    for (const auto& role : m_roles[l]) {
                        governing[i].push_back(role);
                    }
                    for (const std::uint32_t p : m_predecessors[l]) {
                        if (std::find(seen.begin(), seen.end(), p) == seen.end()) {
                            seen.push_back(p);
                            next.push_back(p);
                        }
                    }
                }
                if (!governing[i].empty()) {
                    break;  // the nearest rule wins
                }
                frontier = std::move(next);
            }
        }
        m_builder.setPriorityRule([governing = std::move(governing)](std::uint32_t a, std::uint32_t b, ConflictKind) {
            bool aWins = false;
            bool bWins = false;
            bool bothYield = false;
            for (const auto& [ga, ra] : governing[a]) {
                for (const auto& [gb, rb] : governing[b]) {
                    if (ga != gb) {
                        continue;
                    }
                    aWins = aWins || (ra == Role::RightOfWay && rb == Role::Yield);
                    bWins = bWins || (rb == Role::RightOfWay && ra == Role::Yield);
                    bothYield = bothYield || (ra == Role::Yield && rb == Role::Yield);
                }
            }
            if (aWins != bWins) {
                return aWins ? Priority::FirstHasPriority : Priority::SecondHasPriority;
            }
            return bothYield ? Priority::Mutual : Priority::Unregulated;
        });
    }

    const XmlDocument& m_doc;
    Lanelet2Options m_options;
    RoadMapBuilder m_builder;
    std::optional<UtmProjector> m_projector;  ///< set by the first geodetic node
    std::vector<Point2> m_nodes;
    std::unordered_map<std::string, std::uint32_t> m_nodeIndex;
    std::vector<Way> m_ways;
    std::unordered_map<std::string, std::uint32_t> m_wayIndex;
    std::vector<Relation> m_relations;
    std::unordered_map<std::string, std::uint32_t> m_relationIndex;
    std::vector<RegElement> m_regs;
    std::unordered_map<std::string, std::uint32_t> m_regIndex;
    std::vector<LaneRecord> m_records;
    std::vector<std::vector<std::uint32_t>> m_predecessors;
    std::vector<std::vector<std::pair<std::uint32_t, Role>>> m_roles;
};

}  // namespace

Result<RoadMap, MapError> readLanelet2(const std::string& path, const Lanelet2Options& options,
                                       const MapFileCheck& check) {
    // NaN means "the first node"; anything else must be a latitude / longitude.
    const auto badDegrees = [](double value, double limit) { return !std::isnan(value) && !(std::abs(value) <= limit); };
    if (badDegrees(options.originLat_deg, 90.0) || badDegrees(options.originLon_deg, 180.0)) {
        return fail(MapError{MapErrorCode::BadValue, path, 0, "origin",
                             "origin latitude must be in [-90, 90] and longitude in [-180, 180] degrees"});
    }
    auto file = readMapFile(path, check);
    if (file.hasError()) {
        return fail(std::move(file).error());
    }
    auto doc = XmlDocument::parse(file.value().text, path);
    if (doc.hasError()) {
        const XmlError& e = doc.error();
        return fail(MapError{e.line == 0 ? MapErrorCode::Io : MapErrorCode::Xml, e.file, e.line, "", e.message});
    }
    Lanelet2Reader reader(*doc, options);
    return reader.run();
}

}  // namespace augur::runtime::scene
