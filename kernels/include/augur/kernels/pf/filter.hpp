// The particle filter engine: one step = predict → update → weight/output reduction (N_eff decides
// on the device) → resample (systematic, or differential evolution) — Hortelano et al. 2023 section 4.2, seeds
// 001/004 for differential evolution and the copy-index resampling.
//
// Two implementations behind the same interface: cpu::ParticleFilter<Model> (the reference, on
// FilterConfig::cpuThreads threads with results independent of the count) and cuda::ParticleFilter<Model> (kernels on a stream; the whole step can be captured into
// a CUDA graph, it never returns to the host inside a step). Given the same config, seed and inputs
// they draw the same random numbers and compute the same copy indices; outputs agree to float
// tolerance (transcendental functions differ in the last bits between host and device).
//
// Phases: create() allocates (init); initialize/setInputs/step and the stage calls are run phase:
// noexcept, no allocation. Instantiated for UngmModel, GammaNoiseSwitchingModel, LinearGaussianModel, SceneModel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/pf/models.hpp"
#include "augur/kernels/pf/particles.hpp"
#include "augur/kernels/pf/resample.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::detail {
class WorkerPool;  // kernels/src/worker_pool.hpp
}  // namespace augur::kernels::detail

namespace augur::kernels::pf::detail {
struct FilterControl;  // the step's decisions (kernels/pf/filter_control.hpp)
}  // namespace augur::kernels::pf::detail

namespace augur::kernels::pf::testing {
/// The stages and diagnostics only tests and benchmarks call (augur::kernels_testing, filter_probe.hpp).
template <typename Filter>
class FilterProbe;
}  // namespace augur::kernels::pf::testing

namespace augur::kernels::pf {

enum class Resampler : std::uint8_t {
    Systematic,             ///< low-variance resampling, Cao et al. 2018's copy-index formulation
    DifferentialEvolution,  ///< WCMC 2021 and Cao et al. 2018: mutation, binomial crossover, greedy selection
};

/// Differential-evolution resampling (Cao et al. 2018 section 1.2 step d): per generation, for every
/// particle i: v = x_r1 + F·(x_r2 − x_r3) on the continuous state, binomial crossover with
/// probability CR (one field always from v), and the trial replaces x_i when its log-likelihood is
/// higher. Stops after maxGenerations or when the spread (standard deviation of the population's
/// log-likelihood) falls below minSpread. Weights are uniform afterwards, as after resampling.
struct DifferentialEvolutionConfig {
    float crossover{0.6F};  ///< CR (Cao et al. 2018)
    float scale{0.5F};      ///< F
    std::uint32_t maxGenerations{10};  ///< G_max (Cao et al. 2018); at most MAX_GENERATIONS
    float minSpread{1e-3F};  ///< σ_min on the log-likelihood
    static constexpr std::uint32_t MAX_GENERATIONS = 32;
};

struct FilterConfig {
    std::uint32_t particles{1000};  ///< K, 1 … MAX_PARTICLES
    std::uint32_t vehicles{1};      ///< slots per particle (scene model: 1 … SceneModel::MAX_VEHICLES)
    std::uint64_t seed{1};
    float resampleThreshold{0.5F};  ///< resample when N_eff < threshold · K (Hortelano et al. 2023: 0.5)
    Resampler resampler{Resampler::Systematic};
    /// Structure of arrays by default: faster at the seed's scale and at K = 10⁶ (H100 and H200,
    /// augur-bench-pf's stage and floor tables); docs/design/particle-filter.md says why.
    StateLayout layout{StateLayout::StructOfArrays};
    DifferentialEvolutionConfig de{};
    /// Threads of the CPU reference (cpu::ParticleFilter; the CUDA path ignores it): 1 runs on the calling
    /// thread only, 0 on every hardware thread, n on n threads (the caller is one of them). Work is split
    /// by a fixed partition into CPU_CHUNK-particle chunks, reductions combine the chunks in order, so the
    /// results are the same, bit for bit, for any thread count. Threads are started by create().
    std::uint32_t cpuThreads{1};
};

/// Particles per chunk of the CPU reference's fixed partition (its reductions sum chunk by chunk).
/// Not swept; with it the seed-scale step (20,000 × 20) takes 15.0 ms on 16 host threads of the H100
/// machine vs 64.9 ms on one (SoA, docs/benchmarks.md).
inline constexpr std::uint32_t CPU_CHUNK = 4096;

enum class FilterError : std::uint8_t {
    InvalidParticleCount,  ///< 0 or above MAX_PARTICLES
    InvalidVehicleCount,
    InvalidParameter,      ///< threshold, CR, F, generations out of range
    InputSizeMismatch,     ///< an input span does not hold exactly `vehicles` elements
    InvalidInput,          ///< an input the model cannot step with (Model::validInput: NaN, σ ≤ 0, …)
    Gpu,                   ///< a CUDA call failed (allocation included)
};

/// What a step's reduction found. Filled on the device; read it with summary().
struct StepSummary {
    double sumWeights{0.0};         ///< Σ exp(log w − max log w)
    float effectiveSampleSize{0.0F};  ///< N_eff = (Σw)² / Σw² = 1 / Σ w̃² of the normalised weights
    float maxLogWeight{0.0F};
    std::uint32_t step{0};          ///< steps completed
    std::uint32_t resampled{0};     ///< 1 when this step resampled
    std::uint32_t generations{0};   ///< differential-evolution generations run this step
};

/// Number of output channels: per vehicle Model::OUTPUTS_PER_VEHICLE weighted means.
template <typename Model>
constexpr std::uint32_t outputCount(std::uint32_t vehicles) noexcept {
    return vehicles * static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
}

/// Checks a config for `Model` (init phase).
template <typename Model>
Result<void, FilterError> validate(const FilterConfig& config) noexcept {
    if (config.particles == 0 || config.particles > MAX_PARTICLES) {
        return fail(FilterError::InvalidParticleCount);
    }
    if (config.vehicles == 0 || config.vehicles > Model::MAX_VEHICLES) {
        return fail(FilterError::InvalidVehicleCount);
    }
    if (!(config.resampleThreshold >= 0.0F) || !(config.de.crossover >= 0.0F && config.de.crossover <= 1.0F) ||
        !(config.de.scale >= 0.0F) || config.de.maxGenerations > DifferentialEvolutionConfig::MAX_GENERATIONS) {
        return fail(FilterError::InvalidParameter);
    }
    return {};
}

/// Checks one step's inputs for `Model` (run phase: noexcept, allocation-free): InputSizeMismatch
/// unless there is one per vehicle, InvalidInput when any fails Model::validInput. setInputs and
/// initialize of both implementations reject what this rejects and keep the inputs they had.
template <typename Model>
Result<void, FilterError> validateInputs(std::span<const typename Model::VehicleInput> inputs,
                                         std::uint32_t vehicles) noexcept {
    if (inputs.size() != vehicles) {
        return fail(FilterError::InputSizeMismatch);
    }
    for (const auto& input : inputs) {
        if (!Model::validInput(input, vehicles)) {
            return fail(FilterError::InvalidInput);
        }
    }
    return {};
}

namespace cpu {

/// CPU reference particle filter (FilterConfig::cpuThreads threads, the same results for any count).
/// Same stages and random numbers as the CUDA path.
template <typename Model>
class ParticleFilter {
public:
    using Params = typename Model::Params;
    using Input = typename Model::VehicleInput;

