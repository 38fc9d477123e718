// Launch parameters of the scan and reduction primitives, with where and at what size measured.
// Private to kernels/primitives.
#pragma once

#include <cstddef>
#include <cstdint>

namespace augur::kernels::primitives::tuning {

/// Threads per block of the multi-level scan variants (the tile is 2, U or 8 elements per thread; the
/// single-pass variant's block is LOOKBACK_BLOCK = 256 with 16 elements per thread). Not swept: 256 is
/// the block the seeds' Blelloch formulation uses with 512-element tiles. Measured on the H100 at
/// n = 2²⁶ (2026-11-21): best multi-level (unrolled ×4) 513–526 µs — tiles, totals and offsets read
/// and write the data twice — single-pass look-back 303–307 µs, CUB 230 µs.
inline constexpr std::uint32_t SCAN_BLOCK = 256;

/// Single-pass look-back scan: indices into the compiled tile shapes (scan_cuda.cu's SHAPES, public as
/// cuda::singlePassShapes()) used up to SINGLE_PASS_SMALL_MAX elements and above.
inline constexpr std::size_t SINGLE_PASS_SHAPE_SMALL = 1;
inline constexpr std::size_t SINGLE_PASS_SHAPE_LARGE = 5;
inline constexpr std::uint32_t SINGLE_PASS_SMALL_MAX = 1U << 22U;

/// Reduction: threads per block and the largest grid (first pass; the second is one block).
/// Measured on the H100: at n = 20,000 and 2²⁰ the warp-unrolled variant is the fastest (8.8 / 9.4 µs,
/// CUB 10.5 / 10.5 µs); at 2²⁶ CUB is (96 µs vs 127 µs).
inline constexpr std::uint32_t REDUCE_BLOCK = 256;
inline constexpr std::uint32_t REDUCE_MAX_BLOCKS = 1024;

}  // namespace augur::kernels::primitives::tuning
