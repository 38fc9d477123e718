// Latency statistics over the last N cycles (p50 / p99 / max / last), computed without allocation.
//
// Storage for N samples and an equally large scratch buffer is allocated once at construction (init
// phase); record() and stats() are run-phase safe: noexcept, allocation-free, O(1) and O(N).
// Not thread-safe: one writer (the cycle thread) and readers on the same thread.
#pragma once

#include <cstddef>
#include <memory>

#include "augur/core/messages.hpp"

namespace augur::runtime {

class LatencyWindow {
public:
    /// `capacity` ≥ 1 samples (the deployment's runtime.health_window_cycles).
    explicit LatencyWindow(std::size_t capacity);

    /// Adds one sample in microseconds, replacing the oldest once the window is full.
    void record(float latency_us) noexcept;

    /// Percentiles by nearest rank over the samples in the window; all zero when empty.
    [[nodiscard]] LatencyStats stats() const noexcept;

    [[nodiscard]] std::size_t size() const noexcept { return m_size; }
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }

private:
    std::size_t m_capacity;
    std::unique_ptr<float[]> m_samples;
    std::unique_ptr<float[]> m_scratch;  // mutable work space for stats()
    std::size_t m_next{0};
    std::size_t m_size{0};
    float m_last{0.0F};
};

}  // namespace augur::runtime
