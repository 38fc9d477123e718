// Launch parameters of the scan and reduction primitives, with where and at what size measured.
// Private to kernels/primitives.
#pragma once

#include <cstdint>

namespace augur::kernels::primitives::tuning {

/// Threads per block of every hand-written scan variant (the tile is 2, U or 8 elements per thread).
/// Not swept: 256 is the block the seeds' Blelloch formulation uses with 512-element tiles.
inline constexpr std::uint32_t SCAN_BLOCK = 256;

/// Reduction: threads per block and the largest grid (first pass; the second is one block).
inline constexpr std::uint32_t REDUCE_BLOCK = 256;
inline constexpr std::uint32_t REDUCE_MAX_BLOCKS = 1024;

}  // namespace augur::kernels::primitives::tuning
