// Launch parameters of the kf family per architecture, as the chain PolicySm72 → PolicySm87 →
// PolicySm90 (tuning_policy.hpp). Each value says where it comes from; values not yet measured on the
// device say so. All of them are compiled into the kernels (launch bounds) or shared with the CPU path
// (the chunk length), so they are the same in every policy (asserted below): one value per binary.
#pragma once

#include "augur/kernels/kf/smoother.hpp"
#include "augur/kernels/tuning_policy.hpp"

namespace augur::kernels::kf::tuning {

/// Xavier (sm_72): the root of the chain.
struct PolicySm72 {
    /// Threads per block of the bank step (one thread per target): a common choice for a memory-bound
    /// elementwise kernel.
    static constexpr int BANK_BLOCK_THREADS = 256;  ///< not measured
    /// Threads per block of the smoother kernels (one thread per chunk and target).
    static constexpr int SMOOTHER_BLOCK_THREADS = 128;  ///< not measured
    /// Chunk length of the blocked scan, shared with the CPU path so both combine in the same order
    /// (smoother.hpp): three scan levels for T = 2^20, one level for T = 1024.
    static constexpr std::size_t SMOOTHER_CHUNK_LENGTH = DEFAULT_CHUNK_LENGTH;  ///< not measured
};

/// Orin (sm_87): sm_72's values.
struct PolicySm87 : PolicySm72 {};

/// H100 / H200 (sm_90). 128 smoother threads keep enough blocks for the 132 SMs of an H100 when
/// T = 2^20 gives 2^15 chunks.
struct PolicySm90 : PolicySm87 {
    static constexpr int BANK_BLOCK_THREADS = 256;      ///< not measured
    static constexpr int SMOOTHER_BLOCK_THREADS = 128;  ///< not measured (2^15 chunks at T = 2^20 fill 132 SMs)
};

/// The values the kernels are compiled with.
inline constexpr int BANK_BLOCK_THREADS = PolicySm90::BANK_BLOCK_THREADS;
inline constexpr int SMOOTHER_BLOCK_THREADS = PolicySm90::SMOOTHER_BLOCK_THREADS;
inline constexpr std::size_t SMOOTHER_CHUNK_LENGTH = PolicySm90::SMOOTHER_CHUNK_LENGTH;

static_assert(PolicySm72::BANK_BLOCK_THREADS == BANK_BLOCK_THREADS && PolicySm87::BANK_BLOCK_THREADS == BANK_BLOCK_THREADS,
              "compiled into the bank kernel: one value for every architecture");
static_assert(PolicySm72::SMOOTHER_BLOCK_THREADS == SMOOTHER_BLOCK_THREADS &&
                  PolicySm87::SMOOTHER_BLOCK_THREADS == SMOOTHER_BLOCK_THREADS,
              "compiled into the smoother kernels: one value for every architecture");
static_assert(PolicySm72::SMOOTHER_CHUNK_LENGTH == SMOOTHER_CHUNK_LENGTH && PolicySm87::SMOOTHER_CHUNK_LENGTH == SMOOTHER_CHUNK_LENGTH,
              "shared with the CPU path: one value for every architecture");

}  // namespace augur::kernels::kf::tuning
