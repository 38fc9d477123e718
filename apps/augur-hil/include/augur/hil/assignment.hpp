// Matching for the bench's metrics: points in the map frame, their distance, and the minimum-cost
// assignment (kernels/kf dense_assignment.hpp: Kuhn–Munkres over a dense cost matrix). Offline code.
#pragma once

#include "augur/kernels/kf/dense_assignment.hpp"

namespace augur::hil {

/// Point in the map frame, metres.
struct Point2 {
    double x_m{0.0};
    double y_m{0.0};
};

/// Euclidean distance, metres.
double distance(const Point2& a, const Point2& b) noexcept;

using kernels::kf::minimumCostAssignment;

}  // namespace augur::hil
