// Intention: the scene particle filter of paper 000 (§4.2, kernels/pf SceneModel) over the predicted
// vehicles — per vehicle P(corridor), P(stop) and P(lane change) — published as the IntentionList and
// handed to the motion prediction through the SceneFrame.
//
// A particle of the scene model holds every vehicle of its filter (at most SceneModel::MAX_VEHICLES =
// 32), so the predicted vehicles are split over ⌈maxVehicles / 32⌉ filters; a vehicle interacts (gives
// way) only with vehicles of its own filter. Vehicles keep their filter slot while they are predicted;
// a vehicle entering takes a free slot whose particles are redrawn from its measurement
// (reinitializeVehicle), a slot whose vehicle left is predicted without weight until it is reused. A
// particle's corridor is an index into this cycle's corridor list, so a vehicle whose corridors are no
// longer the same routes under the same indices (a fork came within reach, the vehicle entered a junction,
// a lane change became possible) has its particles redrawn too: carrying them over would give a new route
// the probability of whatever route had its index before.
// Nominal mode runs filters of `particles` scene particles, ReducedParticles mode filters of
// `particlesReduced` (switching re-initialises the other set from the current inputs). Corridors beyond
// the model's four per vehicle get probability 0.
//
// CPU backend (kernels/pf cpu::ParticleFilter). Run phase: noexcept, allocation-free, O(K · vehicles).
#pragma once

#include <memory>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/pf/scene_model.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene_frame.hpp"

namespace augur::runtime {

struct IntentionStageSettings {
    std::uint32_t maxVehicles{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES)};
    std::uint32_t particles{1024};
    std::uint32_t particlesReduced{256};
    kernels::pf::FilterConfig filter{};  ///< seed, threshold, resampler, DE; particles/vehicles set per filter
    kernels::pf::SceneModel::Params model{};
};

class IntentionStage final : public StageRunner {
public:
    using Filter = kernels::pf::cpu::ParticleFilter<kernels::pf::SceneModel>;

    /// Allocates both filter sets. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<IntentionStage>, kernels::pf::FilterError> create(
        const IntentionStageSettings& settings, PipelineState& state, SceneFrame& frame);

    StageStatus run(CycleContext& context) noexcept override;

    /// Vehicles that found no free filter slot (since init).
    [[nodiscard]] std::uint64_t unassigned() const noexcept { return m_unassigned; }

private:
    struct Slot {
        bool occupied{false};
        bool seen{false};
        bool fresh{false};  ///< took this slot this cycle, or its corridors changed: redraw its particles
        std::uint32_t trackId{0};
        std::uint32_t frameIndex{0};
        /// The corridors its particles refer to (FrameCorridor::route), as of the last cycle.
        std::uint32_t corridorCount{0};
        std::uint32_t routeLanes[kernels::pf::SceneVehicleInput::MAX_CORRIDORS]{};
        std::uint32_t routes[kernels::pf::SceneVehicleInput::MAX_CORRIDORS][FRAME_ROUTE_LANES]{};
    };
    IntentionStage(const IntentionStageSettings& settings, PipelineState& state, SceneFrame& frame);

    void assignSlots() noexcept;
    /// Whether slot `slot`'s particles still mean the frame vehicle's corridors, index by index; records them.
    bool keepsItsCorridors(Slot& slot, const FrameVehicle& vehicle) noexcept;
    void buildInputs(bool measured) noexcept;
    void readOutputs(const std::vector<Filter>& filters) noexcept;

    IntentionStageSettings m_settings;
    PipelineState& m_state;
    SceneFrame& m_frame;
    std::uint32_t m_vehiclesPerFilter{0};
    std::vector<Filter> m_nominal;
    std::vector<Filter> m_reduced;
    std::vector<Slot> m_slots;  ///< filter f, slot s at f · vehiclesPerFilter + s
    std::vector<kernels::pf::SceneVehicleInput> m_inputs;
    std::vector<std::int32_t> m_slotOfFrame;  ///< per frame vehicle: global slot or −1
    bool m_nominalActive{true};
    bool m_initialized{false};
    std::uint64_t m_unassigned{0};
};

}  // namespace augur::runtime