    ParticleFilter() noexcept;
    ParticleFilter(ParticleFilter&&) noexcept;
    ParticleFilter& operator=(ParticleFilter&&) noexcept;
    ~ParticleFilter();

    /// Allocates all buffers. Init phase.
    [[nodiscard]] static Result<ParticleFilter, FilterError> create(const FilterConfig& config, const Params& params);

    /// Draws the initial particles from `inputs` (one per vehicle), uniform weights, step 0.
    /// Rejects inputs as setInputs does.
    [[nodiscard]] Result<void, FilterError> initialize(std::span<const Input> inputs) noexcept;
    /// Stores this step's inputs (one per vehicle) for the next step(). Rejected (validateInputs):
    /// the wrong count, or an input the model cannot step with; the stored inputs stay as they were.
    [[nodiscard]] Result<void, FilterError> setInputs(std::span<const Input> inputs) noexcept;
    /// One whole step with the stored inputs. O(K · vehicles); allocation-free.
    void step() noexcept;

    [[nodiscard]] StepSummary summary() const noexcept;
    /// Weighted means, outputCount<Model>(vehicles) values (vehicle-major).
    [[nodiscard]] std::span<const float> outputs() const noexcept { return m_outputs; }
    /// The particles in array-of-structs order (K · vehicles · SLOT_FLOATS floats), whatever the layout.
    void copyParticles(std::span<float> aos) const noexcept;
    [[nodiscard]] std::span<const float> logWeights() const noexcept { return m_logWeights; }
    [[nodiscard]] const FilterConfig& config() const noexcept { return m_config; }

private:
    friend class testing::FilterProbe<ParticleFilter>;

    // The stages step() runs, in order (tests reach them through testing::FilterProbe).
    void predict() noexcept;
    void update() noexcept;
    void reduce() noexcept;
    void resample() noexcept;

    ParticleRef ref(std::uint32_t buffer, std::uint32_t k) noexcept;
    void differentialEvolution() noexcept;

