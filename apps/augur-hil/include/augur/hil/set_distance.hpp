// Distances between finite sets of positions: OSPA and GOSPA, the multi-object tracking metrics the
// bench reports per cycle (tracks against ground truth).
//
//   OSPA (Schuhmacher, Vo, Vo, "A consistent metric for performance evaluation of multi-object
//   filters", IEEE TSP 56(8), 2008, eq. 3): for X = {x_1..x_m}, Y = {y_1..y_n}, m <= n (else swap),
//     d_p^(c)(X, Y) = ( (1/n) · ( min_π Σ_{i=1..m} d^(c)(x_i, y_π(i))^p + c^p · (n − m) ) )^(1/p),
//   with d^(c)(x, y) = min(c, ‖x − y‖); 0 when both sets are empty, c when exactly one is.
//   GOSPA with α = 2 (Rahmathullah, García-Fernández, Svensson, "Generalized optimal sub-pattern
//   assignment metric", FUSION 2017, Proposition 1):
//     d_p^(c,2)(X, Y) = ( min_γ Σ_{(i,j)∈γ} ‖x_i − y_j‖^p + (c^p / 2) · (|X| + |Y| − 2|γ|) )^(1/p),
//   over assignments γ of pairs closer than c; unassigned truths are missed, unassigned estimates false.
// Offline code (allocates per call), O(max(m, n)³).
#pragma once

#include <cstddef>
#include <span>

#include "augur/hil/assignment.hpp"

namespace augur::hil {

/// OSPA distance in metres. Preconditions: cutoff_m > 0, order >= 1.
double ospa(std::span<const Point2> x, std::span<const Point2> y, double cutoff_m, double order);

struct GospaResult {
    double distance_m{0.0};
    double localisationSum{0.0};   ///< Σ ‖x_i − y_j‖^p over assigned pairs (m^p)
    std::size_t assigned{0};
    std::size_t missed{0};         ///< truths without an estimate within the cutoff
    std::size_t falseTargets{0};   ///< estimates without a truth within the cutoff
};

/// GOSPA (α = 2) of `estimates` against `truths`, with its decomposition.
/// Preconditions: cutoff_m > 0, order >= 1.
GospaResult gospa(std::span<const Point2> truths, std::span<const Point2> estimates, double cutoff_m, double order);

}  // namespace augur::hil
