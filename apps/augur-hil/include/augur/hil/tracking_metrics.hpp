// Tracking accuracy over a run: position and velocity RMSE of tracks against ground truth, and the
// mean OSPA / GOSPA per cycle (set_distance.hpp).
//
// Each cycle, tracks are associated with ground-truth objects by the GOSPA assignment (minimum summed
// distance^p, pairs closer than the cutoff only), so tracks carrying a wrong id (id switches upstream)
// are still scored against the object they follow. RMSE is over associated pairs:
//   RMSE_pos = sqrt( Σ ((x̂ − x)² + (ŷ − y)²) / N ),  RMSE_vel = sqrt( Σ ((v̂x − vx)² + (v̂y − vy)²) / N ).
// Offline code (allocates per cycle).
#pragma once

#include <cstddef>
#include <span>

#include "augur/hil/assignment.hpp"

namespace augur::hil {

/// Position and velocity in the map frame.
struct KinematicState {
    double x_m{0.0};
    double y_m{0.0};
    double vx_mps{0.0};
    double vy_mps{0.0};
};

struct TrackingSummary {
    std::size_t cycles{0};
    std::size_t associatedPairs{0};
    std::size_t missed{0};        ///< summed over cycles
    std::size_t falseTracks{0};   ///< summed over cycles
    double positionRmse_m{0.0};   ///< 0 when no pair was associated
    double velocityRmse_mps{0.0};
    double meanOspa_m{0.0};
    double meanGospa_m{0.0};
};

class TrackingAccumulator {
public:
    /// Preconditions: cutoff_m > 0, order >= 1 (the bench uses c = 10 m, p = 2).
    TrackingAccumulator(double cutoff_m, double order);

    /// Scores one cycle: `truths` (objects that should be tracked) against `tracks`. Either may be empty.
    void addCycle(std::span<const KinematicState> truths, std::span<const KinematicState> tracks);

    [[nodiscard]] TrackingSummary summary() const noexcept;

private:
    double m_cutoff_m;
    double m_order;
    TrackingSummary m_sums;  // cycles, pairs, missed, false; the error fields hold sums until summary()
    double m_positionSq{0.0};
    double m_velocitySq{0.0};
    double m_ospaSum{0.0};
    double m_gospaSum{0.0};
};

}  // namespace augur::hil
