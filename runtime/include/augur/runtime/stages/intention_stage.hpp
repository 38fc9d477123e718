// Intention: the scene particle filter of paper 000 (§4.2, kernels/pf SceneModel) over the predicted
// vehicles — per vehicle P(corridor), P(stop) and P(lane change) — published as the IntentionList and
// handed to the motion prediction through the SceneFrame.
//
// Every predicted vehicle has a filter of its own (a slot): the scene model's particle could hold up to
// SceneModel::MAX_VEHICLES vehicles, but a particle weighted by the measurements of tens of vehicles
// keeps an effective sample size near 1, so each vehicle's corridor and intentions were those of
// whichever few particles the other vehicles' measurements favoured (docs/design/runtime.md). A vehicle
// therefore yields at a give-way to nobody in particular. Vehicles keep their slot while they are
// predicted; a vehicle entering takes a free slot whose particles are redrawn from its measurement that
// cycle (SceneVehicleInput::redraw), a slot whose vehicle left is predicted without weight until it is
// reused. A
// particle's corridor is an index into this cycle's corridor list, so a vehicle whose corridors are no
// longer the same routes under the same indices (a fork came within reach, the vehicle entered a junction,
// a lane change became possible) has its particles redrawn too: carrying them over would give a new route
// the probability of whatever route had its index before.
// Nominal mode runs filters of `particles` scene particles, ReducedParticles mode filters of
// `particlesReduced` (switching re-initialises the other set from the current inputs). Corridors beyond
// the model's four per vehicle get probability 0.
//
// CPU backend: kernels/pf cpu::ParticleFilter, the filters shared among the stage's worker threads
// (`filter.cpuThreads`) by a fixed partition, each filter on one thread, so the result does not depend
// on the thread count. CUDA backend (enableGpu() at
// init): cuda::ParticleFilter, each set's step for all its filters captured into one CUDA graph on a
// high-priority stream (runtime/src/stages/intention_gpu.hpp), completion observed by polling an event.
// A CUDA error (or a GPU that does not finish within gpuTimeout_ns) makes that cycle's filters restart
// on the CPU and return StageStatus::GpuError; from then on the CPU filters run.
// Inputs the filters would reject (kernels::pf::validateInputs: a non-finite measurement or standard
// deviation, say, from a diverged track) fail the cycle's stage (StageStatus::Failed, counted in the
// Health message's stageFailures) before any filter steps: the cycle publishes no intentions and
// the filters are drawn anew from the next cycle's inputs (`rejectedCycles()` counts such cycles).
// Run phase: noexcept, allocation-free, O(K · slots).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/pf/scene_model.hpp"
#include "augur/runtime/corridor_groups.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene_frame.hpp"
#include "augur/runtime/trace.hpp"

namespace augur::kernels::detail {
class WorkerPool;  // kernels/src/worker_pool.hpp
}

