// Launch parameters of the scan and reduction primitives, with where and at what size measured.
// Private to kernels/primitives.
#pragma once

#include <cstdint>

namespace augur::kernels::primitives::tuning {

/// Threads per block of every hand-written scan variant (the tile is 2, U or 8 elements per thread).
/// Not swept: 256 is the block the seeds' Blelloch formulation uses with 512-element tiles. Measured
/// with it on the H100 at n = 2²⁶: best hand-written (unrolled ×4) 513 µs vs CUB 229 µs — the
/// three-pass structure (tiles, totals, offsets) reads and writes the data twice; CUB's single pass
/// with decoupled look-back does not. The particle filter therefore uses CUB.
inline constexpr std::uint32_t SCAN_BLOCK = 256;

/// Reduction: threads per block and the largest grid (first pass; the second is one block).
/// Measured on the H100: at n = 20,000 and 2²⁰ the warp-unrolled variant is the fastest (8.8 / 9.4 µs,
/// CUB 10.5 / 10.5 µs); at 2²⁶ CUB is (96 µs vs 127 µs).
inline constexpr std::uint32_t REDUCE_BLOCK = 256;
inline constexpr std::uint32_t REDUCE_MAX_BLOCKS = 1024;

}  // namespace augur::kernels::primitives::tuning
