// Dispatch of the particle filter's kernels (after CUB's dispatch layer): the thin __global__ entries,
// each forwarding to its agent (kernels/pf/agent/), and the launch shapes — which instantiation runs,
// with what grid and block — taken from tuning.hpp and the device's occupancy. The host API
// (filter_cuda.cu) launches through the functions here only. Private to kernels/pf.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "../primitives/dependent_launch.cuh"
#include "agent/advance_particle.cuh"
#include "agent/advance_vehicle.cuh"
#include "agent/combine.cuh"
#include "agent/common.cuh"
#include "agent/evolve.cuh"
#include "agent/initialize.cuh"
#include "agent/upload.cuh"
#include "augur/kernels/pf/filter.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/sm_partition.hpp"
#include "augur/platform/stream.hpp"
#include "cdf_scan.cuh"
#include "tuning.hpp"

namespace augur::kernels::pf::cuda::dispatch {

using agent::CombineArgs;
using agent::Partials;
using agent::Shape;
using detail::FilterControl;
using platform::GpuStatus;
using platform::StreamHandle;

/// Registers per thread that admit the vehicle kernel's largest block (32 warps) on one SM.
constexpr int VEHICLE_KERNEL_REGISTERS = 64;

// The __global__ entries: launch bounds and register caps here, the work in the agents.

__global__ void __launch_bounds__(tuning::UPLOAD_BLOCK)
    uploadKernel(const std::uint32_t* __restrict__ staged, std::uint32_t* __restrict__ inputs, std::uint32_t words,
                 internal::CdfLookbackState cdfState, std::uint32_t cdfTiles) {
    agent::uploadInputs(staged, inputs, words, cdfState, cdfTiles);
}

template <typename Model>
__global__ void initializeKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs) {
    agent::initializeParticles<Model>(s, params, inputs);
}

template <typename Model, bool ADVANCE, std::uint32_t VEHICLES, StateLayout LAYOUT>
__global__ void __launch_bounds__(tuning::PARTICLE_BLOCK, VEHICLES == 1 ? tuning::ONE_VEHICLE_MIN_BLOCKS : 1)
    particleKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                   const FilterControl* control, Partials out, std::uint32_t chunks, bool afterUpload) {
    agent::ParticleAgent<Model, ADVANCE, VEHICLES, LAYOUT>::consumeChunks(s, params, inputs, control, out, chunks,
                                                                          afterUpload);
}

template <typename Model, bool ADVANCE, int MAX_REGISTERS, StateLayout LAYOUT>
__global__ void __maxnreg__(MAX_REGISTERS)
    vehicleKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                  const FilterControl* control, Partials out, std::uint32_t groups, bool afterUpload) {
    agent::VehicleAgent<Model, ADVANCE, LAYOUT>::consumeGroups(s, params, inputs, control, out, groups, afterUpload);
}

template <std::uint32_t SEGMENTS>
__global__ void __launch_bounds__(tuning::COMBINE_BLOCK) combineKernel(CombineArgs a) {
    agent::CombineAgent<SEGMENTS>::combine(a);
}

template <typename Model>
__global__ void evolveKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                             DifferentialEvolutionConfig de, std::uint32_t generation, FilterControl* control) {
    if (control->deActive == 0U) {
        return;
    }
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= s.particles) {
        return;
    }
    const std::uint32_t src = control->current ^ control->deParity;
    detail::evolveParticle<Model>(agent::particleRef(s, src, k), agent::particleRef(s, src ^ 1U, k), s.vehicles, params,
                                  inputs, de, s.seed, control->step - 1, generation, s.fitness);
    if (generation == 0) {
        s.logWeights[k] = 0.0F;
    }
}

__global__ void __launch_bounds__(tuning::REDUCE_BLOCK)
    spreadPartialsKernel(const float* fitness, std::uint32_t particles, std::uint32_t chunk, double* partials,
                         const FilterControl* control) {
    agent::spreadPartials(fitness, particles, chunk, partials, control);
}

__global__ void spreadFinalKernel(const double* partials, std::uint32_t blocks, std::uint32_t particles,
                                  DifferentialEvolutionConfig de, FilterControl* control) {
    agent::spreadFinal(partials, blocks, particles, de, control);
}

// The launch shapes.

inline std::uint32_t blocksFor(std::uint32_t items, std::uint32_t block) { return (items + block - 1) / block; }

template <typename Model>
using PartialsKernel = void (*)(Shape, typename Model::Params, const typename Model::VehicleInput*,
                                const FilterControl*, Partials, std::uint32_t, bool);

