// CPU reference of the Markov-chain prediction (Sec. 3.4 Eq. (2)), one corridor after another, and
// the checks and helpers the CUDA path shares.
#include "augur/kernels/markov/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace augur::kernels::markov {

Result<void, MarkovError> validate(const ChainConfig& chain, const PredictionConfig& p) noexcept {
    if (auto ok = validate(chain); !ok) {
        return ok;
    }
    const bool sizes = p.horizonSteps >= 1 && p.horizonSteps <= static_cast<int>(MAX_HORIZON_STEPS) &&
                       p.maxCorridors >= 1 && p.maxPolylinePoints >= 2 && p.gridWidthCells >= 1 &&
                       p.gridWidthCells <= static_cast<int>(MAX_GRID_SIDE_CELLS) && p.gridHeightCells >= 1 &&
                       p.gridHeightCells <= static_cast<int>(MAX_GRID_SIDE_CELLS) && p.gridFrames >= 1 &&
                       p.gridFrames <= static_cast<int>(MAX_GRID_FRAMES) && p.horizonSteps % p.gridFrames == 0 &&
                       p.splatSamplesPerCell >= 1 && p.splatSamplesPerCell <= 64;
    const bool values = std::isfinite(p.gridResolution_m) && p.gridResolution_m > 0.0F &&
                        std::isfinite(p.rules.comfortDecel_mps2) && p.rules.comfortDecel_mps2 > 0.0F &&
                        std::isfinite(p.rules.minGap_m) && p.rules.minGap_m >= 0.0F && std::isfinite(p.rules.headway_s) &&
                        p.rules.headway_s >= 0.0F;
    if (!sizes || !values) {
        return fail(MarkovError::InvalidPrediction);
    }
    return {};
}

void initialDistribution(const ChainConfig& c, const CorridorInput& corridor, float* p) noexcept {
    const int n = c.positionCells * c.speedCells * c.inputCells;
    for (int r = 0; r < n; ++r) {
        p[r] = initialStateProbability(c, corridor, r);
    }
}

void inputDistribution(const ChainConfig& c, float a0_mps2, float sd_mps2, float* p) noexcept {
    const int na = c.inputCells;
    if (na == 1) {
        p[0] = 1.0F;
        return;
    }
    const auto accel = [&c, na](int j) { return static_cast<double>(c.accelMax_mps2 * inputValue(j, na)); };
    double sum = 0.0;
    for (int j = 0; j < na; ++j) {
        const double w = hatExpectation(j > 0 ? accel(j - 1) : 0.0, accel(j), j + 1 < na ? accel(j + 1) : 0.0, j > 0,
                                        j + 1 < na, static_cast<double>(a0_mps2),
                                        sd_mps2 > 0.0F ? static_cast<double>(sd_mps2) : 0.0);
        p[j] = static_cast<float>(w);
        sum += w;
    }
    for (int j = 0; j < na; ++j) {
        p[j] = sum > 0.0 ? static_cast<float>(p[j] / sum) : 1.0F / static_cast<float>(na);
    }
}

namespace cpu {

namespace {

constexpr std::size_t ALIGN = 16;
std::size_t alignUp(std::size_t bytes) { return (bytes + ALIGN - 1) / ALIGN * ALIGN; }

struct CpuScratch {
    float* p;          // [n]
    float* next;       // [n]
    float* interval;   // [corridor][step][n_s]
    std::uint32_t* accumulator;  // [frame][H·W]
    PriorityTerms* terms;  // [n_v][n_a]: λ's parts that depend on the speed cell and the input only
};

std::size_t layout(const ChainConfig& c, const PredictionConfig& p, std::byte* base, CpuScratch* out) {
    const auto n = static_cast<std::size_t>(c.positionCells) * static_cast<std::size_t>(c.speedCells) *
                   static_cast<std::size_t>(c.inputCells);
    const std::size_t sizes[5] = {
        alignUp(n * sizeof(float)), alignUp(n * sizeof(float)),
        alignUp(static_cast<std::size_t>(p.maxCorridors) * static_cast<std::size_t>(p.horizonSteps) *
                static_cast<std::size_t>(c.positionCells) * sizeof(float)),
        alignUp(static_cast<std::size_t>(p.gridFrames) * static_cast<std::size_t>(p.gridWidthCells) *
                static_cast<std::size_t>(p.gridHeightCells) * sizeof(std::uint32_t)),
        alignUp(static_cast<std::size_t>(c.speedCells) * static_cast<std::size_t>(c.inputCells) * sizeof(PriorityTerms))};
    if (out != nullptr) {
        std::size_t offset = 0;
        out->p = reinterpret_cast<float*>(base + offset);
        offset += sizes[0];
        out->next = reinterpret_cast<float*>(base + offset);
        offset += sizes[1];
        out->interval = reinterpret_cast<float*>(base + offset);
        offset += sizes[2];
        out->accumulator = reinterpret_cast<std::uint32_t*>(base + offset);
        offset += sizes[3];
        out->terms = reinterpret_cast<PriorityTerms*>(base + offset);
    }
    return sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4];
}

/// (Υ·p)[row] for one ELL row.
float rowTimes(const SparseTransition& m, int row, const float* p) {
    float sum = 0.0F;
    for (int k = 0; k < m.entriesPerRow; ++k) {
        const std::size_t slot = static_cast<std::size_t>(k) * static_cast<std::size_t>(m.rows) + static_cast<std::size_t>(row);
        sum += m.value[slot] * p[m.column[slot]];
    }
    return sum;
}

}  // namespace

