// Exclusive prefix sum (scan) of floats: the variants the papers compare, kept side by side for
// measurement and tested for equality with the CPU reference.
//
//   WorkEfficientPadded  Blelloch up-sweep/down-sweep in shared memory with bank-conflict-free padded
//                        addressing (seed 004 section 2.2; its CONFLICT_FREE_OFFSET macro lacks
//                        parentheses — `n >> NUM_BANKS + n >> …` parses as `n >> (NUM_BANKS + n) >> …` —
//                        and assumes 16 banks; here offset(n) = (n >> 5) + (n >> 10) for 32 banks)
//   Unrolled2/4/8        each thread first scans 2/4/8 consecutive elements in registers ("loop
//                        unrolling", seed 001 section 3), then the padded Blelloch over thread totals
//   WarpUnrolled         8 elements per thread, warp-synchronous shuffle scan without block barriers
//                        inside a warp ("warp unrolling", seed 001)
//   CompleteUnrolled     Blelloch with the tile size a compile-time constant and every level unrolled
//                        ("complete unrolling", seed 001)
//   SinglePassLookback   one pass: each tile scans 16 elements per thread in registers and warp
//                        shuffles, then takes its prefix by decoupled look-back over the preceding tiles
//                        (Merrill and Garland, NVR-2016-002) — reads and writes the data once
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
}  // namespace cuda

}  // namespace augur::kernels::primitives