/// The per-particle kernel instantiated for `vehicles` (vehicle-parallel models: 1 … VEHICLE_PARALLEL_MIN − 1)
/// and the layout.
template <typename Model, bool ADVANCE, StateLayout LAYOUT>
PartialsKernel<Model> particleKernelFor(std::uint32_t vehicles) {
    if constexpr (detail::vehicleParallel<Model>()) {
        static_assert(tuning::VEHICLE_PARALLEL_MIN == 4, "one instantiation per vehicle count below the threshold");
        switch (vehicles) {
            case 1: return particleKernel<Model, ADVANCE, 1, LAYOUT>;
            case 2: return particleKernel<Model, ADVANCE, 2, LAYOUT>;
            default: return particleKernel<Model, ADVANCE, 3, LAYOUT>;
        }
    } else {
        (void)vehicles;
        return particleKernel<Model, ADVANCE, Model::MAX_VEHICLES, LAYOUT>;
    }
}

template <typename Model, bool ADVANCE>
PartialsKernel<Model> particleKernelFor(std::uint32_t vehicles, StateLayout layout) {
    return layout == StateLayout::ArrayOfStructs ? particleKernelFor<Model, ADVANCE, StateLayout::ArrayOfStructs>(vehicles)
                                                 : particleKernelFor<Model, ADVANCE, StateLayout::StructOfArrays>(vehicles);
}

/// The vehicle-parallel kernel for the layout (nullptr for models without the per-vehicle hooks).
template <typename Model, bool ADVANCE>
PartialsKernel<Model> vehicleKernelFor(bool capped, StateLayout layout) {
    if constexpr (detail::vehicleParallel<Model>()) {
        constexpr int CAPPED = tuning::VEHICLE_KERNEL_CAPPED_REGISTERS;
        constexpr int FULL = VEHICLE_KERNEL_REGISTERS;
        if (layout == StateLayout::ArrayOfStructs) {
            return capped ? vehicleKernel<Model, ADVANCE, CAPPED, StateLayout::ArrayOfStructs>
                          : vehicleKernel<Model, ADVANCE, FULL, StateLayout::ArrayOfStructs>;
        }
        return capped ? vehicleKernel<Model, ADVANCE, CAPPED, StateLayout::StructOfArrays>
                      : vehicleKernel<Model, ADVANCE, FULL, StateLayout::StructOfArrays>;
    } else {
        (void)capped;
        (void)layout;
        return nullptr;
    }
}

/// The step's view of the resampling scratch (everything null for differential evolution).
inline agent::Resampling resamplingOf(const FilterConfig& config, void* scratch, std::uint32_t* copyIndex) {
    if (config.resampler != Resampler::Systematic) {
        return {};
    }
    return {internal::carve(scratch, config.particles).cdf, copyIndex};
}

/// The launch-time values of the tuning policy for the architecture of the device the filter runs
/// on (tuning.hpp: PolicySm72 → PolicySm87 → PolicySm90, chosen by activeTuningArch()); nullopt when
/// the device query fails. Init phase.
inline std::optional<tuning::LaunchPolicy> activeLaunchPolicy() {
    const auto arch = activeTuningArch();
    if (!arch) {
        return std::nullopt;
    }
    return tuning::launchPolicy(arch.value());
}

/// Resident blocks of `kernel` on the SMs the filter runs on (blocks per SM × the device's SMs, or the
/// active SM partition's: platform::activeMultiprocessors); 0 if a query failed.
template <typename Kernel>
inline std::uint32_t residentBlocks(Kernel kernel, std::uint32_t threads) {
    const auto sms = platform::activeMultiprocessors();
    int perSm = 0;
    if (!sms || !AUGUR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, static_cast<int>(threads), 0))) {
        return 0;
    }
    return static_cast<std::uint32_t>(std::max(1, sms.value()) * std::max(1, perSm));
}

/// The launch shape of a filter's advance and reduce kernels, fixed at create(): one wave of resident
/// blocks, each with a fixed share of the particles (so the summation order, and the result, is the
/// same run after run on a given device and K).
struct PartialsShape {
    bool vehicleParallel{false};  ///< one thread per (particle, vehicle): scene model, ≥ VEHICLE_PARALLEL_MIN vehicles
    bool cappedRegisters{false};  ///< the vehicle kernel's register-capped instantiation keeps more blocks resident
    std::uint32_t blocks{0};      ///< blocks of the advance / reduce kernels = partial sums per channel
    std::uint32_t units{0};       ///< 32-particle groups (vehicle-parallel) or 256-particle chunks the blocks share
};

/// The advance and reduce kernels' shape for `config` on the current device; nullopt when the
/// occupancy query fails. Init phase.
template <typename Model>
std::optional<PartialsShape> partialsShape(const FilterConfig& config) {
    PartialsShape shape;
    if constexpr (detail::vehicleParallel<Model>()) {
        shape.vehicleParallel = config.vehicles >= tuning::VEHICLE_PARALLEL_MIN;
    }
    std::uint32_t slots = 0;
    if (shape.vehicleParallel) {
        const std::uint32_t threads = agent::WARP * config.vehicles;
        const std::uint32_t full = residentBlocks(vehicleKernelFor<Model, true>(false, config.layout), threads);
        const std::uint32_t capped = residentBlocks(vehicleKernelFor<Model, true>(true, config.layout), threads);
        shape.cappedRegisters = capped > full;
        slots = std::max(full, capped);
        shape.units = blocksFor(config.particles, agent::WARP);
    } else {
        slots = residentBlocks(particleKernelFor<Model, true>(config.vehicles, config.layout), tuning::PARTICLE_BLOCK);
        shape.units = blocksFor(config.particles, tuning::PARTICLE_BLOCK);
    }
    if (slots == 0) {
        return std::nullopt;
    }
    shape.blocks = std::min({slots, shape.units, agent::MAX_PARTIAL_BLOCKS});
    return shape;
}

