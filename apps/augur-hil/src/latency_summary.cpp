#include "augur/hil/latency_summary.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "augur/core/panic.hpp"

namespace augur::hil {

double percentileNearestRank(std::span<const double> sorted, double q) {
    AUGUR_ASSERT(!sorted.empty() && q > 0.0 && q <= 1.0, "percentileNearestRank: non-empty input, q in (0, 1]");
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::max<std::size_t>(rank, 1) - 1];
}

LatencySummary summarizeLatency(std::span<const double> latency_us, double deadline_us) {
    LatencySummary s;
    if (latency_us.empty()) {
        return s;
    }
    std::vector<double> sorted(latency_us.begin(), latency_us.end());
    std::sort(sorted.begin(), sorted.end());
    s.cycles = sorted.size();
    s.p50_us = percentileNearestRank(sorted, 0.50);
    s.p99_us = percentileNearestRank(sorted, 0.99);
    s.max_us = sorted.back();
    s.deadlineMisses = static_cast<std::size_t>(std::count_if(sorted.begin(), sorted.end(),
                                                              [&](double v) { return v > deadline_us; }));
    return s;
}

}  // namespace augur::hil
