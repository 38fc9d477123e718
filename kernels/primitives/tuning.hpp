// Launch parameters of the scan and reduction primitives, with where and at what size measured.
// Private to kernels/primitives. The primitives are free functions without a create(), and their
// values are compiled into the kernels (launch bounds, tile shapes) or size the caller's scratch, so
// one value holds for every architecture: the chain PolicySm72 → PolicySm87 → PolicySm90 at the end
// (tuning_policy.hpp) records that the measurements are sm_90's and asserts that the policies agree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "augur/kernels/tuning_policy.hpp"

namespace augur::kernels::primitives::tuning {

/// Threads per block of the multi-level scan variants (the tile is 2, U or 8 elements per thread; the
/// single-pass variant's shape is SINGLE_PASS_SHAPE below). Not swept: 256 is the block the seeds'
/// Blelloch formulation uses with 512-element tiles. Measured on the H100 at n = 2²⁶ (augur-bench-pf --only scan):
/// best multi-level (unrolled ×4) 513–526 µs — tiles, totals and offsets read and write the data
/// twice — against CUB's 230 µs.
inline constexpr std::uint32_t SCAN_BLOCK = 256;

/// Single-pass look-back scan: the tile shape SinglePassLookback uses, an index into scan_cuda.cu's
/// SHAPES (public as cuda::singlePassShapes()): 256 threads x 8 segments = 8,192 floats per tile,
/// flag and value packed in one 64-bit descriptor, CUB's sm_90 look-back waits. Measured on the H100
/// (augur-bench-pf --only scan, three calls): 207–211 µs at
/// n = 2²⁶ against CUB's 231–236; the same tile without waits 220–224, 256 x 4 packed 243–247 (with
/// waits 224–228), CUB's own tile (128 x 24 items, waits) 215–219, 512 x 4 248–253, the previous flag +
/// separate values 307–310. At 2²⁰ (128 tiles, too few for the waits) 9.5–12.8 µs and at 20,000
/// 8.0–10.6 µs, the other shapes within the run-to-run spread (CUB 15.2–21.3 and 12.1–18.3 µs).
inline constexpr std::size_t SINGLE_PASS_SHAPE = 5;

/// Reduction: threads per block and the largest grid (first pass; the second is one block).
/// Measured on the H100: at n = 20,000 and 2²⁰ the warp-unrolled variant is the fastest (8.8 / 9.4 µs,
/// CUB 10.5 / 10.5 µs); at 2²⁶ CUB is (96 µs vs 127 µs).
inline constexpr std::uint32_t REDUCE_BLOCK = 256;
inline constexpr std::uint32_t REDUCE_MAX_BLOCKS = 1024;

// ---- Per-architecture policies ---------------------------------------------------------------------

/// Xavier (sm_72): the root of the chain.
struct PolicySm72 {
    static constexpr std::uint32_t SCAN_BLOCK = 256;         ///< not measured (sm_90's value)
    static constexpr std::size_t SINGLE_PASS_SHAPE = 5;      ///< not measured (sm_90's value)
    static constexpr std::uint32_t REDUCE_BLOCK = 256;       ///< not measured (sm_90's value)
    static constexpr std::uint32_t REDUCE_MAX_BLOCKS = 1024; ///< not measured (sm_90's value)
};

/// Orin (sm_87): sm_72's values.
struct PolicySm87 : PolicySm72 {};

/// H100 / H200 (sm_90).
struct PolicySm90 : PolicySm87 {
    static constexpr std::uint32_t SCAN_BLOCK = 256;         ///< H100, n = 2^26: multi-level 513–526 µs (CUB 230)
    static constexpr std::size_t SINGLE_PASS_SHAPE = 5;      ///< H100, n = 2^26: 207–211 µs (CUB 231–236)
    static constexpr std::uint32_t REDUCE_BLOCK = 256;       ///< H100, n = 20,000: 8.8 µs (CUB 10.5)
    static constexpr std::uint32_t REDUCE_MAX_BLOCKS = 1024; ///< H100, n = 2^20: 9.4 µs (CUB 10.5)
};

template <typename Policy>
constexpr bool sameAsCompiled() noexcept {
    return Policy::SCAN_BLOCK == SCAN_BLOCK && Policy::SINGLE_PASS_SHAPE == SINGLE_PASS_SHAPE &&
           Policy::REDUCE_BLOCK == REDUCE_BLOCK && Policy::REDUCE_MAX_BLOCKS == REDUCE_MAX_BLOCKS;
}
static_assert(sameAsCompiled<PolicySm72>() && sameAsCompiled<PolicySm87>() && sameAsCompiled<PolicySm90>(),
              "compiled into the kernels: one value for every architecture");

}  // namespace augur::kernels::primitives::tuning