/// The upload kernel: one block copies `words` 32-bit words of staged inputs and zeroes the
/// look-back state of `cdfTiles` CDF tiles.
inline GpuStatus launchUpload(const std::uint32_t* staged, std::uint32_t* inputs, std::uint32_t words,
                              internal::CdfLookbackState cdfState, std::uint32_t cdfTiles, StreamHandle stream) {
    uploadKernel<<<1, tuning::UPLOAD_BLOCK, 0, stream>>>(staged, inputs, words, cdfState, cdfTiles);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

/// The initial draw: a thread per particle.
template <typename Model>
GpuStatus launchInitialize(const Shape& s, const typename Model::Params& params,
                           const typename Model::VehicleInput* inputs, StreamHandle stream) {
    initializeKernel<Model><<<blocksFor(s.particles, tuning::PARTICLE_BLOCK), tuning::PARTICLE_BLOCK, 0, stream>>>(
        s, params, inputs);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

/// The advance (advance = true) or reduce kernel in `shape`, writing `out` (out.blocks = shape.blocks);
/// launched early behind the kernel before it when dependentLaunch.
template <typename Model>
GpuStatus launchPartials(const PartialsShape& shape, bool advance, const FilterConfig& config, bool dependentLaunch,
                         const Shape& s, const typename Model::Params& params,
                         const typename Model::VehicleInput* inputs, const FilterControl* control,
                         const Partials& out, bool afterUpload, StreamHandle stream) {
    PartialsKernel<Model> kernel = nullptr;
    dim3 block(tuning::PARTICLE_BLOCK);
    if (shape.vehicleParallel) {
        kernel = advance ? vehicleKernelFor<Model, true>(shape.cappedRegisters, config.layout)
                         : vehicleKernelFor<Model, false>(shape.cappedRegisters, config.layout);
        block = dim3(agent::WARP, config.vehicles);
    } else {
        kernel = advance ? particleKernelFor<Model, true>(config.vehicles, config.layout)
                         : particleKernelFor<Model, false>(config.vehicles, config.layout);
    }
    return AUGUR_CUDA_CHECK(primitives::launchKernel(dependentLaunch, kernel, dim3(shape.blocks), block, stream, s,
                                                     params, inputs, control, out, shape.units, afterUpload));
}

/// The combine kernel: args.cdfTiles scan blocks, then a block per channel but Σe, which every
/// channel block sums beside its own (`channels` counts Σe, Σe² and the outputs).
inline GpuStatus launchCombine(const CombineArgs& args, std::uint32_t channels, bool dependentLaunch,
                               StreamHandle stream) {
    auto* kernel = internal::cdfSegments(args.particles) == 1 ? combineKernel<1> : combineKernel<2>;
    return AUGUR_CUDA_CHECK(primitives::launchKernel(dependentLaunch, kernel, dim3(args.cdfTiles + channels - 1),
                                                     dim3(tuning::COMBINE_BLOCK), stream, args));
}

/// Differential evolution's generations: per generation a thread per particle, the spread's partials
/// over at most spreadMaxBlocks blocks (into `partials`; the policy's SPREAD_MAX_BLOCKS, chosen at
/// create()) and its final one-thread combine. The kernels return at once once the control block says
/// the evolution has stopped.
template <typename Model>
GpuStatus launchEvolution(const Shape& s, const typename Model::Params& params,
                          const typename Model::VehicleInput* inputs, const DifferentialEvolutionConfig& de,
                          std::uint32_t spreadMaxBlocks, double* partials, FilterControl* control,
                          StreamHandle stream) {
    const std::uint32_t particleBlocks = blocksFor(s.particles, tuning::PARTICLE_BLOCK);
    const std::uint32_t chunk =
        blocksFor(blocksFor(s.particles, spreadMaxBlocks), tuning::REDUCE_BLOCK) * tuning::REDUCE_BLOCK;
    const std::uint32_t blocks = blocksFor(s.particles, chunk);
    for (std::uint32_t g = 0; g < de.maxGenerations; ++g) {
        evolveKernel<Model><<<particleBlocks, tuning::PARTICLE_BLOCK, 0, stream>>>(s, params, inputs, de, g, control);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        spreadPartialsKernel<<<blocks, tuning::REDUCE_BLOCK, 0, stream>>>(s.fitness, s.particles, chunk, partials,
                                                                          control);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        spreadFinalKernel<<<1, agent::WARP, 0, stream>>>(partials, blocks, s.particles, de, control);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    return {};
}

}  // namespace augur::kernels::pf::cuda::dispatch
