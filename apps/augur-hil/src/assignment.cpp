#include "augur/hil/assignment.hpp"

#include <cmath>

namespace augur::hil {

double distance(const Point2& a, const Point2& b) noexcept { return std::hypot(a.x_m - b.x_m, a.y_m - b.y_m); }

}  // namespace augur::hil