std::size_t predictScratchBytes(const ChainConfig& chain, const PredictionConfig& prediction) noexcept {
    return layout(chain, prediction, nullptr, nullptr);
}

void predict(const MarkovChain& chain, const PredictionConfig& pc, const InputDynamics& psi,
             const CorridorInput* corridors, int corridorCount, const Polylines& polylines, const GridPlacement& placement,
             const PredictionOutputs& out, void* scratch, std::size_t scratchBytes) noexcept {
    const ChainConfig& c = chain.config();
    AUGUR_ASSERT(corridorCount >= 0 && corridorCount <= pc.maxCorridors, "markov::cpu::predict: too many corridors");
    AUGUR_ASSERT(scratch != nullptr && scratchBytes >= predictScratchBytes(c, pc), "markov::cpu::predict: scratch too small");
    CpuScratch s{};
    layout(c, pc, static_cast<std::byte*>(scratch), &s);

    const int na = c.inputCells;
    const int nv = c.speedCells;
    const int ns = c.positionCells;
    const int H = pc.horizonSteps;
    const int n = ns * nv * na;
    const float ds = positionCellSize_m(c);
    const SparseTransition& step = chain.stepTransition();
    const SparseTransition& interval = chain.intervalTransition();

    for (int iv = 0; iv < nv; ++iv) {
        for (int j = 0; j < na; ++j) {
            s.terms[iv * na + j] = priorityTerms(speedCellUpper_mps(iv, c), j, pc.rules, c);
        }
    }
    for (int k = 0; k < corridorCount; ++k) {
        const CorridorInput& corridor = corridors[k];
        initialDistribution(c, corridor, s.p);
        for (int t = 0; t < H; ++t) {
            // Γ(t_k) acts on the states reached at t_{k+1}: λ is evaluated there (docs/design/motion-prediction.md).
            const float time_s = static_cast<float>(t + 1) * c.step_s;
            const StepBounds bounds = stepBounds(time_s, corridor.constraints, c);
            float* posMarginal = out.positionMarginal + (static_cast<std::size_t>(k) * H + t) * ns;
            float* speedMarginal = out.speedMarginal + (static_cast<std::size_t>(k) * H + t) * nv;
            float* intMarginal = s.interval + (static_cast<std::size_t>(k) * H + t) * ns;
            std::fill(speedMarginal, speedMarginal + nv, 0.0F);
            for (int is = 0; is < ns; ++is) {
                float posMass = 0.0F;
                float intMass = 0.0F;
                for (int iv = 0; iv < nv; ++iv) {
                    const int cell = is * nv + iv;
                    float q[MAX_INPUT_CELLS];
                    float lambda[MAX_INPUT_CELLS];
                    float gamma[MAX_INPUT_CELLS * MAX_INPUT_CELLS];
                    const float sFar = positionCellUpper_m(is, c);
                    const PriorityTerms* terms = s.terms + static_cast<std::ptrdiff_t>(iv) * na;
                    for (int j = 0; j < na; ++j) {
                        q[j] = rowTimes(step, cell * na + j, s.p);
                        intMass += rowTimes(interval, cell * na + j, s.p);
                        lambda[j] = priorityAt(terms[j], sFar, bounds, corridor.constraints);
                    }
                    const float press = applyFreeRoad(lambda, terms, na, speedCellUpper_mps(iv, c), sFar, bounds,
                                                      corridor.constraints, pc.rules, c);
                    inputTransitionBlock(lambda, psi.psi, na, press, gamma);
                    float cellMass = 0.0F;
                    for (int u = 0; u < na; ++u) {
                        float value = 0.0F;
                        for (int up = 0; up < na; ++up) {
                            value += gamma[u * na + up] * q[up];
                        }
                        s.next[cell * na + u] = value;
                        cellMass += value;
                    }
                    posMass += cellMass;
                    speedMarginal[iv] += cellMass;
                }
                posMarginal[is] = posMass;
                intMarginal[is] = intMass;
            }
            std::swap(s.p, s.next);

            double mean = 0.0;
            double second = 0.0;
            for (int is = 0; is < ns; ++is) {
                const double centre = positionCellCentre_m(is, c);
                mean += posMarginal[is] * centre;
                second += posMarginal[is] * centre * centre;
            }
            CorridorPoint& point = out.points[static_cast<std::size_t>(k) * H + t];
            point.sMean_m = static_cast<float>(mean);
            point.sStd_m = static_cast<float>(std::sqrt(std::max(0.0, second - mean * mean)));
            const std::size_t line = static_cast<std::size_t>(k) * static_cast<std::size_t>(pc.maxPolylinePoints);
            projectOnCentreline(polylines.x_m + line, polylines.y_m + line, polylines.s_m + line, corridor.polylinePoints,
                                point.sMean_m, point.x_m, point.y_m);
        }
    }
    (void)n;

    // Splat: the interval occupancy of each position cell, sampled along the cell, weighted by P(corridor),
    // averaged over the steps of a frame, into fixed-point accumulators.
    const int W = pc.gridWidthCells;
    const int Hc = pc.gridHeightCells;
    const int stepsPerFrame = H / pc.gridFrames;
    const int M = pc.splatSamplesPerCell;
    std::fill(s.accumulator, s.accumulator + static_cast<std::size_t>(pc.gridFrames) * W * Hc, 0U);
    for (int k = 0; k < corridorCount; ++k) {
        const std::size_t line = static_cast<std::size_t>(k) * static_cast<std::size_t>(pc.maxPolylinePoints);
        const float weight = corridors[k].probability / static_cast<float>(M * stepsPerFrame);
        for (int t = 0; t < H; ++t) {
            const float* intMarginal = s.interval + (static_cast<std::size_t>(k) * H + t) * ns;
            std::uint32_t* frame = s.accumulator + static_cast<std::size_t>(t / stepsPerFrame) * W * Hc;
            for (int is = 0; is < ns; ++is) {
                const std::uint32_t add = toGridFixed(intMarginal[is] * weight);
                if (add == 0U) {
                    continue;
                }
                for (int m = 0; m < M; ++m) {
                    const float sq = (static_cast<float>(is) + (static_cast<float>(m) + 0.5F) / static_cast<float>(M)) * ds;
                    float x = 0.0F;
                    float y = 0.0F;
                    projectOnCentreline(polylines.x_m + line, polylines.y_m + line, polylines.s_m + line,
                                        corridors[k].polylinePoints, sq, x, y);
                    const float colF = std::floor((x - placement.originX_m) / pc.gridResolution_m);
                    const float rowF = std::floor((y - placement.originY_m) / pc.gridResolution_m);
                    if (colF >= 0.0F && colF < static_cast<float>(W) && rowF >= 0.0F && rowF < static_cast<float>(Hc)) {
                        frame[static_cast<std::size_t>(rowF) * W + static_cast<std::size_t>(colF)] += add;
                    }
                }
            }
        }
    }
    for (int f = 0; f < pc.gridFrames; ++f) {
        for (std::size_t i = 0; i < static_cast<std::size_t>(W) * Hc; ++i) {
            out.grid[static_cast<std::size_t>(f) * out.gridFrameStride_cells + i] =
                gridCellValue(s.accumulator[static_cast<std::size_t>(f) * W * Hc + i]);
        }
    }
}

}  // namespace cpu
}  // namespace augur::kernels::markov
