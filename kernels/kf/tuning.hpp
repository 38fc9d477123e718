// Launch parameters of the kf family per architecture. Each value says where it comes from; values not
// yet measured on the device say so.
#pragma once

#include "augur/kernels/kf/smoother.hpp"

namespace augur::kernels::kf::tuning {

/// Threads per block of the bank step (one thread per target). 256: a common choice for a memory-bound
/// elementwise kernel on sm_87 and sm_90; not tuned by measurement yet.
inline constexpr int BANK_BLOCK_THREADS = 256;

/// Threads per block of the smoother kernels (one thread per chunk and target). 128 keeps enough blocks
/// for the 132 SMs of an H100 when T = 2^20 gives 2^15 chunks; not tuned by measurement yet.
inline constexpr int SMOOTHER_BLOCK_THREADS = 128;

/// Chunk length of the blocked scan, shared with the CPU path so both combine in the same order
/// (smoother.hpp). 32: three scan levels for T = 2^20, one level for T = 1024; not tuned by measurement yet.
inline constexpr std::size_t SMOOTHER_CHUNK_LENGTH = DEFAULT_CHUNK_LENGTH;

}  // namespace augur::kernels::kf::tuning
