#include "augur/hil/cv_baseline.hpp"

#include <algorithm>
#include <cmath>

namespace augur::hil {

void predictConstantVelocity(Point2 start, double heading_rad, double speed_mps, double step_s,
                             std::span<Point2> out) noexcept {
    const double vx = speed_mps * std::cos(heading_rad);
    const double vy = speed_mps * std::sin(heading_rad);
    for (std::size_t k = 0; k < out.size(); ++k) {
        const double t = static_cast<double>(k + 1) * step_s;
        out[k] = Point2{start.x_m + vx * t, start.y_m + vy * t};
    }
}

std::vector<HorizonErrors> evaluateConstantVelocityBaseline(const Scenario& scenario, std::span<const double> horizons_s,
                                                            std::size_t sampleEverySteps, double minSpeed_mps) {
    AUGUR_ASSERT(sampleEverySteps >= 1, "evaluateConstantVelocityBaseline: sampleEverySteps >= 1");
    PredictionAccumulator sut(scenario.step_s(), horizons_s);
    double longest_s = 0.0;
    for (double h : horizons_s) {
        longest_s = std::max(longest_s, h);
    }
    const auto maxSteps = static_cast<std::size_t>(std::lround(longest_s / scenario.step_s()));
    std::vector<Point2> truth;
    std::vector<Point2> predicted(maxSteps);
    truth.reserve(maxSteps);
    for (std::size_t t0 = 0; t0 < scenario.stepCount(); t0 += sampleEverySteps) {
        for (const GroundTruthState& s : scenario.frame(t0)) {
            if (s.speed_mps < minSpeed_mps) {
                continue;
            }
            truth.clear();
            for (std::size_t k = 1; k <= maxSteps; ++k) {
                const GroundTruthState* future = scenario.find(t0 + k, s.id);
                if (future == nullptr) {
                    break;
                }
                truth.push_back(Point2{future->x_m, future->y_m});
            }
            if (truth.empty()) {
                continue;
            }
            predictConstantVelocity(Point2{s.x_m, s.y_m}, s.heading_rad, s.speed_mps, scenario.step_s(), predicted);
            const std::span<const Point2> candidate(predicted);
            constexpr double ONLY_CANDIDATE = 1.0;
            sut.add(truth, std::span<const std::span<const Point2>>(&candidate, 1), std::span<const double>(&ONLY_CANDIDATE, 1));
        }
    }
    return sut.results();
}

}  // namespace augur::hil