namespace augur::runtime {

namespace detail {
class IntentionGpu;  // runtime/src/stages/intention_gpu.hpp
}  // namespace detail

struct IntentionStageSettings {
    std::uint32_t maxVehicles{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES)};
    std::uint32_t particles{1024};
    std::uint32_t particlesReduced{256};
    kernels::pf::FilterConfig filter{};  ///< seed, threshold, resampler, DE; particles/vehicles set per filter
    kernels::pf::SceneModel::Params model{};
    /// Prior probability that a vehicle with lane-change corridors is changing lanes (corridorPriors).
    float laneChangePrior{0.1F};
    /// How drivers slow for a slower stretch ahead: the split of corridors that coincide up to a fork.
    SlowingModel slowing{};
    std::int64_t gpuPoll_ns{20'000};            ///< completion event polling interval (CUDA backend)
    std::int64_t gpuTimeout_ns{1'000'000'000};  ///< a GPU that has not finished by then counts as failed
};

class IntentionStage final : public StageRunner {
public:
    using Filter = kernels::pf::cpu::ParticleFilter<kernels::pf::SceneModel>;

    /// Allocates both filter sets. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<IntentionStage>, kernels::pf::FilterError> create(
        const IntentionStageSettings& settings, PipelineState& state, SceneFrame& frame);

    ~IntentionStage() override;

    /// Moves the filters to the GPU: allocates both sets on the device and captures their graphs.
    /// Init phase; on failure the stage stays on the CPU and the error says why.
    [[nodiscard]] Result<void, std::string> enableGpu();
    /// Whether the filters run on the GPU now (enabled and no GPU error so far).
    [[nodiscard]] bool onGpu() const noexcept;
    /// CUDA errors (and GPU timeouts) seen; each one moves the stage to the CPU.
    [[nodiscard]] std::uint64_t gpuErrors() const noexcept { return m_gpuErrors; }
    /// Moves the filters to the CPU for good (another stage saw a CUDA error: the device is not trusted).
    /// The next cycle restarts the CPU filters from its inputs.
    void fallBackToCpu() noexcept;
    /// The latest GPU work of this stage (launch to observed completion; {0, 0} before any), for the
    /// trace's GPU track. Cycle thread.
    [[nodiscard]] GpuSpan lastGpuSpan() const noexcept { return m_lastGpuSpan; }
    /// CUDA graph replays so far.
    [[nodiscard]] std::uint64_t graphReplays() const noexcept;
    /// Test hook: the next GPU step fails as if a CUDA call had returned an error. Thread-safe.
    void injectGpuError() noexcept { m_injectGpuError.store(true, std::memory_order_relaxed); }

    StageStatus run(CycleContext& context) noexcept override;

    /// Cycles whose inputs the filters would have rejected (since init); see the header comment.
    [[nodiscard]] std::uint64_t rejectedCycles() const noexcept { return m_rejectedCycles; }
    /// Vehicles that found no free filter slot (since init).
    [[nodiscard]] std::uint64_t unassigned() const noexcept { return m_unassigned; }

private:
    struct Slot {
        bool occupied{false};
        bool seen{false};
        bool fresh{false};  ///< took this slot this cycle, or its corridors changed: redraw its particles
        std::uint32_t trackId{0};
        std::uint32_t frameIndex{0};
        /// The corridors its particles refer to (FrameCorridor::route) and their groups (groupsOf), as of
        /// the last cycle.
        std::uint32_t corridorCount{0};
        std::uint32_t routeLanes[kernels::pf::SceneVehicleInput::MAX_CORRIDORS]{};
        std::uint32_t routes[kernels::pf::SceneVehicleInput::MAX_CORRIDORS][FRAME_ROUTE_LANES]{};
        std::uint8_t group[kernels::pf::SceneVehicleInput::MAX_CORRIDORS]{};
        /// The corridor probabilities the last cycle published for those corridors (corridor_groups).
        float published[kernels::pf::SceneVehicleInput::MAX_CORRIDORS]{};
        /// Its corridors are those of the last cycle, but two that shared a group (coincided up to a fork)
        /// no longer do: the vehicle passed the fork. Its particles are redrawn with the corridors drawn
        /// from `carried`: their own split of such a group is impoverishment, not evidence.
        bool passedFork{false};
        /// Where its corridors changed (reordered, a branch dropped or split as the vehicle moved on, or a
        /// fork passed): `published` carried onto this cycle's corridors (corridor_groups' carryOver), the prior its
        /// particles are redrawn from. All 0: nothing to carry (a new vehicle, or nothing it continues).
        float carried[kernels::pf::SceneVehicleInput::MAX_CORRIDORS]{};
    };
    IntentionStage(const IntentionStageSettings& settings, PipelineState& state, SceneFrame& frame);

    void assignSlots() noexcept;
    /// Whether slot `slot`'s particles still mean the frame vehicle's corridors, index by index, and no
    /// two that coincided up to a fork have parted (Slot::passedFork); records them, and where they do
    /// not, what the last cycle published carried onto them (Slot::carried) with the vehicle's corridor
    /// `prior` (corridorPriors, one entry per corridor).
    bool keepsItsCorridors(Slot& slot, const FrameVehicle& vehicle, std::span<const float> prior) noexcept;
    /// This cycle's inputs, a step of `dt_s`; fresh slots are redrawn from their measurement unless the
    /// set restarts.
    void buildInputs(bool measured, bool restart, float dt_s) noexcept;
    /// Whether every filter accepts its share of m_inputs (kernels::pf::validateInputs).
    [[nodiscard]] bool inputsValid() const noexcept;
    /// One step of the set's CPU filters (drawn anew first when `restart`) on the stage's workers;
    /// outputs into m_outputs.
    [[nodiscard]] bool stepCpu(bool nominal, bool restart) noexcept;
    /// The same on the GPU; false on a CUDA error or timeout.
    [[nodiscard]] bool stepGpu(bool nominal, bool restart) noexcept;
    /// IntentionList and the frame's corridor / stop probabilities from m_outputs.
    void readOutputs() noexcept;

    IntentionStageSettings m_settings;
    PipelineState& m_state;
    SceneFrame& m_frame;
    std::vector<Filter> m_nominal;
    std::vector<Filter> m_reduced;
    std::unique_ptr<kernels::detail::WorkerPool> m_pool;  ///< steps the CPU filters
    std::vector<Slot> m_slots;  ///< slot s: the vehicle of filter s
    std::vector<kernels::pf::SceneVehicleInput> m_inputs;
    std::vector<float> m_outputs;  ///< slot s's outputs at s · SceneModel::OUTPUTS_PER_VEHICLE
    std::unique_ptr<detail::IntentionGpu> m_gpu;
    bool m_gpuFailed{false};
    std::uint64_t m_gpuErrors{0};
    std::uint64_t m_rejectedCycles{0};
    std::atomic<bool> m_injectGpuError{false};
    GpuSpan m_lastGpuSpan{};
    std::vector<std::int32_t> m_slotOfFrame;  ///< per frame vehicle: global slot or −1
    bool m_nominalActive{true};
    bool m_initialized{false};
    std::int64_t m_steppedStamp_ns{0};  ///< sensor time of the tracks the filters last stepped with
    std::uint64_t m_unassigned{0};
};

}  // namespace augur::runtime
