// Launch parameters of the particle filter kernels. One place, each value with where and at what
// size it was measured (docs/benchmarks.md has the tables). Private to kernels/pf.
//
// Per architecture (tuning_policy.hpp): PolicySm72 → PolicySm87 → PolicySm90 below, each value with a
// one-line provenance; the comments on the compiled values after the chain give the measurements.
//
// The grids of the step's advance kernels are not constants: create() sizes them to one full wave of
// resident blocks on the device it runs on (cudaOccupancyMaxActiveBlocksPerMultiprocessor × SMs),
// each block taking a fixed share of the particles — fixed for a given device and K, so the summation
// order (and the result) is the same run after run.
#pragma once

#include <cstdint>

#include "augur/kernels/pf/particles.hpp"
#include "augur/kernels/pf/philox.hpp"
#include "augur/kernels/tuning_policy.hpp"

namespace augur::kernels::pf::tuning {

// ---- Per-architecture policies -------------------------------------------------------------------
// PolicySm72 → PolicySm87 → PolicySm90 (tuning_policy.hpp). Values compiled into the kernels (launch
// bounds, shared-memory windows, template arguments) are the same in every policy (asserted after the
// chain) and are used through the names below the chain, where their measurements are described.
// Launch-time values are chosen at create() (dispatch::activeLaunchPolicy: activeTuningArch()); the advance
// kernels' grids are not here: create() sizes them from the SMs the filter runs on.

/// Xavier (sm_72, 8 SMs): the root of the chain.
struct PolicySm72 {
    // Compiled into the kernels.
    static constexpr std::uint32_t PARTICLE_BLOCK = 256;                ///< not measured (sm_90's value)
    static constexpr std::uint32_t UPLOAD_BLOCK = 512;                  ///< not measured (sm_90's value)
    static constexpr int ONE_VEHICLE_MIN_BLOCKS = 4;                    ///< not measured (sm_90's value)
    static constexpr std::uint32_t VEHICLE_PARALLEL_MIN = 4;            ///< not measured (sm_90's value)
    static constexpr int VEHICLE_KERNEL_CAPPED_REGISTERS = 48;          ///< not measured (sm_90's value)
    static constexpr PhiloxMultiply VEHICLE_KERNEL_MULTIPLY = PhiloxMultiply::Wide;  ///< not measured (sm_90's value)
    static constexpr std::uint32_t COMBINE_BLOCK = 256;                 ///< not measured (sm_90's value)
    static constexpr std::uint32_t COPY_INDEX_BLOCK = 256;              ///< not measured (sm_90's value)
    static constexpr std::uint32_t COPY_INDEX_ITEMS = 4;                ///< not measured (sm_90's value)
    static constexpr std::uint32_t GATHER_BLOCK = 256;                  ///< not measured (sm_90's value)
    static constexpr std::uint32_t GATHER_MAX_BLOCKS = 1056;            ///< not measured (sm_90's value; no create() to choose at)
    static constexpr std::uint32_t GATHER_SOA_FIELDS = 8;               ///< not measured (sm_90's value)
    // Chosen at create().
    /// Partial blocks of the differential-evolution spread reduction (its final combine is serial).
    static constexpr std::uint32_t SPREAD_MAX_BLOCKS = 32;  ///< 4 per SM × 8 SMs (sm_90's rule); not measured
};

/// Orin (sm_87, 16 SMs on the AGX, 8 on the NX 8 GB).
struct PolicySm87 : PolicySm72 {
    static constexpr std::uint32_t SPREAD_MAX_BLOCKS = 64;  ///< 4 per SM × 16 SMs (sm_90's rule); not measured
};

/// H100 / H200 (sm_90, 132 SMs). augur-bench-pf unless said otherwise.
struct PolicySm90 : PolicySm87 {
    static constexpr std::uint32_t PARTICLE_BLOCK = 256;        ///< H200, K = 10⁶ step: 128 measured 2.8 µs slower
    static constexpr std::uint32_t UPLOAD_BLOCK = 512;          ///< not swept (32 vehicles' inputs in one round)
    static constexpr int ONE_VEHICLE_MIN_BLOCKS = 4;            ///< H200, K = 10⁶ SoA step: 43.8–44.4 µs at 4, 46.3–47.5 at 5
    static constexpr std::uint32_t VEHICLE_PARALLEL_MIN = 4;    ///< threshold not swept (H100, 20 vehicles: half the time)
    static constexpr int VEHICLE_KERNEL_CAPPED_REGISTERS = 48;  ///< H100, K = 20,000 × 20: 23.7–25.8 µs at 48, 39.6–42.7 at 32
    static constexpr PhiloxMultiply VEHICLE_KERNEL_MULTIPLY = PhiloxMultiply::Wide;  ///< H100, seed scale: 27.3–27.7 µs vs 28.6
    static constexpr std::uint32_t COMBINE_BLOCK = 256;         ///< H100, ncu, K = 20,000 × 20: 8.7–9.6 µs
    static constexpr std::uint32_t COPY_INDEX_BLOCK = 256;      ///< H100, ncu, K = 10⁶: 14.5–15.0 µs
    static constexpr std::uint32_t COPY_INDEX_ITEMS = 4;        ///< H100, ncu, K = 10⁶: 14.5–15.0 µs (1,024 copies per block)
    static constexpr std::uint32_t GATHER_BLOCK = 256;          ///< H100, K = 20,000, 48-byte particles: 5.8 µs
    static constexpr std::uint32_t GATHER_MAX_BLOCKS = 1056;    ///< 8 per SM × 132 SMs (H100 SXM); not swept
    static constexpr std::uint32_t GATHER_SOA_FIELDS = 8;       ///< not swept
    static constexpr std::uint32_t SPREAD_MAX_BLOCKS = 528;     ///< 4 per SM × 132 SMs (H100 SXM); not swept
};

/// Whether `Policy` has the values the kernels are compiled with.
template <typename Policy>
constexpr bool compiledValuesOf() noexcept {
    return Policy::PARTICLE_BLOCK == PolicySm90::PARTICLE_BLOCK && Policy::UPLOAD_BLOCK == PolicySm90::UPLOAD_BLOCK &&
           Policy::ONE_VEHICLE_MIN_BLOCKS == PolicySm90::ONE_VEHICLE_MIN_BLOCKS &&
           Policy::VEHICLE_PARALLEL_MIN == PolicySm90::VEHICLE_PARALLEL_MIN &&
           Policy::VEHICLE_KERNEL_CAPPED_REGISTERS == PolicySm90::VEHICLE_KERNEL_CAPPED_REGISTERS &&
           Policy::VEHICLE_KERNEL_MULTIPLY == PolicySm90::VEHICLE_KERNEL_MULTIPLY &&
           Policy::COMBINE_BLOCK == PolicySm90::COMBINE_BLOCK && Policy::COPY_INDEX_BLOCK == PolicySm90::COPY_INDEX_BLOCK &&
           Policy::COPY_INDEX_ITEMS == PolicySm90::COPY_INDEX_ITEMS && Policy::GATHER_BLOCK == PolicySm90::GATHER_BLOCK &&
           Policy::GATHER_MAX_BLOCKS == PolicySm90::GATHER_MAX_BLOCKS && Policy::GATHER_SOA_FIELDS == PolicySm90::GATHER_SOA_FIELDS;
}
static_assert(compiledValuesOf<PolicySm72>() && compiledValuesOf<PolicySm87>(),
              "compiled into the kernels: one value for every architecture");

/// The launch-time values of one policy, as create() keeps them.
struct LaunchPolicy {
    std::uint32_t spreadMaxBlocks;
};

template <typename Policy>
constexpr LaunchPolicy launchPolicyOf() noexcept {
    return LaunchPolicy{Policy::SPREAD_MAX_BLOCKS};
}

constexpr LaunchPolicy launchPolicy(TuningArch arch) noexcept {
    switch (arch) {
        case TuningArch::Sm72: return launchPolicyOf<PolicySm72>();
        case TuningArch::Sm87: return launchPolicyOf<PolicySm87>();
        case TuningArch::Sm90: break;
    }
    return launchPolicyOf<PolicySm90>();
}

/// The largest SPREAD_MAX_BLOCKS of the chain: the spread partials' buffer holds any policy's.
inline constexpr std::uint32_t MAX_SPREAD_BLOCKS = PolicySm90::SPREAD_MAX_BLOCKS;
static_assert(MAX_SPREAD_BLOCKS >= PolicySm87::SPREAD_MAX_BLOCKS && MAX_SPREAD_BLOCKS >= PolicySm72::SPREAD_MAX_BLOCKS);

// ---- The values the kernels are compiled with, and where they come from ------------------------------

/// Threads per block of the per-particle kernels (the advance and reduce kernels of the per-particle
/// path, copy index, DE generation); 256 is the usual choice for register-heavy per-thread work on
/// sm_87/sm_90. 128 (eight one-vehicle advance blocks per SM, the same 64-register cap) measured
/// 2.8 µs slower at K = 10⁶ and about 0.1 µs at seed scale (H200, augur-bench-pf).
inline constexpr std::uint32_t PARTICLE_BLOCK = PolicySm90::PARTICLE_BLOCK;

/// Threads of the one block that copies the step's inputs from the mapped staging: 512 16-byte loads
/// in one round, room for the scene model's 32 vehicles (4,608 bytes). Not swept.
inline constexpr std::uint32_t UPLOAD_BLOCK = PolicySm90::UPLOAD_BLOCK;

/// Threads per block of the differential-evolution spread reduction.
inline constexpr std::uint32_t REDUCE_BLOCK = PARTICLE_BLOCK;

/// Resident blocks per SM the one-vehicle per-particle kernel is compiled for (__launch_bounds__):
/// 4 × 256 threads cap it at 64 registers, which hold the next particle's slot that the kernel loads
/// one iteration ahead, with no spills (ptxas, sm_90). K = 10⁶ step, SoA graph replay (H200,
/// augur-bench-pf --only floor): 43.8–44.4 µs at 4 blocks against 46.3–47.5 at 5 (48 registers, 16
/// bytes of spills). On the H100, 3 blocks (85 registers) measured 62.5–63.0 against 60.6–61.1 µs, and
/// 5 and 6 blocks, although they take K = 10⁶ in fewer rounds of particles, 63.0–63.4 (68 bytes of
/// spills) and 73.1–73.3 µs (112 bytes) against 57.3–57.4 at 4: the spills cost more than the
/// occupancy gains.
inline constexpr int ONE_VEHICLE_MIN_BLOCKS = PolicySm90::ONE_VEHICLE_MIN_BLOCKS;

/// Fewest vehicles for which the step runs a vehicle-parallel model one thread per (particle, vehicle)
/// (block: 32 particles × vehicles warps); fewer run one thread per particle, looping over vehicles.
/// Measured only at 20 vehicles (H100, K = 20,000, SoA, augur-bench-pf: the vehicle-parallel step about
/// half the per-particle one's graph replay). The threshold itself is not swept.
inline constexpr std::uint32_t VEHICLE_PARALLEL_MIN = PolicySm90::VEHICLE_PARALLEL_MIN;

/// Register cap of the vehicle-parallel kernel's second instantiation. Uncapped it uses 64 registers
/// (ptxas, sm_90), so a 640-thread block (20 vehicles) fills an SM's 64 K registers alone; at 48
/// (4–10 bytes of spill stores) two such blocks are resident, and
/// one block's loads at the start of a particle group overlap the other's arithmetic. create() takes
/// the capped one only when the occupancy calculator says it keeps more blocks resident. Measured
/// with it (H100, K = 20,000 × 20, SoA, ncu): 47–55 % achieved occupancy, 0.55–0.57 issued warps per
/// scheduler per cycle, 32–38 µs.
/// The uncapped one was not measured at this size. 32 registers (three blocks per SM, 150 bytes of
/// spills) measured slower (H100, beside 48): the kernel 39.6–42.7 against 23.7–25.8 µs. The seed's
/// 20,000 particles make 2.37 groups per block at 48; two would need 48 resident warps per SM (40
/// registers: 98 bytes of spills, and blocks of 16 particles to fit five per SM), which is not built.
inline constexpr int VEHICLE_KERNEL_CAPPED_REGISTERS = PolicySm90::VEHICLE_KERNEL_CAPPED_REGISTERS;

/// How the vehicle-parallel kernel's random streams form Philox's products (philox.hpp): the
/// widening multiply alone, 20 instructions fewer per Philox block, two blocks per (particle,
/// vehicle). Seed-scale step (H100, augur-bench-pf, three rounds): 27.3 / 27.4 / 27.7 µs against
/// 28.6 / 28.6 / 28.6 with the C++ product.
inline constexpr PhiloxMultiply VEHICLE_KERNEL_MULTIPLY = PolicySm90::VEHICLE_KERNEL_MULTIPLY;
/// The per-particle kernel (one to three vehicles) takes the widening multiply too, except the
/// one-vehicle kernel in the array-of-structs layout: with it that kernel measured no faster (K = 10⁶
/// step 52.11 against 51.82 µs with the C++ product, H200, augur-bench-pf --only floor), so it keeps
/// the product. The one-vehicle structure-of-arrays kernel runs 40 instructions fewer per particle
/// with it, and its K = 10⁶ step measured 46.54 against 46.99 µs (means of six rounds, H200): a small
/// gain, without spills (60 registers). The two- and three-vehicle kernels are not register-capped
/// and spill nothing either way (ptxas, sm_90).
template <StateLayout LAYOUT, std::uint32_t VEHICLES>
inline constexpr PhiloxMultiply PARTICLE_KERNEL_MULTIPLY =
    LAYOUT == StateLayout::ArrayOfStructs && VEHICLES == 1 ? PhiloxMultiply::Product : PhiloxMultiply::Wide;

/// Threads per block of the combine kernel (blocks 0 … tiles − 1 scan the CDF, hence LOOKBACK_BLOCK;
/// then one block per output channel: threads stride over the partial blocks, then a fixed tree; the
/// last channel block to finish writes the outputs and the control block). It replaced a single
/// 1024-thread block that walked the partials (row-major, one 8-byte value per 1.8 KB row at 20
/// vehicles) on one SM. H100, ncu: 5.9–6.8 µs at 222 channels × 209 partial blocks without the scan;
/// with the scan in the first channel blocks, before their channel: 11.8–12.7 µs with 5 CDF tiles
/// (K = 20,000), 19.4–20.3 µs at 13 channels with 245 tiles (K = 10⁶). With separate scan blocks:
/// 8.7–9.6 µs (K = 20,000 × 20), 16.7–17.3 µs (K = 10⁶).
inline constexpr std::uint32_t COMBINE_BLOCK = PolicySm90::COMBINE_BLOCK;

/// Copy-index kernel: block b writes COPY_INDEX_ITEMS × COPY_INDEX_BLOCK consecutive copies (a
/// thread's items consecutive, one 16-byte store); two warps bound the sources of its first and last copy
/// (warpSourceBounds), then the block marks each source's last copy and takes suffix minima in
/// COPY_INDEX_WINDOW entries of shared memory (16 KB), or, when zero-weight particles make the range
/// wider than the window, samples the range into it and searches (cdf_scan.cuh). 1,024 copies per
/// block: ≈ 977 blocks at K = 10⁶, all resident at once on an H100 (8 per SM), so the bounds' latency is
/// paid once. H100, ncu, with a search per copy over the range read into shared memory and the exact
/// 32-way search of the bounds that warpSourceBounds replaced: 14.5–15.0 µs at
/// K = 10⁶, 7.2–7.7 µs at K = 20,000 × 20 vehicles (most weights zero: a sampled window). The previous
/// kernel (one thread per copy, 1024-thread blocks, every thread's search through global memory):
/// 20.8–21.5 µs at K = 10⁶, 6.2–6.8 µs at K = 20,000. The step no longer launches it (its advance
/// kernels draw their own particles' copy indices the same way: the per-particle kernel
/// COPY_INDEX_ITEMS per thread in a COPY_INDEX_WINDOW window that its channel sums reuse, the vehicle
/// kernel one per thread in a 576-entry window in its log terms' memory); systematicResample() and
/// the filter's readbacks do.
inline constexpr std::uint32_t COPY_INDEX_BLOCK = PolicySm90::COPY_INDEX_BLOCK;
inline constexpr std::uint32_t COPY_INDEX_ITEMS = PolicySm90::COPY_INDEX_ITEMS;
/// CDF entries a block's window holds: twice its copies (a wider range — many zero-weight particles
/// between two copies — is sampled into it and searched, ending in global memory).
inline constexpr std::uint32_t COPY_INDEX_WINDOW = 2 * COPY_INDEX_ITEMS * COPY_INDEX_BLOCK;

/// Threads per block and largest grid of the grid-stride array-of-structs gather (32-bit index
/// arithmetic). Measured on the H100 at K = 20,000: 5.8 µs (48-byte particles), 11.4 µs (960-byte
/// particles); first run, 64-bit index arithmetic: 6.3 / 12.1 µs. The step no longer gathers (its
/// predict reads through the copy indices); gatherParticles() keeps it for other callers.
inline constexpr std::uint32_t GATHER_BLOCK = PolicySm90::GATHER_BLOCK;
inline constexpr std::uint32_t GATHER_MAX_BLOCKS = PolicySm90::GATHER_MAX_BLOCKS;

/// Fields per thread of the structure-of-arrays gather (grid: ⌈K/256⌉ × ⌈stride/8⌉).
inline constexpr std::uint32_t GATHER_SOA_FIELDS = PolicySm90::GATHER_SOA_FIELDS;

}  // namespace augur::kernels::pf::tuning
