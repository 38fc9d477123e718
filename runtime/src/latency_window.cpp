#include "augur/runtime/latency_window.hpp"

#include <algorithm>
#include <cmath>

#include "augur/core/panic.hpp"

namespace augur::runtime {
namespace {

/// Nearest-rank percentile: the smallest sample with at least p% of the samples ≤ it.
std::size_t nearestRank(double percentile, std::size_t count) noexcept {
    const auto rank = static_cast<std::size_t>(std::ceil(percentile / 100.0 * static_cast<double>(count)));
    return rank == 0 ? 0 : rank - 1;
}

}  // namespace

LatencyWindow::LatencyWindow(std::size_t capacity)
    : m_capacity(capacity), m_samples(new float[capacity]), m_scratch(new float[capacity]) {
    AUGUR_ASSERT(capacity > 0, "LatencyWindow needs a capacity of at least one sample");
}

void LatencyWindow::record(float latency_us) noexcept {
    m_samples[m_next] = latency_us;
    m_next = (m_next + 1) % m_capacity;
    m_size = std::min(m_size + 1, m_capacity);
    m_last = latency_us;
}

LatencyStats LatencyWindow::stats() const noexcept {
    LatencyStats result;
    if (m_size == 0) {
        return result;
    }
    float* const first = m_scratch.get();
    float* const last = first + m_size;
    std::copy(m_samples.get(), m_samples.get() + m_size, first);
    float* const p50 = first + nearestRank(50.0, m_size);
    std::nth_element(first, p50, last);
    result.p50_us = *p50;
    float* const p99 = first + nearestRank(99.0, m_size);
    std::nth_element(p50, p99, last);  // p99 ≥ p50: search the upper part only
    result.p99_us = *p99;
    result.max_us = *std::max_element(p99, last);
    result.last_us = m_last;
    return result;
}

}  // namespace augur::runtime