    FilterConfig m_config{};
    Params m_params{};
    std::uint32_t m_stride{0};
    std::vector<float> m_states[2];
    std::vector<float> m_logWeights;
    std::vector<float> m_fitness;
    std::vector<float> m_outputs;
    std::vector<double> m_accumulators;
    std::vector<std::uint32_t> m_copyIndex;
    std::vector<std::uint64_t> m_cdf;
    std::vector<Input> m_inputs;
    std::vector<float> m_chunkMax;       ///< per chunk: max log-weight
    std::vector<double> m_chunkSums;     ///< per chunk: Σw, Σw², Σw·output (2 + outputCount entries)
    std::vector<std::uint64_t> m_chunkMass;  ///< per chunk: Σ quantised weights, then its CDF offset
    std::unique_ptr<kernels::detail::WorkerPool> m_pool;
    std::unique_ptr<detail::FilterControl> m_control;  ///< allocated by create()
};

}  // namespace cpu

namespace cuda {

/// CUDA particle filter. Every call enqueues on `stream` (last argument) and returns at once,
/// except summary()/copyOutputs()/copyParticles() which synchronise (test and diagnostics use).
template <typename Model>
class ParticleFilter {
public:
    using Params = typename Model::Params;
    using Input = typename Model::VehicleInput;

    ParticleFilter() = default;
    ParticleFilter(ParticleFilter&&) noexcept = default;
    ParticleFilter& operator=(ParticleFilter&&) noexcept = default;

    /// Allocates device buffers, pinned input staging and the scan's temporary storage. Init phase.
    [[nodiscard]] static Result<ParticleFilter, FilterError> create(const FilterConfig& config, const Params& params);

    /// Uploads `inputs` (one per vehicle), draws the initial particles, resets weights and control.
    /// Inputs that setInputs rejects fail it with cudaErrorInvalidValue, before anything is enqueued.
    [[nodiscard]] platform::GpuStatus initialize(std::span<const Input> inputs, platform::StreamHandle stream) noexcept;
    /// Copies this step's inputs into the mapped pinned staging memory (host only). The next step()'s
    /// first kernel copies them to the device; a graph captured from step() reads the same staging on
    /// every replay. The device reads the staging when the step runs: call it between steps, not while
    /// one is in flight. Rejected as by the CPU reference (validateInputs), leaving the staging as it was.
    [[nodiscard]] Result<void, FilterError> setInputs(std::span<const Input> inputs) noexcept;
    /// One whole step: upload inputs, advance, combine (with the CDF scan) — three graph nodes; with
    /// differential evolution, its generations after them. Graph-capturable. A systematic resampling
    /// leaves its copy indices and its gather to the next step's advance (detail::FilterControl::pending);
    /// copyParticles() and summary() report the resampled state either way.
    [[nodiscard]] platform::GpuStatus step(platform::StreamHandle stream) noexcept;

    /// Synchronises `stream` and reads the control block. Not for the run phase's critical path.
    [[nodiscard]] Result<StepSummary, platform::GpuError> summary(platform::StreamHandle stream) const noexcept;
    /// Synchronises `stream` and copies the outputs (hostOutputs()) into `outputs` (as many as fit).
    [[nodiscard]] platform::GpuStatus copyOutputs(std::span<float> outputs, platform::StreamHandle stream) const noexcept;
    /// Particles in array-of-structs order (K · stride floats) and the log-weights (K); synchronises.
    [[nodiscard]] platform::GpuStatus copyParticles(std::span<float> aos, std::span<float> logWeights,
                                                    platform::StreamHandle stream) const noexcept;
    /// The outputs (outputCount values) live in mapped page-locked memory, which the combine kernel
    /// writes: no copy node brings them to the host. They belong to the last step whose work has
    /// completed — read them after waiting on the stream or an event recorded after the step.
    [[nodiscard]] std::span<const float> hostOutputs() const noexcept {
        return {static_cast<const float*>(m_outputs.get()), m_outputs.bytes() / sizeof(float)};
    }
    [[nodiscard]] const FilterConfig& config() const noexcept { return m_config; }

private:
    friend class testing::FilterProbe<ParticleFilter>;

