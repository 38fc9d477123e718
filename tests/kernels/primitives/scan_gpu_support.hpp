// Test support for the scan GPU suites: one scan-shaped call on a device copy of its input, run
// directly or captured and replayed as a CUDA graph.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::primitives {

/// The size the scan target is measured at (2^26 elements).
inline constexpr std::uint32_t LARGE = 1U << 26U;

/// Runs enqueue(in, out, n, scratch, bytes, stream) on a device copy of `in` (directly or as a
/// replayed CUDA graph) and returns the output.
template <typename T, typename Enqueue>
std::vector<T> runOnGpu(const std::vector<T>& in, std::size_t scratchBytes, platform::StreamHandle stream, bool graph,
                        Enqueue&& enqueue) {
    const auto n = static_cast<std::uint32_t>(in.size());
    auto dIn = platform::DeviceBuffer<T>::create(n);
    auto dOut = platform::DeviceBuffer<T>::create(n);
    auto scratch = platform::DeviceMemory::allocate(scratchBytes);
    EXPECT_TRUE(dIn && dOut && scratch);
    EXPECT_TRUE(dIn->upload(in, stream));
    const T* src = dIn->data();
    T* dst = dOut->data();
    void* tmp = scratch->get();
    const std::size_t bytes = scratch->bytes();
    auto launch = [&](platform::StreamHandle s) { return enqueue(src, dst, n, tmp, bytes, s); };
    if (graph) {
        auto g = platform::Graph::capture(stream, launch);
        EXPECT_TRUE(g.hasValue());
        EXPECT_TRUE(g->launch(stream));
    } else {
        EXPECT_TRUE(launch(stream));
    }
    std::vector<T> out(n);
    EXPECT_TRUE(dOut->download(out, stream));
    EXPECT_TRUE(platform::checkCuda(static_cast<int>(cudaStreamSynchronize(stream)), "sync", __FILE__, __LINE__));
    return out;
}

}  // namespace augur::kernels::primitives
