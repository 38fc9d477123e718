// Relations: the scene of this cycle (paper 000 §3.1–3.2) — the predicted vehicles (confirmed tracks of
// vehicle classes, in track order, at most the configured number), their corridors on the map and the
// relations between them — condensed per corridor into what the intention filter and the motion
// prediction read: the road summary at the vehicle (heading, curvature, speed limit, the next stop
// point and whom the vehicle yields to there), the lead vehicle, and a resampled centreline.
//
// A lane-change corridor's centreline leaves the vehicle's position and joins the target lane linearly
// over max(20 m, v·4 s), and its road heading is that path's; the end of a dropped lane (no successor while
// a neighbour goes on, e.g. an acceleration lane) is a certain stop; each corridor carries its first lanes
// (FrameCorridor::route) so that the intention stage can tell when a vehicle's corridors changed. Each
// vehicle is matched to lanes with the memory of its track from the previous cycle (scene/lane_memory.hpp);
// a cycle that skips the stage (a degraded mode) clears that memory.
//
// Run phase: noexcept, allocation-free; cost dominated by Scene::update.
#pragma once

#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "augur/runtime/scene_frame.hpp"

namespace augur::runtime {

/// What one class of vehicles cannot exceed whatever the road allows (0: no bound).
struct ClassBound {
    /// A speed limiter: the class's corridors carry the lower of it and each stretch's limit, for the
    /// intention filter's go speed and the motion prediction's limits alike (to a bus held at 100 km/h a
    /// 120 km/h motorway is a 100 km/h road).
    float topSpeed_mps{0.0F};
    /// The hardest the class speeds up (markov::CorridorConstraints::topAccel_mps2).
    float topAccel_mps2{0.0F};
};

/// The bounds of the classes that have them: trucks and buses.
struct ClassBounds {
    ClassBound truck;
    ClassBound bus;
    [[nodiscard]] ClassBound of(ObjectClass objectClass) const noexcept {
        return objectClass == ObjectClass::Truck ? truck : (objectClass == ObjectClass::Bus ? bus : ClassBound{});
    }
};

class RelationsStage final : public StageRunner {
public:
    /// `scene` and the frame outlive the stage. `maxVehicles` ≤ MAX_PREDICTED_VEHICLES,
    /// `maxCorridors` ≤ MAX_CORRIDORS_PER_VEHICLE.
    RelationsStage(scene::Scene& scene, const PipelineState& state, SceneFrame& frame, std::uint32_t maxVehicles,
                   std::uint32_t maxCorridors, ClassBounds classBounds = {}) noexcept;

    StageStatus run(CycleContext& context) noexcept override;

    /// Counts of the last update (vehicles off the map, corridors that did not fit, …).
    [[nodiscard]] const scene::SceneStats& stats() const noexcept { return m_scene.stats(); }

private:
    void describeCorridor(std::uint32_t vehicle, std::uint32_t k) noexcept;
    /// The stop point and whom vehicle v yields to on corridor `global`, and the vehicle it follows.
    void describeYielding(std::uint32_t vehicle, std::uint32_t global, FrameCorridor& out) const noexcept;

    scene::Scene& m_scene;
    const PipelineState& m_state;
    SceneFrame& m_frame;
    std::uint32_t m_maxVehicles;
    std::uint32_t m_maxCorridors;
    ClassBounds m_classBounds;
    std::array<scene::SceneVehicle, MAX_PREDICTED_VEHICLES> m_vehicles{};
};

/// True for the classes the intention and motion models describe (cars, trucks, buses, motorcycles).
[[nodiscard]] bool isPredictedClass(ObjectClass objectClass) noexcept;

}  // namespace augur::runtime
