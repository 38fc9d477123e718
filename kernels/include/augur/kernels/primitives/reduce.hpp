// Sum reduction of floats: the variants the papers compare, kept side by side for measurement.
//
//   SequentialAddressing  shared-memory tree with sequential addressing (Hortelano et al. 2023 section 4.2.4)
//   WarpUnrolled          the same, with the last warp unrolled into shuffles (WCMC 2021)
//   Cub                   cub::DeviceReduce::Sum
//   AtomicAdd             every thread atomicAdd()s into one float: the seed-000 baseline (section
//                         5.5). Its summation order depends on scheduling: NOT deterministic.
// The first three are deterministic: fixed grid for a given n, fixed tree.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::primitives {

enum class ReduceVariant : std::uint8_t { SequentialAddressing, WarpUnrolled, Cub, AtomicAdd };

inline constexpr std::array<ReduceVariant, 4> ALL_REDUCE_VARIANTS = {
    ReduceVariant::SequentialAddressing, ReduceVariant::WarpUnrolled, ReduceVariant::Cub, ReduceVariant::AtomicAdd};

[[nodiscard]] std::string_view toString(ReduceVariant variant) noexcept;

namespace cpu {
/// Σ in, accumulated in double. O(n); noexcept.
[[nodiscard]] double reduceSum(std::span<const float> in) noexcept;
}  // namespace cpu

namespace cuda {
[[nodiscard]] std::size_t reduceSumScratchBytes(ReduceVariant variant, std::uint32_t n) noexcept;

/// *out (device) = Σ in[0, n). Graph-capturable; allocation-free.
[[nodiscard]] platform::GpuStatus reduceSum(ReduceVariant variant, const float* in, float* out, std::uint32_t n,
                                            void* scratch, std::size_t scratchBytes,
                                            platform::StreamHandle stream) noexcept;
}  // namespace cuda

}  // namespace augur::kernels::primitives
