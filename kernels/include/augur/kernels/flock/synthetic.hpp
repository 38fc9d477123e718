// Seeded synthetic trajectories for flock tests and benchmarks: groups of entities moving together
// (members leave and rejoin) among independent random walkers, optionally with missing samples.
// Offline/init use only: allocates.
#pragma once

#include <cstdint>
#include <vector>

#include "augur/kernels/flock/flock_types.hpp"

namespace augur::kernels::flock {

struct SyntheticSpec {
    int entities{100};
    int steps{100};
    int groups{5};                  ///< groups of `groupSize` entities (the first groups·groupSize entities)
    int groupSize{6};
    double area_m{1000.0};          ///< walkers and group centres stay in [0, area_m]²
    double groupSpread_m{1.0};      ///< members sit within this distance of their group centre
    double stepLength_m{5.0};       ///< distance moved per step
    double leaveProbability{0.01};  ///< per member and step: detaches (or, when detached, rejoins)
    double missingProbability{0.0}; ///< per sample: the sample is missing
    std::uint64_t seed{1};
};

struct SyntheticTrajectories {
    std::vector<double> x_m;  ///< step-major, steps × entities
    std::vector<double> y_m;
    std::vector<std::uint8_t> present;
    int entityCount{0};
    int stepCount{0};

    [[nodiscard]] TrajectoryView view() const noexcept {
        return {x_m.data(), y_m.data(), present.data(), entityCount, stepCount};
    }
};

/// Same spec → same trajectories (own seeded generator, no std distribution whose output varies by library).
[[nodiscard]] SyntheticTrajectories generateTrajectories(const SyntheticSpec& spec);

}  // namespace augur::kernels::flock
