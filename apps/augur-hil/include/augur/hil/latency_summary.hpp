// Cycle-latency statistics of a recorded run: nearest-rank percentiles and deadline misses.
// (The runtime's own health window is runtime/latency_window.hpp; this is the bench's offline view over
// every recorded cycle.)
#pragma once

#include <cstddef>
#include <span>

namespace augur::hil {

struct LatencySummary {
    std::size_t cycles{0};
    double p50_us{0.0};
    double p99_us{0.0};
    double max_us{0.0};
    std::size_t deadlineMisses{0};  ///< cycles with latency > deadline
};

/// Nearest-rank percentile: the smallest value with at least q·n values <= it (q in (0, 1]).
/// `sorted` ascending and non-empty.
double percentileNearestRank(std::span<const double> sorted, double q);

/// Summary of `latency_us` (any order; empty gives all zeros) against `deadline_us`. Allocates a sorted copy.
LatencySummary summarizeLatency(std::span<const double> latency_us, double deadline_us);

}  // namespace augur::hil
