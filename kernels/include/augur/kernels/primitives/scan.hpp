// Exclusive prefix sum (scan) of floats: the variants the papers compare, kept side by side for
// measurement and tested for equality with the CPU reference.
//
//   WorkEfficientPadded  Blelloch up-sweep/down-sweep in shared memory with bank-conflict-free padded
//                        addressing (Cao et al. 2018 section 2.2; its CONFLICT_FREE_OFFSET macro lacks
//                        parentheses — `n >> NUM_BANKS + n >> …` parses as `n >> (NUM_BANKS + n) >> …` —
//                        and assumes 16 banks; here offset(n) = (n >> 5) + (n >> 10) for 32 banks)
//   Unrolled2/4/8        each thread first scans 2/4/8 consecutive elements in registers ("loop
//                        unrolling", WCMC 2021 section 3), then the padded Blelloch over thread totals
//   WarpUnrolled         8 elements per thread, warp-synchronous shuffle scan without block barriers
//                        inside a warp ("warp unrolling", WCMC 2021)
//   CompleteUnrolled     Blelloch with the tile size a compile-time constant and every level unrolled
//                        ("complete unrolling", WCMC 2021)
//   SinglePassLookback   one pass: each tile scans 16 or more elements per thread in registers and warp
//                        shuffles, then takes its prefix by decoupled look-back over the preceding tiles
//                        (Merrill and Garland, NVR-2016-002) — reads and writes the data once; 8,192
//                        elements per 256-thread tile, flag and value in one 64-bit tile descriptor
//   Cub                  cub::DeviceScan::ExclusiveSum (single pass, decoupled look-back)
// The first six are multi-level: tiles are scanned independently, their totals scanned recursively,
// then added back (the data is read twice and written twice).
// The particle filter's own CDF is an integer scan (exact); see pf/resample.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::primitives {

enum class ScanVariant : std::uint8_t {
    WorkEfficientPadded,
    Unrolled2,
    Unrolled4,
    Unrolled8,
    WarpUnrolled,
    CompleteUnrolled,
    SinglePassLookback,
    Cub,
};

inline constexpr std::array<ScanVariant, 8> ALL_SCAN_VARIANTS = {
    ScanVariant::WorkEfficientPadded, ScanVariant::Unrolled2,        ScanVariant::Unrolled4,
    ScanVariant::Unrolled8,           ScanVariant::WarpUnrolled,     ScanVariant::CompleteUnrolled,
    ScanVariant::SinglePassLookback,  ScanVariant::Cub};

[[nodiscard]] std::string_view toString(ScanVariant variant) noexcept;

namespace cpu {
/// out[i] = Σ_{j<i} in[j], accumulated in double. out may alias in. O(n); noexcept.
void exclusiveScan(std::span<const float> in, std::span<float> out) noexcept;
}  // namespace cpu

namespace cuda {
/// Scratch bytes `exclusiveScan(variant, …, n)` needs. Init phase.
[[nodiscard]] std::size_t exclusiveScanScratchBytes(ScanVariant variant, std::uint32_t n) noexcept;

/// Device exclusive scan of n floats (in and out device pointers, out may not alias in).
/// Graph-capturable; allocation-free. The multi-level variants are deterministic for a given variant
/// and n; SinglePassLookback and Cub may differ in the last bits from run to run (the order in which
/// a tile's predecessors are summed depends on timing).
[[nodiscard]] platform::GpuStatus exclusiveScan(ScanVariant variant, const float* in, float* out, std::uint32_t n,
                                                void* scratch, std::size_t scratchBytes,
                                                platform::StreamHandle stream) noexcept;

/// A tile shape of the single-pass look-back scan. SinglePassLookback uses the one
/// singlePassDefaultShape() names; the others are compiled in for measurement (augur-bench-pf sweeps
/// them) and kept exact by the tests.
struct SinglePassShape {
    std::uint32_t block;         ///< threads per tile
    std::uint32_t segments;      ///< 128-element segments per warp: a tile is block · segments · 4 elements
    bool packed;                 ///< flag and value in one 64-bit tile descriptor (else a flag and two arrays)
    std::uint32_t firstWait_ns;  ///< look-back: sleep before the first window (grids of ≥ 500 tiles; 0: none)
    std::uint32_t spinWait_ns;   ///< look-back: sleep between reads of an unpublished tile (idem)
};

/// The compiled shapes; indices are what singlePassDefaultShape returns and singlePassScan takes.
[[nodiscard]] std::span<const SinglePassShape> singlePassShapes() noexcept;

/// Index of the shape SinglePassLookback uses (at every n). O(1); noexcept.
[[nodiscard]] std::size_t singlePassDefaultShape() noexcept;

/// Scratch bytes of singlePassScan(shape, …, n) (0 for an unknown shape). Init phase.
[[nodiscard]] std::size_t singlePassScratchBytes(std::size_t shape, std::uint32_t n) noexcept;

/// The single-pass scan with a given shape (as exclusiveScan(SinglePassLookback, …) otherwise). in and
/// out must be 16-byte aligned unless the shape is singlePassDefaultShape(); an unknown
/// shape, misaligned pointers or too little scratch give cudaErrorInvalidValue. Graph-capturable;
/// allocation-free.
[[nodiscard]] platform::GpuStatus singlePassScan(std::size_t shape, const float* in, float* out, std::uint32_t n,
                                                 void* scratch, std::size_t scratchBytes,
                                                 platform::StreamHandle stream) noexcept;
}  // namespace cuda

}  // namespace augur::kernels::primitives
