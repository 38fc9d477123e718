// Motion: Markov-chain prediction of every predicted vehicle along each of its corridors over the
// horizon (paper 000 §3.4, kernels/markov cpu::predict), weighted by the intention filter's corridor
// probabilities and stop probability, with the ego-centred occupancy grid; published as the
// MotionPrediction.
//
// Each corridor starts from the track: the speed estimate along the vehicle's heading (mean and standard
// deviation from the Kalman state) and the input distribution of its tracked longitudinal acceleration
// (markov::inputDistribution), both spread so that their means are the track's; the vehicle sits at the
// centre of the first position cell (the centreline and the constraint distances are shifted by half a
// cell, the published sMean is from the vehicle). The vehicle ahead is taken to brake as comfortably as
// the follower would (CorridorConstraints::leadDecel_mps2 = rules.comfortDecel_mps2).
//
// In ConstantVelocity mode (and for vehicles off the map) the prediction is the Kalman track
// extrapolated at constant velocity: one straight "corridor" with probability 1, its spread growing
// with the velocity covariance; no occupancy grid is published in that mode (frameCount 0).
//
// The CPU sizing (docs/design/motion-prediction.md, "CPU sizing"): whenever the CPU propagates (the CPU
// backend, or from the first GPU error on), the cpuFullChainVehicles vehicles nearest the ego take
// cpuFullChain (the deployment's chain when unset) and every other vehicle cpuChain, a coarser
// discretisation (same range, inputs, dynamics and rules; larger position and speed cells). Nearest by the
// Euclidean distance from the ego at the cycle's input, ties to the lower frame index; the choice is
// made per cycle and depends on the input only (not on timing), so the outputs stay deterministic.
// The GPU propagates every vehicle with the deployment's chain.
//
// The corridors are propagated in fixed chunks of MOTION_CHUNK_CORRIDORS on a worker pool started at init
// (cpuWorkers threads, the cycle thread being one of them). Each corridor's marginals and points do not
// depend on the chunking; the grid is the integer sum of the chunks' grids, saturated at 65535, so it
// depends on the fixed chunk size only: the outputs are bit-identical for any worker count.
//
// With the CUDA backend (enableGpu() at init) the propagation runs as markov::cuda::predict captured
// into CUDA graphs on a high-priority stream (runtime/src/stages/motion_gpu.hpp), completion observed
// by polling an event. A CUDA error (or a GPU that does not finish within gpuTimeout_ns) makes that
// cycle publish the constant-velocity prediction and return StageStatus::GpuError; from then on the
// stage propagates on the CPU (the CPU path's memory and workers exist from init).
//
// Run phase: noexcept, allocation-free; scratch, worker threads and transition matrices are built at init.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene_frame.hpp"
#include "augur/runtime/trace.hpp"

namespace augur::kernels::detail {
class WorkerPool;  // kernels/src/worker_pool.hpp
}

