// The CUDA part of the Intention stage: the scene particle filters (kernels/pf cuda::ParticleFilter)
// on a high-priority stream, each filter set's whole step captured at init into one CUDA graph and
// replayed each cycle; completion observed by polling an event, never by a blocking device synchronise.
//
// Per cycle the host writes every filter's inputs into the filters' page-locked staging (stage()) and
// calls launch(); the graph uploads them and steps every filter of the set (predict+update, reduction,
// the resampling decision and the resampling on the device), whose outputs land in mapped page-locked
// memory; wait() polls the completion event. A vehicle entering takes its slot through
// the inputs themselves (SceneVehicleInput::redraw), so the graph's shape never changes.
//
// Two filter sets, as on the CPU: `particles` scene particles per filter (Nominal) and
// `particlesReduced` (ReducedParticles); initialize() draws a set's particles from the current inputs
// (first cycle and mode switches: enqueued directly, not from a graph).
//
// Init phase: create() allocates and captures; run phase: initialize(), stage(), launch(), wait() are
// noexcept and allocation-free. Compiled only with the CUDA backend (AUGUR_HAVE_CUDA); without it
// create() fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "augur/core/result.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/pf/scene_model.hpp"
#include "augur/platform/cuda_check.hpp"

namespace augur::runtime::detail {

class IntentionGpu {
public:
    struct Shape {
        std::uint32_t filters{1};
        std::uint32_t vehiclesPerFilter{1};
        std::uint32_t particles{1};         ///< per filter, Nominal set
        std::uint32_t particlesReduced{1};  ///< per filter, ReducedParticles set
    };

    /// Allocates both filter sets on the device, the page-locked staging and results, and captures one
    /// graph per set. `config.particles` and `config.vehicles` are set from `shape`; filter f uses seed
    /// config.seed + f (as the CPU filters). Init phase; the error says which step failed.
    [[nodiscard]] static Result<std::unique_ptr<IntentionGpu>, std::string> create(
        const Shape& shape, const kernels::pf::FilterConfig& config, const kernels::pf::SceneModel::Params& model);
    ~IntentionGpu();
    IntentionGpu(const IntentionGpu&) = delete;
    IntentionGpu& operator=(const IntentionGpu&) = delete;

    /// Draws the particles of one set (`nominal`: the Nominal set, else the reduced one) from `inputs`
    /// (filters · vehiclesPerFilter, filter-major) and records the completion event. Run phase.
    [[nodiscard]] platform::GpuStatus initialize(bool nominal, std::span<const kernels::pf::SceneVehicleInput> inputs) noexcept;
    /// Copies this cycle's inputs (filters · vehiclesPerFilter, filter-major) into the set's staging.
    /// Precondition: the previous launch of that set has completed (wait() returned true).
    void stage(bool nominal, std::span<const kernels::pf::SceneVehicleInput> inputs) noexcept;
    /// Replays the set's graph (upload and one step per filter) and records the completion
    /// event. Run phase; a CUDA error is returned.
    [[nodiscard]] platform::GpuStatus launch(bool nominal) noexcept;
    /// Polls the completion event (sleeping `poll_ns` between queries) until the work is done or
    /// `timeout_ns` has passed. True when done; false on a timeout; a CUDA error as error.
    [[nodiscard]] Result<bool, platform::GpuError> wait(std::int64_t poll_ns, std::int64_t timeout_ns) noexcept;

    /// Copies the outputs of the set's last completed launch (wait() returned true) into `outputs`:
    /// filter f's outputCount<SceneModel>(vehiclesPerFilter) values at f · that count.
    void copyOutputs(bool nominal, std::span<float> outputs) const noexcept;
    /// Graph replays so far (both sets).
    [[nodiscard]] std::uint64_t replays() const noexcept;

    struct Impl;

private:
    explicit IntentionGpu(std::unique_ptr<Impl> impl) noexcept;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace augur::runtime::detail