    // The stages step() runs, in this order (benchmarks and tests reach them through
    // testing::FilterProbe; call them in this order, once each — another order measures the same work
    // but need not leave a meaningful filter state).
    [[nodiscard]] platform::GpuStatus uploadInputs(platform::StreamHandle stream) noexcept;
    /// Predict and update of every particle (reading it through the copy indices of a pending
    /// resampling, which it draws first, writing it to the other state buffer) and the block partials
    /// of the reduction.
    [[nodiscard]] platform::GpuStatus advance(platform::StreamHandle stream) noexcept;
    /// Combines the block partials: outputs, Σw, Σw², max log-w, N_eff and the resample decision;
    /// commits the advanced buffer.
    [[nodiscard]] platform::GpuStatus combine(platform::StreamHandle stream) noexcept;
    /// Differential evolution: the generations. Systematic: nothing — the combine scans the CDF and
    /// the next advance draws the copy indices.
    [[nodiscard]] platform::GpuStatus resample(platform::StreamHandle stream) noexcept;
    /// The reduction alone over the committed particles and weights (block partials, then combine
    /// without a commit): what the output-reduction comparison measures.
    [[nodiscard]] platform::GpuStatus reduce(platform::StreamHandle stream) noexcept;

    /// Diagnostics: the particles (array-of-structs order) and log-weights as the last step weighted
    /// them — before its pending resampling is applied — and that resampling's copy indices (K
    /// entries; left untouched when none is pending). Returns whether one is pending. Synchronises.
    [[nodiscard]] Result<bool, platform::GpuError> copyWeightedParticles(std::span<float> aos,
                                                                       std::span<float> logWeights,
                                                                       std::span<std::uint32_t> copyIndex,
                                                                       platform::StreamHandle stream) const noexcept;
    /// Diagnostics: the copy indices (K entries) the last advance read its particles through when it
    /// carried out a pending resampling — the ones its blocks drew themselves; meaningless when it
    /// carried out none. Call it before copyWeightedParticles(), which draws the next ones into the
    /// same buffer. Synchronises.
    [[nodiscard]] platform::GpuStatus copyAppliedCopyIndices(std::span<std::uint32_t> copyIndex,
                                                             platform::StreamHandle stream) const noexcept;
    [[nodiscard]] platform::GpuStatus launchPartials(bool advance, platform::StreamHandle stream) noexcept;
    [[nodiscard]] platform::GpuStatus launchCombine(bool commit, platform::StreamHandle stream) noexcept;
    /// The copy indices of the pending systematic resampling, into m_copyIndex (as the next advance
    /// will draw them), for the readbacks — which call it only when the control block they read says
    /// one is pending.
    [[nodiscard]] platform::GpuStatus drawPendingCopyIndices(platform::StreamHandle stream) const noexcept;

    FilterConfig m_config{};
    Params m_params{};
    std::uint32_t m_stride{0};
    bool m_vehicleParallel{false};   ///< one thread per (particle, vehicle) (scene model, ≥ VEHICLE_PARALLEL_MIN vehicles)
    bool m_cappedRegisters{false};   ///< the vehicle kernel's register-capped instantiation keeps more blocks resident
    bool m_dependentLaunch{false};   ///< the step's kernels after the upload start early (compute capability ≥ 9.0)
    /// The last kernel this filter enqueued is its upload, which starts after all earlier work and
    /// writes only the inputs: an advance launched early behind it may read the control block and
    /// the CDF, and draw its copy indices, before it waits (launchPartials).
    bool m_uploadLaunchedLast{false};
    std::uint32_t m_partialBlocks{0};  ///< blocks of the advance / reduce kernels = partial sums per channel
    std::uint32_t m_spreadMaxBlocks{0};  ///< the tuning policy's differential-evolution spread blocks (create())
    std::uint32_t m_units{0};          ///< 32-particle groups (vehicle-parallel) or 256-particle chunks, shared evenly by the blocks
    platform::DeviceBuffer<float> m_states[2];
    platform::DeviceBuffer<float> m_logWeights;
    platform::DeviceBuffer<float> m_fitness;
    platform::PinnedMemory m_outputs;  ///< mapped: written by the combine kernel, read by the host
    platform::DeviceBuffer<double> m_partials;      ///< channel-major: channel c of block b at c · blocks + b
    platform::DeviceBuffer<float> m_partialMax;
    platform::DeviceBuffer<std::uint32_t> m_shareClaims;  ///< the vehicle kernel's share claims (self-resetting)
    /// ρ of a pending systematic resampling: each advance block writes its particles' (and reads them
    /// back); the readbacks write all of them (drawPendingCopyIndices).
    mutable platform::DeviceBuffer<std::uint32_t> m_copyIndex;
    platform::DeviceBuffer<Input> m_inputs;
    platform::DeviceBuffer<detail::FilterControl> m_control;
    platform::DeviceMemory m_resampleScratch;
    platform::PinnedMemory m_stagedInputs;
    mutable std::vector<float> m_hostState;             ///< copyParticles readback (diagnostics)
    mutable std::vector<std::uint32_t> m_hostCopyIndex;  ///< copyParticles readback of a pending ρ
};

}  // namespace cuda

}  // namespace augur::kernels::pf
