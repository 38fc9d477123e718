// Motion: Markov-chain prediction of every predicted vehicle along each of its corridors over the
// horizon (paper 000 §3.4, kernels/markov cpu::predict), weighted by the intention filter's corridor
// probabilities and stop probability, with the ego-centred occupancy grid; published as the
// MotionPrediction.
//
// In ConstantVelocity mode (and for vehicles off the map) the prediction is the Kalman track
// extrapolated at constant velocity: one straight "corridor" with probability 1, its spread growing
// with the velocity covariance; no occupancy grid is published in that mode (frameCount 0).
//
// Run phase: noexcept, allocation-free; scratch and transition matrices are built at init.
#pragma once

#include <memory>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene_frame.hpp"

namespace augur::runtime {

struct MotionStageSettings {
    kernels::markov::ChainConfig chain{};
    kernels::markov::PredictionConfig prediction{};  ///< maxCorridors = vehicles × corridors per vehicle
    float inputStay{0.8F};                            ///< ψ: probability of keeping the pedal input per step
    std::uint32_t maxVehicles{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES)};
    bool gridEnabled{true};
    float gridFrameInterval_s{1.0F};
};

class MotionStage final : public StageRunner {
public:
    /// Builds Υ(τ), Υ([0, τ]) and sizes the scratch (init phase; about a second at the default size).
    [[nodiscard]] static Result<std::unique_ptr<MotionStage>, kernels::markov::MarkovError> create(
        const MotionStageSettings& settings, PipelineState& state, SceneFrame& frame);

    StageStatus run(CycleContext& context) noexcept override;

private:
    MotionStage(const MotionStageSettings& settings, kernels::markov::MarkovChain chain, PipelineState& state,
                SceneFrame& frame);
    void predictConstantVelocity() noexcept;
    void predictMarkov() noexcept;
    void writeConstantVelocity(VehiclePrediction& out, const Track& track) const noexcept;

    MotionStageSettings m_settings;
    kernels::markov::MarkovChain m_chain;
    kernels::markov::InputDynamics m_psi{};
    PipelineState& m_state;
    SceneFrame& m_frame;
    std::vector<kernels::markov::CorridorInput> m_corridors;
    std::vector<std::uint32_t> m_corridorVehicle;  ///< per corridor input: frame vehicle
    std::vector<std::uint32_t> m_corridorSlot;     ///< … and its corridor index there
    std::vector<float> m_polyX;
    std::vector<float> m_polyY;
    std::vector<float> m_polyS;
    std::vector<float> m_positionMarginal;
    std::vector<float> m_speedMarginal;
    std::vector<CorridorPoint> m_points;
    std::vector<std::byte> m_scratch;
    EgoState m_ego{};
};

}  // namespace augur::runtime
