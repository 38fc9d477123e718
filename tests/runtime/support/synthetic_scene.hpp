// Test and benchmark support: a deterministic synthetic traffic scene on a road map (vehicles driving
// along lane centrelines at constant speed, moving on to a successor lane at each lane's end), written
// as perception object lists, and a small deployment of the shipped default for fast runtime tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include "augur/config/loader.hpp"
#include "augur/core/messages.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::testing {

class SyntheticScene {
public:
    /// `vehicles` road users spread over the map's lanes (lane i mod lanes, staggered along it), speeds
    /// between 5 and 12 m/s, ids 100 + i; plus `pedestrians` standing objects. Deterministic.
    SyntheticScene(const runtime::scene::RoadMap& map, std::uint32_t vehicles, std::uint32_t pedestrians = 0)
        : m_map(map) {
        const auto lanes = static_cast<std::uint32_t>(map.laneCount());
        for (std::uint32_t i = 0; i < vehicles; ++i) {
            const std::uint32_t lane = (i * 7U) % lanes;
            const double fraction = 0.1 + 0.8 * static_cast<double>((i * 37U) % 100U) / 100.0;
            m_vehicles.push_back({100U + i, lane, fraction * map.lane(lane).length_m, 5.0 + static_cast<double>(i % 8)});
        }
        for (std::uint32_t i = 0; i < pedestrians; ++i) {
            m_pedestrians.push_back({5000U + i, map.minCorner().x_m + 3.0 * i, map.minCorner().y_m});
        }
    }

    /// Advances every vehicle by dt_s along its lanes.
    void advance(double dt_s) {
        for (Vehicle& v : m_vehicles) {
            v.s_m += v.speed_mps * dt_s;
            while (v.s_m > m_map.lane(v.lane).length_m) {
                const auto next = m_map.successors(v.lane);
                v.s_m -= m_map.lane(v.lane).length_m;
                v.lane = next.empty() ? (v.lane + 1U) % static_cast<std::uint32_t>(m_map.laneCount()) : next[v.id % next.size()];
            }
        }
    }

    /// The object list at `stamp_ns`, the scene first moved on by the time since the previous writeAt's
    /// stamp (not at the first call): positions then agree with the stamps, as a perception stack's do, so
    /// a tracker that associates by position follows the vehicles. Only vehicles [firstVehicle,
    /// lastVehicle) are seen.
    void writeAt(ObjectList& list, std::uint64_t sequence, std::int64_t stamp_ns, std::size_t firstVehicle = 0,
                 std::size_t lastVehicle = SIZE_MAX) {
        if (m_hasStamp && stamp_ns > m_lastStamp_ns) {
            advance(static_cast<double>(stamp_ns - m_lastStamp_ns) * 1e-9);
        }
        m_hasStamp = true;
        m_lastStamp_ns = stamp_ns;
        write(list, sequence, stamp_ns, firstVehicle, lastVehicle);
    }
    /// The object list of the current scene state; only vehicles [firstVehicle, lastVehicle) are seen.
    void write(ObjectList& list, std::uint64_t sequence, std::int64_t stamp_ns, std::size_t firstVehicle = 0,
               std::size_t lastVehicle = SIZE_MAX) const {
        list.header = MessageHeader{};
        list.header.sequence = sequence;
        list.header.stamp_ns = stamp_ns;
        list.ego = EgoState{};
        list.objectCount = 0;
        for (std::size_t i = firstVehicle; i < m_vehicles.size() && i < lastVehicle; ++i) {
            const Vehicle& v = m_vehicles[i];
            runtime::scene::Point2 p;
            double heading = 0.0;
            m_map.pointAt(v.lane, v.s_m, p, heading);
            PerceivedObject& o = list.objects[list.objectCount++];
            o = PerceivedObject{};
            o.id = v.id;
            o.objectClass = ObjectClass::Car;
            o.x_m = static_cast<float>(p.x_m);
            o.y_m = static_cast<float>(p.y_m);
            o.heading_rad = static_cast<float>(heading);
            o.speed_mps = static_cast<float>(v.speed_mps);
            o.length_m = 4.5F;
            o.width_m = 1.8F;
            o.stdX_m = o.stdY_m = 0.3F;
            o.stdHeading_rad = 0.05F;
            o.stdSpeed_mps = 0.3F;
        }
        for (const Standing& s : m_pedestrians) {
            PerceivedObject& o = list.objects[list.objectCount++];
            o = PerceivedObject{};
            o.id = s.id;
            o.objectClass = ObjectClass::Pedestrian;
            o.x_m = static_cast<float>(s.x_m);
            o.y_m = static_cast<float>(s.y_m);
            o.length_m = o.width_m = 0.5F;
            o.stdX_m = o.stdY_m = 0.2F;
            o.stdHeading_rad = 0.5F;
            o.stdSpeed_mps = 0.3F;
        }
    }

    [[nodiscard]] std::size_t vehicleCount() const noexcept { return m_vehicles.size(); }

private:
    struct Vehicle {
        std::uint32_t id;
        std::uint32_t lane;
        double s_m;
        double speed_mps;
    };
    struct Standing {
        std::uint32_t id;
        double x_m;
        double y_m;
    };
    const runtime::scene::RoadMap& m_map;
    bool m_hasStamp{false};
    std::int64_t m_lastStamp_ns{0};
    std::vector<Vehicle> m_vehicles;
    std::vector<Standing> m_pedestrians;
};

/// Every channel of `d` moved to instance `instance` (tests running one after another never share a channel).
inline void useInstance(config::Deployment& d, const std::string& instance) {
    for (config::Channel* c : {&d.transport.objects, &d.transport.tracks, &d.transport.intentions, &d.transport.prediction,
                               &d.transport.health, &d.transport.platoons, &d.transport.linkStatus}) {
        c->instance = instance;
    }
}

}  // namespace augur::testing
