// Seeded synthetic trajectories: groups moving together among independent walkers.
#include "augur/kernels/flock/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace augur::kernels::flock {

namespace {

/// splitmix64 stream: portable, seeded, no std distribution involved.
class Random {
public:
    explicit Random(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ULL + 0xD1B54A32D192ED03ULL) {}
    std::uint64_t next() {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31U);
    }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11U) * 0x1.0p-53; }

private:
    std::uint64_t m_state;
};

double reflect(double v, double area) {
    if (v < 0.0) {
        return std::min(-v, area);
    }
    if (v > area) {
        return std::max(2.0 * area - v, 0.0);
    }
    return v;
}

}  // namespace

SyntheticTrajectories generateTrajectories(const SyntheticSpec& spec) {
    SyntheticTrajectories out;
    const int n = std::max(spec.entities, 0);
    const int steps = std::max(spec.steps, 0);
    out.entityCount = n;
    out.stepCount = steps;
    const auto samples = static_cast<std::size_t>(n) * static_cast<std::size_t>(steps);
    out.x_m.resize(samples);
    out.y_m.resize(samples);
    out.present.resize(samples);
    Random random(spec.seed);
    const int grouped = std::min(n, std::max(spec.groups, 0) * std::max(spec.groupSize, 0));
    const int groups = spec.groupSize > 0 ? (grouped + spec.groupSize - 1) / spec.groupSize : 0;

    std::vector<double> cx(static_cast<std::size_t>(groups));
    std::vector<double> cy(cx.size());
    std::vector<double> heading(cx.size());
    for (std::size_t g = 0; g < cx.size(); ++g) {
        cx[g] = random.uniform() * spec.area_m;
        cy[g] = random.uniform() * spec.area_m;
        heading[g] = random.uniform() * 2.0 * std::numbers::pi;
    }
    std::vector<double> px(static_cast<std::size_t>(n));
    std::vector<double> py(px.size());
    std::vector<double> ox(px.size());
    std::vector<double> oy(px.size());
    std::vector<std::uint8_t> attached(px.size());
    for (int i = 0; i < n; ++i) {
        const auto u = static_cast<std::size_t>(i);
        const double r = spec.groupSpread_m * std::sqrt(random.uniform());
        const double a = random.uniform() * 2.0 * std::numbers::pi;
        ox[u] = r * std::cos(a);
        oy[u] = r * std::sin(a);
        attached[u] = i < grouped ? 1 : 0;
        px[u] = random.uniform() * spec.area_m;
        py[u] = random.uniform() * spec.area_m;
    }
    for (int t = 0; t < steps; ++t) {
        for (std::size_t g = 0; g < cx.size(); ++g) {
            heading[g] += (random.uniform() - 0.5) * 0.6;
            cx[g] = reflect(cx[g] + spec.stepLength_m * std::cos(heading[g]), spec.area_m);
            cy[g] = reflect(cy[g] + spec.stepLength_m * std::sin(heading[g]), spec.area_m);
        }
        for (int i = 0; i < n; ++i) {
            const auto u = static_cast<std::size_t>(i);
            if (i < grouped && random.uniform() < spec.leaveProbability) {
                attached[u] ^= 1U;
            }
            if (attached[u] != 0) {
                const auto g = static_cast<std::size_t>(i / spec.groupSize);
                const double jitter = 0.05 * spec.groupSpread_m;
                px[u] = cx[g] + ox[u] + (random.uniform() - 0.5) * jitter;
                py[u] = cy[g] + oy[u] + (random.uniform() - 0.5) * jitter;
            } else {
                const double a = random.uniform() * 2.0 * std::numbers::pi;
                px[u] = reflect(px[u] + spec.stepLength_m * std::cos(a), spec.area_m);
                py[u] = reflect(py[u] + spec.stepLength_m * std::sin(a), spec.area_m);
            }
            const std::size_t k = static_cast<std::size_t>(t) * static_cast<std::size_t>(n) + u;
            out.x_m[k] = px[u];
            out.y_m[k] = py[u];
            out.present[k] = random.uniform() < spec.missingProbability ? 0 : 1;
        }
    }
    return out;
}

}  // namespace augur::kernels::flock
