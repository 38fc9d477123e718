// Shared helpers of the flock suites: small instances built by hand or from a seeded generator.
#pragma once

#include <cstdint>
#include <vector>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/kernels/flock/synthetic.hpp"

namespace augur::kernels::flock::testing {

/// Trajectories given as per-step lists of (x, y) per entity; missing samples marked separately.
struct Instance {
    std::vector<double> x;
    std::vector<double> y;
    std::vector<std::uint8_t> present;
    int entities{0};
    int steps{0};

    Instance(int entityCount, int stepCount)
        : x(static_cast<std::size_t>(entityCount) * stepCount, 0.0),
          y(x.size(), 0.0),
          present(x.size(), 1),
          entities(entityCount),
          steps(stepCount) {}

    void set(int step, int entity, double px, double py) {
        x[index(step, entity)] = px;
        y[index(step, entity)] = py;
    }
    void remove(int step, int entity) { present[index(step, entity)] = 0; }
    [[nodiscard]] std::size_t index(int step, int entity) const {
        return static_cast<std::size_t>(step) * static_cast<std::size_t>(entities) + static_cast<std::size_t>(entity);
    }
    [[nodiscard]] TrajectoryView view() const { return {x.data(), y.data(), present.data(), entities, steps}; }
};

/// Capacities small enough for unit tests (a few MiB), large enough for their instances.
inline FlockCapacities testCapacities(int entities, int batchSteps = 64, int workers = 2) {
    FlockCapacities c;
    c.maxEntities = entities;
    c.maxBatchSteps = batchSteps;
    c.gridCellsPerStep = 1024;
    c.maxDisksPerStep = 1 << 14;
    c.maxCandidateMembersPerStep = 1 << 16;
    c.maxFamilySetsPerBatch = 1 << 15;
    c.maxFamilyMembersPerBatch = 1 << 18;
    c.maxWorkSets = 1 << 13;
    c.maxWorkMembers = 1 << 17;
    c.maxIntersectSetsPerBatch = 1 << 15;
    c.maxIntersectMembersPerBatch = 1 << 18;
    c.maxFlocksPerBatch = 1 << 14;
    c.maxFlockMembersPerBatch = 1 << 17;
    c.workerThreads = workers;
    return c;
}

/// A dense random instance: entities uniform in a square whose side is a few ε, with optional gaps.
inline Instance randomInstance(int entities, int steps, double side_m, double missing, std::uint64_t seed) {
    SyntheticSpec spec;
    spec.entities = entities;
    spec.steps = steps;
    spec.groups = 1;
    spec.groupSize = entities / 2;
    spec.area_m = side_m;
    spec.groupSpread_m = side_m / 4.0;
    spec.stepLength_m = side_m / 6.0;
    spec.leaveProbability = 0.2;
    spec.missingProbability = missing;
    spec.seed = seed;
    const SyntheticTrajectories t = generateTrajectories(spec);
    Instance instance(entities, steps);
    instance.x = t.x_m;
    instance.y = t.y_m;
    instance.present = t.present;
    return instance;
}

}  // namespace augur::kernels::flock::testing
