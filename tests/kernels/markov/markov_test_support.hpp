// Shared helpers of the Markov-chain suites: a naive dense reference and a harness that runs a
// prediction on straight corridors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"

namespace augur::kernels::markov::testing {

/// A small grid on which dense n × n matrices are cheap.
inline ChainConfig smallChain() {
    ChainConfig c;
    c.positionCells = 16;
    c.positionMax_m = 16.0F;
    c.speedCells = 6;
    c.speedMax_mps = 5.0F;
    c.inputCells = 3;
    c.accelMax_mps2 = 4.0F;
    c.step_s = 0.25F;
    c.samplesPerAxis = 4;
    c.intervalSamples = 4;
    return c;
}

/// A grid for behaviour tests: 1 m × 0.5 m/s cells, 5 inputs (u = 0 exists), τ = 0.1 s, with
/// a_max·τ = Δv so that braking leaves a speed cell every step (docs/design/motion-prediction.md).
inline ChainConfig behaviourChain() {
    ChainConfig c;
    c.positionCells = 120;
    c.positionMax_m = 120.0F;
    c.speedCells = 41;
    c.speedMax_mps = 20.0F;
    c.inputCells = 5;
    c.accelMax_mps2 = 5.0F;
    c.step_s = 0.1F;
    c.samplesPerAxis = 6;
    c.intervalSamples = 6;
    return c;
}

/// config/default.yaml's chain: 200 × 20 cells over 200 m and 42 m/s, 7 inputs over ±8 m/s², τ = 0.1 s
/// (few samples per cell: its shape matters here, not its probabilities).
inline ChainConfig deploymentChain() {
    ChainConfig c;
    c.positionCells = 200;
    c.positionMax_m = 200.0F;
    c.speedCells = 20;
    c.speedMax_mps = 42.0F;
    c.inputCells = 7;
    c.accelMax_mps2 = 8.0F;
    c.step_s = 0.1F;
    c.samplesPerAxis = 2;
    c.intervalSamples = 2;
    return c;
}

/// ELL → dense, row-major n × n.
inline std::vector<double> densify(const SparseTransition& m) {
    const auto n = static_cast<std::size_t>(m.rows);
    std::vector<double> dense(n * n, 0.0);
    for (std::size_t k = 0; k < static_cast<std::size_t>(m.entriesPerRow); ++k) {
        for (std::size_t r = 0; r < n; ++r) {
            dense[r * n + static_cast<std::size_t>(m.column[k * n + r])] += m.value[k * n + r];
        }
    }
    return dense;
}

/// Υ(τ) built the naive way: a dense n × n matrix; for every speed sample the source cell, displaced,
/// is intersected with every position cell (everything past s_max belongs to the last cell).
inline std::vector<double> naiveDenseStep(const ChainConfig& c) {
    const int na = c.inputCells;
    const int nv = c.speedCells;
    const auto n = static_cast<std::size_t>(c.positionCells * nv * na);
    std::vector<double> dense(n * n, 0.0);
    const double ds = positionCellSize_m(c);
    for (int is = 0; is < c.positionCells; ++is) {
        for (int iv = 0; iv < nv; ++iv) {
            const int samples = iv == 0 ? 1 : c.samplesPerAxis;
            for (int j = 0; j < na; ++j) {
                const std::size_t col = static_cast<std::size_t>((is * nv + iv) * na + j);
                for (int b = 0; b < samples; ++b) {
                    const float v0 = iv == 0 ? 0.0F
                                             : (static_cast<float>(iv - 1) + (static_cast<float>(b) + 0.5F) /
                                                                                static_cast<float>(samples)) *
                                                   speedCellSize_mps(c);
                    const Motion m = integrateMotion(0.0F, v0, c.accelMax_mps2 * inputValue(j, na), c.step_s, c.speedMax_mps);
                    const double lo = is * ds + m.s_m;
                    const double hi = lo + ds;
                    const int targetSpeed = speedCellOf(m.v_mps, c);
                    for (int ts = 0; ts < c.positionCells; ++ts) {
                        const double cellLo = ts * ds;
                        const double cellHi = ts + 1 == c.positionCells ? 1e30 : (ts + 1) * ds;
                        const double overlap = std::max(0.0, std::min(hi, cellHi) - std::max(lo, cellLo));
                        if (overlap > 0.0) {
                            const std::size_t row = static_cast<std::size_t>((ts * nv + targetSpeed) * na + j);
                            dense[row * n + col] += overlap / ds / samples;
                        }
                    }
                }
            }
        }
    }
    return dense;
}

/// Runs cpu::predict on straight corridors along +x starting at (x0, y0) = (0, k·laneSpacing).
struct PredictionHarness {
    ChainConfig chainConfig;
    PredictionConfig config;
    std::vector<CorridorInput> corridors;
    std::vector<float> x, y, s;
    std::vector<float> positionMarginal, speedMarginal;
    std::vector<CorridorPoint> points;
    std::vector<std::uint16_t> grid;
    std::vector<std::byte> scratch;
    GridPlacement placement{};

