// Brute-force maximal flocks for small instances (≤ 12 entities), independent of the algorithm under
// test: every subset is tested at every step with its minimum enclosing circle (smallest of the
// circles on two points as diameter and through three points that encloses the subset).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "augur/kernels/flock/flock_types.hpp"

namespace augur::kernels::flock::testing {

using FlockSetList = std::vector<std::pair<int, std::vector<std::int32_t>>>;  ///< (window start, sorted members)

/// Squared radius of the minimum enclosing circle of the points `mask` selects (computed relative to
/// the first of them, so that large coordinates keep their precision).
inline double minimumEnclosingRadius2(const double* absoluteX, const double* absoluteY, std::uint32_t mask) {
    std::vector<int> p;
    for (int i = 0; i < 32; ++i) {
        if ((mask >> i) & 1U) {
            p.push_back(i);
        }
    }
    if (p.size() <= 1) {
        return 0.0;
    }
    double xs[32];
    double ys[32];
    for (int i : p) {
        xs[i] = absoluteX[i] - absoluteX[p[0]];
        ys[i] = absoluteY[i] - absoluteY[p[0]];
    }
    const auto encloses = [&](double cx, double cy, double r2) {
        for (int i : p) {
            const double dx = xs[i] - cx;
            const double dy = ys[i] - cy;
            if (dx * dx + dy * dy > r2 * (1.0 + 1e-12)) {
                return false;
            }
        }
        return true;
    };
    double best = INFINITY;
    for (std::size_t a = 0; a < p.size(); ++a) {
        for (std::size_t b = a + 1; b < p.size(); ++b) {
            const double cx = 0.5 * (xs[p[a]] + xs[p[b]]);
            const double cy = 0.5 * (ys[p[a]] + ys[p[b]]);
            const double dx = xs[p[a]] - cx;
            const double dy = ys[p[a]] - cy;
            const double r2 = dx * dx + dy * dy;
            if (r2 < best && encloses(cx, cy, r2)) {
                best = r2;
            }
            for (std::size_t c = b + 1; c < p.size(); ++c) {
                const double ax = xs[p[a]], ay = ys[p[a]];
                const double bx = xs[p[b]] - ax, by = ys[p[b]] - ay;
                const double qx = xs[p[c]] - ax, qy = ys[p[c]] - ay;
                const double d = 2.0 * (bx * qy - by * qx);
                if (std::abs(d) < 1e-300) {
                    continue;  // collinear: a diameter circle covers it
                }
                const double b2 = bx * bx + by * by;
                const double q2 = qx * qx + qy * qy;
                const double ux = (qy * b2 - by * q2) / d;
                const double uy = (bx * q2 - qx * b2) / d;
                const double r2c = ux * ux + uy * uy;
                if (r2c < best && encloses(ax + ux, ay + uy, r2c)) {
                    best = r2c;
                }
            }
        }
    }
    return best;
}

/// Every maximal flock of every window, in the FlockFinder order.
inline FlockSetList bruteForceFlocks(const TrajectoryView& view, const FlockParams& params) {
    const int n = view.entityCount;
    const std::uint32_t all = (std::uint32_t{1} << n) - 1U;
    const double limit2 = (params.radius_m * (1.0 + RADIUS_TOLERANCE)) * (params.radius_m * (1.0 + RADIUS_TOLERANCE));
    // fits[t][mask]: the entities of mask are all present at t and fit in a disk of radius ε.
    std::vector<std::vector<std::uint8_t>> fits(static_cast<std::size_t>(view.stepCount), std::vector<std::uint8_t>(all + 1U, 0));
    for (int t = 0; t < view.stepCount; ++t) {
        const double* xs = view.x_m + static_cast<std::ptrdiff_t>(t) * n;
        const double* ys = view.y_m + static_cast<std::ptrdiff_t>(t) * n;
        auto& f = fits[static_cast<std::size_t>(t)];
        for (std::uint32_t mask = 1; mask <= all; ++mask) {
            bool ok = true;
            for (int i = 0; i < n && ok; ++i) {
                if ((mask >> i) & 1U) {
                    const std::uint32_t rest = mask & ~(std::uint32_t{1} << i);
                    const bool presentI = view.present == nullptr || view.present[static_cast<std::ptrdiff_t>(t) * n + i] != 0;
                    ok = presentI && (rest == 0 || f[rest] != 0);  // every subset of a fitting set fits
                }
            }
            f[mask] = ok && minimumEnclosingRadius2(xs, ys, mask) <= limit2 ? 1 : 0;
        }
    }
    FlockSetList result;
    for (int j = 0; j + params.windowSteps <= view.stepCount; ++j) {
        std::vector<std::uint8_t> flock(all + 1U, 0);
        for (std::uint32_t mask = 1; mask <= all; ++mask) {
            bool ok = true;
            for (int t = j; t < j + params.windowSteps && ok; ++t) {
                ok = fits[static_cast<std::size_t>(t)][mask] != 0;
            }
            flock[mask] = ok ? 1 : 0;
        }
        std::vector<std::vector<std::int32_t>> window;
        for (std::uint32_t mask = 1; mask <= all; ++mask) {
            if (flock[mask] == 0 || std::popcount(mask) < params.minEntities) {
                continue;
            }
            bool maximal = true;
            for (int i = 0; i < n && maximal; ++i) {
                const std::uint32_t bigger = mask | (std::uint32_t{1} << i);
                maximal = bigger == mask || flock[bigger] == 0;
            }
            if (maximal) {
                std::vector<std::int32_t> members;
                for (int i = 0; i < n; ++i) {
                    if ((mask >> i) & 1U) {
                        members.push_back(i);
                    }
                }
                window.push_back(std::move(members));
            }
        }
        std::sort(window.begin(), window.end());
        for (auto& members : window) {
            result.emplace_back(j, std::move(members));
        }
    }
    return result;
}

/// A FlockList as comparable values.
inline FlockSetList toSets(const FlockList& list) {
    FlockSetList result;
    for (const Flock& flock : list.flocks()) {
        const auto members = list.members(flock);
        result.emplace_back(flock.windowStart, std::vector<std::int32_t>(members.begin(), members.end()));
    }
    return result;
}

}  // namespace augur::kernels::flock::testing