namespace augur::runtime {

namespace detail {
class MotionGpu;  // runtime/src/stages/motion_gpu.hpp
}

/// Corridors per chunk of the CPU propagation (fixed: the grid's rounding depends on it, not on the
/// worker count). Small enough that a handful of vehicles spread over the workers, large enough that the
/// per-chunk grid pass (frames × width × height cells) stays small next to the chunk's propagation.
inline constexpr int MOTION_CHUNK_CORRIDORS = 4;

struct MotionStageSettings {
    kernels::markov::ChainConfig chain{};
    kernels::markov::PredictionConfig prediction{};  ///< maxCorridors = vehicles × corridors per vehicle
    /// ψ_sub (markov::relaxingInputDynamics): a driver at cruise presses a pedal after cruiseHold_s on
    /// average, holds a gentle acceleration or braking input (one input from cruise) pedalHold_s on average
    /// before releasing it (a harder one, k inputs out, k² times shorter), and jumps to any input at
    /// surpriseRate_hz (docs/design/motion-prediction.md, "ψ_sub").
    float cruiseHold_s{30.0F};
    float pedalHold_s{2.0F};
    float surpriseRate_hz{0.01F};
    std::uint32_t maxVehicles{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES)};
    bool gridEnabled{true};
    float gridFrameInterval_s{1.0F};
    int cpuWorkers{1};  ///< threads that propagate corridor chunks (≥ 1; the calling thread is one)
    /// The CPU's full chain: at most `chain`'s position and speed cells, every other field equal to
    /// `chain`'s. Unset: `chain`.
    std::optional<kernels::markov::ChainConfig> cpuFullChain{};
    /// The CPU sizing's coarser chain: at most the CPU's full chain's position and speed cells, every other
    /// field equal to `chain`'s. Unset: the CPU propagates every vehicle with its full chain.
    std::optional<kernels::markov::ChainConfig> cpuChain{};
    /// With cpuChain set: the vehicles nearest the ego that the CPU propagates with its full chain.
    std::uint32_t cpuFullChainVehicles{0};
    std::int64_t gpuPoll_ns{20'000};            ///< completion event polling interval (CUDA backend)
    std::int64_t gpuTimeout_ns{1'000'000'000};  ///< a GPU that has not finished by then counts as failed
    bool gpuZeroCopy{false};  ///< CUDA backend: kernels address mapped staging / results (integrated GPUs)
};

class MotionStage final : public StageRunner {
public:
    /// Builds Υ(τ), Υ([0, τ]) and sizes the scratch (init phase; about a second at the default size).
    [[nodiscard]] static Result<std::unique_ptr<MotionStage>, kernels::markov::MarkovError> create(
        const MotionStageSettings& settings, PipelineState& state, SceneFrame& frame);

    ~MotionStage() override;
    MotionStage(const MotionStage&) = delete;
    MotionStage& operator=(const MotionStage&) = delete;

    StageStatus run(CycleContext& context) noexcept override;

    /// Moves the propagation to the GPU: uploads the chain, allocates device and page-locked memory and
    /// captures the cycle's graphs. Init phase; the error names the step that failed (the stage then
    /// stays on the CPU).
    [[nodiscard]] Result<void, std::string> enableGpu();
    /// Whether the propagation runs on the GPU now (enabled and no GPU error so far).
    [[nodiscard]] bool onGpu() const noexcept;
    /// CUDA errors (and GPU timeouts) seen; each one moves the stage to the CPU.
    [[nodiscard]] std::uint64_t gpuErrors() const noexcept { return m_gpuErrors; }
    /// Moves the propagation to the CPU for good (another stage saw a CUDA error).
    void fallBackToCpu() noexcept { m_gpuFailed = true; }
    /// The latest GPU work of this stage (launch to observed completion; {0, 0} before any), for the
    /// trace's GPU track. Cycle thread.
    [[nodiscard]] GpuSpan lastGpuSpan() const noexcept { return m_lastGpuSpan; }
    /// CUDA graph replays so far (0 on the CPU).
    [[nodiscard]] std::uint64_t graphReplays() const noexcept;
    /// Test hook: the next GPU propagation fails as if a CUDA call had returned an error. Thread-safe.
    void injectGpuError() noexcept { m_injectGpuError.store(true, std::memory_order_relaxed); }
    /// Vehicles the last Markov prediction propagated with the CPU sizing's coarser chain (0 on the GPU,
    /// without a cpuChain, or when every vehicle was among the nearest).
    [[nodiscard]] std::uint32_t coarseVehicles() const noexcept { return m_coarseVehicles; }

private:
    /// One worker's scratch: cpu::predict's scratch for one chunk, the chunk's grid and the worker's
    /// integer sum of its chunks' grids.
    struct WorkerScratch {
        std::vector<std::byte> predict;
        std::vector<std::uint16_t> chunkGrid;
        std::vector<std::uint32_t> gridSum;
    };

    MotionStage(const MotionStageSettings& settings, kernels::markov::MarkovChain chain, PipelineState& state,
                SceneFrame& frame);
    void predictConstantVelocity() noexcept;
    /// Markov prediction; false when the GPU failed (the caller falls back).
    [[nodiscard]] bool predictMarkov() noexcept;
    /// The corridors of this cycle's vehicles into m_corridors: with `cpuSizing` those of the nearest
    /// vehicles (the CPU's full chain) first, m_fullCorridorCount of them, then the others (the coarse
    /// chain, where there is one); without, every vehicle's on the deployment's chain. Returns the corridor
    /// count.
    [[nodiscard]] int gatherCorridors(bool cpuSizing) noexcept;
    /// Marks m_fullChain[v] for the cpuFullChainVehicles vehicles nearest the ego (the others false).
    void rankByDistanceToEgo() noexcept;
    /// Appends vehicle v's corridors (up to maxCorridors in all) to m_corridors, set up for `chain`.
    void gatherVehicle(std::uint32_t v, const kernels::markov::ChainConfig& chain, int& corridorCount) noexcept;
    [[nodiscard]] bool propagateGpu(int corridorCount) noexcept;
    void propagateCpu(int corridorCount) noexcept;
    void writeMarkovOutputs(int corridorCount) noexcept;
    void writeConstantVelocity(VehiclePrediction& out, const Track& track) const noexcept;
    /// Worker `worker`'s part of the propagation: takes chunks until none is left.
    void propagateChunks(int worker) noexcept;
    /// Half a position cell of the chain corridor c was propagated with (gatherCorridors' shift).
    [[nodiscard]] float halfCellOf(int corridor) const noexcept;

    MotionStageSettings m_settings;
    kernels::markov::MarkovChain m_chain;
    std::optional<kernels::markov::MarkovChain> m_cpuFullChain;  ///< the CPU's full chain (cpuFullChain)
    std::optional<kernels::markov::MarkovChain> m_coarseChain;   ///< the CPU sizing's chain (cpuChain)
    /// The chain of corridors [0, m_fullCorridorCount) this cycle: m_chain on the GPU, the CPU's full chain
    /// on the CPU.
    const kernels::markov::MarkovChain* m_fullChainUsed{nullptr};
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
    kernels::markov::PredictionConfig m_chunkConfig{};  ///< prediction with maxCorridors = one chunk
    std::vector<WorkerScratch> m_workers;
    std::unique_ptr<kernels::detail::WorkerPool> m_pool;
    std::atomic<int> m_nextChunk{0};
    int m_corridorCount{0};
    int m_fullCorridorCount{0};  ///< corridors [0, this) use *m_fullChainUsed, the rest m_coarseChain
    std::uint32_t m_coarseVehicles{0};
    std::array<bool, MAX_PREDICTED_VEHICLES> m_fullChain{};          ///< per frame vehicle (CPU sizing)
    std::array<std::uint32_t, MAX_PREDICTED_VEHICLES> m_byDistance{};  ///< frame vehicles, nearest first
    std::array<float, MAX_PREDICTED_VEHICLES> m_distanceSq{};          ///< per frame vehicle, m²
    kernels::markov::GridPlacement m_placement{};
    EgoState m_ego{};
    std::unique_ptr<detail::MotionGpu> m_gpu;
    bool m_gpuFailed{false};
    std::uint64_t m_gpuErrors{0};
    std::atomic<bool> m_injectGpuError{false};
    GpuSpan m_lastGpuSpan{};
};

}  // namespace augur::runtime