    PredictionHarness(const ChainConfig& chain, const PredictionConfig& prediction, int corridorCount)
        : chainConfig(chain), config(prediction), corridors(static_cast<std::size_t>(corridorCount)) {
        const auto lines = static_cast<std::size_t>(config.maxCorridors) * static_cast<std::size_t>(config.maxPolylinePoints);
        x.assign(lines, 0.0F);
        y.assign(lines, 0.0F);
        s.assign(lines, 0.0F);
        const float length = chain.positionMax_m * 1.5F;
        for (int k = 0; k < config.maxCorridors; ++k) {
            for (int i = 0; i < config.maxPolylinePoints; ++i) {
                const auto at = static_cast<std::size_t>(k * config.maxPolylinePoints + i);
                s[at] = length * static_cast<float>(i) / static_cast<float>(config.maxPolylinePoints - 1);
                x[at] = s[at];
                y[at] = 4.0F * static_cast<float>(k % 4);
            }
        }
        for (auto& c : corridors) {
            c.polylinePoints = config.maxPolylinePoints;
            c.probability = 1.0F;
        }
        const auto H = static_cast<std::size_t>(config.horizonSteps);
        positionMarginal.assign(static_cast<std::size_t>(config.maxCorridors) * H * static_cast<std::size_t>(chain.positionCells), 0.0F);
        speedMarginal.assign(static_cast<std::size_t>(config.maxCorridors) * H * static_cast<std::size_t>(chain.speedCells), 0.0F);
        points.assign(static_cast<std::size_t>(config.maxCorridors) * H, CorridorPoint{});
        grid.assign(static_cast<std::size_t>(config.gridFrames) * static_cast<std::size_t>(config.gridWidthCells) *
                        static_cast<std::size_t>(config.gridHeightCells),
                    0);
        scratch.resize(cpu::predictScratchBytes(chain, config) + 16);
        placement.originX_m = -2.0F;
        placement.originY_m = -2.0F;
    }

    [[nodiscard]] Polylines polylines() const { return {x.data(), y.data(), s.data()}; }

    [[nodiscard]] PredictionOutputs outputs() {
        return {positionMarginal.data(), speedMarginal.data(), points.data(), grid.data(),
                static_cast<std::size_t>(config.gridWidthCells) * static_cast<std::size_t>(config.gridHeightCells)};
    }

    void run(const MarkovChain& chain, const InputDynamics& psi) {
        cpu::predict(chain, config, psi, corridors.data(), static_cast<int>(corridors.size()), polylines(), placement,
                     outputs(), alignedScratch(), scratch.size() - 16);
    }

    [[nodiscard]] void* alignedScratch() {
        auto address = reinterpret_cast<std::uintptr_t>(scratch.data());
        return reinterpret_cast<void*>((address + 15U) & ~std::uintptr_t{15U});
    }

    [[nodiscard]] const float* positionAt(int corridor, int step) const {
        return positionMarginal.data() +
               (static_cast<std::size_t>(corridor) * static_cast<std::size_t>(config.horizonSteps) + static_cast<std::size_t>(step)) *
                   static_cast<std::size_t>(chainConfig.positionCells);
    }
    [[nodiscard]] const float* speedAt(int corridor, int step) const {
        return speedMarginal.data() +
               (static_cast<std::size_t>(corridor) * static_cast<std::size_t>(config.horizonSteps) + static_cast<std::size_t>(step)) *
                   static_cast<std::size_t>(chainConfig.speedCells);
    }
    [[nodiscard]] const CorridorPoint& pointAt(int corridor, int step) const {
        return points[static_cast<std::size_t>(corridor) * static_cast<std::size_t>(config.horizonSteps) + static_cast<std::size_t>(step)];
    }
};

/// A prediction configuration sized for `corridors` with a grid covering the corridors.
inline PredictionConfig predictionFor(int corridors, int horizonSteps = 40) {
    PredictionConfig p;
    p.horizonSteps = horizonSteps;
    p.maxCorridors = corridors;
    p.maxPolylinePoints = 16;
    p.gridWidthCells = 128;
    p.gridHeightCells = 32;
    p.gridResolution_m = 1.0F;
    p.gridFrames = horizonSteps % 8 == 0 ? 8 : 1;
    p.splatSamplesPerCell = 2;
    return p;
}

/// Random corridor inputs and constraints (seeded), every rule exercised somewhere.
inline void randomiseCorridors(std::vector<CorridorInput>& corridors, const ChainConfig& c, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.0F, 1.0F);
    for (std::size_t k = 0; k < corridors.size(); ++k) {
        CorridorInput& in = corridors[k];
        in.probability = 0.2F + 0.8F * unit(rng);
        in.initialPosition_m = 0.2F * c.positionMax_m * unit(rng);
        in.initialSpeed_mps = c.speedMax_mps * unit(rng);
        in.initialSpeedStd_mps = k % 3 == 0 ? 0.0F : 2.0F * unit(rng);
        for (int j = 0; j < c.inputCells; ++j) {
            in.initialInput[j] = unit(rng);
        }
        in.constraints = CorridorConstraints{};
        if (k % 2 == 0) {
            in.constraints.speedLimit_mps = c.speedMax_mps * (0.3F + 0.6F * unit(rng));
        }
        if (k % 3 != 2) {
            in.constraints.stopProbability = unit(rng);
            in.constraints.stopDistance_m = c.positionMax_m * (0.2F + 0.6F * unit(rng));
        }
        if (k % 4 == 1) {
            in.constraints.leadGap_m = in.initialPosition_m + 5.0F + 30.0F * unit(rng);
            in.constraints.leadSpeed_mps = c.speedMax_mps * 0.5F * unit(rng);
            in.constraints.leadDecel_mps2 = k % 8 == 1 ? 0.0F : 3.0F;  // a_max, or a comfortable lead
            in.constraints.leadAccel_mps2 = 4.0F * (unit(rng) - 0.5F);   // speeding up or slowing down
        }
    }
}

/// A harness for `corridorCount` corridors with randomiseCorridors(…, seed) inputs: the same seed
/// gives two harnesses the same corridors (a reference and a system under test).
inline PredictionHarness randomHarness(const ChainConfig& chain, const PredictionConfig& prediction, int corridorCount,
                                       std::uint32_t seed) {
    PredictionHarness h(chain, prediction, corridorCount);
    randomiseCorridors(h.corridors, chain, seed);
    return h;
}

}  // namespace augur::kernels::markov::testing
