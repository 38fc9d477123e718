#include "augur/hil/tracking_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "augur/core/panic.hpp"
#include "augur/hil/set_distance.hpp"

namespace augur::hil {

TrackingAccumulator::TrackingAccumulator(double cutoff_m, double order) : m_cutoff_m(cutoff_m), m_order(order) {
    AUGUR_ASSERT(cutoff_m > 0.0 && order >= 1.0, "TrackingAccumulator: cutoff > 0 and order >= 1");
}

void TrackingAccumulator::addCycle(std::span<const KinematicState> truths, std::span<const KinematicState> tracks) {
    std::vector<Point2> x(truths.size());
    std::vector<Point2> y(tracks.size());
    for (std::size_t i = 0; i < truths.size(); ++i) {
        x[i] = Point2{truths[i].x_m, truths[i].y_m};
    }
    for (std::size_t j = 0; j < tracks.size(); ++j) {
        y[j] = Point2{tracks[j].x_m, tracks[j].y_m};
    }
    const GospaResult g = gospa(x, y, m_cutoff_m, m_order);
    m_gospaSum += g.distance_m;
    m_ospaSum += ospa(x, y, m_cutoff_m, m_order);
    m_sums.missed += g.missed;
    m_sums.falseTracks += g.falseTargets;
    ++m_sums.cycles;
    if (x.empty() || y.empty()) {
        return;
    }
    std::vector<double> cost(x.size() * y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        for (std::size_t j = 0; j < y.size(); ++j) {
            cost[i * y.size() + j] = std::pow(std::min(m_cutoff_m, distance(x[i], y[j])), m_order);
        }
    }
    const std::vector<int> assignment = minimumCostAssignment(cost, x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (assignment[i] < 0) {
            continue;
        }
        const KinematicState& t = truths[i];
        const KinematicState& e = tracks[static_cast<std::size_t>(assignment[i])];
        const double dx = e.x_m - t.x_m;
        const double dy = e.y_m - t.y_m;
        if (std::hypot(dx, dy) >= m_cutoff_m) {
            continue;
        }
        m_positionSq += dx * dx + dy * dy;
        const double dvx = e.vx_mps - t.vx_mps;
        const double dvy = e.vy_mps - t.vy_mps;
        m_velocitySq += dvx * dvx + dvy * dvy;
        ++m_sums.associatedPairs;
    }
}

TrackingSummary TrackingAccumulator::summary() const noexcept {
    TrackingSummary s = m_sums;
    if (s.associatedPairs > 0) {
        s.positionRmse_m = std::sqrt(m_positionSq / static_cast<double>(s.associatedPairs));
        s.velocityRmse_mps = std::sqrt(m_velocitySq / static_cast<double>(s.associatedPairs));
    }
    if (s.cycles > 0) {
        s.meanOspa_m = m_ospaSum / static_cast<double>(s.cycles);
        s.meanGospa_m = m_gospaSum / static_cast<double>(s.cycles);
    }
    return s;
}

}  // namespace augur::hil
